/* The device links' planning phase: each group's files named, and its
 * link planned by the backend that claims its kind or triple
 * (targets/backend.h). */
#include "devlink/devlink.h"

#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "targets/backend.h"

/* "<index>.<kind>.<triple>[.<arch>]": the group's index makes the name
 * unique by construction (two triples can read alike once made safe for
 * a file name: nvptx64-nvidia_cuda, nvptx64-nvidia:cuda); the rest is for
 * a reader of --save-temps. */
static const char *make_stem(struct ol_link *l, const struct ol_group *g)
{
	struct ol_buf b = { 0 };
	const char *s = NULL;

	if (!ol_buf_printf(&b, "%zu.%s.", (size_t)(g - l->groups), ol_kind_name(g->kind)) &&
	    !ol_file_name_part(&b, g->triple, OL_NAME_PART_MAX) &&
	    (!g->arch[0] || (!ol_buf_puts(&b, ".") &&
			     !ol_file_name_part(&b, g->arch, OL_NAME_PART_MAX))))
		s = ol_arena_strdup(&l->arena, (char *)b.data);
	ol_buf_free(&b);
	return s;
}

/* Name every file of g once: its stem, and each image's input file. */
static enum ol_err name_files(struct ol_link *l, struct ol_group *g)
{
	g->stem = make_stem(l, g);
	g->input_paths = ol_arena_array(&l->arena, g->nimages ? g->nimages : 1,
					sizeof(*g->input_paths));
	if (!g->stem || !g->input_paths)
		return OL_E_NOMEM;
	for (size_t i = 0; i < g->nimages; i++) {
		const char *ext = ob_image_kind_ext(g->images[i]->entry->image_kind);

		g->input_paths[i] = ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.%zu.%s", g->stem, i, *ext ? ext : "img"));
		if (!g->input_paths[i])
			return OL_E_NOMEM;
	}
	return OL_OK;
}

/* -r -lm: say what ld -r will do with it (the user's line is left as
 * it is: it is the host linker's). */
static void warn_relocatable_libm(struct ol_link *l)
{
	bool cpu = false;

	for (size_t i = 0; i < l->ngroups && !cpu; i++)
		cpu = ol_triple_is_cpu(l->groups[i].triple);
	for (size_t i = 0; cpu && i < l->nitems; i++)
		if (l->items[i].kind == ITEM_LIBRARY && strcmp(l->items[i].value, "m") == 0) {
			ol_link_warnf(l, "-r with -lm: the host linker copies libm.a's members into %s, "
					 "where they fail the final link; offlink links libm into CPU "
					 "device code itself, so -lm can go",
				      l->output);
			return;
		}
}

enum ol_err ol_plan_device_links(struct ol_link *l)
{
	if (l->opt.relocatable)
		warn_relocatable_libm(l);
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];
		enum ol_err rc;

		if (g->image_path) /* --override-image: linked already */
			continue;
		if (name_files(l, g))
			return OL_E_NOMEM;
		g->image_path = strdup(ol_link_temp_path(l, ol_arena_printf(
			&l->arena, "%s.img", ol_group_stem(l, g))));
		if (!g->image_path)
			return OL_E_NOMEM;
		if ((g->backend = ol_backend_of(g->kind, g->triple))) {
			rc = g->backend->plan(l, g);
		} else {
			ol_link_errorf(l, "device link %s: linking for %s is not supported "
					  "(device code from %s)",
				       ol_group_label(l, g), g->triple, ol_group_origins(l, g));
			rc = OL_E_UNSUPPORTED;
		}
		if (rc == OL_E_UNSUPPORTED)
			continue; /* reported; the others are still planned */
		if (rc)
			return rc;
	}
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}
