#include "format/strtab.h"

#include <stdlib.h>
#include <string.h>

/* Compare by reversed bytes, larger first; when one reversed string is a
 * prefix of the other (one string is a suffix of the other) the shorter
 * one sorts after.  This is a total order on distinct strings, so the
 * result matches LLVM's multikey quicksort whatever the input order. */
static int cmp_reversed_desc(const void *pa, const void *pb)
{
	const struct ob_strtab_str *a = *(const struct ob_strtab_str *const *)pa;
	const struct ob_strtab_str *b = *(const struct ob_strtab_str *const *)pb;
	size_t i = 0;

	while (i < a->len && i < b->len) {
		unsigned char ca = (unsigned char)a->s[a->len - 1 - i];
		unsigned char cb = (unsigned char)b->s[b->len - 1 - i];

		if (ca != cb)
			return ca > cb ? -1 : 1;
		i++;
	}
	if (a->len == b->len)
		return 0;
	return a->len > b->len ? -1 : 1;
}

static int same(const struct ob_strtab_str *a, const struct ob_strtab_str *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int ends_with(const struct ob_strtab_str *big,
		     const struct ob_strtab_str *tail)
{
	return big->len >= tail->len &&
	       memcmp(big->s + big->len - tail->len, tail->s, tail->len) == 0;
}

enum ol_err ob_strtab_build(struct ob_strtab_str *strs, size_t n,
			    struct ol_buf *out)
{
	struct ob_strtab_str **order;
	const struct ob_strtab_str *prev = NULL;
	size_t size = 1;

	order = calloc(n ? n : 1, sizeof(*order));
	if (!order)
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &strs[i];
	qsort(order, n, sizeof(*order), cmp_reversed_desc);

	if (ol_buf_zeros(out, 1)) {
		free(order);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct ob_strtab_str *s = order[i];

		if (s->len == 0) {
			s->offset = 0;
		} else if (i > 0 && same(order[i - 1], s)) {
			s->offset = order[i - 1]->offset;
		} else if (prev && ends_with(prev, s)) {
			s->offset = size - s->len - 1;
		} else {
			s->offset = size;
			if (ol_buf_append(out, s->s, s->len) ||
			    ol_buf_zeros(out, 1)) {
				free(order);
				return OL_E_NOMEM;
			}
			size += s->len + 1;
			prev = s;
		}
	}
	free(order);
	return OL_OK;
}
