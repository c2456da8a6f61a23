/* Which LLVM release a link follows, and its tools (llvm_release.c). */
#ifndef OFFLINK_LINK_LLVM_RELEASE_H
#define OFFLINK_LINK_LLVM_RELEASE_H

#include <stdbool.h>

#include "link/link.h"

/* Decide l->llvm (docs/design.md, "Which LLVM"); an error when device
 * code must be linked and the release's tools are not installed. */
enum ol_err ol_choose_llvm(struct ol_link *l);

/* Whether the link follows release major or a newer one (an unknown
 * release counts as the newest). */
bool ol_llvm_at_least(const struct ol_link *l, unsigned major);

/* The LLVM tool name of the link's release ($env, when set, wins), or
 * NULL; malloc'd. */
char *ol_llvm_tool(struct ol_link *l, const char *name, const char *env);

/* Where ol_llvm_tool looks, for an error message. */
const char *ol_llvm_where(struct ol_link *l, const char *env);

#endif
