/* The release's own tools merging and optimising a group's bitcode
 * (llvm-link, opt): LLVM 16's in-process LTO, for releases whose linkers
 * cannot do it, shared by the backends; and the error for a tool that is
 * not there. */
#include "devplan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "link/llvm_release.h"

/* The tool's path, or (for --dry-run) its bare name, or an error. */
enum ol_err ol_need_tool(struct ol_link *l, const struct ol_group *g,
			     char *found, const char *name, const char *searched,
			     const char **out)
{
	if (found) {
		*out = ol_arena_strdup(&l->arena, found);
		free(found);
		return OL_OK;
	}
	if (l->opt.dry_run) {
		*out = name;
		return OL_OK;
	}
	ol_link_errorf(l, "device link %s: cannot find %s (searched %s)",
		       ol_group_label(l, g), name, searched);
	return OL_E_UNSUPPORTED;
}

/* Bitcode a library contributed for the symbols device code needs (the
 * device runtime's members), as opposed to the program's own. */
static bool library_code(const struct ol_image *img)
{
	return img->member && img->why && strncmp(img->why, "defines ", 8) == 0;
}

/* One step of the LLVM 16 path: program at path with argv so far; what
 * names the step. */
struct ol_cmd *ol_tool_step(struct ol_link *l, struct ol_group *g, const char *name,
				const char *env, const char *what)
{
	char *found = ol_llvm_tool(l, name, env);
	const char *path = NULL;

	if (ol_need_tool(l, g, found, name, ol_llvm_where(l, env), &path))
		return NULL;
	return ol_group_add_step(l, g, path, what);
}

enum ol_err ol_plan_link_and_optimise(struct ol_link *l, struct ol_group *g,
				      const char *opt_level, const char *out)
{
	const char *stem = ol_group_stem(l, g);
	const char *own = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.own.bc", stem));
	const char *merged = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.bc", stem));
	bool has_own = false;
	struct ol_cmd *c;

	if (!own || !merged)
		return OL_E_NOMEM;
	for (size_t i = 0; i < g->nimages; i++)
		has_own |= g->images[i]->entry->image_kind == OB_IMG_BITCODE &&
			   !library_code(g->images[i]);
	if (has_own) {
		if (!(c = ol_tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK", "link the program's bitcode")))
			return OL_E_UNSUPPORTED;
		ol_strvec_push(&c->argv, "-o");
		ol_strvec_push(&c->argv, own);
		for (size_t i = 0; i < g->nimages; i++)
			if (g->images[i]->entry->image_kind == OB_IMG_BITCODE &&
			    !library_code(g->images[i]))
				ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	}
	/* The libraries' bitcode as one module first: --only-needed follows
	 * what a needed function references within one source module, not
	 * from one library member into another (15's device runtime calls
	 * across members).  Then what the program's bitcode needs of it; with
	 * none of its own (cubins only), all of it. */
	if (has_own) {
		const char *libs = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.libs.bc", stem));

		if (!libs || !(c = ol_tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK",
					      "link the libraries' bitcode")))
			return libs ? OL_E_UNSUPPORTED : OL_E_NOMEM;
		ol_strvec_push(&c->argv, "-o");
		ol_strvec_push(&c->argv, libs);
		for (size_t i = 0; i < g->nimages; i++)
			if (g->images[i]->entry->image_kind == OB_IMG_BITCODE && library_code(g->images[i]))
				ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
		if (c->argv.n == 3) { /* no library: the program's own only */
			g->nsteps--;
			ol_cmd_free(&g->steps[g->nsteps]);
			libs = NULL;
		}
		if (!(c = ol_tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK",
				       "link what it needs of libraries")))
			return OL_E_UNSUPPORTED;
		ol_strvec_push(&c->argv, "-o");
		ol_strvec_push(&c->argv, merged);
		ol_strvec_push(&c->argv, own);
		if (libs) {
			ol_strvec_push(&c->argv, "--only-needed");
			ol_strvec_push(&c->argv, "--internalize");
			ol_strvec_push(&c->argv, libs);
		}
	} else {
		if (!(c = ol_tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK", "link the libraries' bitcode")))
			return OL_E_UNSUPPORTED;
		ol_strvec_push(&c->argv, "-o");
		ol_strvec_push(&c->argv, merged);
		for (size_t i = 0; i < g->nimages; i++)
			if (g->images[i]->entry->image_kind == OB_IMG_BITCODE && library_code(g->images[i]))
				ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	}
	if (!(c = ol_tool_step(l, g, "opt", "OFFLINK_OPT", "optimise the bitcode")))
		return OL_E_UNSUPPORTED;
	ol_strvec_pushf(&c->argv, "-passes=lto<O%s>", opt_level);
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, out);
	ol_strvec_push(&c->argv, merged);
	return c->argv.err;
}
