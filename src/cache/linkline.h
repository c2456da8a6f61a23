/* A device linker's command line (GNU ld or lld) as cache-key
 * ingredients: every option by what it means to the linker.
 *
 *  - options that only steer the link (-shared, -z now, --defsym=...,
 *    -rpath: text the output may carry) enter as text;
 *  - files the linker reads (positional inputs, -T scripts, version
 *    scripts, dynamic lists, ...) enter by their content;
 *  - each -l enters as the file the linker will find for it, searched as
 *    the linker searches: each -L directory of the whole line in order,
 *    .so before .a unless static, then (GNU ld) its built-in directories,
 *    which `ld --verbose` lists; so a library added earlier in the search
 *    changes the key as surely as one rebuilt;
 *  - @file arguments by their content and by the arguments they hold,
 *    recursively, as the linker expands them;
 *  - an option the table does not know, one that makes the linker print
 *    or write something besides the image (-Map, --trace, --reproduce),
 *    or a plugin (its inputs are its own) makes the link uncacheable,
 *    with the option named in the reason.
 * What the linker reads on its own beyond that (the files a linker
 * script or a shared library names) comes from its dependency file
 * after the link (devcache/cache_store.c). */
#ifndef OFFLINK_CACHE_LINKLINE_H
#define OFFLINK_CACHE_LINKLINE_H

#include <stddef.h>

#include "cache/key.h"
#include "common/strvec.h"

enum ol_ld_flavor { OL_LD_GNU, OL_LD_LLD };

/* The flavor of the linker at path (symlinks resolved: ld -> ld.bfd),
 * or -1 for one whose dependency file and options offlink does not know
 * (gold, mold, a wrapper script). */
int ol_ld_flavor_of(const char *path);

/* Add argv[1..argc) of the linker (argv[0]) to k; k->uncacheable says
 * why not, when not. */
void ol_key_linker_args(struct ol_key *k, enum ol_ld_flavor flavor, char *const *argv,
			size_t argc);

/* The directories the linker argv[0] searches for -l and for the
 * relative names a linker script gives (its -L, in order; @files
 * expanded), appended to dirs, and its --sysroot (a new string, or NULL)
 * in *sysroot: lld keeps no record of where it looked, so the cache
 * lists the places itself (cache/ldtrace.h). */
void ol_linker_search_dirs(char *const *argv, size_t argc, struct ol_strvec *dirs,
			   char **sysroot);

#endif
