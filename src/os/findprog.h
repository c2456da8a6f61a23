/* Finding the tools offlink runs. */
#ifndef OFFLINK_OS_FINDPROG_H
#define OFFLINK_OS_FINDPROG_H

#include <stdbool.h>

/* Path of name: itself if it contains a '/', else the first executable
 * match in $PATH; absolute either way (relative ones against the working
 * directory: a step may run in another).  Returns a malloc'd string, or
 * NULL when not found. */
char *ol_find_in_path(const char *name);
/* dir/name if it is an executable file, absolute, else NULL (malloc'd). */
char *ol_find_in_dir(const char *dir, const char *name);
/* True if path names an executable regular file. */
bool ol_is_executable(const char *path);
/* The first of names found beside the running program (argv0, as invoked
 * and as installed), then on PATH; $env, when set and non-empty, wins.
 * malloc'd, NULL if none. */
char *ol_find_tool(const char *argv0, const char *env, const char *const *names);
/* Directory holding the running executable as invoked (argv0 resolved
 * through PATH, symlinks kept) and as installed (symlinks resolved);
 * either may be NULL.  malloc'd. */
void ol_self_dirs(const char *argv0, char **invoked_dir, char **real_dir);
/* The compat directory of this offlink (the LLVM tool names clang -B
 * finds): <prefix>/lib/offlink/compat of an installed tree, or
 * <build>/compat of a build tree, found from the running executable so
 * that a moved tree still finds its own.  malloc'd, NULL if neither
 * exists. */
char *ol_compat_dir(void);
/* The offlink-guard beside this offlink (<dir>/offlink-guard in a build
 * tree, <prefix>/lib/offlink/offlink-guard installed), or NULL.
 * malloc'd. */
char *ol_find_guard(void);
/* offlink-probe.so (os/probe_preload.c), beside offlink in a build tree
 * or in lib/offlink/ installed; NULL when there is none. */
char *ol_find_probe_lib(void);

#endif
