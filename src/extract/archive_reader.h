/* Static archives read in place: libarchive walks the member headers of
 * the mapped archive and hands back slices of the mapping, never copies.
 * The symbol index (GNU "/" or "/SYM64/", BSD "__.SYMDEF") is parsed here
 * for archive member selection.
 *
 * Thin archives ("!<thin>\n", `ar rcT`) hold only the headers, the symbol
 * index and the long-name table; each member is a file named relative to
 * the archive's directory.  libarchive does not read them: their headers
 * are walked here, with the same checks, and each member file is mapped
 * (a slice of its own mapping). */
#ifndef OFFLINK_EXTRACT_ARCHIVE_READER_H
#define OFFLINK_EXTRACT_ARCHIVE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "os/mapfile.h"

/* The mappings of a thin archive's member files, kept for as long as the
 * caller uses the members' data. */
struct ol_ar_keep {
	struct ol_map *maps;
	size_t n, cap;
};

/* Unmap everything kept. */
void ol_ar_keep_free(struct ol_ar_keep *k);

struct ol_ar_member {
	const char *name;       /* valid during the callback only */
	uint8_t *data;          /* slice of the archive */
	size_t size;
	uint64_t header_offset; /* where its header starts in the archive */
	uint64_t data_offset;   /* where its data starts */
	size_t index;           /* 0-based, pseudo-members not counted */
};

/* True for "!<arch>\n" and the thin "!<thin>\n". */
bool ol_is_archive(const uint8_t *p, size_t len);
/* True for a thin archive. */
bool ol_is_thin_archive(const uint8_t *p, size_t len);

typedef enum ol_err (*ol_ar_member_cb)(void *ctx, const struct ol_ar_member *m,
				       struct ol_diag *d);
/* Call cb for every real member in order (symbol tables and the long-name
 * table are skipped).  path is the archive's own path: a thin archive's
 * members are found beside it.  Their mappings go into keep, or, with
 * keep NULL, live only during the callback. */
enum ol_err ol_archive_for_each(const char *path, uint8_t *p, size_t len,
				ol_ar_member_cb cb, void *ctx, struct ol_ar_keep *keep,
				struct ol_diag *d);

typedef enum ol_err (*ol_ar_symbol_cb)(void *ctx, const char *name,
				       uint64_t member_header_offset,
				       struct ol_diag *d);
/* Call cb for every entry of the archive's symbol index; *has_index says
 * whether there was one (an archive made with `ar rcS` has none). */
enum ol_err ol_archive_for_each_symbol(uint8_t *p, size_t len,
				       ol_ar_symbol_cb cb, void *ctx,
				       bool *has_index, struct ol_diag *d);

#endif
