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
#include "common/strmap.h"
#include "extract/nvcc_rdc.h"

static const char *module_of(const struct ol_image *img)
{
	return img->taken && img->kind == OB_OFK_CUDA && img->entry
		? ob_entry_get(img->entry, OL_NVCC_MODULE_KEY) : NULL;
}

/* One nvcc module: its ID, the file it came from, and its SMs, in the
 * order of its images, and as a set.  (Sets throughout: a hostile module
 * declares as many entries as it likes, of up to 10000 SMs, and every
 * check here stays linear in the images.) */
struct module {
	const char *id;
	const char *origin;
	struct ol_strvec archs;
	struct ol_strmap has;   /* its archs; keys are the images' strings */
};

static void modules_free(struct module *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ol_strvec_free(&m[i].archs);
		ol_strmap_free(&m[i].has);
	}
	free(m);
}

static bool in_set(const struct ol_strmap *set, const char *s)
{
	return ol_strmap_get(set, s, strlen(s)) != NULL;
}

/* s into the set and, when new, the vector; OL_E_NOMEM when memory runs
 * out. */
static enum ol_err add_unique(struct ol_strvec *v, struct ol_strmap *set, const char *s)
{
	uintptr_t *slot = ol_strmap_put(set, s, strlen(s));

	if (!slot)
		return OL_E_NOMEM;
	if (*slot)
		return OL_OK;
	*slot = 1;
	return ol_strvec_push(v, s) ? OL_E_NOMEM : OL_OK;
}

/* The modules among l's images, each once, into *out (*n of them). */
static enum ol_err collect_modules(const struct ol_link *l, struct module **out, size_t *n)
{
	struct ol_strmap ids = { 0 }; /* a module's ID -> its index + 1 */
	struct module *m = NULL;
	size_t cap = 0;
	enum ol_err rc = OL_OK;

	*n = 0;
	for (size_t i = 0; i < l->nimages && !rc; i++) {
		const struct ol_image *img = &l->images[i];
		const char *id = module_of(img);
		uintptr_t *slot;

		if (!id)
			continue;
		if (!(slot = ol_strmap_put(&ids, id, strlen(id)))) {
			rc = OL_E_NOMEM;
			break;
		}
		if (!*slot) {
			struct module *grown = ol_grow(m, *n, &cap, sizeof(*m), 8);

			if (!grown) {
				rc = OL_E_NOMEM;
				break;
			}
			m = grown;
			m[*n] = (struct module){ id, img->origin, { 0 }, { 0 } };
			*slot = ++*n;
		}
		rc = add_unique(&m[*slot - 1].archs, &m[*slot - 1].has, img->arch);
	}
	ol_strmap_free(&ids);
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

/* The program's SMs into p (and the set ps); *clang true when clang's
 * CUDA code decides them. */
static enum ol_err program_archs(const struct ol_link *l, const struct module *m, size_t nm,
				 struct ol_strvec *p, struct ol_strmap *ps, bool *clang)
{
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < l->nimages && !rc; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->kind == OB_OFK_CUDA && !module_of(img))
			rc = add_unique(p, ps, img->arch);
	}
	*clang = p->n > 0;
	if (rc || p->n || !nm)
		return rc;
	/* nvcc's alone: the SMs every module has */
	for (size_t a = 0; a < m[0].archs.n && !rc; a++) {
		bool all = true;

		for (size_t k = 1; all && k < nm; k++)
			all = in_set(&m[k].has, m[0].archs.v[a]);
		if (all)
			rc = add_unique(p, ps, m[0].archs.v[a]);
	}
	return rc;
}

/* Whether m has code for every SM of the program: counted over its own
 * SMs, so that the check is linear in the images. */
static bool has_all(const struct module *m, const struct ol_strvec *prog,
		    const struct ol_strmap *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < m->archs.n; i++)
		n += in_set(ps, m->archs.v[i]);
	return n == prog->n;
}

enum ol_err ol_nvcc_archs(struct ol_link *l)
{
	struct ol_strvec prog = { 0 };
	struct ol_strmap ps = { 0 };
	struct module *m;
	size_t nm;
	bool clang;
	enum ol_err rc = collect_modules(l, &m, &nm);

	if (rc || !nm)
		return rc;
	if ((rc = program_archs(l, m, nm, &prog, &ps, &clang)))
		goto out;
	for (size_t i = 0; i < nm; i++) {
		struct ol_buf has = { 0 };
		const char *missing = NULL;

		if (prog.n && has_all(&m[i], &prog, &ps))
			continue;
		for (size_t k = 0; k < prog.n && !missing; k++)
			if (!in_set(&m[i].has, prog.v[k]))
				missing = prog.v[k];
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
		if (module_of(&l->images[i]) && !in_set(&ps, l->images[i].arch)) {
			l->images[i].taken = false;
			l->images[i].why = "nvcc code for an SM the program is not linked for";
		}
out:
	ol_strvec_free(&prog);
	ol_strmap_free(&ps);
	modules_free(m, nm);
	return rc;
}
