/* The device-link cache's phases (src/devcache/, cache.h): open the
 * stores the options and the environment name; look every group up (its
 * image written on a hit, its linkers given a dependency file on a miss);
 * store what the links made (after the links, or while the host linker
 * runs); --cache-stats and --cache-clear. */
#ifndef OFFLINK_DEVCACHE_DEVCACHE_H
#define OFFLINK_DEVCACHE_DEVCACHE_H

#include "link/link.h"

enum ol_err ol_open_cache(struct ol_link *l);
/* As the link starts: what opening its stores will need, begun in the
 * background (a remote's libcurl). */
void ol_cache_preload(struct ol_link *l);
enum ol_err ol_lookup_device_cache(struct ol_link *l);
/* Each group's image the stores did not have, stored (once); the stores
 * are flushed by ol_cache_flush. */
void ol_cache_store_groups(struct ol_link *l);
/* Remote hits kept locally, digests remembered for the next link. */
void ol_cache_flush(struct ol_link *l);
enum ol_err ol_cache_command(struct ol_link *l);

#endif
