/* The device-link cache's store of each group its link made: after the
 * links, while the host linker runs; only when everything the entry will
 * depend on was the same from before its key until after its link. */
#include "devcache/cache.h"

#include <stdlib.h>
#include <string.h>

#include "cache/depfile.h"
#include "cache/dynamic_names.h"
#include "cache/ldtrace.h"
#include "cache/manifest.h"
#include "os/mapfile.h"

/* A lookup checks every place of a manifest: beyond this many (a line of
 * 100k -L directories searched for each library), not worth storing. */
#define MAX_PLACES 65536

/* s into v once (set: v's strings). */
static bool add_unique(struct ol_strvec *v, struct ol_strmap *set, const char *s)
{
	uintptr_t *slot;

	if (ol_strmap_get(set, s, strlen(s)))
		return true;
	if (ol_strvec_push(v, s) ||
	    !(slot = ol_strmap_put(set, v->v[v->n - 1], strlen(v->v[v->n - 1]))))
		return false;
	*slot = 1;
	return true;
}

/* What the group's linkers read on their own (their dependency files)
 * and, GNU ld, where they looked without finding anything (its
 * --verbose record), in their travelling form, into files; the paths
 * that were not found also into absent.  Why not, in why, when what
 * they read cannot be known: a record that does not read whole, or (lld,
 * which keeps no such record) a linker script that makes it search. */
static bool read_files(struct ol_link *l, const struct ol_group *g, struct ol_strvec *files,
		       struct ol_strvec *absent, const char **why)
{
	struct ol_key k;
	struct ol_buf form = { 0 };
	struct ol_strmap in_files = { 0 }, in_absent = { 0 };
	char reason[160];
	bool ok = true;

	ol_dc_key_init(l, &k, NULL, "paths");
	for (size_t i = 0; i < g->ndepfiles && ok; i++) {
		const struct ol_depfile *df = &g->depfiles[i];
		struct ol_strvec deps = { 0 }, tried = { 0 }, found = { 0 }, places = { 0 };
		struct ol_map m = { 0 }, t = { 0 };
		struct ol_diag d;

		ol_diag_clear(&d);
		ok = ol_map_file(df->path, &m, &d) == OL_OK &&
		     ol_depfile_parse((const char *)m.data, m.len, (enum ol_ld_flavor)df->flavor,
				      &deps) == OL_OK;
		if (!ok)
			*why = "its dependency file could not be read";
		if (ok && df->trace) {
			ok = ol_map_file(df->trace, &t, &d) == OL_OK &&
			     ol_ldtrace_parse((const char *)t.data, t.len, &found, &tried) == OL_OK;
			if (!ok)
				*why = "GNU ld's record of where it looked (--verbose) could not be read";
		}
		for (size_t j = 0; ok && j < deps.n; j++) {
			struct ol_map sm = { 0 };

			if (ol_key_is_tmp(&k, deps.v[j]))
				continue; /* the images: keyed by their bytes */
			if (df->flavor == OL_LD_LLD && ol_map_file(deps.v[j], &sm, &d) == OL_OK &&
			    !ol_lld_script_places(deps.v[j], sm.data, sm.len, &df->dirs, df->sysroot,
						  &places, reason, sizeof(reason))) {
				*why = ol_arena_printf(&l->arena, "lld read the linker script %s and %s",
						       ol_link_quote(l, deps.v[j]), reason);
				ok = false;
			}
			ol_unmap(&sm);
			if (ok)
				ok = add_unique(files, &in_files, ol_key_path_form(&k, deps.v[j], &form));
		}
		/* lld: every place its scripts' searches may look, found or not */
		for (size_t j = 0; ok && j < places.n && files->n <= MAX_PLACES; j++) {
			if (ol_key_is_tmp(&k, places.v[j]))
				continue;
			ok = add_unique(files, &in_files, ol_key_path_form(&k, places.v[j], &form));
		}
		/* GNU ld: where it looked and found nothing */
		for (size_t j = 0; ok && j < tried.n && files->n <= MAX_PLACES; j++) {
			if (ol_key_is_tmp(&k, tried.v[j]))
				continue;
			ol_key_path_form(&k, tried.v[j], &form);
			ok = add_unique(files, &in_files, (const char *)form.data) &&
			     add_unique(absent, &in_absent, (const char *)form.data);
		}
		if (ok && files->n > MAX_PLACES) {
			*why = ol_arena_printf(&l->arena, "the linkers looked in %zu places, more than "
							  "a lookup checks (%d)", files->n, MAX_PLACES);
			ok = false;
		}
		ol_unmap(&m);
		ol_unmap(&t);
		ol_strvec_free(&deps);
		ol_strvec_free(&tried);
		ol_strvec_free(&found);
		ol_strvec_free(&places);
	}
	ol_buf_free(&form);
	ol_strmap_free(&in_files);
	ol_strmap_free(&in_absent);
	ol_key_free(&k);
	return ok && !files->err && !absent->err;
}

/* Whether everything the stored entry will depend on was the same from
 * before its key was computed until after its link ended (held): the
 * files of the group's keys -- the second key's among them, computed at
 * the store on a first link, when it keys the linker clang ran and, for
 * a script, the files it names --, each file the linkers read; and each
 * path they looked for and did not find, still absent. */
static bool still_holds(struct ol_link *l, const struct ol_group *g, const struct ol_key *rk,
			const struct ol_strvec *absent, const char **why)
{
	const struct ol_fdigest *f = &l->cache.files;
	char q[256];

	for (size_t i = 0; i < g->ncache_deps; i++)
		if (!ol_dc_held(l, g->cache_deps[i])) {
			*why = ol_arena_printf(&l->arena, "%s changed during the link",
					       ol_key_quote(ol_fdigest_path(f, g->cache_deps[i]), q, sizeof(q)));
			return false;
		}
	for (size_t i = 0; i < rk->ndeps; i++) {
		size_t r = rk->deps[i];
		const char *path = ol_fdigest_path(f, r);

		if (!ol_dc_held(l, r)) {
			*why = ol_arena_printf(&l->arena, "%s changed during the link",
					       ol_key_quote(path, q, sizeof(q)));
			return false;
		}
	}
	for (size_t i = 0; i < absent->n; i++) {
		struct ol_fstate now;

		ol_fstate_of(absent->v[i], &now);
		if (now.exists) {
			*why = ol_arena_printf(&l->arena, "%s, which the linker looked for and did not find, "
							  "appeared during the link",
					       ol_key_quote(absent->v[i], q, sizeof(q)));
			return false;
		}
	}
	return true;
}

/* Whether s names a path the group's key held in its travelling form
 * (relative to the working directory, under the base directory) and not
 * as it is: an image naming it is the checkout's own, not every sharer's. */
static bool held_relative(const struct ol_group *g, const char *s)
{
	return ol_strvec_contains(&g->cache_relative, s) && !ol_strvec_contains(&g->cache_verbatim, s);
}

/* The image's DT_NEEDED, DT_RPATH and DT_RUNPATH against the paths the
 * key held relative (--cache-base-dir). */
static bool image_travels(struct ol_link *l, const struct ol_group *g, const struct ol_map *image,
			  const char **why)
{
	struct ol_dynamic_names dn;
	const char *bad = NULL;
	char q[256];

	if (!g->cache_relative.n || !ol_dynamic_names(image->data, image->len, &dn))
		return true;
	for (size_t i = 0; i < dn.needed.n && !bad; i++)
		if (held_relative(g, dn.needed.v[i]))
			bad = dn.needed.v[i];
	for (size_t i = 0; i < dn.paths.n && !bad; i++)
		if (held_relative(g, dn.paths.v[i]))
			bad = dn.paths.v[i];
	if (bad)
		*why = ol_arena_printf(&l->arena, "the image names %s, which its key holds relative to "
						  "the working directory (--cache-base-dir)",
				       ol_key_quote(bad, q, sizeof(q)));
	ol_dynamic_names_free(&dn);
	return !bad;
}

/* ---- store: after the links, while the host linker runs ---- */

/* A pending probe's answer, checked against the linker predicted for
 * the link (its flags were that linker's), then the second key. */
static bool settle_probe(struct ol_link *l, struct ol_group *g, const char **why)
{
	struct pending p = { 0 };
	bool ok;

	if (g->probe != PROBE_PENDING)
		return true;
	if (!ol_dc_read_probe(l, g, why))
		return false;
	ol_dc_store_answer(l, g); /* the answer stands, whatever becomes of the link */
	if (!ol_is_inputs_linker(g->linker.v[0]) && ol_ld_flavor_of(g->linker.v[0]) != g->predicted) {
		*why = ol_arena_printf(&l->arena, "clang runs %s, not the linker predicted; the next "
						  "link is keyed by it",
				       ol_link_quote(l, g->linker.v[0]));
		return false;
	}
	g->probe = PROBE_KNOWN;
	ok = ol_dc_key_linker(l, g, NULL, &p);
	/* lld's search directories, for its dependency file, now known */
	for (size_t i = 0; ok && i < g->ndepfiles; i++)
		if (g->depfiles[i].step == (size_t)g->driver_step && p.r.flavor == OL_LD_LLD) {
			ol_strvec_free(&g->depfiles[i].dirs);
			free(g->depfiles[i].sysroot);
			g->depfiles[i].dirs = p.r.dirs;
			g->depfiles[i].sysroot = p.r.sysroot;
			memset(&p.r.dirs, 0, sizeof(p.r.dirs));
			p.r.sysroot = NULL;
		}
	ol_dc_free_pending(&p, 1);
	if (!ok)
		*why = g->cache_note ? g->cache_note : "out of memory";
	return ok;
}

static void store_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_strvec files = { 0 }, absent = { 0 };
	struct ol_buf manifest = { 0 };
	struct ol_map image = { 0 };
	struct ol_key rk = { 0 };
	struct ol_diag d;
	uint8_t mkey[32], rkey[32];
	const char *why = "out of memory", *fact = NULL;
	struct ol_pathform pf = ol_dc_form(l);
	size_t remotes;
	double t0 = ol_now_us();

	if (g->cache != CACHE_MISS || !g->linked)
		return;
	ol_diag_clear(&d);
	if (!settle_probe(l, g, &why) || !read_files(l, g, &files, &absent, &why) ||
	    !ol_dc_result_key(l, g, files.v, files.n, NULL, rkey, &rk) ||
	    !still_holds(l, g, &rk, &absent, &why)) {
		ol_dc_say(l, g, ol_arena_printf(&l->arena, "not stored: %s", why), NULL);
		goto out;
	}
	/* what clang decided on must hold until now, too */
	if (g->driver_step >= 0 && !ol_facts_hold(&g->facts, &pf, &l->cache.files, &fact)) {
		ol_dc_say(l, g, ol_arena_printf(&l->arena, "not stored: %s, which clang looked at, changed "
						     "during the link", ol_link_quote(l, fact)), NULL);
		goto out;
	}
	if (!ol_manifest_encode(files.v, files.n, &manifest) ||
	    ol_map_file(g->image_path, &image, &d) || !image.len)
		goto out;
	if (!image_travels(l, g, &image, &why)) {
		ol_dc_say(l, g, ol_arena_printf(&l->arena, "not stored: %s", why), NULL);
		goto out;
	}
	ol_dc_say(l, g, "stored", rkey);
	ol_dc_derive(g->cache_key2, "manifest", mkey);
	remotes = ol_store_put(&l->cache, OL_ENTRY_IMAGE, rkey, image.data, image.len);
	ol_store_put(&l->cache, OL_ENTRY_MANIFEST, mkey, manifest.data, manifest.len);
	if (l->cache.have_local)
		ol_store_count(&l->cache, rkey, OL_STAT_LOCAL_STORE);
	for (size_t i = 0; i < remotes; i++)
		ol_store_count(&l->cache, rkey, OL_STAT_REMOTE_STORE);
out:
	ol_link_span(l, "cache: store", t0);
	ol_key_free(&rk);
	ol_unmap(&image);
	ol_buf_free(&manifest);
	ol_strvec_free(&files);
	ol_strvec_free(&absent);
}

void ol_cache_store_groups(struct ol_link *l)
{
	ol_dc_run_probes(l);
	for (size_t i = 0; i < l->ngroups; i++)
		store_group(l, &l->groups[i]);
}

void ol_cache_flush(struct ol_link *l)
{
	ol_store_flush(&l->cache);
}
