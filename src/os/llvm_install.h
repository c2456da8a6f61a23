/* Where LLVM releases are installed, and which one started this process.
 *
 * An installation is recognised by a clang whose resource directory,
 * <bin>/../lib/clang/<major>, names its release (LLVM 16 on; no clang needs
 * to run to ask).  A release is looked for as Debian and apt.llvm.org
 * install it (/usr/lib/llvm-<N>/bin), then as clang-<N> on PATH, then as
 * a plain clang on PATH of that release. */
#ifndef OFFLINK_OS_LLVM_INSTALL_H
#define OFFLINK_OS_LLVM_INSTALL_H

#include <stddef.h>

/* The release of the clang installed in directory bin (symlinks resolved),
 * or 0 when bin holds no clang or its release cannot be told. */
unsigned ol_llvm_major_of_bin(const char *bin);

/* When the parent process is a clang: its release, and the directory it
 * runs from (its executable's, symlinks resolved) in bin[0..len).  0 when
 * the parent is not a clang. */
unsigned ol_llvm_parent_clang(char *bin, size_t len);

/* The tools directory of release major, or NULL (malloc'd).  Where it
 * looked goes to searched (a list for an error message). */
char *ol_llvm_find_release(unsigned major, char *searched, size_t len);

/* The newest release installed in the places ol_llvm_find_release looks
 * (16 to 99), its directory in *bin (malloc'd); 0 when there is none. */
unsigned ol_llvm_newest(char **bin);

/* The LLVM release whose behaviour a format tool (offlink-binary,
 * offlink-bundler, offlink-wrapper) follows: option (its --llvm= value, a
 * release number; may be NULL), else $OFFLINK_LLVM, else the release of
 * the clang that started the tool, else the newest installed (as a link
 * run by hand does), else the newest offlink knows.  0 and an error text
 * in *bad when the value given is not a release number. */
unsigned ol_llvm_tool_release(const char *option, const char **bad);

/* The newest release whose differences offlink knows (docs/compat.md). */
#define OL_LLVM_NEWEST_KNOWN 24

#endif
