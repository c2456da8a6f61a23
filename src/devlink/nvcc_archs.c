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

#include "extract/nvcc_rdc.h"

static const char *module_of(const struct ol_image *img)
{
	return img->taken && img->kind == OB_OFK_CUDA && img->entry
		? ob_entry_get(img->entry, OL_NVCC_MODULE_KEY) : NULL;
}

/* The SMs module id has code for, space-separated, into b. */
static void module_archs(const struct ol_link *l, const char *id, struct ol_buf *b)
{
	for (size_t i = 0; i < l->nimages; i++) {
		const char *m = module_of(&l->images[i]);

		if (m && !strcmp(m, id))
			ol_buf_printf(b, "%s%s", b->len ? ", " : "", l->images[i].arch);
	}
}

static bool module_has(const struct ol_link *l, const char *id, const char *arch)
{
	for (size_t i = 0; i < l->nimages; i++) {
		const char *m = module_of(&l->images[i]);

		if (m && !strcmp(m, id) && !strcmp(l->images[i].arch, arch))
			return true;
	}
	return false;
}

/* The program's SMs into p; true when clang's CUDA code decides them. */
static bool program_archs(const struct ol_link *l, struct ol_strvec *p)
{
	bool clang = false;

	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->kind == OB_OFK_CUDA && !module_of(img) &&
		    !ol_strvec_contains(p, img->arch)) {
			ol_strvec_push(p, img->arch);
			clang = true;
		}
	}
	if (clang)
		return true;
	/* nvcc's alone: the SMs every module has */
	for (size_t i = 0; i < l->nimages; i++) {
		const char *arch = l->images[i].arch, *id = module_of(&l->images[i]);
		bool all = id != NULL;

		for (size_t k = 0; all && k < l->nimages; k++) {
			const char *other = module_of(&l->images[k]);

			all = !other || module_has(l, other, arch);
		}
		if (all && !ol_strvec_contains(p, arch))
			ol_strvec_push(p, arch);
	}
	return false;
}

enum ol_err ol_nvcc_archs(struct ol_link *l)
{
	struct ol_strvec prog = { 0 }, seen = { 0 };
	bool clang = program_archs(l, &prog);
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];
		const char *id = module_of(img);
		struct ol_buf has = { 0 };

		if (!id || ol_strvec_contains(&seen, id))
			continue;
		ol_strvec_push(&seen, id);
		for (size_t k = 0; k < prog.n; k++) {
			if (module_has(l, id, prog.v[k]))
				continue;
			module_archs(l, id, &has);
			ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for %s "
					  "has none for %s, which the program's CUDA code %s",
				       ol_link_quote(l, img->origin), has.data ? (char *)has.data : "",
				       prog.v[k], clang ? "is built for" : "of every other module has");
			rc = OL_E_REPORTED;
			break;
		}
		if (!prog.n) {
			module_archs(l, id, &has);
			ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for %s "
					  "shares no SM with the program's other nvcc modules",
				       ol_link_quote(l, img->origin), has.data ? (char *)has.data : "");
			rc = OL_E_REPORTED;
		}
		ol_buf_free(&has);
	}
	/* code for SMs the program is not linked for stays out */
	for (size_t i = 0; !rc && i < l->nimages; i++)
		if (module_of(&l->images[i]) && !ol_strvec_contains(&prog, l->images[i].arch)) {
			l->images[i].taken = false;
			l->images[i].why = "nvcc code for an SM the program is not linked for";
		}
	if (prog.err || seen.err)
		rc = OL_E_NOMEM;
	ol_strvec_free(&prog);
	ol_strvec_free(&seen);
	return rc;
}
