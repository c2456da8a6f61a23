#include "common/strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum ol_err strvec_grow(struct ol_strvec *sv)
{
	size_t cap;
	char **v;

	if (sv->n + 2 <= sv->cap)
		return OL_OK;
	cap = sv->cap ? sv->cap * 2 : 16;
	v = realloc(sv->v, cap * sizeof(*v));
	if (!v)
		return sv->err = OL_E_NOMEM;
	sv->v = v;
	sv->cap = cap;
	return OL_OK;
}

static enum ol_err strvec_take(struct ol_strvec *sv, char *owned, size_t at)
{
	if (!owned || strvec_grow(sv)) {
		free(owned);
		return sv->err = OL_E_NOMEM;
	}
	memmove(sv->v + at + 1, sv->v + at, (sv->n - at) * sizeof(*sv->v));
	sv->v[at] = owned;
	sv->n++;
	sv->v[sv->n] = NULL;
	return OL_OK;
}

enum ol_err ol_strvec_push(struct ol_strvec *sv, const char *s)
{
	return strvec_take(sv, strdup(s), sv->n);
}

enum ol_err ol_strvec_pushn(struct ol_strvec *sv, const char *s, size_t len)
{
	return strvec_take(sv, strndup(s, len), sv->n);
}

enum ol_err ol_strvec_pushf(struct ol_strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	return strvec_take(sv, rc < 0 ? NULL : s, sv->n);
}

enum ol_err ol_strvec_extend(struct ol_strvec *sv, const struct ol_strvec *other)
{
	for (size_t i = 0; i < other->n; i++)
		if (ol_strvec_push(sv, other->v[i]))
			return sv->err;
	return OL_OK;
}

enum ol_err ol_strvec_insert(struct ol_strvec *sv, size_t at, const char *s)
{
	if (at > sv->n)
		at = sv->n;
	return strvec_take(sv, strdup(s), at);
}

int ol_strvec_contains(const struct ol_strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

void ol_strvec_free(struct ol_strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
	sv->err = OL_OK;
}
