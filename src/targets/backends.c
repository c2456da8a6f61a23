/* The backends, one per target family, and the one that claims a
 * group's kind or triple (docs/design.md, "Adding a target family"). */
#include "targets/backend.h"

#include <stddef.h>

static const struct ol_backend *const backends[] = {
	&ol_backend_sycl,
	&ol_backend_cpu,
	&ol_backend_nvptx,
	&ol_backend_amdgpu,
	&ol_backend_spirv,
};

const struct ol_backend *ol_backend_of(enum ob_offload_kind kind, const char *triple)
{
	size_t n = sizeof(backends) / sizeof(backends[0]);

	for (size_t i = 0; i < n; i++)
		if (backends[i]->kind && backends[i]->kind == kind)
			return backends[i];
	for (size_t i = 0; i < n; i++)
		if (!backends[i]->kind && backends[i]->claims(triple))
			return backends[i];
	return NULL;
}

