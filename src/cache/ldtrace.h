/* Where a linker looked: what GNU ld prints under --verbose (in the C
 * locale) for every file it tries to open, found or not:
 *
 *   attempt to open lib1/libdevimpl.a failed
 *   attempt to open lib2/libdevimpl.a succeeded
 *   cannot find script file inc.ld            (INCLUDE, -T)
 *   opened script file lib2/inc.ld
 *   found libneed.so at lib2/libneed.so       (DT_NEEDED)
 *
 * Its dependency file lists only what it found.  A search that a linker
 * script causes (INPUT(-lx), GROUP, INCLUDE, SEARCH_DIR), or the search
 * for a shared library's DT_NEEDED, depends on files that were *not*
 * there as much as on the one that was: a library that appears earlier
 * in the search changes what is linked.  The device-link cache keeps the
 * paths that were tried and not found, and a lookup hits only while they
 * are still absent.
 *
 * lld prints no such record; for it, ol_lld_script_places lists the
 * places its search of a linker script can look, found or not, from the
 * rules lld follows. */
#ifndef OFFLINK_CACHE_LDTRACE_H
#define OFFLINK_CACHE_LDTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strvec.h"

/* The paths GNU ld's --verbose output text[0..len) says it found
 * (appended to found) and tried without finding (appended to absent).
 * OL_E_BAD_FIELD when the record cannot be trusted to be complete: a line
 * that starts like an attempt but does not read as one (a path holding a
 * newline), or no attempt at all (a translated or missing record). */
enum ol_err ol_ldtrace_parse(const char *text, size_t len, struct ol_strvec *found,
			     struct ol_strvec *absent);

/* Every place lld may look for what the linker script p[0..n) (read
 * from path) names, in a link whose search directories are dirs (its -L,
 * in order) and whose --sysroot is sysroot (or NULL): for -l<name> each
 * directory's lib<name>.so and lib<name>.a; for a relative name the
 * script's directory, the working directory, then each directory; for
 * INCLUDE the name, then each directory.  All of them are appended to
 * places, found or not, whichever lld took: a file that appears in any of
 * them is a different key.  False, with why (len bytes), for a script
 * whose searches cannot be listed so: SEARCH_DIR changes the search for
 * what follows it.  A file that is not a script (ELF, an archive,
 * bitcode) adds nothing. */
bool ol_lld_script_places(const char *path, const uint8_t *p, size_t n,
			  const struct ol_strvec *dirs, const char *sysroot,
			  struct ol_strvec *places, char *why, size_t len);

#endif
