/* How a GPU group is compiled (NVPTX and AMDGPU): the level, debug
 * information, LTO partitions, read from offlink's own options and from
 * the --device-compiler values LLVM 22 passes (-O2, -g,
 * -flto-partitions=8); and the LTO options both GPU LTO drivers take. */
#include "devplan/plan.h"

#include <string.h>

/* "-O<x>" as 0-3 (what ptxas and the LTO drivers accept: -Os, -Oz and
 * -Ofast mean 2, -O means 1, as clang reads them), or NULL. */
static const char *opt_digit_of(const char *v)
{
	if (strncmp(v, "-O", 2) != 0)
		return NULL;
	v += 2;
	if (!*v)
		return "1";
	if (v[0] >= '0' && v[0] <= '3' && !v[1])
		return v[0] == '0' ? "0" : v[0] == '1' ? "1" : v[0] == '2' ? "2" : "3";
	if (!strcmp(v, "s") || !strcmp(v, "z") || !strcmp(v, "fast") || (v[0] > '3' && v[0] <= '9'))
		return v[0] > '3' && v[0] <= '9' ? "3" : "2";
	return NULL;
}

void ol_gpu_flags(struct ol_link *l, const struct ol_group *g, struct gpu_flags *f)
{
	/* Arguments that change nothing a device link makes, in LLVM's link
	 * as in offlink's: no warning (clang 22 gives every HIP link its
	 * --rocm-path: the device libraries were linked at compile time). */
	static const char *const no_meaning[] = { "-flto", "-fno-lto", "-v", "-save-temps",
						  "--cuda-path=", "-flto=", "-save-temps=",
						  "--rocm-path=", "--hip-path=", NULL };

	f->opt = opt_digit_of(ol_arena_printf(&l->arena, "-O%s", l->opt.opt_level));
	f->opt_given = f->opt && l->opt.opt_level_given;
	f->debug = l->opt.device_debug;
	f->partitions = NULL;
	for (size_t i = 0; i < l->opt.device_compiler.n; i++) {
		const char *v = ol_scoped_arg(l->opt.device_compiler.v[i], g->triple), *d;
		bool known = false;

		if (!v)
			continue;
		if ((d = opt_digit_of(v))) {
			f->opt = d;
			f->opt_given = true;
			continue;
		}
		if (strncmp(v, "-g", 2) == 0) {
			f->debug = strcmp(v, "-g0") != 0;
			continue;
		}
		if (strncmp(v, "-flto-partitions=", 17) == 0) {
			f->partitions = v + 17;
			continue;
		}
		for (const char *const *n = no_meaning; *n && !known; n++)
			known = (*n)[strlen(*n) - 1] == '=' ? strncmp(v, *n, strlen(*n)) == 0
							    : strcmp(v, *n) == 0;
		if (!known)
			ol_link_warnf(l, "device link %s: --device-compiler=%s is not used "
					 "(offlink links GPU code without a compiler driver)",
				      ol_group_label(l, g), v);
	}
	if (!f->opt)
		f->opt = "2";
}

/* The LTO options both LTO drivers take, after their plugin-option
 * prefix ("--plugin-opt=" for clang-nvlink-wrapper, "-plugin-opt=" for
 * ld.lld): the level, the partitions, -mllvm options, and --offload-opt
 * options. */
void ol_lto_options(const struct ol_link *l, const struct gpu_flags *f,
			struct ol_cmd *c, const char *plugin_opt)
{
	ol_strvec_pushf(&c->argv, "%sO%s", plugin_opt, f->opt);
	if (f->partitions)
		ol_strvec_pushf(&c->argv, "%slto-partitions=%s", plugin_opt, f->partitions);
	for (size_t i = 0; i < l->opt.mllvm.n; i++) {
		ol_strvec_push(&c->argv, "-mllvm");
		ol_strvec_push(&c->argv, l->opt.mllvm.v[i]);
	}
	for (size_t i = 0; i < l->opt.offload_opt.n; i++)
		ol_strvec_pushf(&c->argv, "%s%s", plugin_opt, l->opt.offload_opt.v[i]);
}
