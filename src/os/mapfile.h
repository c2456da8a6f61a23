/* Read-only views of input files.  Inputs are mapped, never read into
 * copies; archive members and embedded images are slices of the mapping. */
#ifndef OFFLINK_OS_MAPFILE_H
#define OFFLINK_OS_MAPFILE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_map {
	uint8_t *data; /* private mapping: libelf may be handed a writable
			* pointer, writes (none expected) never reach the file */
	size_t len;
	bool heap;     /* read into memory (a device or a pipe), not mapped */
	int kept_fd;   /* the file + 1 when ol_map_file_fd keeps it open; 0
			* otherwise, so that a zeroed map owns no descriptor */
	bool have_st;  /* st: what fstat said of the file that was mapped */
	struct stat st;
};

/* The file descriptor ol_map_file_fd kept, or -1. */
static inline int ol_map_fd(const struct ol_map *m)
{
	return m->kept_fd - 1;
}

/* Map path; an empty file gives data == NULL, len == 0.  A character
 * device or a pipe (clang passes /dev/null as an empty input) is read
 * instead, up to 1 GiB.  Directories are OL_E_IO errors. */
enum ol_err ol_map_file(const char *path, struct ol_map *m, struct ol_diag *d);
/* The same, keeping the file open in m->fd (-1 when it was read, not
 * mapped), so that its bytes can be copied to an output from the file
 * (a reflink, or pread in large blocks) rather than through the mapping.  For the few inputs
 * of a format tool, not for a link's thousands. */
enum ol_err ol_map_file_fd(const char *path, struct ol_map *m, struct ol_diag *d);
/* Unmap (no-op on an empty map), and close a kept file. */
void ol_unmap(struct ol_map *m);

#endif
