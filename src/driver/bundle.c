/* CUDA and HIP registration. */
#include "driver/bundle.h"

enum ol_err ol_plan_bundle(struct ol_link *l, struct ol_wrapper *w)
{
	ol_link_errorf(l, "%s registration is not supported yet",
		       ob_offload_kind_name(w->kind));
	return OL_E_UNSUPPORTED;
}

enum ol_err ol_bundle_source(struct ol_link *l, struct ol_wrapper *w,
			     struct ol_buf *src, struct ol_diag *d)
{
	(void)l;
	(void)src;
	return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s registration",
			   ob_offload_kind_name(w->kind));
}
