/* The device-link cache's counters, as `ccache -s` shows its own: kept
 * per shard of the local store (one small file per subdirectory, updated
 * under flock), so concurrent links rarely wait on one another, and
 * summed by `offlink --cache-stats`. */
#ifndef OFFLINK_CACHE_STATS_H
#define OFFLINK_CACHE_STATS_H

enum ol_stat {
	OL_STAT_LOCAL_HIT,    /* the image came from the local store */
	OL_STAT_REMOTE_HIT,   /* from a remote (and filled the local store) */
	OL_STAT_MISS,         /* linked */
	OL_STAT_UNCACHEABLE,  /* not looked up: an input the key cannot name */
	OL_STAT_LOCAL_STORE,  /* images stored locally */
	OL_STAT_REMOTE_STORE, /* images stored on a remote */
	OL_STAT_REJECTED,     /* entries that failed their check */
	OL_STAT_REMOTE_ERROR, /* remotes that failed (then skipped for the link) */
	OL_STAT_EVICTED,      /* entries removed to keep the cap */
	OL_STAT_STEP_HIT,     /* a step within a link (a ThinLTO module) served */
	OL_STAT_STEP_MISS,    /* ... not found: it ran */
	OL_STAT__COUNT
};

/* The counter's name in `offlink --cache-stats`. */
const char *ol_stat_name(enum ol_stat s);

#endif
