/* Writing static archives (GNU format) through libarchive, for
 * `offlink-binary --archive` and the bundler's device archives.  Members
 * get uid/gid/mtime 0 and mode 644 so archives are reproducible. */
#ifndef OFFLINK_EXTRACT_ARCHIVE_WRITER_H
#define OFFLINK_EXTRACT_ARCHIVE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_ar_out_member {
	const char *name;
	const uint8_t *data;
	size_t size;
};

/* Write the n members to dest atomically (temporary + rename).  With
 * symbol_table, a GNU symbol index "/" of the ELF members' defined
 * globals comes first, as llvm-ar writes it, so device linkers can
 * resolve against the archive. */
enum ol_err ol_archive_write(const char *dest,
			     const struct ol_ar_out_member *members, size_t n,
			     bool symbol_table, struct ol_diag *d);

#endif
