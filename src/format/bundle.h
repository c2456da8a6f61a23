/* clang-offload-bundler containers.
 *
 * Binary bundle:
 *   "__CLANG_OFFLOAD_BUNDLE__" (24 bytes), u64 count, then per entry
 *   u64 offset, u64 size, u64 ID length, ID bytes; then the data of each
 *   entry at its offset (each offset aligned, the first one too).
 * Text bundle (preprocessed sources, IR, assembly): for each entry
 *   "\n<C> __CLANG_OFFLOAD_BUNDLE____START__ <ID>\n" <content>
 *   "\n<C> __CLANG_OFFLOAD_BUNDLE____END__ <ID>\n"
 * where <C> is the file type's line comment ("//", ";" or "#"). */
#ifndef OFFLINK_FORMAT_BUNDLE_H
#define OFFLINK_FORMAT_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"

#define OL_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define OL_BUNDLE_MAGIC_LEN 24

struct ol_bundle_entry {
	const char *id;      /* not NUL-terminated */
	size_t id_len;
	const uint8_t *data;
	uint64_t size;
};

struct ol_bundle {
	struct ol_bundle_entry *entries;
	size_t n;
};

/* The line comment of a text type ("//" for i, ii, cui, hipi; ";" for
 * ll; "#" for s, d), NULL for binary types. */
const char *ol_bundle_text_comment(const char *type);
/* True for the types clang-offload-bundler knows. */
bool ol_bundle_type_known(const char *type);

/* True if p starts with the binary bundle magic. */
bool ol_is_binary_bundle(const uint8_t *p, size_t len);

/* Decode a binary bundle; entries point into p.  Every offset, size and
 * ID is checked against len. */
enum ol_err ol_bundle_decode_binary(const uint8_t *p, size_t len,
				    struct ol_bundle *out, struct ol_diag *d);
/* Decode a text bundle with the given comment; entries point into p.  A
 * text without any marker has no entries (not an error). */
enum ol_err ol_bundle_decode_text(const uint8_t *p, size_t len,
				  const char *comment, struct ol_bundle *out,
				  struct ol_diag *d);
void ol_bundle_free(struct ol_bundle *b);
/* How many bytes the binary bundle at the start of p[0..len) takes: its
 * header and the last byte of any entry (what follows may be another
 * bundle: format/bundle_seq.h). */
enum ol_err ol_bundle_binary_extent(const uint8_t *p, size_t len, uint64_t *extent,
				    struct ol_diag *d);

struct ol_pieces;

/* Encode n entries, in order, as LLVM lays them out, into pieces: the
 * headers and markers written, the entries' data referred to where it
 * lies (common/pieces.h). */
enum ol_err ol_bundle_encode_binary(const struct ol_bundle_entry *e, size_t n,
				    uint64_t align, struct ol_pieces *pc,
				    struct ol_diag *d);
enum ol_err ol_bundle_encode_text(const struct ol_bundle_entry *e, size_t n,
				  const char *comment, struct ol_pieces *pc);

#endif
