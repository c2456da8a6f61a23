#include "cache/pathform.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* s with each occurrence of from that a path separator or the end
 * follows replaced by to; NULL when out of memory. */
static char *replace(const char *s, const char *from, const char *to)
{
	struct ol_buf b = { 0 };
	size_t n = from ? strlen(from) : 0;
	const char *p = s;
	bool ok = true;

	while (n && ok && (p = strstr(s, from))) {
		if (p[n] != '/' && p[n] != '\0') {
			ok = !ol_buf_append(&b, s, (size_t)(p - s) + 1);
			s = p + 1;
			continue;
		}
		ok = !ol_buf_append(&b, s, (size_t)(p - s)) && !ol_buf_puts(&b, to);
		s = p + n;
	}
	if (!ok || ol_buf_puts(&b, s) || ol_buf_append(&b, "", 1)) {
		ol_buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

char *ol_pathform_to(const struct ol_pathform *f, const char *s)
{
	char *a = replace(s, f->tmp, "<TMP>"), *b;

	if (!a || !f->cwd)
		return a;
	b = replace(a, f->cwd, "<CWD>");
	free(a);
	return b;
}

char *ol_pathform_from(const struct ol_pathform *f, const char *s)
{
	char *a = replace(s, "<TMP>", f->tmp ? f->tmp : "<TMP>"), *b;

	if (!a)
		return NULL;
	b = replace(a, "<CWD>", f->cwd ? f->cwd : "<CWD>");
	free(a);
	return b;
}

static bool all(const struct ol_pathform *f, const struct ol_strvec *in, struct ol_strvec *out,
		char *(*fn)(const struct ol_pathform *, const char *))
{
	for (size_t i = 0; i < in->n; i++) {
		char *a = fn(f, in->v[i]);

		if (!a || ol_strvec_push(out, a)) {
			free(a);
			return false;
		}
		free(a);
	}
	return true;
}

bool ol_pathform_to_all(const struct ol_pathform *f, const struct ol_strvec *in,
			struct ol_strvec *out)
{
	return all(f, in, out, ol_pathform_to);
}

bool ol_pathform_from_all(const struct ol_pathform *f, const struct ol_strvec *in,
			  struct ol_strvec *out)
{
	return all(f, in, out, ol_pathform_from);
}

bool ol_pathform_ambiguous(const char *s)
{
	return strstr(s, "<TMP>") || strstr(s, "<CWD>");
}
