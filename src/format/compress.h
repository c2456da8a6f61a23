/* zlib and zstd behind one interface, with the method numbers LLVM uses
 * (llvm::compression::Format): 0 = zlib (RFC 1950), 1 = zstd. */
#ifndef OFFLINK_FORMAT_COMPRESS_H
#define OFFLINK_FORMAT_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"

enum ol_compression {
	OL_COMP_ZLIB = 0,
	OL_COMP_ZSTD = 1,
};

/* Method whose stream starts at p: zstd if it carries zstd's frame magic
 * (28 B5 2F FD), otherwise zlib. */
enum ol_compression ol_compression_sniff(const uint8_t *p, size_t len);

/* "zlib" / "zstd". */
const char *ol_compression_name(enum ol_compression m);

/* Default level LLVM uses: zlib 6, zstd 3. */
int ol_compression_default_level(enum ol_compression m);

/* Valid level range for the method (zlib 0..9, zstd -5..22). */
void ol_compression_level_range(enum ol_compression m, int *lo, int *hi);

/* Compress len bytes into out (appended).  ldm enables zstd's long-distance
 * matching, as clang-offload-bundler does. */
enum ol_err ol_compress(enum ol_compression m, int level, int ldm,
			const uint8_t *src, size_t len, struct ol_buf *out,
			struct ol_diag *d);

/* The most a compressed stream of `stored` bytes may inflate to:
 * OL_INFLATE_RATIO times as much, plus OL_INFLATE_SLACK.  Real device
 * code compresses a few times over, padding a few dozen; zstd can reach
 * some 32,000:1 (a 16 KiB stream of 512 MiB), so a header that declares
 * more is refused before anything is inflated (docs/security.md,
 * "Limits"): NVIDIA fat binary entries, compressed bundles, compressed
 * offload binaries. */
#define OL_INFLATE_RATIO 2048u
#define OL_INFLATE_SLACK 65536u
uint64_t ol_inflate_max(uint64_t stored);

/* Decompress all of src, which must produce exactly expect bytes (appended
 * to out).  Output is grown as data arrives, so a lying expect cannot make
 * us allocate more than the stream really holds.  Bytes after the end of
 * the stream are an error. */
enum ol_err ol_decompress(enum ol_compression m, const uint8_t *src,
			  size_t len, uint64_t expect, struct ol_buf *out,
			  struct ol_diag *d);

/* The length of the one compressed stream (a zstd frame, a zlib stream)
 * at the start of src[0..len) that holds expect bytes: what a compressed
 * bundle of version 1, which does not say its size, takes of a section
 * holding several.  (A zlib stream is inflated to find its end, never
 * past expect bytes; a zstd frame's blocks say their sizes.) */
enum ol_err ol_compressed_length(enum ol_compression m, const uint8_t *src, size_t len,
				 uint64_t expect, size_t *used, struct ol_diag *d);

#endif
