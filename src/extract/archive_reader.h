/* Static archives read in place: libarchive walks the member headers of
 * the mapped archive and hands back slices of the mapping, never copies.
 * The symbol index (GNU "/" or "/SYM64/", BSD "__.SYMDEF") is parsed here
 * for archive member selection. */
#ifndef OFFLINK_EXTRACT_ARCHIVE_READER_H
#define OFFLINK_EXTRACT_ARCHIVE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_ar_member {
	const char *name;       /* valid during the callback only */
	uint8_t *data;          /* slice of the archive */
	size_t size;
	uint64_t header_offset; /* where its header starts in the archive */
	uint64_t data_offset;   /* where its data starts */
	size_t index;           /* 0-based, pseudo-members not counted */
};

/* True for "!<arch>\n" (and the thin "!<thin>\n", rejected on read). */
bool ol_is_archive(const uint8_t *p, size_t len);

typedef enum ol_err (*ol_ar_member_cb)(void *ctx, const struct ol_ar_member *m,
				       struct ol_diag *d);
/* Call cb for every real member in order (symbol tables and the long-name
 * table are skipped). */
enum ol_err ol_archive_for_each(uint8_t *p, size_t len, ol_ar_member_cb cb,
				void *ctx, struct ol_diag *d);

typedef enum ol_err (*ol_ar_symbol_cb)(void *ctx, const char *name,
				       uint64_t member_header_offset,
				       struct ol_diag *d);
/* Call cb for every entry of the archive's symbol index; *has_index says
 * whether there was one (an archive made with `ar rcS` has none). */
enum ol_err ol_archive_for_each_symbol(uint8_t *p, size_t len,
				       ol_ar_symbol_cb cb, void *ctx,
				       bool *has_index, struct ol_diag *d);

#endif
