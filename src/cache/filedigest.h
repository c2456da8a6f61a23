/* The SHA-256 of a file's content, for the device-link cache's keys.
 *
 * Tools (clang and its libLLVM: 200 MB) and system libraries are read on
 * every relink's lookup, so a digest is remembered: in memory for the
 * run, and in a directory of the user's own (one small file per
 * (path, device, inode, size, modification and change time)), so a file
 * is read again only when it changes.  The change time is what catches a
 * file rewritten in place with its size and modification time restored:
 * nobody can set it back.  A digest is not remembered across runs while
 * the file is younger than two seconds, as git does for its index: a
 * second write in the same clock tick would otherwise look unchanged. */
#ifndef OFFLINK_CACHE_FILEDIGEST_H
#define OFFLINK_CACHE_FILEDIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/strmap.h"
#include "os/digest.h"

struct ol_fdigest_seen;

struct ol_fdigest {
	int memo_fd;               /* the remembered digests' directory, or -1 */
	struct ol_strmap seen;     /* path -> 1 + index in v (this run) */
	struct ol_fdigest_seen *v;
	size_t n, cap;
	uint64_t bytes_read;       /* content read this run (tests, -v) */
};

/* Start with memo_dir (created, mode 0700, when missing) or NULL: this
 * run's memory only.  The caller has checked that memo_dir is private:
 * a digest remembered there is believed. */
void ol_fdigest_init(struct ol_fdigest *m, const char *memo_dir);
void ol_fdigest_free(struct ol_fdigest *m);

/* The digest of path's content.  OL_E_NOT_FOUND when it does not exist;
 * OL_E_UNSUPPORTED when it is not a regular file (a FIFO, a device: never
 * opened blocking, never read); OL_E_IO when it cannot be read. */
enum ol_err ol_fdigest_file(struct ol_fdigest *m, const char *path,
			    uint8_t out[OL_DIGEST_SIZE], struct ol_diag *d);

/* Remove remembered digests not used for max_age_s seconds (each use
 * refreshes a record's time): they are cheap to compute again. */
void ol_fdigest_forget_old(struct ol_fdigest *m, long max_age_s);

#endif
