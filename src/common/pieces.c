#include "common/pieces.h"

#include <stdlib.h>

#include "common/grow.h"

static enum ol_err add(struct ol_pieces *p, const uint8_t *ptr, size_t off, size_t len)
{
	struct ol_piece *v;

	if (!len)
		return OL_OK;
	if (!(v = ol_grow(p->v, p->n, &p->cap, sizeof(*v), 16)))
		return OL_E_NOMEM;
	p->v = v;
	p->v[p->n++] = (struct ol_piece){ ptr, off, len, -1, 0 };
	return OL_OK;
}

static enum ol_err close_own(struct ol_pieces *p)
{
	enum ol_err rc = add(p, NULL, p->open, p->own.len - p->open);

	p->open = p->own.len;
	return rc;
}

enum ol_err ol_pieces_ref(struct ol_pieces *p, const void *data, size_t len)
{
	if (close_own(p))
		return OL_E_NOMEM;
	return add(p, data, 0, len);
}

enum ol_err ol_pieces_finish(struct ol_pieces *p)
{
	return close_own(p);
}

void ol_pieces_attach_file(struct ol_pieces *p, const void *data, size_t len, int fd)
{
	const uint8_t *lo = data, *hi = lo + len;

	for (size_t i = 0; fd >= 0 && data && i < p->n; i++) {
		struct ol_piece *q = &p->v[i];

		if (q->ptr && q->ptr >= lo && q->ptr + q->len <= hi) {
			q->fd = fd;
			q->file_off = (uint64_t)(q->ptr - lo);
		}
	}
}

const uint8_t *ol_piece_data(const struct ol_pieces *p, size_t i)
{
	return p->v[i].ptr ? p->v[i].ptr : p->own.data + p->v[i].off;
}

uint64_t ol_pieces_len(const struct ol_pieces *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].len;
	return n;
}

enum ol_err ol_pieces_flatten(const struct ol_pieces *p, struct ol_buf *out)
{
	for (size_t i = 0; i < p->n; i++)
		if (ol_buf_append(out, ol_piece_data(p, i), p->v[i].len))
			return OL_E_NOMEM;
	return OL_OK;
}

void ol_pieces_free(struct ol_pieces *p)
{
	ol_buf_free(&p->own);
	free(p->v);
	*p = (struct ol_pieces){ 0 };
}
