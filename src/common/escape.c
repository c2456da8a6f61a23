#include "common/escape.h"

#include <stdlib.h>
#include <string.h>

/* Letters, digits, and the punctuation of triples, target IDs, paths and
 * archive origins ("lib.a(k.o)", "gfx90a:xnack+", "sm_90"). */
bool ol_escape_keeps(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr(" _-.,:+=@/~()[]", c));
}

enum ol_err ol_escape(struct ol_buf *out, const char *s, size_t n)
{
	/* Worst case four bytes per input byte, reserved once. */
	if (n > ((size_t)-1 - 1) / 4 || ol_buf_reserve(out, 4 * n + 1))
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		uint8_t *p = out->data + out->len;

		if (ol_escape_keeps(c)) {
			*p = c;
			out->len += 1;
			continue;
		}
		p[0] = '\\';
		p[1] = (uint8_t)('0' + (c >> 6));
		p[2] = (uint8_t)('0' + ((c >> 3) & 7));
		p[3] = (uint8_t)('0' + (c & 7));
		out->len += 4;
	}
	out->data[out->len] = '\0';
	return OL_OK;
}

enum ol_err ol_escape_str(struct ol_buf *out, const char *s)
{
	return ol_escape(out, s, strlen(s));
}

char *ol_escape_dup(const char *s)
{
	struct ol_buf b = { 0 };

	if (ol_escape_str(&b, s)) {
		ol_buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

enum ol_err ol_file_name_part(struct ol_buf *out, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (ol_buf_reserve(out, n))
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || (c && strchr("._+:-", c));

		out->data[out->len++] = keep && !(i == 0 && c == '.') ? c : '_';
	}
	out->data[out->len] = '\0';
	return OL_OK;
}
