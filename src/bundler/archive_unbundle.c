/* -unbundle -type=a: a heterogeneous device archive (members that are
 * bundles: binary, compressed, or host objects with bundle sections) into
 * one plain archive per requested target, holding every member's code
 * objects compatible with that target (the same object may go to several
 * targets), named as LLVM names them:
 *   <member stem>-<entry ID, ':' as '_'><member stem><ext>
 * with ext ".bc" for gfx targets, ".cubin" for sm_ targets, else the
 * member's own extension. */
#include "bundler/bundler.h"

#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/grow.h"
#include "format/target_id.h"
#include "extract/archive_reader.h"
#include "extract/archive_writer.h"

struct target_archive {
	struct ol_ar_out_member *m;
	size_t n, cap;
};

struct unbundle_ctx {
	const struct bundler *b;
	const char *archive;
	struct target_archive *out;  /* one per target */
	struct loaded *kept;         /* members' bundles, alive until written */
	size_t nkept, capkept;
	struct ol_arena arena;
};

static char *member_name(struct ol_arena *a, const char *member,
			 const struct ol_bundle_entry *e)
{
	const char *base = strrchr(member, '/'), *dot;
	int stem;
	const char *ext;
	char *id = ol_arena_strndup(a, e->id, e->id_len), *name;

	base = base ? base + 1 : member;
	dot = strrchr(base, '.');
	stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	for (char *p = id; p && *p; p++)
		if (*p == ':')
			*p = '_';
	if (id && strstr(id, "gfx"))
		ext = ".bc";
	else if (id && strstr(id, "sm_"))
		ext = ".cubin";
	else
		ext = dot && dot != base ? dot : "";
	name = ol_arena_printf(a, "%.*s-%s%.*s%s", stem, base, id ? id : "", stem, base, ext);
	return name;
}

static enum ol_err add_to(struct target_archive *t, const char *name,
			  const struct ol_bundle_entry *e, struct ol_diag *d)
{
	struct ol_ar_out_member *m = ol_grow(t->m, t->n, &t->cap, sizeof(*m), 8);

	if (!m)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	t->m = m;
	t->m[t->n++] = (struct ol_ar_out_member){ name, e->data, (size_t)e->size };
	return OL_OK;
}

/* Same processor, feature set differing in which features are fixed. */
static enum ol_err check_member(const struct unbundle_ctx *c, const char *member,
				const struct loaded *l, struct ol_diag *d)
{
	for (size_t i = 0; i < l->bundle.n; i++)
		for (size_t k = i + 1; k < l->bundle.n; k++) {
			struct ol_target_id a, t;

			if (ol_target_id_parse(l->ids[i].target_id, &a, d) ||
			    ol_target_id_parse(l->ids[k].target_id, &t, d))
				return d->code;
			if (strcmp(l->ids[i].kind, l->ids[k].kind) == 0 &&
			    ol_target_id_conflict(&a, &t))
				return ol_diag_set(d, OL_E_CONFLICT, NULL,
						   "conflicting TargetIDs [%s, %s] found in %s of %s",
						   l->ids[i].text, l->ids[k].text, member, c->archive);
		}
	return OL_OK;
}

static struct loaded *keep(struct unbundle_ctx *c, struct ol_diag *d)
{
	struct loaded *k = ol_grow(c->kept, c->nkept, &c->capkept, sizeof(*k), 16);

	if (!k) {
		ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		return NULL;
	}
	c->kept = k;
	return &c->kept[c->nkept++];
}

static enum ol_err on_member(void *ctx, const struct ol_ar_member *m,
			     struct ol_diag *d)
{
	struct unbundle_ctx *c = ctx;
	const struct bundler *b = c->b;
	struct loaded *l = keep(c, d);

	if (!l)
		return d->code;
	if (load_bundles(b, c->archive, m->data, m->size, l, d)) {
		ol_diag_locate(d, c->archive, m->name, 0);
		return d->code;
	}
	if (b->check_archive && check_member(c, m->name, l, d))
		return d->code;
	for (size_t i = 0; i < l->bundle.n; i++) {
		if (ol_bundle_id_is_host(&l->ids[i]))
			continue;
		for (size_t t = 0; t < b->nids; t++) {
			char *name;

			if (!ol_bundle_id_compatible(&l->ids[i], &b->ids[t], b->hip_openmp))
				continue;
			name = member_name(&c->arena, m->name, &l->bundle.entries[i]);
			if (!name || add_to(&c->out[t], name, &l->bundle.entries[i], d))
				return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
	}
	return OL_OK;
}

static enum ol_err write_archives(struct unbundle_ctx *c, struct ol_diag *d)
{
	const struct bundler *b = c->b;

	for (size_t t = 0; t < b->nids; t++) {
		if (c->out[t].n == 0 && !b->allow_missing)
			return ol_diag_set(d, OL_E_NOT_FOUND, NULL,
					   "no compatible code object found for the target '%s' "
					   "in heterogeneous archive library: %s",
					   b->ids[t].text, c->archive);
	}
	for (size_t t = 0; t < b->nids; t++)
		if (ol_archive_write(b->outputs.v[t], c->out[t].m, c->out[t].n,
				     c->out[t].n > 0, d))
			return d->code;
	return OL_OK;
}

enum ol_err unbundle_archive(const struct bundler *b, struct ol_diag *d)
{
	struct unbundle_ctx c = { .b = b, .archive = b->inputs.v[0] };
	struct ol_ar_keep thin = { 0 };
	struct ol_map map;
	enum ol_err rc;

	if (ol_map_file(c.archive, &map, d))
		return d->code;
	c.out = calloc(b->nids, sizeof(*c.out));
	if (!c.out) {
		ol_unmap(&map);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	rc = ol_archive_for_each(c.archive, map.data, map.len, on_member, &c, &thin, d);
	if (rc)
		ol_diag_locate(d, c.archive, NULL, 0);
	else
		rc = write_archives(&c, d);
	for (size_t i = 0; i < c.nkept; i++)
		loaded_free(&c.kept[i]);
	for (size_t t = 0; t < b->nids; t++)
		free(c.out[t].m);
	free(c.kept);
	free(c.out);
	ol_arena_free(&c.arena);
	ol_ar_keep_free(&thin);
	ol_unmap(&map);
	return rc;
}
