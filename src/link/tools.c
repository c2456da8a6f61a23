/* find_tools: the programs offlink runs.
 *
 * clang (device links of CPU targets, bitcode, the registration code) is
 * the chosen LLVM release's (llvm_release.c), $OFFLINK_CLANG overriding.
 * The other LLVM tools come from the same release, looked up where each
 * phase needs them (targets/nvptx.c, devplan/lto.c, driver/relocatable.c)
 * through ol_llvm_tool; the CUDA tools all through ol_find_cuda_tool.  Under
 * --dry-run a missing tool is printed by its bare name. */
#include "link/tools.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/llvm_release.h"
#include "os/findprog.h"

const char *ol_clang(struct ol_link *l)
{
	if (!l->clang)
		l->clang = ol_llvm_tool(l, "clang", "OFFLINK_CLANG");
	return l->clang;
}

const char *ol_clang_dir(struct ol_link *l)
{
	char real[PATH_MAX], *slash;

	if (!ol_clang(l) || !realpath(l->clang, real) || !(slash = strrchr(real, '/')))
		return NULL;
	*slash = '\0';
	return ol_arena_strdup(&l->arena, real);
}

char *ol_clang_library(struct ol_link *l, const char *file)
{
	const char *dir = ol_clang_dir(l);
	char real[PATH_MAX], *path;

	if (!dir)
		return NULL;
	path = ol_arena_printf(&l->arena, "%s/../lib/%s", dir, file);
	if (!path || !realpath(path, real))
		return NULL;
	return ol_arena_strdup(&l->arena, real);
}

enum ol_err ol_find_tools(struct ol_link *l)
{
	if (l->ngroups == 0)
		return OL_OK;
	if (ol_clang(l))
		return OL_OK;
	if (l->opt.dry_run) {
		l->clang = strdup("clang");
		return l->clang ? OL_OK : OL_E_NOMEM;
	}
	ol_link_errorf(l, "cannot find clang for the device links: looked at %s",
		       ol_llvm_where(l, "OFFLINK_CLANG"));
	return OL_E_NOT_FOUND;
}

/* <root>/lib64/<name> or <root>/targets/<machine>-linux/lib/<name>, where
 * CUDA installs its libraries. */
static const char *library_in(struct ol_link *l, const char *root, const char *name)
{
	const char *t = l->opt.host_triple ? l->opt.host_triple : "x86_64";
	int machine = (int)strcspn(t, "-");
	const char *p = ol_arena_printf(&l->arena, "%s/lib64/%s", root, name);
	char real[PATH_MAX];

	if (p && realpath(p, real))
		return ol_arena_strdup(&l->arena, real);
	p = ol_arena_printf(&l->arena, "%s/targets/%.*s-linux/lib/%s", root, machine, t, name);
	return p && realpath(p, real) ? ol_arena_strdup(&l->arena, real) : NULL;
}

const char *ol_find_cuda_library(struct ol_link *l, const char *name)
{
	const char *env = getenv("CUDA_PATH");
	const char *dirs[3] = { l->opt.cuda_path, env && *env ? env : NULL, "/usr/local/cuda" };
	const char *found = NULL;
	char searched[512], *nvlink, *slash;

	for (size_t i = 0; i < 3 && !found; i++)
		if (dirs[i])
			found = library_in(l, dirs[i], name);
	/* (the CUDA whose nvlink is on PATH: <root>/bin/nvlink) */
	if (!found && (nvlink = ol_find_cuda_tool(l, "nvlink", searched, sizeof(searched)))) {
		if ((slash = strrchr(nvlink, '/')) && slash != nvlink) {
			*slash = '\0';
			if ((slash = strrchr(nvlink, '/')))
				*slash = '\0';
			found = library_in(l, *nvlink ? nvlink : "/", name);
		}
		free(nvlink);
	}
	return found;
}

char *ol_find_cuda_tool(struct ol_link *l, const char *name, char *searched, size_t len)
{
	const char *env = getenv("CUDA_PATH");
	const char *dirs[3] = { l->opt.cuda_path, env && *env ? env : NULL,
				"/usr/local/cuda" };
	char *found = NULL;

	for (size_t i = 0; i < 3 && !found; i++)
		if (dirs[i])
			found = ol_find_in_dir(ol_arena_printf(&l->arena, "%s/bin", dirs[i]), name);
	if (!found)
		found = ol_find_in_path(name);
	snprintf(searched, len, "--cuda-path%s%s, $CUDA_PATH%s%s, /usr/local/cuda/bin, PATH",
		 l->opt.cuda_path ? " " : " (not given)",
		 l->opt.cuda_path ? l->opt.cuda_path : "", env && *env ? " " : " (unset)",
		 env && *env ? env : "");
	return found;
}
