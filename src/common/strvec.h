/* A NULL-terminated vector of owned strings: the argv builder handed to the
 * spawn funnel, and the general list-of-strings type. */
#ifndef OFFLINK_COMMON_STRVEC_H
#define OFFLINK_COMMON_STRVEC_H

#include <stddef.h>

#include "common/error.h"

struct ol_strvec {
	char **v;      /* always NULL-terminated once anything was pushed */
	size_t n;
	size_t cap;
	enum ol_err err; /* sticky: the first failed push, so callers check once */
};

/* Append a copy of s. */
enum ol_err ol_strvec_push(struct ol_strvec *sv, const char *s);
/* Append a copy of the first len bytes of s. */
enum ol_err ol_strvec_pushn(struct ol_strvec *sv, const char *s, size_t len);
/* Append a formatted string. */
enum ol_err ol_strvec_pushf(struct ol_strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append copies of every string of other. */
enum ol_err ol_strvec_extend(struct ol_strvec *sv, const struct ol_strvec *other);
/* Insert a copy of s before index at (at <= n). */
enum ol_err ol_strvec_insert(struct ol_strvec *sv, size_t at, const char *s);
/* True if s is one of the strings. */
int ol_strvec_contains(const struct ol_strvec *sv, const char *s);
/* Free every string and the vector. */
void ol_strvec_free(struct ol_strvec *sv);

#endif
