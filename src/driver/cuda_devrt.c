/* add_cuda_device_runtime: CUDA's device runtime, libcudadevrt.a, for the
 * nvcc code that needs it, as nvcc's link adds it.
 *
 * nvcc -dlink runs nvlink with -lcudadevrt whatever the code, and nvlink
 * takes its member when device code calls into it: a kernel launching
 * kernels (dynamic parallelism: __cudaCDP2*), device-side cudaMalloc.
 * The member is itself an nvcc -rdc module (lib64/libcudadevrt.a: a host
 * object whose __nv_relfatbin holds a cubin per SM), so its module is
 * registered as every other: nvcc's link registers its kernels and
 * variables too (and links the archive on the host side, -lcudadevrt).
 *
 * Here: when the link takes nvcc's code and its device code leaves one of
 * the runtime's symbols (cuda*, __cuda*) undefined, or when the user
 * named the library for the device link (-Xoffload-linker -lcudadevrt,
 * where nvlink would link it without its module's registration), the
 * archive is added as an input of offlink's own; device-symbol
 * resolution takes its member if some code calls into it, and the host
 * link then gets the archive after the registration objects, so that the
 * registration's reference to the module's __fatbinwrap<ID> takes its
 * host object.  A user who puts
 * -lcudadevrt on the host link line gets the same through the ordinary
 * archive scan. */
#include "driver/phases.h"

#include <stdlib.h>
#include <string.h>

#include "common/strmap.h"
#include "devplan/plan.h"
#include "devlink/devlink.h"
#include "devplan/device_symbols.h"
#include "link/tools.h"

static const char lib[] = "libcudadevrt.a";

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A device-linker value naming the library: -lcudadevrt, -l:libcudadevrt.a,
 * or a path to it. */
static bool names_devrt(const char *v)
{
	return strcmp(v, "-lcudadevrt") == 0 || strcmp(v, "-l:libcudadevrt.a") == 0 ||
	       (v[0] != '-' && strcmp(base_name(v), lib) == 0);
}

/* The user's --device-linker values for NVPTX that name the library are
 * taken out (nvlink would link it unregistered); *path is one that names
 * the file, or NULL.  True if any did. */
static bool take_named(struct ol_link *l, const char **path)
{
	struct ol_strvec *v = &l->opt.device_linker;
	bool named = false;
	size_t kept = 0;

	*path = NULL;
	for (size_t i = 0; i < v->n; i++) {
		const char *a = ol_scoped_arg(v->v[i], "nvptx64-nvidia-cuda");

		if (a && names_devrt(a)) {
			named = true;
			if (a[0] != '-')
				*path = ol_arena_strdup(&l->arena, a);
			free(v->v[i]);
			continue;
		}
		v->v[kept++] = v->v[i];
	}
	v->n = kept;
	return named;
}

/* The library in the device linker's -L directories, in order. */
static const char *in_device_dirs(struct ol_link *l)
{
	for (size_t i = 0; i < l->opt.device_linker.n; i++) {
		const char *a = ol_scoped_arg(l->opt.device_linker.v[i], "nvptx64-nvidia-cuda");
		const char *p;
		char *real;

		if (!a || strncmp(a, "-L", 2) != 0 || !a[2])
			continue;
		if (!(p = ol_arena_printf(&l->arena, "%s/%s", a + 2, lib)))
			return NULL;
		if ((real = realpath(p, NULL))) {
			p = ol_arena_strdup(&l->arena, real);
			free(real);
			return p;
		}
	}
	return NULL;
}

/* A name the device runtime could define: CUDA 13's defines cuda* and
 * __cuda* only (the device-side runtime API, __cudaCDP2*), so a kernel's
 * vprintf or malloc (the driver's) does not send the link to it. */
static bool runtime_name(const char *sym)
{
	return strncmp(sym, "cuda", 4) == 0 || strncmp(sym, "__cuda", 6) == 0;
}

/* Whether the CUDA code the link takes leaves a device runtime's symbol
 * undefined (read from the images: cubins' and bitcode's symbol tables,
 * PTX's declarations). */
static bool calls_device_runtime(struct ol_link *l)
{
	struct ol_strmap defined = { 0 };
	bool any = false;

	for (int pass = 0; pass < 2 && !any; pass++)
		for (size_t i = 0; i < l->nimages && !any; i++) {
			struct ol_image *img = &l->images[i];

			if (!img->taken || img->kind != OB_OFK_CUDA || !ol_triple_is_nvptx(img->triple))
				continue;
			ol_read_device_symbols(img);
			for (size_t s = 0; pass == 0 && s < img->defined.n; s++)
				ol_strmap_put(&defined, img->defined.v[s], strlen(img->defined.v[s]));
			for (size_t s = 0; pass == 1 && s < img->undefined.n && !any; s++)
				any = runtime_name(img->undefined.v[s]) &&
				      !ol_strmap_get(&defined, img->undefined.v[s],
						     strlen(img->undefined.v[s]));
		}
	ol_strmap_free(&defined);
	return any;
}

enum ol_err ol_add_cuda_device_runtime(struct ol_link *l)
{
	bool cuda = false, nvcc = false, named;
	const char *path;
	struct ol_input *in;
	enum ol_err rc;

	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		cuda |= img->taken && img->kind == OB_OFK_CUDA && ol_triple_is_nvptx(img->triple);
		nvcc |= img->taken && img->nvcc_module;
	}
	if (!cuda)
		return OL_OK;
	/* on the host link's line: its archive scan has it */
	for (size_t i = 0; i < l->ninputs; i++)
		if (l->inputs[i].path && strcmp(base_name(l->inputs[i].path), lib) == 0)
			return OL_OK;
	named = take_named(l, &path);
	if (!named && (!nvcc || !calls_device_runtime(l)))
		return OL_OK;
	if (!path)
		path = in_device_dirs(l);
	if (!path)
		path = ol_find_cuda_library(l, lib);
	if (!path) {
		if (named)
			ol_link_errorf(l, "cannot find %s for the device link: not in the device "
					  "linker's -L directories, nor in lib64 or targets/*/lib of the "
					  "CUDA found by --cuda-path, $CUDA_PATH, /usr/local/cuda or the "
					  "nvlink on PATH", lib);
		return named ? OL_E_NOT_FOUND : OL_OK; /* (nvlink names what is undefined) */
	}
	if ((rc = ol_add_implicit_input(l, path, &in)) || !in)
		return rc;
	l->cuda_devrt = in;
	return OL_OK;
}
