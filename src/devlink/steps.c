/* What every backend's planning uses: the group's files, a step added
 * to its chain, the --device-linker and --device-compiler values that
 * apply to its triple. */
#include "devlink/backend.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/response_file.h"
#include "format/triple.h"

/* "--device-linker=<triple>=<arg>" applies to that triple only; a prefix
 * that is not a triple (no '-', or a dash-led option) is part of the
 * argument, so "--device-linker=-Wl,--defsym=a=1" is kept whole (LLVM 19
 * splits it at the first '=' and drops it). */
const char *ol_scoped_arg(const char *spec, const char *triple)
{
	const char *eq = strchr(spec, '=');
	size_t n;

	if (!eq || spec[0] == '-' || !memchr(spec, '-', (size_t)(eq - spec)))
		return spec;
	n = (size_t)(eq - spec);
	/* (LLVM 24 scopes AMD's arguments by "amdgpu-amd-amdhsa", and each
	 * group's triple names its processor: format/triple.h) */
	return ol_triple_scope_covers(spec, n, triple) ? eq + 1 : NULL;
}

const char *ol_group_stem(struct ol_link *l, const struct ol_group *g)
{
	(void)l;
	return g->stem;
}

const char *ol_group_input_path(struct ol_link *l, const struct ol_group *g, size_t i)
{
	(void)l;
	return g->input_paths[i];
}

const char *ol_group_inputs_archive(struct ol_link *l, struct ol_group *g)
{
	if (!g->inputs_archive)
		g->inputs_archive = ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.inputs.a", g->stem));
	return g->inputs_archive;
}

struct ol_cmd *ol_group_add_step(struct ol_link *l, struct ol_group *g,
				 const char *program, const char *what)
{
	/* (grown geometrically: an nvcc module may bring 100,000 PTX entries,
	 * a ptxas step each) */
	struct ol_cmd *steps = ol_grow(g->steps, g->nsteps, &g->capsteps, sizeof(*steps), 4);
	struct ol_step_sched *sched;
	struct ol_cmd *c;

	if (!steps)
		return NULL;
	g->steps = steps;
	if (!(sched = ol_grow(g->sched, g->nsteps, &g->capsched, sizeof(*sched), 4)))
		return NULL;
	g->sched = sched;
	memset(&g->sched[g->nsteps], 0, sizeof(*sched));
	c = &g->steps[g->nsteps++];
	memset(c, 0, sizeof(*c));
	c->step = what ? strdup(ol_arena_printf(&l->arena, "device link %s (%s)",
						ol_group_label(l, g), what))
		       : strdup(ol_arena_printf(&l->arena, "device link %s",
						ol_group_label(l, g)));
	ol_strvec_push(&c->argv, program);
	return c;
}

/* The --device-linker values for triple, in order, each with its role:
 * an argument of its own, or the "-mllvm" and the option of a pair. */
enum role { PLAIN, MLLVM_FLAG, MLLVM_OPTION };

struct linker_values {
	const char **v;
	enum role *role;
	size_t n;
};

static void linker_values(struct ol_link *l, const char *triple, struct linker_values *lv)
{
	size_t cap = l->opt.device_linker.n ? l->opt.device_linker.n : 1;
	const char *a;

	lv->v = ol_arena_array(&l->arena, cap, sizeof(*lv->v));
	lv->role = ol_arena_array(&l->arena, cap, sizeof(*lv->role));
	lv->n = 0;
	for (size_t i = 0; lv->v && lv->role && i < l->opt.device_linker.n; i++) {
		if (!(a = ol_scoped_arg(l->opt.device_linker.v[i], triple)))
			continue;
		lv->role[lv->n] = lv->n && lv->role[lv->n - 1] == MLLVM_FLAG ? MLLVM_OPTION
				: strcmp(a, "-mllvm") == 0 ? MLLVM_FLAG : PLAIN;
		lv->v[lv->n++] = a;
	}
}

void ol_linker_mllvm(struct ol_link *l, const char *triple, struct ol_strvec *out)
{
	struct linker_values lv;

	linker_values(l, triple, &lv);
	for (size_t i = 0; i < lv.n; i++)
		if (lv.role[i] == MLLVM_OPTION)
			ol_strvec_push(out, lv.v[i]);
}

/* A device linker argument for a tool that reads no @file (nvlink,
 * spirv-link): "@file" becomes the arguments the file holds, read as
 * GNU tools and LLVM's read them, so that the tool gets what it would
 * under LLVM's own wrapper (whose clang-nvlink-wrapper reads @files). */
static void push_linker_arg(struct ol_link *l, struct ol_cmd *c, const char *a, bool expand,
			    bool via_driver)
{
	struct ol_strvec args = { 0 };
	struct ol_diag d;
	char *argv[1] = { (char *)a };

	ol_diag_clear(&d);
	if (!expand || a[0] != '@') {
		if (via_driver)
			ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, a);
		return;
	}
	if (ol_expand_args(1, argv, 0, &args, &d)) {
		ol_diag_prefix(&d, "%s: the device linker argument %s", c->step, ol_link_quote(l, a));
		ol_link_error(l, &d);
	}
	for (size_t i = 0; i < args.n; i++) {
		if (via_driver)
			ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, args.v[i]);
	}
	ol_strvec_free(&args);
}

void ol_add_user_args(struct ol_link *l, struct ol_cmd *c, const char *triple,
		      bool linker_via_driver, enum ol_mllvm mllvm, bool expand)
{
	struct linker_values lv;
	const char *a;

	linker_values(l, triple, &lv);
	for (size_t i = 0; i < lv.n; i++) {
		if (mllvm == MLLVM_DROP && lv.role[i] != PLAIN)
			continue;
		push_linker_arg(l, c, lv.v[i], expand, linker_via_driver);
	}
	for (size_t i = 0; linker_via_driver && i < l->opt.device_compiler.n; i++)
		if ((a = ol_scoped_arg(l->opt.device_compiler.v[i], triple)))
			ol_strvec_push(&c->argv, a);
}

enum ol_err ol_need_all_bitcode(struct ol_link *l, const struct ol_group *g)
{
	/* (the image is one module: ThinLTO's are compiled apart, and clang
	 * refuses -fopenmp-target-jit with -foffload-lto=thin) */
	if (g->all_bitcode && g->any_thin) {
		ol_link_errorf(l, "device link %s: --embed-bitcode needs bitcode of regular LTO "
				  "(-foffload-lto), not ThinLTO modules; device code from %s",
			       ol_group_label(l, g), ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (g->all_bitcode)
		return OL_OK;
	ol_link_errorf(l, "device link %s: --embed-bitcode needs bitcode device images "
			  "(-foffload-lto); device code from %s",
		       ol_group_label(l, g), ol_group_origins(l, g));
	return OL_E_UNSUPPORTED;
}
