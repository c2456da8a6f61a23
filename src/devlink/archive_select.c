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
 * nothing changes (device_symbols.c).  LLVM 19 instead consults no host symbols at all, and
 * so links no device code when only archives carry it. */
#include "devlink/devlink.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "devplan/device_symbols.h"
#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"

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
	m->indexed = true;
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

/* Whether the host link could pull in an archive member carrying device
 * code: one under --whole-archive, or one its archive's index names.  If
 * none (a link whose only archive images are a GPU device runtime, which
 * defines no host symbol), the simulation could load none of them, and
 * the host symbols of every input (3 ms for 1000 objects) are not read:
 * the host linker reads and checks them itself. */
static bool host_can_pull_images(const struct ol_link *l)
{
	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_member *m = l->images[i].member;

		if (m && !l->images[i].final && (m->archive->whole_archive || m->indexed))
			return true;
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
	enum ol_err rc;

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
	if (host_can_pull_images(l))
		simulate_host_link(l, idx);
	for (size_t i = 0; i < l->ninputs; i++)
		free(idx[i].entries);
	free(idx);
	take_host_chosen(l);
	if ((rc = ol_resolve_device_symbols(l)))
		return rc;
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}
