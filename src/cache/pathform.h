/* Text that names the link's own places, in a form that travels: the
 * link's temporary directory written "<TMP>", and, when the working
 * directory lies under the cache's base directory (--cache-base-dir,
 * ccache's base_dir), the working directory written "<CWD>", wherever
 * they begin a path inside an argument ("-L/home/a/proj/lib" is
 * "-L<CWD>/lib").  What clang answers to an argument list is the same
 * for two checkouts once both are written so, and an answer remembered in
 * this form is turned back for the link at hand. */
#ifndef OFFLINK_CACHE_PATHFORM_H
#define OFFLINK_CACHE_PATHFORM_H

#include <stdbool.h>

#include "common/strvec.h"

struct ol_pathform {
	const char *tmp; /* the link's temporary directory, or NULL */
	const char *cwd; /* the working directory when it travels, or NULL */
};

/* s in travelling form (a new string, NULL when out of memory). */
char *ol_pathform_to(const struct ol_pathform *f, const char *s);
/* s, written in travelling form, for this link. */
char *ol_pathform_from(const struct ol_pathform *f, const char *s);
/* Each of in, into out; false when out of memory. */
bool ol_pathform_to_all(const struct ol_pathform *f, const struct ol_strvec *in,
			struct ol_strvec *out);
bool ol_pathform_from_all(const struct ol_pathform *f, const struct ol_strvec *in,
			  struct ol_strvec *out);
/* Whether s already holds one of the forms' markers (an argument that
 * could not be told from a translated one: such a link is not cached). */
bool ol_pathform_ambiguous(const char *s);

#endif
