/* The symbol resolutions of a group's bitcode, for an LTO driver that
 * takes them one by one (llvm-lto2's -r file,symbol,flags), decided as
 * LLVM's wrapper decides them for its in-process LTO (docs/compat.md,
 * "ThinLTO on NVPTX"):
 *
 *   p  prevailing: a definition (a common one too), the first of its name
 *      among the group's bitcode, in the group's order;
 *   x  visible outside LTO: named by a symbol of the group's other device
 *      objects (cubins), or in a section whose name is a C identifier
 *      (the linker defines __start_/__stop_ for it), or a prevailing
 *      definition that is not hidden and may not be left out of a symbol
 *      table;
 *   l  final in the linkage unit: defined, not common, not of default
 *      visibility.
 *
 * Every symbol LTO sees (global, not an intrinsic) of every module gets
 * one (llvm-lto2 refuses a link that leaves one out), in the order of its
 * symbol table. */
#include "thin/thinlto.h"

#include <string.h>

#include "common/escape.h"
#include "common/strmap.h"
#include "devplan/device_symbols.h"
#include "format/bitcode_symtab.h"

struct resolve {
	struct ol_link *l;
	const struct ol_group *g;
	size_t image;
	const char *file;
	struct ol_strmap *prevailing, *regular;
	struct ol_strvec *out;
};

/* A C identifier: the section names the linker makes __start_/__stop_
 * symbols for. */
static bool c_identifier(const char *s, size_t n)
{
	return n && !(s[0] >= '0' && s[0] <= '9') && ol_identifier_chars(s, n);
}

static enum ol_err on_symbol(void *ctx, const struct bc_symbol *s, struct ol_diag *d)
{
	struct resolve *r = ctx;
	bool p = false, x, l;
	uintptr_t *slot;

	/* (LTO sees only these: locals and intrinsics are its own) */
	if (!s->global || s->format_specific)
		return OL_OK;
	/* (llvm-lto2 splits its -r at commas, and a name is a C string) */
	if (memchr(s->name, ',', s->len) || memchr(s->name, '\0', s->len))
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				   "the symbol %s of %s has a comma or a NUL byte in its name, "
				   "which llvm-lto2 cannot be told of",
				   ol_link_quote(r->l, ol_arena_printf(&r->l->arena, "%.*s", (int)s->len,
								       s->name)),
				   r->g->images[r->image]->origin);
	if (!s->undefined && !ol_strmap_get(r->prevailing, s->name, s->len)) {
		if (!(slot = ol_strmap_put(r->prevailing, s->name, s->len)))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		*slot = 1;
		p = true;
	}
	x = ol_strmap_get(r->regular, s->name, s->len) ||
	    (s->section && c_identifier(s->section, s->section_len)) ||
	    (p && s->visibility != 1 && !s->may_omit);
	l = s->visibility != 0 && !s->undefined && !s->common;
	ol_strvec_pushf(r->out, "-r=%s,%.*s,%s%s%s", r->file, (int)s->len, s->name, p ? "p" : "",
			l ? "l" : "", x ? "x" : "");
	return r->out->err ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL) : OL_OK;
}

/* The names of the group's other device objects' symbols, defined or
 * not (LLVM's wrapper counts both as used by a regular object). */
static enum ol_err regular_names(const struct ol_group *g, struct ol_strmap *regular,
				 struct ol_diag *d)
{
	for (size_t i = 0; i < g->nimages; i++) {
		struct ol_image *img = g->images[i];
		const struct ol_strvec *lists[2] = { &img->defined, &img->undefined };

		if (img->entry->image_kind == OB_IMG_BITCODE)
			continue;
		ol_read_device_symbols(img);
		for (size_t k = 0; k < 2; k++)
			for (size_t j = 0; j < lists[k]->n; j++) {
				uintptr_t *slot = ol_strmap_put(regular, lists[k]->v[j],
								strlen(lists[k]->v[j]));

				if (!slot)
					return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
				*slot = 1;
			}
	}
	return OL_OK;
}

enum ol_err ol_lto_resolutions(struct ol_link *l, const struct ol_group *g,
			       const char *const *names, struct ol_strvec *out, struct ol_diag *d)
{
	struct ol_strmap prevailing = { 0 }, regular = { 0 };
	struct resolve r = { l, g, 0, NULL, &prevailing, &regular, out };
	enum ol_err rc = regular_names(g, &regular, d);

	for (size_t i = 0; i < g->nimages && !rc; i++) {
		const struct ob_entry *e = g->images[i]->entry;

		if (!names[i])
			continue;
		r.image = i;
		r.file = names[i];
		if ((rc = bc_for_each_symbol(e->image, (size_t)e->image_size, on_symbol, &r, d)))
			ol_diag_prefix(d, "%s", g->images[i]->origin);
	}
	ol_strmap_free(&prevailing);
	ol_strmap_free(&regular);
	return rc;
}
