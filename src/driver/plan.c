/* The plan printed by --dry-run and --wrapper-verbose: each device link
 * with the images in it and why each was taken, and the archive members'
 * images that were left out. */
#include "driver/phases.h"

#include <stdio.h>
#include <string.h>

#include "common/message.h"
#include "devlink/devlink.h"
#include "thin/thinlto.h"
#include "link/llvm_release.h"

static bool same_image(const struct ol_image *a, const struct ol_image *b)
{
	return a->kind == b->kind && strcmp(a->origin, b->origin) == 0 &&
	       strcmp(a->triple, b->triple) == 0 && strcmp(a->arch, b->arch) == 0;
}

/* An image left out whose exact target is linked: worth showing; members
 * of the device runtime for other GPUs are not.  A library named twice
 * (the driver's -lomptarget.devicertl and the user's) has its members
 * twice: one left out while its twin is linked was not left out, and one
 * left out twice is shown once. */
static bool relevant(const struct ol_link *l, size_t index)
{
	const struct ol_image *img = &l->images[index];
	bool linked_target = false;

	if (img->taken || img->final)
		return false;
	for (size_t i = 0; i < l->ngroups && !linked_target; i++)
		linked_target = l->groups[i].kind == img->kind &&
				strcmp(l->groups[i].triple, img->triple) == 0 &&
				strcmp(l->groups[i].arch, img->arch) == 0;
	if (!linked_target)
		return false;
	for (size_t i = 0; i < l->nimages; i++)
		if (i != index && same_image(&l->images[i], img) &&
		    (l->images[i].taken || i < index))
			return false;
	return true;
}

void ol_print_plan(struct ol_link *l)
{
	size_t skipped = 0;

	ol_message("offlink", NULL, "plan for %s (host %s): %zu device link%s",
		l->output, l->opt.host_triple, l->ngroups, l->ngroups == 1 ? "" : "s");
	if (l->llvm.major)
		ol_message("offlink", NULL, "  LLVM %u, tools in %s: %s", l->llvm.major,
			   l->llvm.bin ? l->llvm.bin : "(not installed)", l->llvm.why);
	else
		ol_message("offlink", NULL, "  LLVM: %s", l->llvm.why ? l->llvm.why : "none chosen");
	for (size_t i = 0; i < l->ngroups; i++) {
		const struct ol_group *g = &l->groups[i];

		ol_message("offlink", NULL, "  %s: %zu image%s -> %s%s%s%s",
			ol_group_label(l, g), g->nimages, g->nimages == 1 ? "" : "s",
			g->image_path ? g->image_path : "?",
			g->cache_note ? "  (device-link cache: " : "",
			g->cache_note ? g->cache_note : "", g->cache_note ? ")" : "");
		if (g->module_path)
			ol_message("offlink", NULL, "    (linked to %s, then wrapped by offlink in %s)",
				   g->module_path,
				   ol_llvm_at_least(l, 23) ? "an offload binary as a SPIR-V image"
							   : "the SPIR-V container for Intel's runtime");
		if (g->thin)
			ol_message("offlink", NULL, "    (%s)", ol_thin_summary(l, g));
		for (size_t k = 0; k < g->nimages; k++) {
			const struct ol_image *img = g->images[k];

			/* (nvcc's PTX for a newer SM, or its code in OpenMP's
			 * link: the code's own arch) */
			bool other = img->nvcc_module && strcmp(img->arch, g->arch) != 0;

			ol_message("offlink", NULL, "    %-9s %9llu  %s%s%s%s  (%s)",
				ob_image_kind_name(img->entry->image_kind),
				(unsigned long long)img->entry->image_size,
				img->origin, other ? " [" : "", other ? img->arch : "",
				other ? "]" : "", img->why);
		}
	}
	for (size_t i = 0; i < l->nwrappers; i++) {
		const struct ol_wrapper *w = &l->wrappers[i];
		const char *container = w->kind == OB_OFK_CUDA ? "a fatbinary (NVIDIA's fatbinary)"
					: w->kind == OB_OFK_HIP ? "an offload bundle (written by offlink)"
								: "offload binaries";

		ol_message("offlink", NULL, "  %s registration: %zu image%s in %s%s%s%s%s",
			ob_offload_kind_name(w->kind), w->ngroups, w->ngroups == 1 ? "" : "s",
			container, w->bundle_path ? " -> " : "",
			w->bundle_path ? w->bundle_path : "",
			w->object ? "; an x86_64 object written by offlink -> " : "",
			w->object ? w->object_path : "");
		for (size_t k = 0; k < w->ngroups; k++)
			ol_message("offlink", NULL, "    %zu. %s%s%s", k + 1, w->groups[k]->triple,
				w->groups[k]->arch[0] ? " " : "", w->groups[k]->arch);
	}
	for (size_t i = 0; i < l->nimages; i++)
		skipped += relevant(l, i);
	if (skipped)
		ol_message("offlink", NULL, "  not linked (the host link does not pull these members in):");
	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		if (relevant(l, i))
			ol_message("offlink", NULL, "    %s %s%s%s  %s",
				ob_offload_kind_name(img->kind), img->triple,
				img->arch[0] ? " " : "", img->arch, img->origin);
	}
}
