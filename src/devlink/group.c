/* group_images: one device link per (offload kind, triple, target ID).
 *
 * Each distinct target makes a group; an image joins every group of its
 * kind and triple that its code can serve (gfx90a code, "xnack any", also
 * serves a gfx90a:xnack+ group); a group whose target is served by a more
 * specific group's target is dropped, since that group holds all its
 * images and more.  Kind-less images (from --bitcode-library or a
 * packager run without kind=) join every compatible group.  Groups are
 * sorted by kind, then triple, then arch, each key compared on its own,
 * which fixes file names and link order; the order images are registered
 * in is the LLVM release's, decided per wrapper (image_order.c).
 *
 * Placing the images costs the images times the groups: the inputs'
 * targets, and so the groups, are at most OL_DEVICE_TARGETS_MAX (counted
 * by ol_resolve_device_symbols, which runs first). */
#include "devlink/devlink.h"

#include <stdlib.h>
#include <string.h>

#include "format/bitcode_lto.h"
#include "format/target_id.h"

static bool parse_tid(const char *arch, struct ol_target_id *t)
{
	struct ol_diag d;

	ol_diag_clear(&d);
	return ol_target_id_parse(arch, t, &d) == OL_OK;
}

/* The processor of a target ID (what comes before its first ':') is
 * "generic" (format/target_id.h: it serves and is served by any). */
static bool generic(const char *arch, size_t n)
{
	return n == 7 && memcmp(arch, "generic", 7) == 0;
}

/* Code built for arch `code` can go into a link for `target`.  (Two
 * different processors, neither generic, never serve each other: said
 * without parsing, since this runs for every image and group.) */
static bool serves(const char *code, const char *target)
{
	struct ol_target_id c, t;
	size_t nc = strcspn(code, ":"), nt = strcspn(target, ":");

	if (strcmp(code, target) == 0)
		return true;
	if ((nc != nt || memcmp(code, target, nc) != 0) && !generic(code, nc) &&
	    !generic(target, nt))
		return false;
	return parse_tid(code, &c) && parse_tid(target, &t) &&
	       ol_target_id_serves(&c, &t);
}

static struct ol_group *find_group(struct ol_link *l, enum ob_offload_kind kind,
				   const char *triple, const char *arch)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];

		if (g->kind == kind && strcmp(g->triple, triple) == 0 &&
		    strcmp(g->arch, arch) == 0)
			return g;
	}
	return NULL;
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct ol_group *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if ((c = strcmp(a->triple, b->triple)) != 0)
		return c;
	return strcmp(a->arch, b->arch);
}

/* A group is redundant if another of its kind and triple has a target its
 * own target's code can serve and is not the same target. */
static bool redundant(const struct ol_link *l, const struct ol_group *g)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		const struct ol_group *h = &l->groups[i];

		if (h != g && h->kind == g->kind && strcmp(h->triple, g->triple) == 0 &&
		    strcmp(h->arch, g->arch) != 0 && serves(g->arch, h->arch))
			return true;
	}
	return false;
}

/* Whether e is bitcode with a ThinLTO summary (bitcode that does not
 * read is left to the LTO that reads it, which names what is wrong). */
static bool thin_module(const struct ob_entry *e)
{
	enum bc_lto_kind kind;
	struct ol_diag d;

	ol_diag_clear(&d);
	return bc_lto_kind(e->image, (size_t)e->image_size, &kind, &d) == OL_OK && kind == BC_LTO_THIN;
}

static bool listed(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Whether img goes into g: nvcc's code into the links ol_nvcc_archs
 * chose for it (CUDA's, and OpenMP's that call it); any other image into
 * the groups of its kind and triple its code serves. */
static bool joins(const struct ol_image *img, const struct ol_group *g)
{
	if (!img->taken || strcmp(img->triple, g->triple) != 0)
		return false;
	if (img->nvcc_module)
		return (g->kind == OB_OFK_CUDA && listed(img->nvcc_cuda, img->nnvcc_cuda, g->arch)) ||
		       (g->kind == OB_OFK_OPENMP &&
			listed(img->nvcc_openmp, img->nnvcc_openmp, g->arch));
	return (img->kind == g->kind || img->kind == OB_OFK_NONE) && serves(img->arch, g->arch);
}

static enum ol_err fill_group(struct ol_link *l, struct ol_group *g)
{
	g->images = ol_arena_array(&l->arena, l->nimages ? l->nimages : 1,
				   sizeof(*g->images));
	if (!g->images)
		return OL_E_NOMEM;
	g->all_bitcode = true;
	for (size_t i = 0; i < l->nimages; i++) {
		struct ol_image *img = &l->images[i];

		if (!joins(img, g))
			continue;
		g->images[g->nimages++] = img;
		if (img->entry->image_kind == OB_IMG_BITCODE) {
			g->any_bitcode = true;
			g->any_thin |= thin_module(img->entry);
		} else {
			g->all_bitcode = false;
		}
	}
	return OL_OK;
}

/* The ELF machine of a linked image, as a triple. */
static const char *triple_of_elf(const uint8_t *p, size_t n)
{
	unsigned machine = n >= 20 ? (unsigned)(p[18] | p[19] << 8) : 0;

	switch (machine) {
	case 62: return "x86_64-pc-linux-gnu";         /* EM_X86_64 */
	case 183: return "aarch64-unknown-linux-gnu";  /* EM_AARCH64 */
	case 21: return "ppc64le-unknown-linux-gnu";   /* EM_PPC64 */
	case 190: return "nvptx64-nvidia-cuda";        /* EM_CUDA */
	case 224: return "amdgcn-amd-amdhsa";          /* EM_AMDGPU */
	default: return NULL;
	}
}

/* --override-image=<kind>=<file>: the file is the linked image of that
 * kind; nothing was scanned and nothing is linked. */
static enum ol_err override_groups(struct ol_link *l)
{
	size_t n = l->opt.override_images.n;

	l->groups = calloc(n, sizeof(*l->groups));
	if (!l->groups)
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *spec = l->opt.override_images.v[i], *eq = strchr(spec, '=');
		struct ol_group *g = &l->groups[l->ngroups];
		struct ol_map m;
		struct ol_diag d;

		if (!eq) {
			ol_link_errorf(l, "--override-image=%s: expected <kind>=<file>", spec);
			continue;
		}
		ol_diag_clear(&d);
		if (ol_map_file(eq + 1, &m, &d)) {
			ol_link_error(l, &d);
			continue;
		}
		g->triple = triple_of_elf(m.data, m.len);
		ol_unmap(&m);
		if (!g->triple) {
			ol_link_errorf(l, "%s: not an ELF image of a known machine", eq + 1);
			continue;
		}
		g->kind = ob_offload_kind_parse(ol_arena_strndup(&l->arena, spec,
								 (size_t)(eq - spec)));
		g->arch = "";
		g->image_path = strdup(eq + 1);
		g->images = NULL;
		l->ngroups++;
	}
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}

enum ol_err ol_group_images(struct ol_link *l)
{
	size_t kept = 0, most = 1;
	enum ol_err rc;

	if (l->opt.override_images.n)
		return override_groups(l);
	if ((rc = ol_nvcc_archs(l)))
		return rc;
	for (size_t i = 0; i < l->nimages; i++)
		most += l->images[i].nvcc_module ? l->images[i].nnvcc_cuda : 1;
	l->groups = calloc(most, sizeof(*l->groups));
	if (!l->groups)
		return OL_E_NOMEM;
	for (size_t i = 0; i < l->nimages; i++) {
		struct ol_image *img = &l->images[i];
		/* (nvcc's code: a group per CUDA SM it was chosen for; the
		 * OpenMP groups it joins are their own code's) */
		size_t n = img->nvcc_module ? img->nnvcc_cuda : 1;

		for (size_t k = 0; img->taken && img->kind != OB_OFK_NONE && k < n; k++) {
			const char *arch = img->nvcc_module ? img->nvcc_cuda[k] : img->arch;

			if (!find_group(l, img->kind, img->triple, arch))
				l->groups[l->ngroups++] = (struct ol_group){
					.kind = img->kind, .triple = img->triple, .arch = arch,
				};
		}
	}
	/* Decide every group against the full set before compacting. */
	for (size_t i = 0; i < l->ngroups; i++)
		l->groups[i].relinked = redundant(l, &l->groups[i]);
	for (size_t i = 0; i < l->ngroups; i++)
		if (!l->groups[i].relinked)
			l->groups[kept++] = l->groups[i];
	l->ngroups = kept;
	qsort(l->groups, l->ngroups, sizeof(*l->groups), cmp_groups);
	for (size_t i = 0; i < l->ngroups; i++)
		if (fill_group(l, &l->groups[i]))
			return OL_E_NOMEM;
	for (size_t i = 0; i < l->nimages; i++)
		if (l->images[i].taken && l->images[i].kind == OB_OFK_NONE &&
		    !l->ngroups)
			ol_link_warnf(l, "%s: device image for %s without an offload kind is not linked",
				      l->images[i].origin, l->images[i].triple);
	return OL_OK;
}
