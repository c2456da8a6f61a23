/* The device-link cache: a group whose link would read the same bytes
 * with the same tools and the same arguments gets the image it made last
 * time, and no device linker runs (the common relink: only host code was
 * edited).  A cache never changes what a link produces, so a key holds
 * everything that can change the image, by content (docs/design.md,
 * "Device-link cache", lists every ingredient):
 *
 * 1. The group's own key, computed before it links: offlink's version,
 *    the group's target, the environment variables its tools read, and
 *    per step the program (cache/program.h: its content and its own
 *    libraries') and its arguments read by what they mean to that tool
 *    (cache/step_key.h, from the step's own description, the command a
 *    backend planned): files by content, -l as the
 *    file the tool's own search finds, @files by content and by what they
 *    hold.  A link through clang is keyed by what clang would run
 *    (`clang ... -###`: the linker found through PATH, the start files,
 *    its search directories), not by clang's arguments.  Then the bytes
 *    of every input image.
 * 2. What the linker read on its own (the libraries a linker script
 *    names, DT_NEEDED of the shared libraries, start files): its
 *    dependency file, written on the miss, is kept as a manifest under
 *    the group's key; a lookup digests each file it lists as it is now,
 *    and the image is stored under the digest of the group's key and
 *    those files' digests (ccache's direct mode, with the linker naming
 *    what it read).
 * A step whose inputs cannot all be named (an option the tables do not
 * know, a plugin, a linker that writes no dependency file) makes the
 * group uncacheable, and the plan says why.
 *
 * The driver asks one question per group, through devlink.h: look up
 * (ol_lookup_device_cache), store (ol_cache_store); the pool tells it
 * when a link starts and what it made (run.c).  The files: cache_open.c
 * (the stores), cache_key.c (the keys), cache_probe.c (what clang runs),
 * cache_lookup.c, cache_store.c. */
#ifndef OFFLINK_DEVCACHE_CACHE_H
#define OFFLINK_DEVCACHE_CACHE_H

#include "cache/facts.h"
#include "cache/key.h"
#include "cache/linkline.h"
#include "cache/pathform.h"
#include "cache/probe_memo.h"
#include "cache/step_key.h"
#include "devcache/devcache.h"
#include "format/triple.h"

/* ---- for run.c ---- */

/* A group's link starts (what clang looks at from now on is what it
 * decides on); it has made its image; a group whose link failed under
 * flags meant for another linker is to run again without them (true:
 * they were taken out). */
void ol_cache_link_started(struct ol_link *l, struct ol_group *g);
void ol_cache_linked(struct ol_link *l, struct ol_group *g);
bool ol_cache_retry_plain(struct ol_link *l, struct ol_group *g, size_t failed_step);

/* ---- between the cache's files ---- */

#define KEY_DOMAIN "offlink device-link cache 3"

struct pending { /* a step whose linker will write what it read */
	size_t step;
	struct ol_step_reads r;
};
void ol_dc_free_pending(struct pending *p, size_t n);

/* A boolean switch of the environment (configure() refused a value that
 * is not one before anything reads it). */
bool ol_dc_env_on(const char *name);

/* cache_key.c */
void ol_dc_key_init(struct ol_link *l, struct ol_key *k, struct ol_buf *explain,
		    const char *domain);
void ol_dc_keep_deps(struct ol_group *g, struct ol_key *k);
struct ol_pathform ol_dc_form(const struct ol_link *l);
bool ol_dc_group_key(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		     struct pending *pv, size_t *np);
void ol_dc_derive(const uint8_t key[32], const char *what, uint8_t out[32]);
enum { OL_LD_NONE = 100 };
int ol_dc_predict_linker(const struct ol_group *g, const struct ol_cmd *c);
bool ol_dc_probe_memo(struct ol_link *l, const struct ol_group *g, struct ol_probe_memo *m);
bool ol_dc_known_answer(struct ol_link *l, struct ol_group *g, bool *seen);
bool ol_dc_key_linker(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		      struct pending *p);
bool ol_dc_result_key(struct ol_link *l, const struct ol_group *g, char *const *files,
		      size_t n, struct ol_buf *explain, uint8_t out[32], struct ol_key *keep);
void ol_dc_say(struct ol_link *l, const struct ol_group *g, const char *what,
	       const uint8_t *entry);
/* Whether the file of record r is as it was from before the link's keys
 * were begun: unchanged since first looked at, and last changed before
 * the keys when it was first looked at after them. */
bool ol_dc_held(const struct ol_link *l, size_t r);

/* cache_probe.c */
bool ol_dc_plan_probe(struct ol_link *l, struct ol_group *g);
bool ol_dc_read_probe(struct ol_link *l, struct ol_group *g, const char **why);
void ol_dc_store_answer(struct ol_link *l, struct ol_group *g);
bool ol_dc_probe_now(struct ol_link *l, struct ol_group *g, bool before_link);
void ol_dc_run_probes(struct ol_link *l);
void ol_probe_cmd_forget(struct ol_group *g);

#endif
