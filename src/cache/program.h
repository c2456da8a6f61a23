/* A program's identity in a cache key: its content, not its name or its
 * time, so that the same toolchain package on two machines (or at two
 * paths) is the same tool, and a tool replaced at the same path is a new
 * one.  A linker's or a compiler's code lives mostly in its shared
 * libraries (clang: libclang-cpp and libLLVM; GNU ld: libbfd), so the
 * libraries the program names (DT_NEEDED), found as the dynamic loader
 * finds them (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN, then the
 * system's directories), are part of it; the C and C++ runtime libraries
 * (libc, libm, libstdc++, libgcc_s, the loader) are not: they do not
 * decide what a linker writes.  Digests are remembered
 * (cache/filedigest.h), so a toolchain is read once, not per link. */
#ifndef OFFLINK_CACHE_PROGRAM_H
#define OFFLINK_CACHE_PROGRAM_H

#include "cache/filedigest.h"
#include "cache/key.h"

/* label + the program at path (a path, not a name to search). */
void ol_key_program(struct ol_key *k, const char *label, const char *path);

/* Begin digesting, in the background, what ol_key_program will read of
 * the program at path by content (cache/filedigest.h): called for every
 * tool of a link as its stores open. */
void ol_program_prefetch(struct ol_fdigest *files, const char *path);

#endif
