/* Which SMs nvcc's relocatable modules (extract/nvcc_rdc.h) are linked
 * for.  The program's SMs are those of clang's CUDA code, or, with nvcc's
 * code alone, those every nvcc module has code for.  A module takes part
 * in each of them -- each must have a cubin or PTX for each: its kernels
 * must be in every image the program registers, and the code that calls
 * into it must link on every SM -- and its code for other SMs is left out
 * (a library built for more GPUs than the program).  A module lacking one
 * of the program's SMs is an error naming it and the SMs it has. */
#include "devlink/devlink.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "extract/nvcc_rdc.h"

static const char *module_of(const struct ol_image *img)
{
	return img->taken && img->kind == OB_OFK_CUDA && img->entry
		? ob_entry_get(img->entry, OL_NVCC_MODULE_KEY) : NULL;
}

/* One nvcc module: its ID, the file it came from, and its SMs, in the
 * order of its images. */
struct module {
	const char *id;
	const char *origin;
	struct ol_strvec archs;
};

static void modules_free(struct module *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ol_strvec_free(&m[i].archs);
	free(m);
}

/* The modules among l's images, each once, into *out (*n of them). */
static enum ol_err collect_modules(const struct ol_link *l, struct module **out, size_t *n)
{
	struct module *m = NULL;
	size_t cap = 0;
	enum ol_err rc = OL_OK;

	*n = 0;
	for (size_t i = 0; i < l->nimages && !rc; i++) {
		const struct ol_image *img = &l->images[i];
		const char *id = module_of(img);
		size_t k = *n;

		if (!id)
			continue;
		/* (backwards: a module's images come together) */
		while (k > 0 && strcmp(m[k - 1].id, id) != 0)
			k--;
		if (k == 0) {
			struct module *grown = ol_grow(m, *n, &cap, sizeof(*m), 8);

			if (!grown) {
				rc = OL_E_NOMEM;
				break;
			}
			m = grown;
			m[*n] = (struct module){ id, img->origin, { 0 } };
			k = ++*n;
		}
		if (!ol_strvec_contains(&m[k - 1].archs, img->arch))
			rc = ol_strvec_push(&m[k - 1].archs, img->arch);
	}
	if (rc) {
		modules_free(m, *n);
		m = NULL;
		*n = 0;
	}
	*out = m;
	return rc;
}

/* The SMs of m, ", "-separated, into b. */
static void archs_text(const struct module *m, struct ol_buf *b)
{
	for (size_t i = 0; i < m->archs.n; i++)
		ol_buf_printf(b, "%s%s", i ? ", " : "", m->archs.v[i]);
}

/* The program's SMs into p; true when clang's CUDA code decides them. */
static bool program_archs(const struct ol_link *l, const struct module *m, size_t nm,
			  struct ol_strvec *p)
{
	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->kind == OB_OFK_CUDA && !module_of(img) &&
		    !ol_strvec_contains(p, img->arch))
			ol_strvec_push(p, img->arch);
	}
	if (p->n || !nm)
		return p->n > 0;
	/* nvcc's alone: the SMs every module has */
	for (size_t a = 0; a < m[0].archs.n; a++) {
		bool all = true;

		for (size_t k = 1; all && k < nm; k++)
			all = ol_strvec_contains(&m[k].archs, m[0].archs.v[a]);
		if (all)
			ol_strvec_push(p, m[0].archs.v[a]);
	}
	return false;
}

enum ol_err ol_nvcc_archs(struct ol_link *l)
{
	struct ol_strvec prog = { 0 };
	struct module *m;
	size_t nm;
	bool clang;
	enum ol_err rc = collect_modules(l, &m, &nm);

	if (rc || !nm)
		return rc;
	clang = program_archs(l, m, nm, &prog);
	for (size_t i = 0; i < nm; i++) {
		struct ol_buf has = { 0 };
		const char *missing = NULL;

		for (size_t k = 0; k < prog.n && !missing; k++)
			if (!ol_strvec_contains(&m[i].archs, prog.v[k]))
				missing = prog.v[k];
		if (!missing && prog.n)
			continue;
		archs_text(&m[i], &has);
		if (missing)
			ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for %s "
					  "has none for %s, which the program's CUDA code %s",
				       ol_link_quote(l, m[i].origin), has.data ? (char *)has.data : "",
				       missing, clang ? "is built for" : "of every other module has");
		else
			ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for %s "
					  "shares no SM with the program's other nvcc modules",
				       ol_link_quote(l, m[i].origin), has.data ? (char *)has.data : "");
		rc = OL_E_REPORTED;
		ol_buf_free(&has);
	}
	/* code for SMs the program is not linked for stays out */
	for (size_t i = 0; !rc && i < l->nimages; i++)
		if (module_of(&l->images[i]) && !ol_strvec_contains(&prog, l->images[i].arch)) {
			l->images[i].taken = false;
			l->images[i].why = "nvcc code for an SM the program is not linked for";
		}
	if (!rc && prog.err)
		rc = OL_E_NOMEM;
	ol_strvec_free(&prog);
	modules_free(m, nm);
	return rc;
}
