/* What a program found where it looked: the facts behind clang's choice
 * of a linker command.  `clang ... -###` answers from its own program,
 * its arguments, and what it finds on the machine -- which ld is first in
 * PATH, which GCC installation exists, which start files, /etc/os-release
 * -- and os/probe_preload.c writes down every place it looks.  Each place
 * becomes a fact in a form that travels (two machines with the same
 * packages have the same facts):
 *
 *   E name      the environment variable's value, or unset
 *   S/A path    what is there: missing, a directory, a file, other
 *   X path      that, and whether it may be executed
 *   O path      that, and a file's content (its SHA-256)
 *   D path      a directory's sorted entry names (their digest)
 *   L/R path    lstat/readlink: a symbolic link's text
 *   P path      where realpath leads
 *
 * While every fact still holds, clang would answer the same, so its
 * answer is remembered with them (devcache/cache_probe.c) and a relink
 * asks nothing of clang: checking 200 facts costs well under a
 * millisecond, running clang 20 ms. */
#ifndef OFFLINK_CACHE_FACTS_H
#define OFFLINK_CACHE_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/filedigest.h"
#include "cache/pathform.h"
#include "common/buf.h"
#include "common/strvec.h"

/* Encoded facts: records of an operation byte, a path and the fact, each
 * string ending in NUL. */
struct ol_facts {
	struct ol_buf data;
	size_t n;
};

/* The facts of the places the log log[0..n) (os/probe_preload.c's
 * records) names, as they are now, each place once; places in the link's
 * temporary directory and /proc are left out; paths and values written in
 * form's travelling form (cache/pathform.h).  files: content digests
 * (remembered).  False when the log is not one, or when a place changed
 * at or after not_after (when the probe started, on the coarse clock
 * file times are stamped with): what it holds now may not be what the
 * program saw. */
bool ol_facts_from_log(const uint8_t *log, size_t n, const struct ol_pathform *form,
		       struct ol_fdigest *files, struct ol_facts *out, double not_after);

/* The programs the log says were started (its 'C' records): how many,
 * the first one's arguments appended to first (when not NULL); *whole
 * false when a record does not read whole. */
size_t ol_log_commands(const uint8_t *log, size_t n, struct ol_strvec *first, bool *whole);

/* Whether every fact of f still holds here (form: this link's places);
 * the first that does not, when one does not, in *why (its record in f:
 * a path or a name). */
bool ol_facts_hold(const struct ol_facts *f, const struct ol_pathform *form,
		   struct ol_fdigest *files, const char **why);

/* Whether p[0..n) is a well-formed encoding of facts (it comes from a
 * store: a remote, a file). */
bool ol_facts_parse(const uint8_t *p, size_t n, struct ol_facts *out);

void ol_facts_free(struct ol_facts *f);

#endif
