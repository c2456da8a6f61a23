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

size_t ol_utf8_printable(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No C1 controls, overlong forms, surrogates or values past U+10FFFF. */
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

enum ol_err ol_escape_terminal(struct ol_buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	if (n > ((size_t)-1 - 1) / 4 || ol_buf_reserve(out, 4 * n))
		return OL_E_NOMEM;
	for (size_t i = 0; i < n;) {
		size_t k = p[i] >= 0x20 && p[i] < 0x7f ? 1 : ol_utf8_printable(p + i, n - i);
		uint8_t *o = out->data + out->len;

		if (k) {
			memcpy(o, p + i, k);
			out->len += k;
			i += k;
			continue;
		}
		o[0] = '\\';
		o[1] = (uint8_t)('0' + (p[i] >> 6));
		o[2] = (uint8_t)('0' + ((p[i] >> 3) & 7));
		o[3] = (uint8_t)('0' + (p[i] & 7));
		out->len += 4;
		i++;
	}
	out->data[out->len] = '\0';
	return OL_OK;
}

bool ol_identifier_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return n > 0;
}
