/* GPU device links.
 *
 * NVPTX (sm_NN): cubins (what ptxas made at compile time) are linked by
 * nvlink; PTX images are assembled by ptxas first; bitcode (OpenMP's
 * device runtime, -foffload-lto) goes through clang-19's LTO for NVPTX
 * (clang-nvlink-wrapper --lto-emit-asm, clang-tools-19), which keeps what
 * the other device objects reference and drops the rest, to PTX, then
 * ptxas.  The CUDA tools are found in --cuda-path, $CUDA_PATH,
 * /usr/local/cuda, then PATH.
 *
 * AMDGPU: ld.lld -shared with the target ID's processor and features;
 * bitcode through lld's own LTO. */
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

static const char *lto_helper(struct ol_link *l, const struct ol_group *g)
{
	const char *tool = NULL;

	if (need_tool(l, g, ol_llvm_tool(l, "clang-nvlink-wrapper", "OFFLINK_NVLINK_LTO"),
		      "clang-nvlink-wrapper", ol_llvm_where(l, "OFFLINK_NVLINK_LTO"), &tool))
		return NULL;
	return tool;
}

/* The optimisation level as 0-3: what ptxas and the LTO drivers accept
 * (-Os and -Oz mean 2 there). */
static const char *opt_digit(const struct ol_link *l)
{
	const char *o = l->opt.opt_level;

	return (o[0] >= '0' && o[0] <= '3') ? o : "2";
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
				 const char *ptxas, const char *in, const char *out)
{
	struct ol_cmd *c = ol_group_add_step(l, g, ptxas, "ptxas");

	if (!c)
		return NULL;
	ol_strvec_push(&c->argv, "-m64");
	ol_strvec_pushf(&c->argv, "-O%s", opt_digit(l));
	ol_strvec_push(&c->argv, "--gpu-name");
	ol_strvec_push(&c->argv, g->arch);
	if (l->opt.device_debug)
		ol_strvec_push(&c->argv, "-g");
	for (size_t i = 0; i < l->opt.ptxas_args.n; i++)
		ol_strvec_push(&c->argv, l->opt.ptxas_args.v[i]);
	ol_strvec_push(&c->argv, "-c");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, out);
	ol_strvec_push(&c->argv, in);
	return c;
}

/* The LTO options both LTO drivers take, after their plugin-option
 * prefix ("--plugin-opt=" for clang-nvlink-wrapper, "-plugin-opt=" for
 * ld.lld): the level, -mllvm options, and --offload-opt options. */
static void lto_options(const struct ol_link *l, struct ol_cmd *c, const char *plugin_opt)
{
	ol_strvec_pushf(&c->argv, "%sO%s", plugin_opt, opt_digit(l));
	for (size_t i = 0; i < l->opt.mllvm.n; i++) {
		ol_strvec_push(&c->argv, "-mllvm");
		ol_strvec_push(&c->argv, l->opt.mllvm.v[i]);
	}
	for (size_t i = 0; i < l->opt.offload_opt.n; i++)
		ol_strvec_pushf(&c->argv, "%s%s", plugin_opt, l->opt.offload_opt.v[i]);
}

/* Bitcode of the group to PTX through clang-19's NVPTX LTO; the cubins
 * are given too so that what they reference stays visible. */
static enum ol_err lto_step(struct ol_link *l, struct ol_group *g,
			    const char *helper, const char *ptx)
{
	struct ol_cmd *c = ol_group_add_step(l, g, helper, "LTO of the bitcode");
	const char *feature = ptx_feature(l, g);

	if (!c)
		return OL_E_NOMEM;
	ol_strvec_push(&c->argv, "--arch");
	ol_strvec_push(&c->argv, g->arch);
	if (feature) {
		ol_strvec_push(&c->argv, "--feature");
		ol_strvec_push(&c->argv, feature);
	}
	ol_strvec_push(&c->argv, "--lto-emit-asm");
	lto_options(l, c, "--plugin-opt=");
	if (l->opt.device_debug)
		ol_strvec_push(&c->argv, "-g");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, ptx);
	for (size_t i = 0; i < g->nimages; i++) {
		uint16_t k = g->images[i]->entry->image_kind;

		if (k == OB_IMG_BITCODE || k == OB_IMG_OBJECT || k == OB_IMG_CUBIN)
			ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	}
	return c->argv.err;
}

static enum ol_err plan_nvptx(struct ol_link *l, struct ol_group *g)
{
	char searched[512];
	const char *ptxas, *nvlink, *helper = NULL, *stem = ol_group_stem(l, g);
	struct ol_strvec cubins = { 0 };
	struct ol_cmd *c;
	enum ol_err rc = OL_OK;

	if (strncmp(g->arch, "sm_", 3) != 0) {
		ol_link_errorf(l, "device link %s: NVPTX device code needs an sm_ architecture, "
				  "not '%s' (device code from %s)",
			       ol_group_label(l, g), g->arch, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (need_tool(l, g, ol_find_cuda_tool(l, "ptxas", searched, sizeof(searched)),
		      "ptxas", searched, &ptxas) ||
	    need_tool(l, g, ol_find_cuda_tool(l, "nvlink", searched, sizeof(searched)),
		      "nvlink", searched, &nvlink) ||
	    (g->any_bitcode && !(helper = lto_helper(l, g))))
		return OL_E_UNSUPPORTED;
	if (g->any_bitcode) {
		const char *ptx = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.s", stem));
		const char *cubin = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.lto.cubin", stem));

		if (lto_step(l, g, helper, ptx) || !ptxas_step(l, g, ptxas, ptx, cubin))
			return OL_E_NOMEM;
		ol_strvec_push(&cubins, cubin);
	}
	for (size_t i = 0; i < g->nimages; i++) {
		uint16_t k = g->images[i]->entry->image_kind;
		const char *in = ol_group_input_path(l, g, i);

		if (k == OB_IMG_PTX) {
			const char *cubin = ol_link_temp_path(
				l, ol_arena_printf(&l->arena, "%s.%zu.cubin", stem, i));

			if (!ptxas_step(l, g, ptxas, in, cubin))
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
	ol_strvec_pushf(&c->argv, "-arch=%s", g->arch);
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	ol_strvec_extend(&c->argv, &cubins);
	ol_add_user_args(l, c, g->triple, false);
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
	c = ol_group_add_step(l, g, lld, NULL);
	if (!c)
		return OL_E_NOMEM;
	c->response_file = true;
	ol_strvec_push(&c->argv, "-shared");
	ol_strvec_push(&c->argv, "--no-undefined");
	ol_strvec_pushf(&c->argv, "-plugin-opt=mcpu=%s", tid.processor);
	for (unsigned i = 0; i < tid.nfeatures; i++)
		ol_buf_printf(&attrs, "%s%c%s", i ? "," : "", tid.features[i].sign,
			      tid.features[i].name);
	if (attrs.len)
		ol_strvec_pushf(&c->argv, "-plugin-opt=-mattr=%s", (char *)attrs.data);
	ol_buf_free(&attrs);
	lto_options(l, c, "-plugin-opt=");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	for (size_t i = 0; i < g->nimages; i++)
		ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	ol_add_user_args(l, c, g->triple, false);
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
