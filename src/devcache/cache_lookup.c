/* The device-link cache's lookup of each group: its keys, its image
 * when the cache has it (no device linker runs), and on a miss the flags
 * that make its linkers write what they read, for the store. */
#include "devcache/cache.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/manifest.h"
#include "common/message.h"
#include "os/findprog.h"

/* A dependency file for the step's linker, added to its command once
 * the whole key holds. */
static char *depfile_path(struct ol_link *l, struct ol_group *g, size_t step)
{
	return ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.%zu.deps", g->stem, step));
}

/* GNU ld's record of where it looked (--verbose, on its standard
 * output). */
static char *trace_path(struct ol_link *l, struct ol_group *g, size_t step)
{
	return ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.%zu.ldtrace", g->stem, step));
}

/* Takes p's dirs and sysroot. */
static bool add_depfile(struct ol_group *g, const char *path, struct pending *p, const char *trace)
{
	struct ol_depfile *v = realloc(g->depfiles, (g->ndepfiles + 1) * sizeof(*v));

	if (!v)
		return false;
	g->depfiles = v;
	v += g->ndepfiles++;
	memset(v, 0, sizeof(*v));
	v->step = p->step;
	v->path = strdup(path);
	v->flavor = p->r.flavor;
	v->trace = trace ? strdup(trace) : NULL;
	v->dirs = p->r.dirs;
	v->sysroot = p->r.sysroot;
	memset(&p->r.dirs, 0, sizeof(p->r.dirs));
	p->r.sysroot = NULL;
	return v->path && (!trace || v->trace) && !v->dirs.err;
}

/* A flag of the cache's for the step's linker: through clang as an
 * -Xlinker pair, never -Wl, (which clang splits at commas: a TMPDIR or a
 * store path holding one became two arguments, or a relative input). */
static void linker_flag(struct ol_cmd *c, bool driver, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void linker_flag(struct ol_cmd *c, bool driver, const char *fmt, ...)
{
	char *flag = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&flag, fmt, ap) < 0)
		flag = NULL;
	va_end(ap);
	if (!flag) {
		c->argv.err = OL_E_NOMEM;
		return;
	}
	if (driver)
		ol_strvec_push(&c->argv, "-Xlinker");
	ol_strvec_push(&c->argv, flag);
	free(flag);
}

/* lld's own ThinLTO cache, for a group with ThinLTO modules whose link
 * runs lld (CPU through clang, AMDGPU): each module's object is kept by
 * LLVM's own key (the module, what it imports, the options, the release),
 * so that a relink after one file changed recompiles that module only.
 * It lives in the private local store's directory, under the store's
 * rules (made by offlink, the user's alone, refused otherwise:
 * ol_local_tool_dir), a quarter of its cap at most and pruned by lld at
 * every link (lld's default is once in 20 minutes; offlink's eviction
 * counts and removes its files too); never in a shared store (its files
 * carry no check of ours, and anyone who may write there could plant
 * one). */
static bool lld_thin_cache(struct ol_link *l, struct ol_group *g, struct ol_cmd *c, bool driver)
{
	const char *dir;

	if (!l->cache.have_local || l->cache.local.shared || !g->any_thin ||
	    !(dir = ol_local_tool_dir(&l->cache.local, OL_LOCAL_LLD_THINLTO)))
		return true;
	linker_flag(c, driver, "--thinlto-cache-dir=%s", dir);
	linker_flag(c, driver, "--thinlto-cache-policy=cache_size_bytes=%llu:prune_interval=0s",
		    (unsigned long long)(l->cache.local.cap / 4));
	return !c->argv.err;
}

/* The step writes what it read (its dependency file) and, GNU ld,
 * where it looked (--verbose, in the C locale: its messages are read).
 * The step's arguments before these are remembered, to run it without
 * them should they be wrong for its linker. */
static bool record_reads(struct ol_link *l, struct ol_group *g, struct pending *p)
{
	struct ol_cmd *c = &g->steps[p->step];
	bool driver = c->tool == OL_TOOL_CLANG_DRIVER;
	char *path = depfile_path(l, g, p->step), *trace = NULL;

	if (!path)
		return false;
	if (p->r.flavor == OL_LD_GNU && !(trace = trace_path(l, g, p->step)))
		return false;
	if (!add_depfile(g, path, p, trace))
		return false;
	if (driver)
		g->driver_plain_argc = c->argv.n;
	linker_flag(c, driver, "--dependency-file=%s", path);
	if (p->r.flavor == OL_LD_LLD && !lld_thin_cache(l, g, c, driver))
		return false;
	if (trace) {
		linker_flag(c, driver, "--verbose");
		/* (through clang: only its linker gets LC_ALL=C, from the
		 * recorder, so that clang decides in offlink's environment) */
		if (!driver || !l->probe_lib)
			ol_strvec_push(&c->env, "LC_ALL=C");
		free(c->stdout_path);
		c->stdout_path = strdup(trace);
	}
	return !c->argv.err && !c->env.err && (!trace || c->stdout_path);
}

/* The link through clang runs with the recorder preloaded: its linker
 * gets LC_ALL=C (GNU ld's words are read), and a first link records what
 * clang looked at and ran (the answer, without a -### of its own). */
static bool record_driver(struct ol_link *l, struct ol_group *g, bool gnu)
{
	struct ol_cmd *c = &g->steps[g->driver_step];
	const char *pre = getenv("LD_PRELOAD");

	if (!l->probe_lib || (!gnu && g->probe != PROBE_PENDING))
		return true;
	ol_strvec_pushf(&c->env, "LD_PRELOAD=%s%s%s", l->probe_lib, pre && *pre ? ":" : "",
			pre ? pre : "");
	if (gnu)
		ol_strvec_push(&c->env, "OFFLINK_PROBE_CHILD_ENV=LC_ALL=C");
	if (g->probe == PROBE_PENDING)
		ol_strvec_pushf(&c->env, "OFFLINK_PROBE_LOG=%s", g->probe_log);
	return !c->env.err;
}

/* ---- lookup ---- */

/* The lookup of g under its second key: the manifest, then the image. */
static enum ol_found find_image(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
				uint8_t rkey[32], const struct ol_remote **remote)
{
	struct ol_buf mbuf = { 0 };
	struct ol_strvec files = { 0 };
	uint8_t mkey[32];
	enum ol_found found = OL_FOUND_NONE;

	ol_dc_derive(g->cache_key2, "manifest", mkey);
	if (ol_store_get(&l->cache, OL_ENTRY_MANIFEST, mkey, NULL, &mbuf, remote) &&
	    ol_manifest_decode(mbuf.data, mbuf.len, &files) &&
	    ol_dc_result_key(l, g, files.v, files.n, explain, rkey, NULL))
		found = ol_store_get(&l->cache, OL_ENTRY_IMAGE, rkey, g->image_path, NULL, remote);
	ol_buf_free(&mbuf);
	ol_strvec_free(&files);
	return found;
}

static void say_found(struct ol_link *l, struct ol_group *g, enum ol_found found,
		      const struct ol_remote *remote, size_t rejected, const uint8_t rkey[32])
{
	g->cache = found ? CACHE_HIT : CACHE_MISS;
	g->cache_note = found == OL_FOUND_LOCAL ? "local hit"
		: found == OL_FOUND_REMOTE ? ol_arena_printf(&l->arena, "remote hit, %s", remote->shown)
		: "miss";
	ol_store_count(&l->cache, found ? rkey : g->cache_key,
		       found == OL_FOUND_LOCAL ? OL_STAT_LOCAL_HIT
		       : found == OL_FOUND_REMOTE ? OL_STAT_REMOTE_HIT : OL_STAT_MISS);
	ol_dc_say(l, g, found == OL_FOUND_LOCAL ? "hit (local): no device link runs"
		  : found == OL_FOUND_REMOTE
			? ol_arena_printf(&l->arena, "hit (remote %s): no device link runs", remote->shown)
			: l->cache.rejected > rejected
			? "miss: an entry failed its check (damaged, or not written by a holder of "
			  "the secret) and was not used; linking"
			: "miss: linking", found ? rkey : NULL);
}

/* g's key, and its image when the cache has it.  A link through clang
 * whose answer is not remembered is planned as a miss: the link starts at
 * once, with what its linker is most likely to need, and clang is asked
 * beside it (the probe); what they made is stored after. */
static void lookup_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_buf explain = { 0 };
	struct pending *pv = calloc(g->nsteps + 2, sizeof(*pv));
	size_t np = 0;
	const struct ol_remote *remote = NULL;
	uint8_t rkey[32];
	bool want_explain = ol_dc_env_on("OFFLINK_CACHE_EXPLAIN");
	struct ol_buf *ex = want_explain ? &explain : NULL;
	enum ol_found found = OL_FOUND_NONE;
	size_t rejected = l->cache.rejected;
	double t0 = ol_now_us();
	bool keyed, known = false, ok = true;

	g->driver_step = -1;
	keyed = pv && ol_dc_group_key(l, g, ex, pv, &np);

	if (keyed && g->driver_step >= 0) {
		bool seen;

		known = ol_dc_known_answer(l, g, &seen);
		if (!known && !ol_dc_plan_probe(l, g)) {
			keyed = false;
			g->cache_note = "not used: no recorder for clang (offlink-probe.so) beside offlink";
		} else if (!known && seen) {
			/* answered before, for another directory or machine: likely
			 * a hit once asked, so clang is asked now */
			known = ol_dc_probe_now(l, g, true);
			ol_probe_cmd_forget(g);
		}
	}
	if (keyed && (g->driver_step < 0 || known))
		keyed = ol_dc_key_linker(l, g, ex, &pv[np++]);
	ol_link_span(l, "cache: key", t0);
	t0 = ol_now_us();
	if (!keyed) {
		g->cache = CACHE_NOT_USED;
		if (!g->cache_note)
			g->cache_note = "not used: out of memory";
		ol_store_count(&l->cache, g->cache_key, OL_STAT_UNCACHEABLE);
		ol_dc_say(l, g, g->cache_note, NULL);
		ol_probe_cmd_forget(g);
	} else if (g->driver_step >= 0 && !known) {
		/* the probe goes beside the link; the flags are the predicted
		 * linker's */
		int flavor = ol_dc_predict_linker(g, &g->steps[g->driver_step]);

		g->probe = PROBE_PENDING;
		g->predicted = flavor;
		say_found(l, g, OL_FOUND_NONE, NULL, rejected, rkey);
		if (flavor == OL_LD_GNU || flavor == OL_LD_LLD) {
			pv[np] = (struct pending){ .step = (size_t)g->driver_step, .r.flavor = flavor };
			np++;
		}
	} else {
		if (g->driver_step >= 0)
			g->probe = PROBE_KNOWN;
		found = find_image(l, g, ex, rkey, &remote);
		say_found(l, g, found, remote, rejected, rkey);
	}
	ol_link_span(l, "cache: lookup", t0);
	/* Not found: the linkers now write what they read. */
	for (size_t i = 0; i < np && g->cache == CACHE_MISS && ok; i++) {
		if (pv[i].r.flavor == OL_LD_GNU || pv[i].r.flavor == OL_LD_LLD)
			ok = record_reads(l, g, &pv[i]);
		if (ok && g->driver_step >= 0 && pv[i].step == (size_t)g->driver_step)
			ok = record_driver(l, g, pv[i].r.flavor == OL_LD_GNU);
	}
	if (ok && g->cache == CACHE_MISS && g->probe == PROBE_PENDING &&
	    !(np && pv[np - 1].step == (size_t)g->driver_step))
		ok = record_driver(l, g, false); /* (spirv-link, or no flags) */
	if (!ok) {
		g->cache = CACHE_NOT_USED;
		g->cache_note = "not used: out of memory";
	}
	if (want_explain && explain.len)
		fprintf(stderr, "offlink: %s: device-link cache key ingredients:\n%.*s",
			ol_group_label(l, g), (int)explain.len, (char *)explain.data);
	if (pv)
		ol_dc_free_pending(pv, g->nsteps + 2);
	free(pv);
	ol_buf_free(&explain);
}

enum ol_err ol_lookup_device_cache(struct ol_link *l)
{
	if (!l->cache_on || l->opt.dry_run)
		return OL_OK;
	l->probe_lib = ol_find_probe_lib();
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];

		if (g->nsteps && g->image_path)
			lookup_group(l, g);
	}
	l->cache_nkeyed = l->cache.files.n;
	return OL_OK;
}

void ol_cache_link_started(struct ol_link *l, struct ol_group *g)
{
	struct timespec ts;

	(void)l;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	g->probe_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ol_cache_linked(struct ol_link *l, struct ol_group *g)
{
	(void)l;
	g->linked = true;
}
