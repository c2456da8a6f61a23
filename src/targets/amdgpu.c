/* The AMDGPU backend: ld.lld -shared with the target ID's processor and
 * features; bitcode through lld's own LTO. */
#include "targets/backend.h"

#include <string.h>

#include "format/target_id.h"
#include "format/triple.h"
#include "link/llvm_release.h"

static const char *find_lld(struct ol_link *l, const struct ol_group *g)
{
	const char *tool = NULL;

	if (ol_need_tool(l, g, ol_llvm_tool(l, "ld.lld", "OFFLINK_LLD"), "ld.lld",
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
	ol_gpu_flags(l, g, &f);
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
	ol_lto_options(l, &f, c, "-plugin-opt=");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	ol_strvec_push(&c->argv, "--whole-archive");
	ol_strvec_push(&c->argv, ol_group_inputs_archive(l, g));
	ol_strvec_push(&c->argv, "--no-whole-archive");
	ol_add_user_args(l, c, g->triple, false, MLLVM_PASS, false);
	return c->argv.err;
}

static bool claims(const char *triple)
{
	return ol_triple_is_amdgpu(triple);
}

const struct ol_backend ol_backend_amdgpu = {
	.name = "AMDGPU",
	.claims = claims,
	.plan = plan_amdgpu,
};
