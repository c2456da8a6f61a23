#include "cache/clang_jobs.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* One job line (without its newline) into v. */
static enum ol_err parse_line(const char *p, const char *end, struct ol_strvec *v)
{
	struct ol_buf arg = { 0 };

	while (p < end) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p != '"')
			goto bad;
		arg.len = 0;
		for (p++; p < end && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			if (ol_buf_append(&arg, p, 1))
				goto nomem;
		}
		if (p == end)
			goto bad;
		p++;
		if (ol_strvec_pushn(v, arg.data ? (const char *)arg.data : "", arg.len))
			goto nomem;
	}
	ol_buf_free(&arg);
	return v->n ? OL_OK : OL_E_BAD_FIELD;
bad:
	ol_buf_free(&arg);
	return OL_E_BAD_FIELD;
nomem:
	ol_buf_free(&arg);
	return OL_E_NOMEM;
}

enum ol_err ol_clang_jobs_parse(const char *text, size_t len, struct ol_clang_jobs *out)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if (eol - p >= 2 && p[0] == ' ' && p[1] == '"') {
			struct ol_strvec *v = realloc(out->job, (out->n + 1) * sizeof(*v));
			enum ol_err rc;

			if (!v)
				return OL_E_NOMEM;
			out->job = v;
			memset(&v[out->n], 0, sizeof(*v));
			rc = parse_line(p, eol, &v[out->n++]);
			if (rc)
				return rc;
		}
		p = nl ? nl + 1 : end;
	}
	return OL_OK;
}

void ol_clang_jobs_free(struct ol_clang_jobs *j)
{
	for (size_t i = 0; i < j->n; i++)
		ol_strvec_free(&j->job[i]);
	free(j->job);
	memset(j, 0, sizeof(*j));
}
