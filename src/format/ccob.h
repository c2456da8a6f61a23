/* Compressed offload bundles ("CCOB"): a header, then one zlib or zstd
 * stream of a whole bundle (binary or text).
 *
 *        v1 (LLVM 18)        v2 (LLVM 19 writes)      v3 (LLVM 20+)
 *   0    "CCOB"              "CCOB"                   "CCOB"
 *   4    u16 version 1       u16 2                    u16 3
 *   6    u16 method          u16 method               u16 method
 *   8    u32 uncompressed    u32 total file size      u64 total file size
 *  12    u64 hash            u32 uncompressed         -
 *  16                        u64 hash                 u64 uncompressed
 *  24                        data                     u64 hash
 *  32                                                 data
 * method: 0 zlib, 1 zstd; hash: the first 8 bytes of MD5(uncompressed),
 * as stored by LLVM (its MD5Result::low() reads them little-endian). */
#ifndef OFFLINK_FORMAT_CCOB_H
#define OFFLINK_FORMAT_CCOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"
#include "format/compress.h"

struct ol_ccob_info {
	unsigned version;
	enum ol_compression method;
	uint64_t total_size;        /* 0 for v1, which has none */
	uint64_t uncompressed_size;
	uint64_t compressed_size;
	uint8_t hash[8];            /* as stored */
	uint8_t computed[8];        /* recomputed on decode */
};

/* True if p starts with "CCOB". */
bool ol_is_ccob(const uint8_t *p, size_t len);

/* How many bytes the compressed bundle at the start of p[0..len) takes:
 * its total size (versions 2 and 3), or its header and compressed stream
 * (version 1, which does not say). */
enum ol_err ol_ccob_extent(const uint8_t *p, size_t len, uint64_t *extent, struct ol_diag *d);

/* The header of the compressed bundle that is all of p[0..len), checked
 * as ol_ccob_decode checks it (sizes; no more declared than its
 * compressed bytes may inflate to, format/compress.h), nothing inflated:
 * what decoding it would take. */
enum ol_err ol_ccob_header(const uint8_t *p, size_t len, struct ol_ccob_info *info,
			   struct ol_diag *d);

/* Decompress into out; the stored hash must match the recomputed one.
 * A header declaring more than its compressed bytes may inflate to is an
 * error before anything is inflated. */
enum ol_err ol_ccob_decode(const uint8_t *p, size_t len, struct ol_buf *out,
			   struct ol_ccob_info *info, struct ol_diag *d);

/* Compress len bytes as version 2 (LLVM 19's default) or 3; zstd with
 * long-distance matching, as clang-offload-bundler compresses. */
enum ol_err ol_ccob_encode(const uint8_t *p, size_t len, unsigned version,
			   enum ol_compression method, int level,
			   struct ol_buf *out, struct ol_ccob_info *info,
			   struct ol_diag *d);

/* The 8 stored hash bytes as LLVM's -verbose prints them: the
 * little-endian value in hex, without leading zeros. */
void ol_ccob_hash_text(const uint8_t hash[8], char *out, size_t len);

#endif
