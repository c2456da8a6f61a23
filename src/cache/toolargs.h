/* The command lines of the device tools (nvlink, ptxas, spirv-link) as cache-key
 * ingredients, read with a table of the options offlink writes and the
 * ones users pass with -Xoffload-linker / --ptxas-arg: options that only
 * steer the tool enter as text, files by content, nvlink's -l as the
 * archive its -L directories give; an option outside the table, or one
 * that makes the tool print or write more than its output (-v,
 * --dump-callgraph, -keep), makes the link uncacheable. */
#ifndef OFFLINK_CACHE_TOOLARGS_H
#define OFFLINK_CACHE_TOOLARGS_H

#include <stddef.h>

#include "cache/key.h"

void ol_key_nvlink_args(struct ol_key *k, char *const *argv, size_t argc);
void ol_key_ptxas_args(struct ol_key *k, char *const *argv, size_t argc);
/* spirv-link, as clang runs it for a SPIR-V device link: inputs by
 * content, the link options as text, -o in the temporary directory. */
void ol_key_spirv_link_args(struct ol_key *k, char *const *argv, size_t argc);
/* clang-sycl-linker, as clang --sycl-link runs it (LLVM 23 on): inputs
 * by content, its -l libraries where -L finds them, the rest as text;
 * the options that run other tools (ocloc, opencl-aot) or write more
 * than the output are refused. */
void ol_key_sycl_linker_args(struct ol_key *k, char *const *argv, size_t argc);

/* Any other tool offlink runs with arguments it wrote itself (LLVM's
 * clang-nvlink-wrapper, llvm-link, opt, llc): files in the temporary
 * directory by their name there, other existing files by content, the
 * rest as text. */
void ol_key_plain_args(struct ol_key *k, char *const *argv, size_t argc);

#endif
