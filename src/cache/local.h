/* The local store: a directory of entries (cache/entry.h), as ccache
 * keeps its own.
 *
 *   <dir>/<h>/<key>      an entry, <h> the key's first hex digit
 *   <dir>/<h>/stats      that shard's counters (cache/stats.h)
 *   <dir>/<h>/.tmp.*     an entry being written, renamed into place
 *
 * Nothing here follows a symbolic link or opens anything but a regular
 * file: the directory is opened once and everything below it is reached
 * with openat(O_NOFOLLOW), entries are opened O_NONBLOCK and checked
 * with fstat before use, and eviction removes only regular files with an
 * entry's name inside the store's own subdirectories.
 *
 * A private store (the default) must be writable by the user alone (or
 * root): a directory or subdirectory that anyone else can write is
 * refused, since they could plant entries.  A shared store (the user said
 * so: --cache-shared) may be writable by the farm's users, and then
 * every entry is authenticated with the shared secret; an entry that
 * fails is never used. */
#ifndef OFFLINK_CACHE_LOCAL_H
#define OFFLINK_CACHE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/entry.h"
#include "cache/stats.h"
#include "common/buf.h"
#include "common/diag.h"

#define OL_LOCAL_SHARDS 16 /* <h>: a key's first hex digit */

struct ol_local {
	char *dir;
	int fd;                        /* the directory, opened; -1 */
	uint64_t cap;                  /* bytes, all entries together */
	bool shared;
	const struct ol_secret *secret; /* NULL or none: private */
	unsigned mode;                 /* a shared store's subdirectories get the
					* top directory's permission bits */
	/* Said once per link each: statistics skipped (another process
	 * holds a shard's lock), entries nobody here can remove, a shard
	 * this user cannot write. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	bool said_stats, said_unremovable, said_shard;
	/* Counted, not yet added to the shards' files (ol_local_flush_counts) */
	uint64_t pending[OL_LOCAL_SHARDS][OL_STAT__COUNT];
	bool any_pending;
};

enum ol_local_result { OL_LOCAL_MISS, OL_LOCAL_HIT, OL_LOCAL_REJECTED };

/* Open dir (created, mode 0700, when missing; shared: it must exist).
 * OL_E_UNSUPPORTED, with why in d, for a store that is not safe to use:
 * not a directory, or writable by others while private. */
enum ol_err ol_local_open(struct ol_local *s, const char *dir, uint64_t cap, bool shared,
			  const struct ol_secret *secret, struct ol_diag *d);
void ol_local_close(struct ol_local *s);

/* Look up key: the value written to dest (a new file) or appended to out.
 * OL_LOCAL_REJECTED: an entry was there and failed its check (damaged, or
 * planted by someone without the secret); it was removed when possible. */
enum ol_local_result ol_local_get(struct ol_local *s, enum ol_entry_type type,
				  const uint8_t key[32], const char *dest, struct ol_buf *out);

/* Store value[0..n) under key, then keep the store under its cap.  A
 * failure is not an error of the link: the store is only not filled. */
enum ol_err ol_local_put(struct ol_local *s, enum ol_entry_type type, const uint8_t key[32],
			 const void *value, size_t n, struct ol_diag *d);

/* Count one event in key's shard: kept in memory, added to the shard's
 * file by ol_local_flush_counts (beside the host link) or at close. */
void ol_local_count(struct ol_local *s, const uint8_t key[32], enum ol_stat stat);
void ol_local_flush_counts(struct ol_local *s);

/* Sum the counters of every shard, and the entries' count and size. */
void ol_local_stats(struct ol_local *s, uint64_t counters[OL_STAT__COUNT], uint64_t *entries,
		    uint64_t *bytes);

/* Remove every entry and counter (what this user may remove). */
void ol_local_clear(struct ol_local *s);

#endif
