/* GPU device links, with the tools of the link's LLVM release.
 *
 * NVPTX (sm_NN): cubins (what ptxas made at compile time) are linked by
 * nvlink; PTX images are assembled by ptxas first; bitcode (OpenMP's
 * device runtime, -foffload-lto) goes through the release's NVPTX LTO
 * driver (clang-nvlink-wrapper --lto-emit-asm, LLVM 17 on), which keeps
 * what the other device objects reference and drops the rest, to PTX,
 * then ptxas; LLVM 16, which has none, merges with llvm-link and compiles
 * with llc.  The CUDA tools are found in --cuda-path, $CUDA_PATH,
 * /usr/local/cuda, then PATH.
 *
 * AMDGPU: ld.lld -shared with the target ID's processor and features;
 * bitcode through lld's own LTO.
 *
 * LLVM 22 passes how device code is compiled as --device-compiler values
 * (-O2, -g, -flto-partitions=8): gpu_flags reads them for the link. */
#include "common/response_file.h"
#include "driver/device_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/llvm_release.h"
#include "format/target_id.h"
#include "os/findprog.h"

/* The tool's path, or (for --dry-run) its bare name, or an error. */
static enum ol_err need_tool(struct ol_link *l, const struct ol_group *g,
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

/* found: clang-nvlink-wrapper's path, or NULL (an error naming where
 * it was looked for, or its bare name under --dry-run). */
static const char *lto_helper(struct ol_link *l, const struct ol_group *g, char *found)
{
	const char *tool = NULL;

	if (need_tool(l, g, found, "clang-nvlink-wrapper", ol_llvm_where(l, "OFFLINK_NVLINK_LTO"),
		      &tool))
		return NULL;
	return tool;
}

/* How a GPU group is compiled: the level, debug information, LTO
 * partitions.  From offlink's own options (--opt-level, --device-debug;
 * LLVM up to 19) and from --device-compiler values (LLVM 22 passes -O2,
 * -g, -flto-partitions=8 so): offlink links GPU code without a compiler
 * driver, so each value is read for what it means to the link. */
struct gpu_flags {
	const char *opt;          /* "0".."3" */
	bool debug;
	const char *partitions;   /* -flto-partitions=N, or NULL */
};

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

static void gpu_flags(struct ol_link *l, const struct ol_group *g, struct gpu_flags *f)
{
	static const char *const no_meaning[] = { "-flto", "-fno-lto", "-v", "-save-temps",
						  "--cuda-path=", "-flto=", "-save-temps=", NULL };

	f->opt = opt_digit_of(ol_arena_printf(&l->arena, "-O%s", l->opt.opt_level));
	f->debug = l->opt.device_debug;
	f->partitions = NULL;
	for (size_t i = 0; i < l->opt.device_compiler.n; i++) {
		const char *v = ol_scoped_arg(l->opt.device_compiler.v[i], g->triple), *d;
		bool known = false;

		if (!v)
			continue;
		if ((d = opt_digit_of(v))) {
			f->opt = d;
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

/* The highest +ptxNN any bitcode image asks for (LTO's PTX version). */
static const char *ptx_feature(struct ol_link *l, const struct ol_group *g)
{
	int best = 0;

	for (size_t i = 0; i < g->nimages; i++) {
		const char *f = ob_entry_get(g->images[i]->entry, "feature");

		for (const char *p = f; p && (p = strstr(p, "+ptx")); p += 4)
			if (atoi(p + 4) > best)
				best = atoi(p + 4);
	}
	return best ? ol_arena_printf(&l->arena, "+ptx%d", best) : NULL;
}

static struct ol_cmd *ptxas_step(struct ol_link *l, struct ol_group *g,
				 const struct gpu_flags *f, const char *ptxas,
				 const char *in, const char *out)
{
	struct ol_cmd *c = ol_group_add_step(l, g, ptxas, "ptxas");

	if (c)
		c->tool = OL_TOOL_PTXAS;

	if (!c)
		return NULL;
	ol_strvec_push(&c->argv, "-m64");
	ol_strvec_pushf(&c->argv, "-O%s", f->opt);
	ol_strvec_push(&c->argv, "--gpu-name");
	ol_strvec_push(&c->argv, g->arch);
	if (f->debug)
		ol_strvec_push(&c->argv, "-g");
	/* (ptxas reads no @file: one is read here, as for nvlink) */
	for (size_t i = 0; i < l->opt.ptxas_args.n; i++) {
		char *argv[1] = { l->opt.ptxas_args.v[i] };
		struct ol_diag d;

		ol_diag_clear(&d);
		if (ol_expand_args(1, argv, 0, &c->argv, &d)) {
			ol_diag_prefix(&d, "%s: the ptxas argument %s", c->step,
				       ol_link_quote(l, l->opt.ptxas_args.v[i]));
			ol_link_error(l, &d);
		}
	}
	ol_strvec_push(&c->argv, "-c");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, out);
	ol_strvec_push(&c->argv, in);
	return c;
}

/* The LTO options both LTO drivers take, after their plugin-option
 * prefix ("--plugin-opt=" for clang-nvlink-wrapper, "-plugin-opt=" for
 * ld.lld): the level, the partitions, -mllvm options, and --offload-opt
 * options. */
static void lto_options(const struct ol_link *l, const struct gpu_flags *f,
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

/* Bitcode of the group to PTX (emit "--lto-emit-asm") or to merged
 * bitcode ("--lto-emit-llvm", --embed-bitcode) through the release's
 * NVPTX LTO driver, clang-nvlink-wrapper; the cubins are given too so
 * that what they reference stays visible.  Up to LLVM 19 it takes the PTX
 * version as --feature (LLVM 22 reads it from the bitcode). */
static enum ol_err lto_step(struct ol_link *l, struct ol_group *g,
			    const struct gpu_flags *f, const char *helper,
			    const char *emit, const char *out)
{
	struct ol_cmd *c = ol_group_add_step(l, g, helper, "LTO of the bitcode");
	const char *feature = ptx_feature(l, g);
	struct ol_strvec mllvm = { 0 };

	if (!c)
		return OL_E_NOMEM;
	ol_strvec_push(&c->argv, "--arch");
	ol_strvec_push(&c->argv, g->arch);
	if (feature && !ol_llvm_at_least(l, 20)) {
		ol_strvec_push(&c->argv, "--feature");
		ol_strvec_push(&c->argv, feature);
	}
	ol_strvec_push(&c->argv, emit);
	lto_options(l, f, c, "--plugin-opt=");
	ol_linker_mllvm(l, g->triple, &mllvm);
	for (size_t i = 0; i < mllvm.n; i++) {
		ol_strvec_push(&c->argv, "-mllvm");
		ol_strvec_push(&c->argv, mllvm.v[i]);
	}
	ol_strvec_free(&mllvm);
	if (f->debug)
		ol_strvec_push(&c->argv, "-g");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, out);
	for (size_t i = 0; i < g->nimages; i++) {
		uint16_t k = g->images[i]->entry->image_kind;

		if (k == OB_IMG_BITCODE || k == OB_IMG_OBJECT || k == OB_IMG_CUBIN)
			ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	}
	return c->argv.err;
}

/* Bitcode a library contributed for the symbols device code needs (the
 * device runtime's members), as opposed to the program's own. */
static bool library_code(const struct ol_image *img)
{
	return img->member && img->why && strncmp(img->why, "defines ", 8) == 0;
}

/* One step of the LLVM 16 path: program at path with argv so far; what
 * names the step. */
static struct ol_cmd *tool_step(struct ol_link *l, struct ol_group *g, const char *name,
				const char *env, const char *what)
{
	char *found = ol_llvm_tool(l, name, env);
	const char *path = NULL;

	if (need_tool(l, g, found, name, ol_llvm_where(l, env), &path))
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
		if (!(c = tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK", "link the program's bitcode")))
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

		if (!libs || !(c = tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK",
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
		if (!(c = tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK", "link what it needs of libraries")))
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
		if (!(c = tool_step(l, g, "llvm-link", "OFFLINK_LLVM_LINK", "link the libraries' bitcode")))
			return OL_E_UNSUPPORTED;
		ol_strvec_push(&c->argv, "-o");
		ol_strvec_push(&c->argv, merged);
		for (size_t i = 0; i < g->nimages; i++)
			if (g->images[i]->entry->image_kind == OB_IMG_BITCODE && library_code(g->images[i]))
				ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	}
	if (!(c = tool_step(l, g, "opt", "OFFLINK_OPT", "optimise the bitcode")))
		return OL_E_UNSUPPORTED;
	ol_strvec_pushf(&c->argv, "-passes=lto<O%s>", opt_level);
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, out);
	ol_strvec_push(&c->argv, merged);
	return c->argv.err;
}

/* LLVM 15 and 16 have no NVPTX LTO driver; their LTO, done in-process by their
 * wrapper, is here its own tools' (ol_plan_link_and_optimise), then llc
 * makes PTX.  (Without the internalizing link, llc 16 meets
 * device-runtime functions that LTO would have removed, and fails on
 * some.) */
static enum ol_err merge_and_compile(struct ol_link *l, struct ol_group *g,
				    const struct gpu_flags *f, const char *ptx)
{
	const char *feature = ptx_feature(l, g);
	const char *opt = ol_link_temp_path(
		l, ol_arena_printf(&l->arena, "%s.lto.opt.bc", ol_group_stem(l, g)));
	struct ol_cmd *c;
	enum ol_err rc;

	if (!opt)
		return OL_E_NOMEM;
	if ((rc = ol_plan_link_and_optimise(l, g, f->opt, opt)))
		return rc;
	if (!(c = tool_step(l, g, "llc", "OFFLINK_LLC", "compile the bitcode")))
		return OL_E_UNSUPPORTED;
	ol_strvec_push(&c->argv, "-mtriple=nvptx64-nvidia-cuda");
	ol_strvec_pushf(&c->argv, "-mcpu=%s", g->arch);
	if (feature)
		ol_strvec_pushf(&c->argv, "-mattr=%s", feature);
	ol_strvec_pushf(&c->argv, "-O%s", f->opt);
	for (size_t i = 0; i < l->opt.mllvm.n; i++)
		ol_strvec_push(&c->argv, l->opt.mllvm.v[i]);
	ol_linker_mllvm(l, g->triple, &c->argv);
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, ptx);
	ol_strvec_push(&c->argv, opt);
	return c->argv.err;
}

/* --embed-bitcode: the image is the bitcode after LTO's optimisation,
 * before code generation, for the runtime to compile just in time (as
 * LLVM's wrapper does: clang-nvlink-wrapper --lto-emit-llvm; LLVM 16
 * stops its in-process LTO before code generation: llvm-link and opt).
 * No CUDA tool runs. */
static enum ol_err plan_nvptx_bitcode(struct ol_link *l, struct ol_group *g,
				      const struct gpu_flags *f)
{
	char *lto;
	const char *helper;

	if (ol_need_all_bitcode(l, g))
		return OL_E_UNSUPPORTED;
	/* (15's clang-nvlink-wrapper is another tool: nvlink's, not LTO's) */
	lto = ol_llvm_at_least(l, 17) ? ol_llvm_tool(l, "clang-nvlink-wrapper", "OFFLINK_NVLINK_LTO")
				      : NULL;
	if (!lto && !ol_llvm_at_least(l, 17))
		return ol_plan_link_and_optimise(l, g, f->opt, g->image_path);
	if (!(helper = lto_helper(l, g, lto)))
		return OL_E_UNSUPPORTED;
	return lto_step(l, g, f, helper, "--lto-emit-llvm", g->image_path);
}

static enum ol_err plan_nvptx(struct ol_link *l, struct ol_group *g)
{
	char searched[512];
	const char *ptxas, *nvlink, *helper = NULL, *stem = ol_group_stem(l, g);
	char *lto = NULL;
	struct ol_strvec cubins = { 0 };
	struct gpu_flags f;
	struct ol_cmd *c;
	enum ol_err rc = OL_OK;

	if (strncmp(g->arch, "sm_", 3) != 0) {
		ol_link_errorf(l, "device link %s: NVPTX device code needs an sm_ architecture, "
				  "not '%s' (device code from %s)",
			       ol_group_label(l, g), g->arch, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	gpu_flags(l, g, &f);
	if (l->opt.embed_bitcode)
		return plan_nvptx_bitcode(l, g, &f);
	if (need_tool(l, g, ol_find_cuda_tool(l, "ptxas", searched, sizeof(searched)),
		      "ptxas", searched, &ptxas) ||
	    need_tool(l, g, ol_find_cuda_tool(l, "nvlink", searched, sizeof(searched)),
		      "nvlink", searched, &nvlink))
		return OL_E_UNSUPPORTED;
	if (g->any_bitcode) {
		const char *ptx = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.s", stem));
		const char *cubin = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.cubin", stem));

		/* The release's own NVPTX LTO driver, where it has one. */
		/* The release's own NVPTX LTO driver, from 17 on (15's
		 * clang-nvlink-wrapper is nvlink's, another tool). */
		lto = ol_llvm_at_least(l, 17)
			? ol_llvm_tool(l, "clang-nvlink-wrapper", "OFFLINK_NVLINK_LTO") : NULL;
		if (ol_llvm_at_least(l, 17)) {
			if (!(helper = lto_helper(l, g, lto)))
				return OL_E_UNSUPPORTED;
			rc = lto_step(l, g, &f, helper, "--lto-emit-asm", ptx);
		} else {
			rc = merge_and_compile(l, g, &f, ptx);
		}
		if (rc || !ptxas_step(l, g, &f, ptxas, ptx, cubin))
			return rc ? rc : OL_E_NOMEM;
		ol_strvec_push(&cubins, cubin);
	}
	for (size_t i = 0; i < g->nimages; i++) {
		uint16_t k = g->images[i]->entry->image_kind;
		const char *in = ol_group_input_path(l, g, i);

		if (k == OB_IMG_PTX) {
			const char *cubin = ol_link_temp_path(
				l, ol_arena_printf(&l->arena, "%s.%zu.cubin", stem, i));

			if (!ptxas_step(l, g, &f, ptxas, in, cubin))
				rc = OL_E_NOMEM;
			ol_strvec_push(&cubins, cubin);
		} else if (k != OB_IMG_BITCODE) {
			ol_strvec_push(&cubins, in);
		}
	}
	c = ol_group_add_step(l, g, nvlink, "nvlink");
	if (!c) {
		ol_strvec_free(&cubins);
		return OL_E_NOMEM;
	}
	c->tool = OL_TOOL_NVLINK;
	/* (LLVM 15 runs nvlink itself and says -m64, nvlink's only mode) */
	if (!ol_llvm_at_least(l, 16))
		ol_strvec_push(&c->argv, "-m64");
	ol_strvec_pushf(&c->argv, "-arch=%s", g->arch);
	if (f.debug)
		ol_strvec_push(&c->argv, "-g");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	ol_strvec_extend(&c->argv, &cubins);
	ol_add_user_args(l, c, g->triple, false, MLLVM_DROP); /* the LTO step's */
	ol_strvec_free(&cubins);
	return rc ? rc : c->argv.err;
}

static const char *find_lld(struct ol_link *l, const struct ol_group *g)
{
	const char *tool = NULL;

	if (need_tool(l, g, ol_llvm_tool(l, "ld.lld", "OFFLINK_LLD"), "ld.lld",
		      ol_llvm_where(l, "OFFLINK_LLD"), &tool))
		return NULL;
	return tool;
}

static enum ol_err plan_amdgpu(struct ol_link *l, struct ol_group *g)
{
	struct ol_target_id tid;
	struct ol_diag d;
	struct ol_buf attrs = { 0 };
	const char *lld = find_lld(l, g);
	struct gpu_flags f;
	struct ol_cmd *c;

	ol_diag_clear(&d);
	if (!lld)
		return OL_E_UNSUPPORTED;
	if (ol_target_id_parse(g->arch, &tid, &d) || !tid.processor[0]) {
		ol_link_errorf(l, "device link %s: AMDGPU device code needs a processor, "
				  "not '%s' (device code from %s)",
			       ol_group_label(l, g), g->arch, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	gpu_flags(l, g, &f);
	if (l->opt.embed_bitcode && ol_need_all_bitcode(l, g))
		return OL_E_UNSUPPORTED;
	/* (ld.lld 16 cannot emit bitcode: LLVM 16's own tools merge it) */
	if (l->opt.embed_bitcode && !ol_llvm_at_least(l, 17))
		return ol_plan_link_and_optimise(l, g, f.opt, g->image_path);
	c = ol_group_add_step(l, g, lld, NULL);
	if (!c)
		return OL_E_NOMEM;
	c->response_file = true;
	c->tool = OL_TOOL_LINKER;
	ol_strvec_push(&c->argv, "-shared");
	/* --embed-bitcode: lld writes the bitcode LTO optimised instead of
	 * compiling it. */
	if (l->opt.embed_bitcode)
		ol_strvec_push(&c->argv, "--lto-emit-llvm");
	ol_strvec_push(&c->argv, "--no-undefined");
	/* LLVM 15's wrapper has lld's LTO internalize every symbol but the
	 * kernels; 16 and later do not ask it. */
	if (!ol_llvm_at_least(l, 16))
		ol_strvec_push(&c->argv, "-plugin-opt=-amdgpu-internalize-symbols");
	ol_strvec_pushf(&c->argv, "-plugin-opt=mcpu=%s", tid.processor);
	for (unsigned i = 0; i < tid.nfeatures; i++)
		ol_buf_printf(&attrs, "%s%c%s", i ? "," : "", tid.features[i].sign,
			      tid.features[i].name);
	if (attrs.len)
		ol_strvec_pushf(&c->argv, "-plugin-opt=-mattr=%s", (char *)attrs.data);
	ol_buf_free(&attrs);
	/* (debug information comes from the bitcode: -g needs no option) */
	lto_options(l, &f, c, "-plugin-opt=");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	ol_strvec_push(&c->argv, "--whole-archive");
	ol_strvec_push(&c->argv, ol_group_inputs_archive(l, g));
	ol_strvec_push(&c->argv, "--no-whole-archive");
	ol_add_user_args(l, c, g->triple, false, MLLVM_PASS);
	return c->argv.err;
}

enum ol_err ol_plan_gpu(struct ol_link *l, struct ol_group *g)
{
	if (strncmp(g->triple, "nvptx64-", 8) == 0 || strncmp(g->triple, "nvptx-", 6) == 0)
		return plan_nvptx(l, g);
	if (strncmp(g->triple, "amdgcn-", 7) == 0)
		return plan_amdgpu(l, g);
	ol_link_errorf(l, "device link %s: linking for %s is not supported "
			  "(device code from %s)",
		       ol_group_label(l, g), g->triple, ol_group_origins(l, g));
	return OL_E_UNSUPPORTED;
}
