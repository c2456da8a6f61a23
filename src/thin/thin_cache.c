/* The device-link cache for a ThinLTO link's steps, one module at a time
 * (thin/thinlto.h): a backend's result is keyed by its program (clang
 * by content, with its libraries), its arguments (the module names in
 * them are digests of the modules), the environment the tools read, the
 * module's bytes, its index's and those of every module it imports; an
 * assembler's (ptxas) by its program, its arguments as ptxas reads them
 * and its input's bytes.  Looked up just before the step would start --
 * the index exists only after the thin link -- and stored beside the host
 * link, as a group's image is, only when the programs keyed are the same
 * files as when the key was made.  Entries are of their own type (4), so
 * a key of one kind never finds a value of another. */
#include "thin/thinlto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/program.h"
#include "cache/toolargs.h"
#include "common/message.h"
#include "devcache/cache.h"
#include "os/mapfile.h"

#define BACKEND_DOMAIN "offlink ThinLTO backend 1"
#define ASSEMBLER_DOMAIN "offlink ThinLTO assembler 1"

/* file's bytes into k; false when it cannot be read. */
static bool key_file_bytes(struct ol_key *k, const char *label, const char *path)
{
	struct ol_map m = { 0 };
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_map_file(path, &m, &d)) {
		ol_key_refuse(k, "%s %s cannot be read", label, path);
		return false;
	}
	ol_key_bytes(k, label, m.data, m.len);
	ol_unmap(&m);
	return true;
}

/* The modules a backend imports from (llvm-lto2's list, one name a
 * line): each must be one of the group's, and enters by its bytes. */
static void key_imports(struct ol_key *k, const struct ol_thin_node *n)
{
	const struct ol_thin *t = n->g->thin;
	struct ol_map m = { 0 };
	struct ol_diag d;
	const char *p, *end;

	ol_diag_clear(&d);
	if (ol_map_file(n->imports, &m, &d)) {
		ol_key_refuse(k, "the import list %s cannot be read", n->imports);
		return;
	}
	for (p = (const char *)m.data, end = p + m.len; p < end && !k->uncacheable[0];) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		uintptr_t *at = len ? ol_strmap_get(&t->by_name, p, len) : NULL;

		if (len && !at) {
			ol_key_refuse(k, "the thin link lists an import that is not one of the "
					 "group's modules");
		} else if (len) {
			size_t i = *at - 1;
			const struct ob_entry *e = n->g->images[t->mods[i].image]->entry;

			ol_key_text(k, "import", t->mods[i].name);
			ol_key_bytes(k, "its bytes", e->image, (size_t)e->image_size);
		}
		p += len + 1;
	}
	ol_unmap(&m);
}

static bool node_key(struct ol_thin_node *n, struct ol_buf *explain)
{
	struct ol_link *l = n->l;
	const struct ol_cmd *c = &n->g->steps[n->step];
	struct ol_key k;

	ol_dc_key_init(l, &k, explain, n->backend ? BACKEND_DOMAIN : ASSEMBLER_DOMAIN);
	k.tmpdir = n->g->thin->dir; /* its files as <TMP>/...: the same in every link */
	ol_key_program(&k, "program", c->argv.v[0]);
	ol_key_tool_env(&k);
	if (n->backend) {
		for (size_t i = 1; i < c->argv.n; i++)
			ol_key_text(&k, "argument", c->argv.v[i]);
		if (key_file_bytes(&k, "module", n->in) && key_file_bytes(&k, "index", n->index))
			key_imports(&k, n);
	} else {
		ol_key_ptxas_args(&k, c->argv.v, c->argv.n);
		key_file_bytes(&k, "input", n->in);
	}
	n->keyed = !k.uncacheable[0];
	if (n->keyed) {
		ol_key_final(&k, n->key);
		n->deps = k.deps;
		n->ndeps = k.ndeps;
		k.deps = NULL;
	} else if (l->opt.verbose) {
		ol_message("offlink", NULL, "%s: %s: not cached: %s", ol_group_label(l, n->g), c->step,
			   k.uncacheable);
	}
	ol_key_free(&k);
	return n->keyed;
}

static enum ol_err node_prepare(void *ctx, enum ol_prepared *what, struct ol_diag *d)
{
	struct ol_thin_node *n = ctx;
	struct ol_link *l = n->l;
	struct ol_buf explain = { 0 };
	bool want_explain = ol_dc_env_on("OFFLINK_CACHE_EXPLAIN");
	const struct ol_remote *remote = NULL;
	enum ol_found found;
	char hex[65];

	(void)d;
	if (!l->cache_on || !node_key(n, want_explain ? &explain : NULL)) {
		ol_buf_free(&explain);
		return OL_OK;
	}
	if (want_explain && explain.len)
		fprintf(stderr, "offlink: %s: key ingredients:\n%.*s", n->g->steps[n->step].step,
			(int)explain.len, (char *)explain.data);
	ol_buf_free(&explain);
	found = ol_store_get(&l->cache, OL_ENTRY_STEP, n->key, n->out, NULL, &remote);
	ol_store_count(&l->cache, n->key, found ? OL_STAT_STEP_HIT : OL_STAT_STEP_MISS);
	if (l->opt.verbose) {
		ol_digest_hex(n->key, hex);
		ol_message("offlink", NULL, "%s: %s (key %.16s)", n->g->steps[n->step].step,
			   found == OL_FOUND_LOCAL ? "local hit" : found ? "remote hit" : "miss", hex);
	}
	if (found) {
		n->hit = true;
		n->g->thin->cached[n->backend ? 0 : 1]++;
		*what = OL_SKIP_NODE;
	}
	return OL_OK;
}

static enum ol_err node_complete(void *ctx, struct ol_diag *d)
{
	struct ol_thin_node *n = ctx;

	(void)d;
	n->ran = true;
	n->g->thin->ran[n->backend ? 0 : 1]++;
	return OL_OK;
}

static struct ol_thin_node *add_node(struct ol_link *l, struct ol_group *g, size_t step)
{
	struct ol_thin_node *n = ol_arena_alloc(&l->arena, sizeof(*n));
	struct ol_step_sched *sc = &g->sched[step];

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->l = l;
	n->g = g;
	n->step = step;
	n->next = g->thin->nodes;
	g->thin->nodes = n;
	sc->prepare = node_prepare;
	sc->complete = node_complete;
	sc->ctx = n;
	return n;
}

enum ol_err ol_thin_cache_backend(struct ol_link *l, struct ol_group *g, size_t step,
				  const struct ol_thin_module *m, const char *out)
{
	struct ol_thin_node *n = add_node(l, g, step);
	const char *dir = g->thin->dir;

	if (!n)
		return OL_E_NOMEM;
	n->backend = true;
	n->in = ol_arena_printf(&l->arena, "%s/%s", dir, m->name);
	n->index = ol_arena_printf(&l->arena, "%s/%s.thinlto.bc", dir, m->name);
	n->imports = ol_arena_printf(&l->arena, "%s/%s.imports", dir, m->name);
	n->out = out;
	return n->in && n->index && n->imports ? OL_OK : OL_E_NOMEM;
}

enum ol_err ol_thin_cache_assembler(struct ol_link *l, struct ol_group *g, size_t step,
				    const char *in, const char *out)
{
	struct ol_thin_node *n = add_node(l, g, step);

	if (!n)
		return OL_E_NOMEM;
	n->in = in;
	n->out = out;
	return OL_OK;
}

/* Whether the files n's key was computed from (its programs) were the
 * same from before the link's keys were begun until now. */
static bool unchanged(struct ol_link *l, const struct ol_thin_node *n)
{
	for (size_t i = 0; i < n->ndeps; i++)
		if (!ol_dc_held(l, n->deps[i]))
			return false;
	return true;
}

void ol_thin_store(struct ol_link *l)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		const struct ol_group *g = &l->groups[i];

		for (const struct ol_thin_node *n = g->thin ? g->thin->nodes : NULL; n; n = n->next) {
			struct ol_map m = { 0 };
			struct ol_diag d;

			ol_diag_clear(&d);
			if (!n->ran || !n->keyed || !unchanged(l, n) || ol_map_file(n->out, &m, &d))
				continue;
			ol_store_put(&l->cache, OL_ENTRY_STEP, n->key, m.data, m.len);
			ol_unmap(&m);
		}
	}
}

void ol_thin_free(struct ol_link *l)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		for (struct ol_thin_node *n = l->groups[i].thin ? l->groups[i].thin->nodes : NULL; n;
		     n = n->next)
			free(n->deps);
		if (l->groups[i].thin)
			ol_strmap_free(&l->groups[i].thin->by_name);
	}
}
