/* The offload binary container (magic 10 FF 10 AD), versions 1 to 3.
 *
 * Pure byte-buffer code: no files, no ELF.  Version 1 is what LLVM 14-21
 * write (one entry per binary, 16-byte string entries); version 2 holds
 * several entries and 24-byte string entries with explicit value sizes;
 * version 3 adds a 40-byte header whose InflatedSize marks a zlib/zstd
 * compressed body.  docs/format.md has the byte tables. */
#ifndef OFFLINK_FORMAT_OFFLOAD_BINARY_H
#define OFFLINK_FORMAT_OFFLOAD_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"
#include "format/compress.h"
#include "format/offload_kinds.h"

#define OB_MAGIC_BYTES "\x10\xff\x10\xad"
#define OB_HEADER_SIZE_V1 32u
#define OB_HEADER_SIZE_V3 40u
#define OB_ENTRY_SIZE 40u
#define OB_STRING_ENTRY_SIZE_V1 16u
#define OB_STRING_ENTRY_SIZE_V2 24u
/* Entry flag of newer LLVM: the entry carries metadata but no image. */
#define OB_FLAG_METADATA_ONLY 1u

/* The version LLVM release's tools write: 1 up to LLVM 22, 2 for 23
 * (several entries in one binary), 3 from 24 (a 40-byte header, so that
 * a binary may be compressed; uncompressed unless asked). */
unsigned ob_release_version(unsigned release);

/* True if p starts with the offload binary magic. */
bool ob_is_offload_binary(const uint8_t *p, size_t len);

struct ob_string {
	const char *key;   /* NUL-terminated */
	const char *value; /* NUL-terminated (copied for v2+ when needed) */
	size_t value_len;
};

struct ob_entry {
	uint16_t image_kind;       /* enum ob_image_kind, or an unknown value */
	uint16_t offload_kind_raw; /* as stored */
	enum ob_offload_kind offload_kind;
	uint32_t flags;
	uint64_t image_offset;     /* inside the (uncompressed) binary */
	const uint8_t *image;
	uint64_t image_size;
	size_t nstrings;
	struct ob_string *strings;
};

struct ob_binary {
	uint32_t version;
	uint64_t size;           /* bytes the binary occupies in its input */
	uint64_t inflated_size;  /* v3 compressed: uncompressed size; else 0 */
	enum ol_compression compression; /* meaningful when inflated_size */
	const uint8_t *bytes;    /* the whole uncompressed binary */
	uint64_t nbytes;
	size_t nentries;
	struct ob_entry *entries;
	void *owned;             /* decompressed bytes and copied strings */
};

/* Decode the binary starting at buf[0]; len is what remains of the
 * container.  On success *out owns its tables (free with ob_binary_free);
 * images and strings point into buf or into out->owned.  Offsets in *d
 * are relative to buf. */
enum ol_err ob_decode(const uint8_t *buf, size_t len, struct ob_binary *out,
		      struct ol_diag *d);

/* Release what ob_decode allocated. */
void ob_binary_free(struct ob_binary *b);

/* The value of key in e, or NULL when the entry has no such key. */
const char *ob_entry_get(const struct ob_entry *e, const char *key);

/* Iterate over the binaries concatenated in one section or file.  The next
 * binary starts at the previous end rounded up to 8 (newer LLVM; identical
 * for version 1, whose sizes are multiples of 8).  Anything after the last
 * binary that is not another binary is an error. */
struct ob_walk {
	const uint8_t *buf;
	size_t len;
	size_t off;   /* offset of the next binary */
	size_t count; /* binaries returned so far */
};

/* Start walking buf[0..len). */
void ob_walk_init(struct ob_walk *w, const uint8_t *buf, size_t len);
/* Decode the next binary into *out (and set *have), or set *have = false
 * at the end.  Offsets in *d are relative to the walked buffer. */
enum ol_err ob_walk_next(struct ob_walk *w, struct ob_binary *out, bool *have,
			 struct ol_diag *d);

/* ---- encoding ---- */

struct ob_kv {
	const char *key;
	const char *value;
};

/* One image to encode.  String entries are written in the given order. */
struct ob_image_desc {
	uint16_t image_kind;
	uint16_t offload_kind_raw;
	uint32_t flags;
	const struct ob_kv *strings;
	size_t nstrings;
	const uint8_t *image;   /* may be NULL with image_size set, see below */
	uint64_t image_size;
};

struct ob_encode_opts {
	unsigned version;       /* 1 (default when 0), 2 or 3 */
	bool compress;          /* version 3 only */
	enum ol_compression method;
	int level;
};

/* Append the encoding of n images to out: version 1 writes one complete
 * binary per image, back to back, laid out exactly as LLVM 19's packager
 * does; versions 2 and 3 write one binary holding n entries. */
struct ol_pieces;

/* As ob_encode, into pieces: the headers and tables in pc->own, the
 * images referred to where they lie, so that a writer sends them to the
 * output without a copy (common/pieces.h).  Compressed binaries are
 * whole in pc->own. */
enum ol_err ob_encode_pieces(const struct ob_image_desc *imgs, size_t n,
			     const struct ob_encode_opts *opts, struct ol_pieces *pc,
			     struct ol_diag *d);

enum ol_err ob_encode(const struct ob_image_desc *imgs, size_t n,
		      const struct ob_encode_opts *opts, struct ol_buf *out,
		      struct ol_diag *d);

/* For embedding one image without copying it: append the bytes that
 * precede the image in a binary of version 1, 2 or 3 (uncompressed:
 * header, entry, strings, padding) and say where the image starts and
 * how many zero bytes follow it.  The image pointer in img is not read. */
enum ol_err ob_encode_head(const struct ob_image_desc *img, unsigned version,
			   struct ol_buf *out, uint64_t *image_offset, uint64_t *tail_pad);

#endif
