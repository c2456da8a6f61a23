/* Files in offlink's private temporary directory, written for the tools
 * it runs.  The directory is made with mkdtemp, registered for removal,
 * and nothing else writes there, so these files need none of an
 * output's care (a temporary name, a rename): one open, the writes, one
 * close.  Data is written straight from where it lies (the inputs'
 * mappings), never copied first. */
#ifndef OFFLINK_OS_SCRATCH_H
#define OFFLINK_OS_SCRATCH_H

#include <stddef.h>

#include "common/diag.h"

/* path := buf[0..len); path must not exist. */
enum ol_err ol_scratch_write(const char *path, const void *buf, size_t len,
			     struct ol_diag *d);

/* One member of a scratch archive. */
struct ol_scratch_member {
	const void *data;
	size_t len;
};

/* path := a GNU archive of members named "0.o", "1.o", ... in order,
 * without a symbol index (its readers take it with --whole-archive), in
 * as few write calls as the members allow. */
enum ol_err ol_scratch_archive(const char *path, const struct ol_scratch_member *m,
			       size_t n, struct ol_diag *d);

#endif
