/* A cache of files by key (the device-link cache, driver/device_cache.c).
 *
 * An entry is <dir>/<first hex digit of the key>/<key>: a 64-byte header
 * (magic, the value's size, its SHA-256) and the value.  Entries are
 * written to a temporary name in their directory and renamed, so a
 * reader sees a whole entry or none, however many processes share the
 * directory; a value whose size or digest does not match its header
 * (a truncated or corrupted file) is removed and reported as a miss,
 * never used.  A hit refreshes the entry's modification time, and after
 * each store, when the entries together pass the size cap, the least
 * recently used go (down to nine tenths of it).  Failing to write the cache is
 * never an error of the link: the cache is then only not filled. */
#ifndef OFFLINK_OS_CACHE_H
#define OFFLINK_OS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_cache {
	char *dir;      /* NULL: no cache */
	uint64_t cap;   /* bytes, all subdirectories together */
};

/* "500M", "2G", "65536": a size cap in bytes (K, M, G, T: powers of
 * 1024); OL_E_USAGE for anything else or 0. */
enum ol_err ol_cache_parse_size(const char *s, uint64_t *out);

/* Use dir (created when first written) with the size cap; dir NULL
 * disables the cache. */
enum ol_err ol_cache_init(struct ol_cache *c, const char *dir, uint64_t cap);
void ol_cache_free(struct ol_cache *c);

enum ol_cache_lookup { OL_CACHE_MISS, OL_CACHE_HIT, OL_CACHE_CORRUPT };

/* Whether an entry for key exists (unchecked: for the plan's forecast). */
bool ol_cache_has(const struct ol_cache *c, const char *key);

/* Look key (64 hex digits) up; on a hit the value is written to dest (a
 * new file).  OL_CACHE_CORRUPT: there was an entry, it failed its check
 * and was removed (a miss to the caller). */
enum ol_cache_lookup ol_cache_get(struct ol_cache *c, const char *key, const char *dest);

/* Store the file src under key. */
enum ol_err ol_cache_put(struct ol_cache *c, const char *key, const char *src,
			 struct ol_diag *d);

#endif
