#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"

enum ol_err ol_buf_reserve(struct ol_buf *b, size_t extra)
{
	size_t want, cap;
	uint8_t *p;

	/* One spare byte keeps text NUL-terminated after ol_buf_printf. */
	if (extra > SIZE_MAX - b->len - 1)
		return OL_E_NOMEM;
	want = b->len + extra + 1;
	if (want <= b->cap)
		return OL_OK;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return OL_E_NOMEM;
	b->data = p;
	b->cap = cap;
	return OL_OK;
}

enum ol_err ol_buf_append(struct ol_buf *b, const void *p, size_t len)
{
	if (ol_buf_reserve(b, len))
		return OL_E_NOMEM;
	if (len)
		memcpy(b->data + b->len, p, len);
	b->len += len;
	b->data[b->len] = 0;
	return OL_OK;
}

enum ol_err ol_buf_zeros(struct ol_buf *b, size_t n)
{
	if (ol_buf_reserve(b, n))
		return OL_E_NOMEM;
	memset(b->data + b->len, 0, n + 1);
	b->len += n;
	return OL_OK;
}

enum ol_err ol_buf_puts(struct ol_buf *b, const char *s)
{
	return ol_buf_append(b, s, strlen(s));
}

enum ol_err ol_buf_printf(struct ol_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ol_buf_reserve(b, (size_t)n))
		return OL_E_NOMEM;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return OL_OK;
}

enum ol_err ol_buf_le16(struct ol_buf *b, uint16_t v)
{
	uint8_t t[2];

	ol_put_le16(t, v);
	return ol_buf_append(b, t, sizeof(t));
}

enum ol_err ol_buf_le32(struct ol_buf *b, uint32_t v)
{
	uint8_t t[4];

	ol_put_le32(t, v);
	return ol_buf_append(b, t, sizeof(t));
}

enum ol_err ol_buf_le64(struct ol_buf *b, uint64_t v)
{
	uint8_t t[8];

	ol_put_le64(t, v);
	return ol_buf_append(b, t, sizeof(t));
}

void ol_buf_free(struct ol_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
