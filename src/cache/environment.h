/* The whole environment in a key, for a tool the cache cannot watch read
 * it: a script (a shell reads its variables without getenv, which is
 * all the recorder sees, and may pass any of them on: Nix's ld-wrapper
 * adds $NIX_LDFLAGS, Spack's compiler wrappers read $SPACK_*), or a
 * statically linked program, which the recorder is never loaded into.
 * Every variable is keyed, name and value, but those that do not change
 * what a link makes and do change between two runs of one build (the
 * shell's bookkeeping, the terminal's and the session's, make's jobserver
 * descriptors, where temporaries go, offlink's own settings): the table
 * is in environment.c and in docs/design.md.  A user adds names (or
 * prefixes, "CI_*") in OFFLINK_CACHE_ENV_IGNORE, separated by spaces,
 * commas or colons, for variables of their own that differ from run to
 * run and that no tool reads. */
#ifndef OFFLINK_CACHE_ENVIRONMENT_H
#define OFFLINK_CACHE_ENVIRONMENT_H

#include <stdbool.h>

#include "cache/key.h"

/* Key the whole environment, once per key (why: the tool that needs it,
 * for OFFLINK_CACHE_EXPLAIN). */
void ol_key_environment(struct ol_key *k, const char *why);

/* Whether the variable name is left out of the whole environment. */
bool ol_env_ignored(const char *name);

#endif
