/* GPU device links (NVPTX, AMDGPU). */
#include "driver/device_link.h"

enum ol_err ol_plan_gpu(struct ol_link *l, struct ol_group *g)
{
	ol_link_errorf(l, "device link %s: linking for %s is not supported",
		       ol_group_label(l, g), g->triple);
	return OL_E_UNSUPPORTED;
}
