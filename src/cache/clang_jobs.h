/* What a clang driver command would run, read from `clang ... -###`
 * (printed on standard error): each job on a line of its own that starts
 * with a space, every argument in double quotes with a backslash before
 * '"', '\' and '$'.  The device-link cache keys a CPU device link by the
 * linker command clang would run (which linker, found how, with which
 * start files and search directories), not by clang's own arguments. */
#ifndef OFFLINK_CACHE_CLANG_JOBS_H
#define OFFLINK_CACHE_CLANG_JOBS_H

#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"

struct ol_clang_jobs {
	struct ol_strvec *job;
	size_t n;
};

/* Parse the -### output in text[0..len); OL_E_BAD_FIELD for a job line
 * that does not read as quoted arguments. */
enum ol_err ol_clang_jobs_parse(const char *text, size_t len, struct ol_clang_jobs *out);
void ol_clang_jobs_free(struct ol_clang_jobs *j);

#endif
