/* Outputs are never written in place: they go to a temporary name in the
 * destination's directory (so rename is atomic) and are renamed into place
 * only when complete.  The temporary is in the cleanup registry until then,
 * so a failure or a signal leaves neither a partial output nor a stray
 * temporary. */
#ifndef OFFLINK_OS_OUTFILE_H
#define OFFLINK_OS_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"

struct ol_outfile {
	char *dest;   /* final path */
	char *tmp;    /* temporary path, or NULL when writing dest directly */
	int fd;       /* open for writing after ol_out_open, else -1 */
	char *dir;    /* ol_out_reserve: the private directory holding tmp */
	char token[24]; /* ... and ".offlink-XXXXXX/", or "" */
};

/* Open a temporary beside dest for writing through o->fd.  When dest
 * exists and is not a regular file (a device such as /dev/null) it is
 * opened directly instead. */
enum ol_err ol_out_open(struct ol_outfile *o, const char *dest,
			struct ol_diag *d);
/* Reserve "<dir>/.offlink-XXXXXX/<base>" for dest "<dir>/<base>", for a
 * subprocess (the host linker, objcopy) to write; o->fd stays -1.  A
 * private directory beside dest, not a temporary name: the output keeps
 * dest's base name, so what a linker names after its output (GNU ld's
 * -Map=DIR and -Map=%, lld's --time-trace, --save-temps, --reproduce)
 * is right; the whole path differs from dest only by the token
 * ".offlink-XXXXXX/" (ol_out_dir_token), which no make or map escaping
 * changes; and a directory, once removed (by the cleanup or the link's
 * watchdog), cannot have a file appear in it again from a subprocess
 * still running.  Commit moves whatever else the subprocess wrote there
 * beside dest, then the output into place. */
enum ol_err ol_out_reserve(struct ol_outfile *o, const char *dest,
			   struct ol_diag *d);
/* ".offlink-XXXXXX/" of an ol_out_reserve output, or NULL. */
const char *ol_out_dir_token(const struct ol_outfile *o);
/* Write all of buf to o->fd. */
enum ol_err ol_out_write(struct ol_outfile *o, const void *buf, size_t len,
			 struct ol_diag *d);
/* Close, give the file the mode a new file would get (0666 or, with
 * executable, 0777, less the umask) and rename it into place. */
enum ol_err ol_out_commit(struct ol_outfile *o, bool executable,
			  struct ol_diag *d);
/* Close and remove the temporary; dest is untouched. */
void ol_out_abort(struct ol_outfile *o);
/* The path to write: o->tmp, or o->dest when writing directly. */
const char *ol_out_path(const struct ol_outfile *o);

/* Write a whole file atomically. */
enum ol_err ol_write_file_atomic(const char *dest, const void *buf, size_t len,
				 struct ol_diag *d);

struct ol_pieces;
struct ol_map;

/* dest := len bytes at data, which may lie in the mapping m of a file
 * kept open (os/mapfile.h): then copied by the kernel from the file. */
enum ol_err ol_write_from_map(const char *dest, const struct ol_map *m, const void *data,
			      size_t len, struct ol_diag *d);

/* dest := the pieces, in order, through a temporary and a rename, each
 * piece written from where it lies (common/pieces.h). */
enum ol_err ol_write_pieces_atomic(const char *dest, const struct ol_pieces *p,
				   struct ol_diag *d);

#endif
