/* The order in which LLVM's packagers write an image's string entries.
 *
 * clang-offload-packager never sorts them: they come out in the iteration
 * order of hash tables.  Every release puts the --image arguments, file
 * and kind included, in command-line order, into a DenseMap<StringRef,
 * StringRef> (llvm::hash_value(StringRef) with the fixed execution seed,
 * truncated to 32 bits, 64 buckets to start) and walks it, adding the
 * other keys to the image's string data:
 *   LLVM 16:  a StringMap (djbHash with seed 0, 16 buckets to start), whose
 *             own order is written;
 *   LLVM 17+: a MapVector, which keeps the DenseMap's order.
 * The DenseMap's hash is llvm::hash_value(StringRef): up to LLVM 22 the
 * CityHash-derived hash of ADT/Hashing.h; from LLVM 23, XXH3-64 of the
 * bytes XORed with the same fixed seed (its hash_combine_range became
 * xxh3), and its collisions probe linearly rather than quadratically, so
 * the same keys come out in another order.
 * (Found by experiment against Debian's packagers, 46 key sets of up to
 * 27 keys, then the random sets of tests/cli/packager_releases.sh.)
 * Reproducing the tables (their hashes, sizes, probing and growth) is
 * what makes offlink-binary's output byte-identical with each release's,
 * and LLVM 16's image registration order (register/image_order.c).
 * Plain computation on strings: no LLVM code, no allocation but the
 * table's own. */
#ifndef OFFLINK_FORMAT_LLVM_MAPS_H
#define OFFLINK_FORMAT_LLVM_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* LLVM's djbHash (seed 0, as StringMap used it up to LLVM 16). */
uint32_t ol_llvm_djb_hash(const char *s, size_t len);

/* llvm::hash_value(StringRef) of a release build (fixed seed) of LLVM
 * release (an unknown or newer release: the newest known). */
uint64_t ol_llvm_hash_value(const char *s, size_t len, unsigned release);

/* Iteration order of a StringMap (LLVM 16) after inserting keys[0..n) in
 * that order: order[i] is the index of the i-th key met.  Distinct keys. */
enum ol_err ol_llvm_stringmap_order(const char *const *keys, size_t n, size_t *order);

/* Iteration order of a DenseMap<StringRef, ...> (LLVM 17+) of release,
 * likewise. */
enum ol_err ol_llvm_densemap_order(const char *const *keys, size_t n, unsigned release,
				   size_t *order);

/* The same for keys given by their 32-bit DenseMapInfo hashes. */
enum ol_err ol_llvm_densemap_order_hashed(const uint32_t *hashes, size_t n, unsigned release,
					  size_t *order);

/* DenseMapInfo<std::pair<A, B>>::getHashValue from the two halves' hashes
 * (a pair of StringRefs: each half (uint32_t)ol_llvm_hash_value; LLVM 16's
 * registration order is the only user). */
uint32_t ol_llvm_pair_hash(uint32_t first, uint32_t second);

#endif
