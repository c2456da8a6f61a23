/* The device-link cache's keys of a group (docs/design.md, "Device-link
 * cache", lists every ingredient): the first, from what its steps are and
 * read up front (each step keyed from its own description by
 * cache/step_key.c), asking no tool; what clang's answer is remembered
 * under; the second, with the linker command clang runs; the image's,
 * with every file the linkers read on their own as it is now. */
#include "devcache/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/pathform.h"
#include "cache/probe_memo.h"
#include "cache/program.h"
#include "common/message.h"
#include "common/version.h"
#include "os/findprog.h"

void ol_dc_free_pending(struct pending *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ol_step_reads_free(&p[i].r);
}

void ol_dc_key_init(struct ol_link *l, struct ol_key *k, struct ol_buf *explain,
		     const char *domain)
{
	memset(k, 0, sizeof(*k));
	/* The key's start: a file changed from here on is not trusted.  The
	 * coarse clock is the one the kernel stamps files with, so a file
	 * changed after this reads as changed at or after it. */
	if (!l->cache_key_time) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		l->cache_key_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	k->explain = explain;
	k->tmpdir = l->tmpdir;
	k->base_dir = l->cache_base_dir;
	k->cwd = l->cwd;
	k->files = &l->cache.files;
	k->run = &l->run;
	ol_key_init(k, domain);
}

/* The key's files become the group's: they must hold until its store. */
void ol_dc_keep_deps(struct ol_group *g, struct ol_key *k)
{
	size_t *v;

	if (k->ndeps == 0) { /* (k->deps may be NULL: memcpy must not see it) */
		ol_key_free(k);
		return;
	}
	v = realloc(g->cache_deps, (g->ncache_deps + k->ndeps + 1) * sizeof(*v));
	if (!v) {
		ol_key_refuse(k, "out of memory");
		ol_key_free(k);
		return;
	}
	memcpy(v + g->ncache_deps, k->deps, k->ndeps * sizeof(*v));
	g->cache_deps = v;
	g->ncache_deps += k->ndeps;
	ol_key_free(k);
}

struct ol_pathform ol_dc_form(const struct ol_link *l)
{
	return ol_pathform_for(l->tmpdir, l->cache_base_dir, l->cwd);
}

/* What clang's answer is remembered under: clang (by content), its
 * arguments and the environment; not the device code, which clang does
 * not look into to decide on a linker command. */
static void key_probe(struct ol_link *l, struct ol_group *g, const char *program,
		      const struct ol_cmd *c)
{
	struct ol_key k;

	ol_dc_key_init(l, &k, NULL, "offlink what clang runs 1");
	ol_key_program(&k, "clang", program);
	g->probe_opaque = k.opaque;
	ol_key_tool_env(&k);
	ol_key_driver_args(&k, c->argv.v, c->argv.n);
	ol_key_final(&k, g->probe_key);
	ol_dc_keep_deps(g, &k);
}

/* ---- the first key: what the group's steps are, asking no tool ---- */

static void key_step(struct ol_link *l, struct ol_group *g, struct ol_key *k, size_t s,
		     struct pending *pv, size_t *np)
{
	const struct ol_cmd *c = &g->steps[s];
	char *prog = ol_find_in_path(c->argv.v[0]);
	const char *program = prog ? prog : c->argv.v[0];
	struct pending *p = &pv[*np];

	*p = (struct pending){ .step = s };
	ol_key_text(k, "step", c->role ? c->role : c->step ? c->step : "");
	ol_key_program(k, "program", program);
	if (c->tool == OL_TOOL_CLANG_DRIVER) {
		/* What clang runs is keyed by the second key (key_linker):
		 * here its own arguments, as text and files by content. */
		if (g->driver_step >= 0)
			ol_key_refuse(k, "more than one link through clang");
		g->driver_step = (int)s;
	}
	ol_key_step_args(k, c, program, &p->r);
	if (c->tool == OL_TOOL_CLANG_DRIVER)
		key_probe(l, g, program, c);
	if (p->r.flavor >= 0)
		++*np;
	free(prog);
}

/* The group's first key: everything its steps are and read up front,
 * with no tool asked anything.  pv/np: the direct linkers' steps. */
bool ol_dc_group_key(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		      struct pending *pv, size_t *np)
{
	struct ol_key k;

	ol_dc_key_init(l, &k, explain, KEY_DOMAIN);
	k.relative = &g->cache_relative;
	k.verbatim = &g->cache_verbatim;
	ol_key_text(&k, "offlink", OFFLINK_VERSION);
	ol_key_text(&k, "kind", ol_kind_name(g->kind));
	ol_key_text(&k, "triple", g->triple);
	ol_key_text(&k, "arch", g->arch);
	ol_key_tool_env(&k);
	for (size_t s = 0; s < g->nsteps && !k.uncacheable[0]; s++)
		key_step(l, g, &k, s, pv, np);
	for (size_t i = 0; i < g->nimages && !k.uncacheable[0]; i++) {
		const struct ob_entry *e = g->images[i]->entry;
		const struct ol_map *m = &g->images[i]->input->map;

		ol_key_u64(&k, "image kind", e->image_kind);
		ol_key_bytes(&k, "image", e->image, (size_t)e->image_size);
		/* the bytes come from its input's mapping, read again when the
		 * link's inputs are written: the file must not change from
		 * what it was when mapped */
		ol_key_depend(&k, g->images[i]->input->path, m->have_st ? &m->st : NULL);
	}
	ol_key_final(&k, g->cache_key);
	ol_dc_keep_deps(g, &k);
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		return false;
	}
	return true;
}

void ol_dc_derive(const uint8_t key[32], const char *what, uint8_t out[32])
{
	struct ol_digest h;

	ol_digest_init(&h);
	ol_digest_add_str(&h, what);
	ol_digest_add(&h, key, 32);
	ol_digest_final(&h, out);
}

/* ---- what clang runs: remembered with the facts it decided on ---- */

int ol_dc_predict_linker(const struct ol_group *g, const struct ol_cmd *c)
{
	/* (spirv-link, clang-sycl-linker: the inputs linkers of step_key.h) */
	if (ol_triple_is_spirv(g->triple) || g->kind == OB_OFK_SYCL)
		return OL_LD_NONE;
	return ol_guess_clang_linker(g->triple, c->argv.v, c->argv.n);
}

/* The group's remembered answers (the probe memo) under its first key. */
bool ol_dc_probe_memo(struct ol_link *l, const struct ol_group *g, struct ol_probe_memo *m)
{
	struct ol_buf b = { 0 };
	const struct ol_remote *remote;
	uint8_t key[32];
	bool ok;

	ol_dc_derive(g->probe_key, "what clang runs", key);
	ok = ol_store_get(&l->cache, OL_ENTRY_PROBE, key, NULL, &b, &remote) &&
	     ol_probe_memo_decode(b.data, b.len, m);
	ol_buf_free(&b);
	return ok;
}

/* The answer that holds here, into g->linker and g->facts; false when
 * none does (*seen: the memo has answers, only not for this machine or
 * directory as it is now). */
bool ol_dc_known_answer(struct ol_link *l, struct ol_group *g, bool *seen)
{
	struct ol_probe_memo m = { 0 };
	struct ol_pathform f = ol_dc_form(l);
	bool found = false;

	*seen = false;
	if (g->probe_opaque) {
		/* what it looked at is unknown: asked now, every link */
		*seen = true;
		return false;
	}
	if (!ol_dc_probe_memo(l, g, &m))
		return false;
	*seen = m.n > 0;
	for (size_t i = m.n; i-- > 0 && !found; ) {
		if (!ol_facts_hold(&m.v[i].facts, &f, &l->cache.files, NULL))
			continue;
		found = ol_pathform_from_all(&f, &m.v[i].argv, &g->linker);
		if (found) {
			g->facts = m.v[i].facts;
			memset(&m.v[i].facts, 0, sizeof(m.v[i].facts));
		}
	}
	ol_probe_memo_free(&m);
	return found;
}

/* The second key: the first, and the linker command clang runs, read by
 * what it means to that linker (the facts only say that clang would
 * answer so: two directories that clang tells apart but answers alike
 * share the key).  p: the driver's step, given its flavor. */
bool ol_dc_key_linker(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		       struct pending *p)
{
	struct ol_key k;

	*p = (struct pending){ .step = (size_t)g->driver_step, .r.flavor = -1 };
	ol_dc_key_init(l, &k, explain, "offlink device-link linker 1");
	k.relative = &g->cache_relative;
	k.verbatim = &g->cache_verbatim;
	ol_key_digest(&k, "first key", g->cache_key);
	if (g->driver_step >= 0)
		ol_key_linker_command(&k, g->linker.v, g->linker.n, &p->r);
	ol_key_final(&k, g->cache_key2);
	g->cache_key2_known = true;
	ol_dc_keep_deps(g, &k);
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		return false;
	}
	return true;
}

/* The image's key: the second key, and every file of the manifest as it
 * is now.  False when one of them cannot be a link input (a FIFO now). */
bool ol_dc_result_key(struct ol_link *l, const struct ol_group *g, char *const *files,
		       size_t n, struct ol_buf *explain, uint8_t out[32], struct ol_key *keep)
{
	struct ol_key k;
	bool ok;

	ol_dc_key_init(l, &k, explain, "offlink device-link result 3");
	ol_key_digest(&k, "group", g->cache_key2);
	for (size_t i = 0; i < n; i++)
		ol_key_file(&k, "read", files[i]);
	ol_key_final(&k, out);
	ok = !k.uncacheable[0];
	if (keep)
		*keep = k;
	else
		ol_key_free(&k);
	return ok;
}

/* -v: what the cache did for g; the entry is named when there is one. */
void ol_dc_say(struct ol_link *l, const struct ol_group *g, const char *what,
		const uint8_t *entry)
{
	char hex[65], ehex[65];

	if (!l->opt.verbose)
		return;
	/* (the key the lookup used: the second once what clang runs is known) */
	ol_digest_hex(g->cache_key2_known ? g->cache_key2 : g->cache_key, hex);
	if (entry)
		ol_digest_hex(entry, ehex);
	ol_message("offlink", NULL, "%s: device-link cache %s (key %.16s%s%.*s)",
		   ol_group_label(l, g), what, hex, entry ? ", entry " : "", entry ? 64 : 0,
		   entry ? ehex : "");
}

/* Whether the file of record r was the same from before the link's keys
 * were begun until now: unchanged since it was first looked at, and, when
 * that was only after the keys (r >= cache_nkeyed: a file the linkers
 * read, or one the linker clang ran names, keyed at the store), last
 * changed before they were begun. */
bool ol_dc_held(const struct ol_link *l, size_t r)
{
	const struct ol_fdigest *f = &l->cache.files;

	return ol_fdigest_unchanged(f, r) &&
	       !(r >= l->cache_nkeyed && ol_fdigest_changed_since(f, r, l->cache_key_time));
}
