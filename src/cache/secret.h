/* The secret a shared cache's users share (OFFLINK_CACHE_SECRET_FILE):
 * whoever holds it can sign device code that every sharer's links will
 * take, so it is read only when nobody else can replace it, as ssh
 * treats its keys: the file is the user's or root's, nobody else may
 * write it, others may not read it, and every directory above it is the
 * user's or root's and writable by nobody else (a directory only root
 * owns with the sticky bit, as /tmp, lets nobody replace an entry that
 * is not theirs).  A refusal says exactly what to change. */
#ifndef OFFLINK_CACHE_SECRET_H
#define OFFLINK_CACHE_SECRET_H

#include "cache/entry.h"
#include "common/diag.h"

/* Read the secret at path into s (16 bytes to 4 KiB, taken as they
 * are).  OL_E_IO, with the reason and the fix in d, when it is missing,
 * unreadable or not safe. */
enum ol_err ol_secret_read(struct ol_secret *s, const char *path, struct ol_diag *d);
void ol_secret_free(struct ol_secret *s);

#endif
