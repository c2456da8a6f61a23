/* A step of a device link keyed from its own description: the program,
 * its arguments read by what they mean to that tool, and the environment
 * the tools read.  What a backend plans (a struct ol_cmd) is all the cache
 * needs: the tables of each tool's options (linkline.c, toolargs.c) and of
 * the environment live here, not with the planners (devcache/cache_key.c
 * puts a group's steps together into its keys). */
#ifndef OFFLINK_CACHE_STEP_KEY_H
#define OFFLINK_CACHE_STEP_KEY_H

#include <stdbool.h>

#include "cache/key.h"
#include "cache/pathform.h"
#include "common/strvec.h"
#include "os/spawn.h"

/* What a linker step will say it read: its flavor (enum ol_ld_flavor;
 * -1: not a linker whose reads the cache can list) and, lld, its search
 * directories and sysroot (where its scripts' searches look). */
struct ol_step_reads {
	int flavor;
	struct ol_strvec dirs;
	char *sysroot;
};

/* The environment variables the device tools read that can change an
 * image, each list of directories in its travelling form. */
void ol_key_tool_env(struct ol_key *k);

/* How k's link writes its own places where they travel between links:
 * its temporary directory, and the working directory when it lies under
 * the base directory. */
struct ol_pathform ol_key_pathform(const struct ol_key *k);
struct ol_pathform ol_pathform_for(const char *tmpdir, const char *base_dir, const char *cwd);

/* The arguments of a link through clang: text in travelling form, an
 * input file by its content too (a shared object without an SONAME also
 * by its path: it reaches the image).  What clang runs is keyed apart
 * (ol_key_linker_command). */
void ol_key_driver_args(struct ol_key *k, char *const *argv, size_t argc);

/* Step c's arguments, by what they mean to its tool (program: c's
 * program as found); r: what a linker step will say it read (r->flavor
 * -1 for the others). */
void ol_key_step_args(struct ol_key *k, const struct ol_cmd *c, const char *program,
		      struct ol_step_reads *r);

/* The command clang runs for a link through it (argv[0]: the linker),
 * by what it means to that linker; r as for ol_key_step_args. */
void ol_key_linker_command(struct ol_key *k, char *const *argv, size_t argc,
			   struct ol_step_reads *r);

/* Whether path names a linker clang runs that reads its inputs, and the
 * libraries it is told to, and nothing else -- SPIRV-Tools' spirv-link
 * (SPIR-V), LLVM's clang-sycl-linker (SYCL) --: it writes no dependency
 * file, and needs none. */
bool ol_is_inputs_linker(const char *path);

/* The linker flavor clang will run for a link through it whose command
 * is not known yet: -fuse-ld, else the first ld where clang looks for it
 * (its COMPILER_PATH, its own directory, PATH); -1: not one whose reads
 * the cache can list. */
int ol_guess_clang_linker(const char *triple, char *const *argv, size_t argc);

void ol_step_reads_free(struct ol_step_reads *r);

#endif
