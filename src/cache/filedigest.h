/* The SHA-256 of a file's content, for the device-link cache's keys (an
 * XXH3-128 for a file only root can change, and for programs: see
 * ol_fdigest_program).
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

struct stat;

struct ol_fdigest_seen;

/* What stat said of a file when it was first looked at this run:
 * whether it was there, and everything a change of its content changes
 * (the change time cannot be set back, so a rewrite in place with its
 * size and modification time restored still shows). */
struct ol_fstate {
	bool exists;
	bool ok;                   /* a regular file */
	bool unstable;             /* it changed while it was read */
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

/* A digest to remember, not yet written (ol_fdigest_flush). */
struct ol_fdigest_record {
	char name[2 * OL_DIGEST_SIZE + 1];
	uint8_t digest[OL_DIGEST_SIZE];
};

struct ol_fdigest_ahead;

struct ol_fdigest {
	int memo_fd;               /* the remembered digests' directory, or -1 */
	char *memo_dir;            /* its path (a record's temporary is known to
				    * the cleanup registry and the watchdog) */
	struct ol_strmap seen;     /* path -> 1 + index in v (this run) */
	struct ol_fdigest_seen *v;
	size_t n, cap;
	uint64_t bytes_read;       /* content read this run (tests, -v) */
	struct ol_fdigest_record *pending; /* to remember, not yet written */
	size_t npending, cappending;
	struct ol_fdigest_ahead **ahead; /* programs digested in threads */
	size_t nahead, capahead;
};

/* Start with memo_dir (created, mode 0700, when missing) or NULL: this
 * run's memory only.  A digest remembered there is believed, so it is
 * used only when it is the user's alone: owned by the user, open to
 * nobody else, reached without following a link, inside a directory
 * only the user (or root, sticky) can change; each record the user's
 * own. */
void ol_fdigest_init(struct ol_fdigest *m, const char *memo_dir);
void ol_fdigest_free(struct ol_fdigest *m); /* (flushes first) */

/* Write the digests this run will remember (they are kept in memory until
 * then: a link writes them beside its host link, off its critical path). */
void ol_fdigest_flush(struct ol_fdigest *m);

/* The digest of path's content.  OL_E_NOT_FOUND when it does not exist;
 * OL_E_UNSUPPORTED when it is not a regular file (a FIFO, a device: never
 * opened blocking, never read); OL_E_IO when it cannot be read. */
enum ol_err ol_fdigest_file(struct ol_fdigest *m, const char *path,
			    uint8_t out[OL_DIGEST_SIZE], struct ol_diag *d);

/* As ol_fdigest_file, and *index names the record (for the checks
 * below); *index is set even when the file is missing. */
enum ol_err ol_fdigest_file_at(struct ol_fdigest *m, const char *path,
			       uint8_t out[OL_DIGEST_SIZE], size_t *index, struct ol_diag *d);

/* A program's content (one without a GNU build ID), as a 128-bit
 * XXH3 in out's first 16 bytes: fast enough for the 37 MB CUDA tools on a
 * worker that has remembered nothing (SHA-256 took 25 ms a tool).  Its
 * inputs stay SHA-256: whoever can make the link run another program
 * needs no hash collision; a collision of inputs could be planted.
 * Remembered apart from the SHA-256 of the same file. */
enum ol_err ol_fdigest_program(struct ol_fdigest *m, const char *path,
			       uint8_t out[OL_DIGEST_SIZE], size_t *index, struct ol_diag *d);

/* Begin digesting the program at path (a real path, one without a build
 * ID) as ol_fdigest_program would, in a thread of its own, when it is
 * large and its digest is not remembered: a fresh worker keys ptxas and
 * nvlink (37 MB each) side by side, while the lookup does other work.
 * ol_fdigest_program takes the result when the file is still as it was
 * when the thread opened it, and digests it itself otherwise. */
void ol_fdigest_prefetch(struct ol_fdigest *m, const char *path);
#define OL_FDIGEST_AHEAD_MIN (1u << 20) /* smaller: not worth a thread */

/* Note path's state without reading it (a program keyed by its build ID,
 * an input whose bytes are keyed from memory): st, what fstat said of
 * the descriptor that was read, or NULL to stat path now.  *index names
 * the record.  False only when out of memory. */
bool ol_fdigest_note(struct ol_fdigest *m, const char *path, const struct stat *st,
		     size_t *index);

/* The record's path and the state it was first seen in. */
const char *ol_fdigest_path(const struct ol_fdigest *m, size_t index);
const struct ol_fstate *ol_fdigest_state(const struct ol_fdigest *m, size_t index);

/* Whether the file is now as it was when first seen: there or not, and
 * the same identity, size and times.  What a key was computed from must
 * still hold after the link it keys, or the link may have read something
 * else. */
bool ol_fdigest_unchanged(const struct ol_fdigest *m, size_t index);

/* Whether the record was changed (its change or modification time) at or
 * after t, wall-clock seconds on the coarse clock the kernel stamps
 * files with (CLOCK_REALTIME_COARSE): a file first read after the link
 * started is trusted to be what the link read only if it was last
 * changed before the link's key was begun.  (A change within the same
 * clock tick counts as after; on a file system that keeps whole
 * seconds, within the same second.) */
bool ol_fdigest_changed_since(const struct ol_fdigest *m, size_t index, double t);

/* The state of path now (stat, following links as the tools do). */
void ol_fstate_of(const char *path, struct ol_fstate *out);

/* The name of the record remembering path's digest in the state st (a
 * digest of both): what tests/lib/memo_forge writes to show that no
 * record planted by someone else is believed. */
void ol_fdigest_memo_name(const char *path, const struct stat *st,
			  char out[2 * OL_DIGEST_SIZE + 1]);

/* Remove remembered digests not used for max_age_s seconds (each use
 * refreshes a record's time): they are cheap to compute again. */
void ol_fdigest_forget_old(struct ol_fdigest *m, long max_age_s);

#endif
