#include "cache/depfile.h"

#include <string.h>

#include "common/buf.h"
#include "common/strmap.h"

/* lld's make escapes undone: "\ " and "\#" (backslashes before a space
 * doubled), "$$". */
static enum ol_err unescape(const char *p, size_t n, struct ol_buf *b)
{
	b->len = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '$' && i + 1 < n && p[i + 1] == '$') {
			i++;
		} else if (p[i] == '\\') {
			size_t j = i;

			while (j < n && p[j] == '\\')
				j++;
			if (j < n && (p[j] == ' ' || p[j] == '#')) {
				/* 2k+1 backslashes before it: k of them are real */
				for (size_t k = 0; k < (j - i) / 2; k++)
					if (ol_buf_append(b, "\\", 1))
						return OL_E_NOMEM;
				i = j;
			}
		}
		if (ol_buf_append(b, &p[i], 1))
			return OL_E_NOMEM;
	}
	return ol_buf_puts(b, "");
}

enum ol_err ol_depfile_parse(const char *text, size_t len, enum ol_ld_flavor flavor,
			     struct ol_strvec *out)
{
	const char *p = text, *end = text + len;
	struct ol_strmap seen = { 0 };
	struct ol_strvec files = { 0 };
	struct ol_buf b = { 0 };
	enum ol_err rc = OL_OK;
	bool first = true;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *s = p;
		bool more;

		p = nl ? nl + 1 : end;
		if (first) {
			/* "target: \" or "target:" with nothing read */
			first = false;
			if (eol == s || eol[-1] != '\\')
				rc = memchr(s, ':', (size_t)(eol - s)) ? OL_OK : OL_E_BAD_FIELD;
			if (rc || eol == s || eol[-1] != '\\')
				break;
			continue;
		}
		more = eol - s >= 2 && eol[-1] == '\\' && eol[-2] == ' ';
		if (more)
			eol -= 2;
		/* GNU ld indents by two spaces (a name may start with a third) */
		for (int k = 0; s < eol && *s == ' ' && (flavor == OL_LD_LLD || k < 2); k++)
			s++;
		b.len = 0;
		if (flavor == OL_LD_GNU)
			rc = ol_buf_append(&b, s, (size_t)(eol - s)) ? OL_E_NOMEM : ol_buf_puts(&b, "");
		else
			rc = unescape(s, (size_t)(eol - s), &b);
		if (!rc && memchr(b.data, '\0', b.len))
			rc = OL_E_BAD_FIELD; /* no path holds a NUL */
		if (!rc && b.len && !ol_strmap_get(&seen, (const char *)b.data, b.len)) {
			if (ol_strvec_push(&files, (const char *)b.data))
				rc = OL_E_NOMEM;
			else if (!ol_strmap_put(&seen, files.v[files.n - 1], b.len))
				rc = OL_E_NOMEM;
		}
		b.len = 0;
		if (!more)
			break;
	}
	if (!rc)
		rc = ol_strvec_extend(out, &files);
	ol_strvec_free(&files);
	ol_strmap_free(&seen);
	ol_buf_free(&b);
	return rc;
}
