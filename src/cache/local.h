/* The local store: a directory of entries (cache/entry.h), as ccache
 * keeps its own.
 *
 *   <dir>/<h>/<key>      an entry, <h> the key's first hex digit
 *   <dir>/<h>/stats      that shard's counters (cache/stats.h)
 *   <dir>/<h>/.tmp.*     an entry being written, renamed into place
 *   <dir>/lld-thinlto/   lld's own ThinLTO cache (llvmcache-*): a directory
 *                        a tool is handed, under the store's rules
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
/* The directory lld keeps its ThinLTO cache in, and the prefix of the
 * files it keeps there (LLVM's CachePruning reads the same). */
#define OL_LOCAL_LLD_THINLTO "lld-thinlto"
#define OL_LOCAL_LLD_PREFIX "llvmcache-"

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
	bool said_stats, said_unremovable, said_shard, said_tool_dir;
	char *tool_dir;                /* <dir>/lld-thinlto once checked, or NULL */
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

/* Store value[0..n) under key, then keep the store under its cap (its
 * entries and lld's files together, least recently used out first).  A
 * failure is not an error of the link: the store is only not filled. */
enum ol_err ol_local_put(struct ol_local *s, enum ol_entry_type type, const uint8_t key[32],
			 const void *value, size_t n, struct ol_diag *d);

/* Count one event in key's shard: kept in memory, added to the shard's
 * file by ol_local_flush_counts (beside the host link) or at close. */
void ol_local_count(struct ol_local *s, const uint8_t key[32], enum ol_stat stat);
void ol_local_flush_counts(struct ol_local *s);

/* <dir>/<name> for a tool to keep files in (lld's ThinLTO cache), under
 * the store's rules: made by offlink (mode 0700) when missing, reached
 * without following a link, and refused -- NULL, said once -- when it is
 * not a directory or anyone but the user (or root) owns or can write it,
 * since whatever is planted there the tool takes as its own.  A private
 * store only (NULL when shared).  The path is s's. */
const char *ol_local_tool_dir(struct ol_local *s, const char *name);

/* What the store holds: its entries, and lld's files (in its ThinLTO
 * cache directory) that the cap and the eviction count with them. */
struct ol_local_usage {
	uint64_t entries, bytes;         /* bytes: everything, on disk */
	uint64_t tool_files, tool_bytes; /* lld's part of it */
};

/* Sum the counters of every shard, and what the store holds. */
void ol_local_stats(struct ol_local *s, uint64_t counters[OL_STAT__COUNT],
		    struct ol_local_usage *u);

/* Remove every entry and counter (what this user may remove), and lld's
 * ThinLTO cache with its directory. */
void ol_local_clear(struct ol_local *s);

#endif
