/* The SYCL backend (LLVM 23 on), as LLVM's wrapper links SYCL device code:
 * the release's clang with --target=<triple> --sycl-link links the group's
 * modules (it runs clang-sycl-linker), each image its own input file; 23
 * also names the triple and arch to the linker (-Xlinker -triple=,
 * -Xlinker -arch=), 24 no longer does.  What the link writes is an offload
 * binary of the release's version -- the SPIR-V module with the kernels'
 * names (its "symbols" string), kind SYCL -- and that binary is the image
 * registered, as it is (register/: __sycl_register_lib(image, size)).
 *
 * SYCL groups are claimed whatever their triple: the kind decides, as in
 * LLVM's wrapper.  LLVM 22's wrapper runs the same link, but its clang
 * cannot run what --sycl-link needs on Debian, and its registration is
 * not one that can be checked: SYCL needs clang 23 or later here. */
#include "targets/backend.h"

#include "link/llvm_release.h"

static enum ol_err plan_sycl(struct ol_link *l, struct ol_group *g)
{
	struct ol_cmd *c;

	if (!ol_llvm_at_least(l, 23)) {
		ol_link_errorf(l, "device link %s: SYCL device code needs clang 23 or later to link "
				  "(this link follows LLVM %u; device code from %s)",
			       ol_group_label(l, g), l->llvm.major, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (ol_refuse_embed_bitcode(l, g, "SYCL"))
		return OL_E_UNSUPPORTED;
	c = ol_clang_step(l, g, NULL);
	if (!c)
		return OL_E_NOMEM;
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	for (size_t i = 0; i < g->nimages; i++)
		ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	ol_strvec_push(&c->argv, "--sycl-link");
	if (!ol_llvm_at_least(l, 24)) {
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_pushf(&c->argv, "-triple=%s", g->triple);
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_pushf(&c->argv, "-arch=%s", g->arch);
	}
	/* (-mllvm values go to clang-sycl-linker's own code generation) */
	ol_add_user_args(l, c, g->triple, true, MLLVM_PASS, true);
	return c->argv.err;
}

const struct ol_backend ol_backend_sycl = {
	.name = "SYCL",
	.kind = OB_OFK_SYCL,
	.plan = plan_sycl,
};
