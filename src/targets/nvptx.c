/* The NVPTX backend (sm_NN), with the tools of the link's LLVM release:
 * cubins (what ptxas made at compile time) are linked by nvlink; PTX
 * images are assembled by ptxas first; bitcode (OpenMP's device runtime,
 * -foffload-lto) goes through the release's NVPTX LTO driver
 * (clang-nvlink-wrapper --lto-emit-asm, LLVM 17 on), which keeps what the
 * other device objects reference and drops the rest, to PTX, then ptxas;
 * LLVM 16, which has none, merges with llvm-link and compiles with llc.
 * The CUDA tools are found in --cuda-path, $CUDA_PATH, /usr/local/cuda,
 * then PATH (link/tools.c). */
#include "targets/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/response_file.h"
#include "format/triple.h"
#include "thin/thinlto.h"
#include "link/llvm_release.h"
#include "link/tools.h"

/* found: clang-nvlink-wrapper's path, or NULL (an error naming where
 * it was looked for, or its bare name under --dry-run). */
static const char *lto_helper(struct ol_link *l, const struct ol_group *g, char *found)
{
	const char *tool = NULL;

	if (ol_need_tool(l, g, found, "clang-nvlink-wrapper", ol_llvm_where(l, "OFFLINK_NVLINK_LTO"),
		      &tool))
		return NULL;
	return tool;
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

/* Debug information, each release's way (docs/compat.md, "Debug
 * information on NVPTX").  ptxas refuses -g beside any optimisation
 * ("Optimized debugging not supported"), so a debug build is either
 * optimised with line information only, or not optimised with all of it.
 *   15 to 19: clang's rule for ptxas (Cuda.cpp), which 16 and 19 meet by
 *     running clang on the LTO's PTX with the explicit -O<level> (2 unless
 *     given): -O0 and debug: -g --dont-merge-basicblocks --return-at-end;
 *     a level above 0: -O<n> -lineinfo.  nvlink and the LTO get -g with
 *     the first only (15 gives nvlink -g whenever debug, as it did; its
 *     ptxas took -g beside -O and stopped: offlink follows clang's rule).
 *   20 on: clang passes -g to clang-nvlink-wrapper only when the level is
 *     0 or not given, and the wrapper then runs ptxas -O0 -g; a level
 *     given above 0 drops the debug flags (no -lineinfo). */
struct nv_debug {
	bool full;        /* ptxas -g (not optimised), the LTO -g */
	bool lineinfo;    /* ptxas -lineinfo */
	bool nvlink_g;    /* nvlink -g */
};

static struct nv_debug nv_debug_of(struct ol_link *l, const struct gpu_flags *f)
{
	struct nv_debug d = { 0 };
	bool level0 = !strcmp(f->opt, "0");

	if (!f->debug)
		return d;
	if (ol_llvm_at_least(l, 20)) {
		d.full = level0 || !f->opt_given;
		d.nvlink_g = d.full;
		return d;
	}
	d.full = level0;
	d.lineinfo = !level0;
	d.nvlink_g = d.full || !ol_llvm_at_least(l, 16);
	return d;
}

static struct ol_cmd *ptxas_step(struct ol_link *l, struct ol_group *g,
				 const struct gpu_flags *f, const char *ptxas,
				 const char *in, const char *out)
{
	struct ol_cmd *c = ol_group_add_step(l, g, ptxas, "ptxas");
	struct nv_debug dbg = nv_debug_of(l, f);

	if (c)
		c->tool = OL_TOOL_PTXAS;

	if (!c)
		return NULL;
	ol_strvec_push(&c->argv, "-m64");
	if (!dbg.full || ol_llvm_at_least(l, 20))
		ol_strvec_pushf(&c->argv, "-O%s", dbg.full ? "0" : f->opt);
	ol_strvec_push(&c->argv, "--gpu-name");
	ol_strvec_push(&c->argv, g->arch);
	if (dbg.full)
		ol_strvec_push(&c->argv, "-g");
	if (dbg.full && !ol_llvm_at_least(l, 20)) {
		ol_strvec_push(&c->argv, "--dont-merge-basicblocks");
		ol_strvec_push(&c->argv, "--return-at-end");
	}
	if (dbg.lineinfo)
		ol_strvec_push(&c->argv, "-lineinfo");
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
	if (emit) /* (none: the whole link, nvlink's too) */
		ol_strvec_push(&c->argv, emit);
	ol_lto_options(l, f, c, "--plugin-opt=");
	ol_linker_mllvm(l, g->triple, &mllvm);
	for (size_t i = 0; i < mllvm.n; i++) {
		ol_strvec_push(&c->argv, "-mllvm");
		ol_strvec_push(&c->argv, mllvm.v[i]);
	}
	ol_strvec_free(&mllvm);
	if (nv_debug_of(l, f).full)
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

/* nvlink's arguments: the arch, the image, the cubins, the user's. */
static void nvlink_args(struct ol_link *l, struct ol_group *g, const struct gpu_flags *f,
			struct ol_cmd *c, const struct ol_strvec *cubins)
{
	c->tool = OL_TOOL_NVLINK;
	/* (LLVM 15 runs nvlink itself and says -m64, nvlink's only mode) */
	if (!ol_llvm_at_least(l, 16))
		ol_strvec_push(&c->argv, "-m64");
	ol_strvec_pushf(&c->argv, "-arch=%s", g->arch);
	if (nv_debug_of(l, f).nvlink_g)
		ol_strvec_push(&c->argv, "-g");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	ol_strvec_extend(&c->argv, cubins);
	/* (-mllvm: the LTO step's; nvlink reads no @file) */
	/* (nvlink searches for each -l itself, LIBRARY_PATH too: the cache's
	 * key holds its search, cache/toolargs.c) */
	ol_add_user_args(l, c, g->triple, false, MLLVM_DROP, true);
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
	if (!(c = ol_tool_step(l, g, "llc", "OFFLINK_LLC", "compile the bitcode")))
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

/* A group given a library of clang's device code (-l through --device-linker;
 * from 23 clang's -lompdevice, OpenMP's device runtime, when it is
 * installed): linked as LLVM links it, by the release's
 * clang-nvlink-wrapper as the linker -- it takes the archives' members
 * the link needs, bitcode into its LTO and objects to nvlink.  Each -l is
 * given as the file it names, so that the device-link cache keys what is
 * read.  (A library of nvcc's, which that wrapper would hand to nvlink as
 * a cubin, "not a device elf", is nvlink's own -l: plan_nvptx.) */
static enum ol_err plan_with_libraries(struct ol_link *l, struct ol_group *g,
				       const struct gpu_flags *f, const char *nvlink,
				       const struct ol_device_libs *libs)
{
	char *lto = ol_llvm_tool(l, "clang-nvlink-wrapper", "OFFLINK_NVLINK_LTO");
	const char *helper = lto_helper(l, g, lto), *slash;
	struct ol_cmd *c;

	if (!helper)
		return OL_E_UNSUPPORTED;
	if (lto_step(l, g, f, helper, NULL, g->image_path))
		return OL_E_NOMEM;
	c = &g->steps[g->nsteps - 1];
	/* (nvlink and ptxas where offlink found them: <CUDA>/bin/nvlink) */
	if ((slash = strrchr(nvlink, '/')) && slash - nvlink > 4 && !strncmp(slash - 4, "/bin", 4))
		ol_strvec_pushf(&c->argv, "--cuda-path=%.*s", (int)(slash - 4 - nvlink), nvlink);
	ol_add_user_args(l, c, g->triple, false, MLLVM_DROP, true);
	ol_name_device_libraries(libs, c);
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

/* A group with ThinLTO modules (thin/thinlto.h): the thin link and a
 * backend per module, each target-code file through its own ptxas as soon
 * as it is there (the regular partition, the device runtime's, first:
 * the longest), nvlink of every cubin once all are. */
/* The group's PTX images through ptxas, then one nvlink of every cubin:
 * those already in CUBINS (what LTO made), the PTX's, and the cubins the
 * group was given.  Under thin LTO's job graph (AFTER non-NULL, NAFTER of
 * it filled) each ptxas waits for AFTER[0] and nvlink for all of AFTER,
 * which has room for one more step per image.  Frees CUBINS. */
static enum ol_err plan_cubins_and_nvlink(struct ol_link *l, struct ol_group *g,
					  const struct gpu_flags *f, const char *ptxas,
					  const char *nvlink, struct ol_strvec *cubins,
					  size_t *after, size_t nafter)
{
	struct ol_cmd *c = NULL;
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < g->nimages && !rc; i++) {
		uint16_t k = g->images[i]->entry->image_kind;
		const char *in = ol_group_input_path(l, g, i);

		if (k == OB_IMG_PTX) {
			const char *cubin = ol_link_temp_path(
				l, ol_arena_printf(&l->arena, "%s.%zu.cubin", ol_group_stem(l, g), i));

			if (!cubin || !ptxas_step(l, g, f, ptxas, in, cubin)) {
				rc = OL_E_NOMEM;
				break;
			}
			if (after) {
				g->sched[g->nsteps - 1] = (struct ol_step_sched){
					.explicit_after = true, .after = after, .nafter = 1, .rank = 1 };
				after[nafter++] = g->nsteps - 1;
			}
			ol_strvec_push(cubins, cubin);
		} else if (k != OB_IMG_BITCODE) {
			ol_strvec_push(cubins, in);
		}
	}
	if (!rc && !(c = ol_group_add_step(l, g, nvlink, "nvlink")))
		rc = OL_E_NOMEM;
	if (c && after)
		g->sched[g->nsteps - 1] = (struct ol_step_sched){
			.explicit_after = true, .after = after, .nafter = nafter, .rank = 3 };
	if (c)
		nvlink_args(l, g, f, c, cubins);
	ol_strvec_free(cubins);
	return rc ? rc : c->argv.err;
}

static enum ol_err plan_thin(struct ol_link *l, struct ol_group *g, const struct gpu_flags *f,
			     const char *ptxas, const char *nvlink)
{
	struct ol_thin_target tt = { g->arch, ptx_feature(l, g), f->opt, ".s" };
	struct ol_thin_output *outs;
	size_t nouts, nafter = 0, *after;
	struct ol_strvec cubins = { 0 };
	enum ol_err rc;

	if ((rc = ol_thin_plan(l, g, &tt, &outs, &nouts)))
		return rc;
	if (!(after = ol_arena_array(&l->arena, nouts + g->nimages + 1, sizeof(*after))))
		return OL_E_NOMEM;
	after[nafter++] = 0; /* (nothing to assemble: nvlink waits for the thin link) */
	for (size_t i = 0; i < nouts; i++) {
		const char *cubin = ol_arena_printf(&l->arena, "%s.cubin", outs[i].path);
		size_t *from = ol_arena_array(&l->arena, 1, sizeof(*from));
		size_t step = g->nsteps;

		if (!cubin || !from || !ptxas_step(l, g, f, ptxas, outs[i].path, cubin)) {
			rc = OL_E_NOMEM;
		} else {
			*from = outs[i].step;
			g->sched[step] = (struct ol_step_sched){
				.explicit_after = true, .after = from, .nafter = 1,
				.rank = outs[i].step ? 2 : 1, .weight = outs[i].step ? 0 : INT64_MAX };
			rc = ol_thin_cache_assembler(l, g, step, outs[i].path, cubin);
		}
		if (rc) {
			ol_strvec_free(&cubins);
			return rc;
		}
		after[nafter++] = step;
		ol_strvec_push(&cubins, cubin);
	}
	return plan_cubins_and_nvlink(l, g, f, ptxas, nvlink, &cubins, after, nafter);
}

static enum ol_err plan_nvptx(struct ol_link *l, struct ol_group *g)
{
	char searched[512];
	const char *ptxas, *nvlink, *helper = NULL, *stem = ol_group_stem(l, g);
	char *lto = NULL;
	struct ol_strvec cubins = { 0 };
	struct ol_device_libs libs;
	struct gpu_flags f;
	enum ol_err rc = OL_OK;

	if (strncmp(g->arch, "sm_", 3) != 0) {
		ol_link_errorf(l, "device link %s: NVPTX device code needs an sm_ architecture, "
				  "not '%s' (device code from %s)",
			       ol_group_label(l, g), g->arch, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	ol_gpu_flags(l, g, &f);
	if (ol_find_device_libraries(l, g, &libs))
		return OL_E_UNSUPPORTED;
	if (l->opt.embed_bitcode)
		return plan_nvptx_bitcode(l, g, &f);
	if (ol_need_tool(l, g, ol_find_cuda_tool(l, "ptxas", searched, sizeof(searched)),
		      "ptxas", searched, &ptxas) ||
	    ol_need_tool(l, g, ol_find_cuda_tool(l, "nvlink", searched, sizeof(searched)),
		      "nvlink", searched, &nvlink))
		return OL_E_UNSUPPORTED;
	if (g->any_thin)
		return plan_thin(l, g, &f, ptxas, nvlink);
	if (ol_llvm_at_least(l, 17) && libs.clangs)
		return plan_with_libraries(l, g, &f, nvlink, &libs);
	if (g->any_bitcode) {
		const char *ptx = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.s", stem));
		const char *cubin = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.cubin", stem));

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
	return plan_cubins_and_nvlink(l, g, &f, ptxas, nvlink, &cubins, NULL, 0);
}

static bool claims(const char *triple)
{
	return strncmp(triple, "nvptx64-", 8) == 0 || strncmp(triple, "nvptx-", 6) == 0;
}

const struct ol_backend ol_backend_nvptx = {
	.name = "NVPTX",
	.claims = claims,
	.plan = plan_nvptx,
};
