/* Read-only views of input files.  Inputs are mapped, never read into
 * copies; archive members and embedded images are slices of the mapping. */
#ifndef OFFLINK_OS_MAPFILE_H
#define OFFLINK_OS_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_map {
	uint8_t *data; /* private mapping: libelf may be handed a writable
			* pointer, writes (none expected) never reach the file */
	size_t len;
	bool heap;     /* read into memory (a device or a pipe), not mapped */
};

/* Map path; an empty file gives data == NULL, len == 0.  A character
 * device or a pipe (clang passes /dev/null as an empty input) is read
 * instead, up to 1 GiB.  Directories are OL_E_IO errors. */
enum ol_err ol_map_file(const char *path, struct ol_map *m, struct ol_diag *d);
/* Unmap (no-op on an empty map). */
void ol_unmap(struct ol_map *m);

#endif
