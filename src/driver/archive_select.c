/* select_archive_members: decide which device images go into the device
 * links.
 *
 * An object's images always do.  An archive member's images do when the
 * host link pulls that member in, which is decided here by replaying GNU
 * ld's rules on the host symbols: inputs in command-line order, -u first,
 * each archive searched through its symbol index for what is undefined so
 * far until nothing more is pulled, --start-group/--end-group repeated as a
 * whole, --whole-archive taking everything.  Then, per device target, a
 * member that defines a symbol some taken device image still needs is
 * taken as well (device-only callees, OpenMP's device runtime), until
 * nothing changes.  LLVM 19 instead consults no host symbols at all, and
 * so links no device code when only archives carry it. */
#include "driver/phases.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"
#include "format/target_id.h"

enum { SYM_DEFINED = 1, SYM_UNDEF = 2, SYM_WEAK_UNDEF = 4 };

/* ---- host symbols ---- */

static void note_symbol(struct ol_link *l, const char *name, size_t len,
			bool defined, bool weak)
{
	uintptr_t *v = ol_strmap_put(&l->host_symbols, name, len);

	if (!v)
		return;
	if (defined)
		*v = SYM_DEFINED;
	else if (!(*v & SYM_DEFINED))
		*v |= weak ? SYM_WEAK_UNDEF : SYM_UNDEF;
}

struct host_ctx {
	struct ol_link *l;
	bool defined_only;
};

static enum ol_err on_elf_symbol(void *ctx, const struct ol_elf_symbol *s,
				 struct ol_diag *d)
{
	struct host_ctx *h = ctx;

	(void)d;
	if (h->defined_only && !s->defined)
		return OL_OK;
	note_symbol(h->l, s->name, strlen(s->name), s->defined, s->bind == STB_WEAK);
	return OL_OK;
}

static enum ol_err on_bc_symbol(void *ctx, const struct bc_symbol *s,
				struct ol_diag *d)
{
	struct host_ctx *h = ctx;

	(void)d;
	if (!s->global || s->format_specific)
		return OL_OK;
	note_symbol(h->l, s->name, s->len, !s->undefined, s->weak);
	return OL_OK;
}

/* Add the global symbols of a host object (or, for a shared object, its
 * dynamic definitions) to the simulated link. */
static void load_host_symbols(struct ol_link *l, uint8_t *p, size_t n,
			      bool shared, const char *file, const char *member)
{
	struct host_ctx h = { l, shared };
	struct ol_diag d;
	struct ol_elf e;

	ol_diag_clear(&d);
	if (bc_is_bitcode(p, n)) {
		if (bc_for_each_symbol(p, n, on_bc_symbol, &h, &d) == OL_E_UNSUPPORTED)
			return;
	} else if (ol_elf_open(&e, p, n, &d) == OL_OK) {
		ol_elf_for_each_global(&e, shared, on_elf_symbol, &h, &d);
		ol_elf_close(&e);
	} else {
		return; /* not an object: the host linker will say so */
	}
	if (d.code) {
		ol_diag_locate(&d, file, member, 0);
		ol_link_error(l, &d);
	}
}

static void load_member(struct ol_link *l, struct ol_member *m)
{
	m->loaded = true;
	load_host_symbols(l, m->data, m->size, false, m->archive->path, m->name);
}

/* ---- archive search ---- */

struct index_entry {
	const char *name;
	struct ol_member *member;
};

struct index_ctx {
	struct ol_link *l;
	struct ol_input *a;
	struct index_entry *entries;
	size_t n, cap;
};

static struct ol_member *member_at(struct ol_input *a, uint64_t header_offset)
{
	size_t lo = 0, hi = a->nmembers;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->members[mid].header_offset == header_offset)
			return &a->members[mid];
		if (a->members[mid].header_offset < header_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static enum ol_err index_add(struct index_ctx *c, const char *name,
			    struct ol_member *m, struct ol_diag *d)
{
	struct index_entry *e = ol_grow(c->entries, c->n, &c->cap, sizeof(*e), 256);

	if (!e)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	c->entries = e;
	c->entries[c->n++] = (struct index_entry){ name, m };
	return OL_OK;
}

static enum ol_err on_index_symbol(void *ctx, const char *name, uint64_t off,
				   struct ol_diag *d)
{
	struct index_ctx *c = ctx;
	struct ol_member *m = member_at(c->a, off);

	/* An index entry naming no member is ignored, as ld does. */
	return m ? index_add(c, name, m, d) : OL_OK;
}

/* An archive without an index (`ar rcS`): each member's definitions. */
struct member_defs {
	struct index_ctx *c;
	struct ol_member *m;
};

static enum ol_err on_member_definition(void *ctx, const struct ol_elf_symbol *s,
					struct ol_diag *d)
{
	struct member_defs *md = ctx;

	return s->defined ? index_add(md->c, s->name, md->m, d) : OL_OK;
}

static void index_without_armap(struct index_ctx *c)
{
	for (size_t i = 0; i < c->a->nmembers; i++) {
		struct member_defs md = { c, &c->a->members[i] };
		struct ol_diag d;
		struct ol_elf e;

		ol_diag_clear(&d);
		if (!ol_is_elf(md.m->data, md.m->size) ||
		    ol_elf_open(&e, md.m->data, md.m->size, &d))
			continue;
		ol_elf_for_each_global(&e, false, on_member_definition, &md, &d);
		ol_elf_close(&e);
	}
}

struct archive_index {
	struct index_entry *entries;
	size_t n;
};

static void build_index(struct ol_link *l, struct ol_input *a,
			struct archive_index *out)
{
	struct index_ctx c = { l, a, NULL, 0, 0 };
	bool has_index = false;
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_archive_for_each_symbol(a->map.data, a->map.len, on_index_symbol, &c,
				       &has_index, &d)) {
		ol_diag_locate(&d, a->path, NULL, 0);
		ol_link_error(l, &d);
	} else if (!has_index) {
		index_without_armap(&c);
	}
	out->entries = c.entries;
	out->n = c.n;
}

/* Pull members that define a currently undefined symbol, again and again
 * as each pull may leave new undefined symbols; true if any was pulled. */
static bool search_archive(struct ol_link *l, struct ol_input *a,
			   const struct archive_index *idx)
{
	bool any = false, changed = true;

	if (a->whole_archive) {
		for (size_t i = 0; i < a->nmembers; i++)
			if (!a->members[i].loaded) {
				load_member(l, &a->members[i]);
				any = true;
			}
		return any;
	}
	while (changed) {
		changed = false;
		for (size_t i = 0; i < idx->n; i++) {
			const struct index_entry *e = &idx->entries[i];
			uintptr_t *v;

			if (e->member->loaded)
				continue;
			v = ol_strmap_get(&l->host_symbols, e->name, strlen(e->name));
			if (v && (*v & SYM_UNDEF) && !(*v & SYM_DEFINED)) {
				load_member(l, e->member);
				changed = any = true;
			}
		}
	}
	return any;
}

static void simulate_host_link(struct ol_link *l, struct archive_index *idx)
{
	for (size_t i = 0; i < l->nitems; i++)
		if (l->items[i].kind == ITEM_UNDEFINED)
			note_symbol(l, l->items[i].value, strlen(l->items[i].value),
				    false, false);
	for (size_t i = 0; i < l->ninputs; i++) {
		struct ol_input *in = &l->inputs[i];

		if (in->type == INPUT_OBJECT)
			load_host_symbols(l, in->map.data, in->map.len, false, in->path, NULL);
		else if (in->type == INPUT_SHARED)
			load_host_symbols(l, in->map.data, in->map.len, true, in->path, NULL);
		else if (in->type == INPUT_ARCHIVE)
			search_archive(l, in, &idx[i]);
		/* At the end of a group, search its archives again until a
		 * whole pass pulls nothing. */
		if (in->group >= 0 && (i + 1 == l->ninputs ||
				       l->inputs[i + 1].group != in->group)) {
			bool again = true;

			while (again) {
				again = false;
				for (size_t k = 0; k <= i; k++)
					if (l->inputs[k].group == in->group &&
					    l->inputs[k].type == INPUT_ARCHIVE)
						again |= search_archive(l, &l->inputs[k], &idx[k]);
			}
		}
	}
}

/* ---- device symbols ---- */

struct dev_ctx {
	struct ol_link *l;
	struct ol_image *img;
};

static void note_device_symbol(struct dev_ctx *c, const char *name, size_t len,
			       bool defined, bool weak)
{
	if (defined)
		ol_strvec_pushn(&c->img->defined, name, len);
	else if (!weak)
		ol_strvec_pushn(&c->img->undefined, name, len);
}

static enum ol_err on_dev_elf(void *ctx, const struct ol_elf_symbol *s,
			      struct ol_diag *d)
{
	(void)d;
	note_device_symbol(ctx, s->name, strlen(s->name), s->defined,
			   s->bind == STB_WEAK);
	return OL_OK;
}

static enum ol_err on_dev_bc(void *ctx, const struct bc_symbol *s,
			     struct ol_diag *d)
{
	(void)d;
	if (s->global && !s->format_specific)
		note_device_symbol(ctx, s->name, s->len, !s->undefined, s->weak);
	return OL_OK;
}

/* Read an image's device symbols once; images that are neither ELF nor
 * bitcode (PTX text, fatbinaries) have none we can read. */
static void read_device_symbols(struct ol_link *l, struct ol_image *img)
{
	struct dev_ctx c = { l, img };
	const uint8_t *p = img->entry->image;
	size_t n = (size_t)img->entry->image_size;
	struct ol_diag d;
	struct ol_elf e;

	if (img->symbols_state)
		return;
	img->symbols_state = -1;
	ol_diag_clear(&d);
	if (bc_is_bitcode(p, n)) {
		if (bc_for_each_symbol(p, n, on_dev_bc, &c, &d) == OL_OK)
			img->symbols_state = 1;
	} else if (ol_is_elf(p, n) &&
		   ol_elf_open(&e, (uint8_t *)(uintptr_t)p, n, &d) == OL_OK) {
		if (ol_elf_for_each_global(&e, false, on_dev_elf, &c, &d) == OL_OK)
			img->symbols_state = 1;
		ol_elf_close(&e);
	}
}

/* Same kind (or a kind-less image), same triple, and code for one arch
 * usable for the other. */
static bool same_target(const struct ol_image *a, const struct ol_image *b)
{
	struct ol_target_id ta, tb;
	struct ol_diag d;

	if (a->kind != b->kind && a->kind != OB_OFK_NONE && b->kind != OB_OFK_NONE)
		return false;
	if (strcmp(a->triple, b->triple) != 0)
		return false;
	if (strcmp(a->arch, b->arch) == 0)
		return true;
	ol_diag_clear(&d);
	if (ol_target_id_parse(a->arch, &ta, &d) || ol_target_id_parse(b->arch, &tb, &d))
		return false;
	return ol_target_id_serves(&ta, &tb) || ol_target_id_serves(&tb, &ta);
}

static bool defines(const struct ol_image *img, const char *name)
{
	return ol_strvec_contains(&img->defined, name);
}

/* A symbol needed by taken image `need` and defined by no taken image of
 * its target. */
static const char *unresolved_in(struct ol_link *l, struct ol_image *need,
				 const struct ol_image *candidate)
{
	for (size_t u = 0; u < need->undefined.n; u++) {
		const char *sym = need->undefined.v[u];
		bool found = false;

		if (!defines(candidate, sym))
			continue;
		for (size_t k = 0; k < l->nimages && !found; k++)
			found = l->images[k].taken && same_target(&l->images[k], need) &&
				l->images[k].symbols_state == 1 && defines(&l->images[k], sym);
		if (!found)
			return sym;
	}
	return NULL;
}

/* Take candidate if it defines something a taken image needs. */
static bool take_if_needed(struct ol_link *l, struct ol_image *cand)
{
	for (size_t k = 0; k < l->nimages; k++) {
		struct ol_image *need = &l->images[k];
		const char *sym;

		if (!need->taken || !same_target(need, cand))
			continue;
		read_device_symbols(l, need);
		if (need->symbols_state != 1 || !(sym = unresolved_in(l, need, cand)))
			continue;
		cand->taken = true;
		cand->why = ol_arena_printf(&l->arena, "defines %s, needed by %s",
					    sym, need->origin);
		return true;
	}
	return false;
}

static void resolve_device_symbols(struct ol_link *l)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < l->nimages; i++) {
			struct ol_image *cand = &l->images[i];

			if (cand->taken || cand->final || !cand->member)
				continue;
			read_device_symbols(l, cand);
			if (cand->symbols_state == 1 && cand->defined.n &&
			    take_if_needed(l, cand))
				changed = true;
		}
	}
}

static bool arch_listed(const struct ol_strvec *list, const char *arch)
{
	for (size_t i = 0; i < list->n; i++) {
		const char *p = list->v[i];

		/* Each value is a comma-separated list of archs. */
		while (*p) {
			size_t n = strcspn(p, ",");

			if (n == strlen(arch) && strncmp(p, arch, n) == 0)
				return true;
			p += n + (p[n] == ',');
		}
	}
	return false;
}

static void take_host_chosen(struct ol_link *l)
{
	for (size_t i = 0; i < l->nimages; i++) {
		struct ol_image *img = &l->images[i];

		if (img->final)
			continue;
		if (!img->member) {
			img->taken = true;
			if (!img->why)
				img->why = "input";
		} else if (img->member->loaded) {
			img->taken = true;
			img->why = img->member->archive->whole_archive
					   ? "--whole-archive" : "pulled in by the host link";
		} else if (arch_listed(&l->opt.should_extract, img->arch)) {
			img->taken = true;
			img->why = "--should-extract";
		}
	}
}

enum ol_err ol_select_archive_members(struct ol_link *l)
{
	struct archive_index *idx = calloc(l->ninputs ? l->ninputs : 1, sizeof(*idx));

	if (!idx)
		return OL_E_NOMEM;
	for (size_t i = 0; i < l->ninputs; i++) {
		struct ol_input *in = &l->inputs[i];

		/* Only archives carrying device code matter for what is
		 * taken, but every archive can pull members that change
		 * what is undefined, so all are indexed. */
		if (in->type == INPUT_ARCHIVE)
			build_index(l, in, &idx[i]);
	}
	simulate_host_link(l, idx);
	take_host_chosen(l);
	resolve_device_symbols(l);
	for (size_t i = 0; i < l->ninputs; i++)
		free(idx[i].entries);
	free(idx);
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}
