/* CUDA and HIP: the fatbinary (NVIDIA's fatbinary tool) or the offload
 * bundle (offlink's own writer) of a wrapper's images, and the source
 * that registers it with the CUDA or HIP runtime. */
#ifndef OFFLINK_REGISTER_BUNDLE_H
#define OFFLINK_REGISTER_BUNDLE_H

#include "common/buf.h"
#include "register/register.h"

/* Whether w's images go into a container first: CUDA's and HIP's do. */
static inline bool ol_bundles(const struct ol_wrapper *w)
{
	return w->kind == OB_OFK_CUDA || w->kind == OB_OFK_HIP;
}

/* Add the bundling steps of w (CUDA: fatbinary) before its compile. */
enum ol_err ol_plan_bundle(struct ol_link *l, struct ol_wrapper *w);
/* The registration source of w; writes the HIP bundle first. */
enum ol_err ol_bundle_source(struct ol_link *l, struct ol_wrapper *w,
			     struct ol_buf *src, struct ol_diag *d);
/* Append a step to a wrapper's chain (bundling or compiling). */
struct ol_cmd *ol_wrapper_add_step(struct ol_link *l, struct ol_wrapper *w,
				   const char *program, const char *what);

/* Whether every managed-variable name the wrapper would reference can be
 * written by the assembly path (wrap_asm_symbol_ok). */
bool ol_bundle_asm_names_ok(struct ol_link *l, const struct ol_wrapper *w);

#endif
