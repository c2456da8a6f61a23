#include "format/spans.h"

#include <stdlib.h>

#include "common/grow.h"

enum ol_err ol_spans(const struct ol_span_kind *k, const uint8_t *p, size_t len,
		     struct ol_span **v, size_t *n, struct ol_diag *d)
{
	size_t at = 0, cap = 0;

	*v = NULL;
	*n = 0;
	while (at < len && k->starts(p + at, len - at)) {
		struct ol_span *grown;
		uint64_t size;

		if (k->extent(p + at, len - at, &size, d)) {
			if (d->has_offset)
				d->offset += at;
			ol_diag_prefix(d, "%s %zu (at offset %zu)", k->name, *n, at);
			goto fail;
		}
		if (!(grown = ol_grow(*v, *n, &cap, sizeof(**v), 4))) {
			ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			goto fail;
		}
		*v = grown;
		(*v)[(*n)++] = (struct ol_span){ at, (size_t)size };
		at += (size_t)size;
		while (at < len && p[at] == 0)
			at++;
	}
	if (at < len && *n) {
		ol_diag_at(d, k->bad, at, "padding",
			   "after %s %zu, a byte 0x%02x that is neither padding nor the start of "
			   "a %s", k->name, *n - 1, p[at], k->name);
		goto fail;
	}
	return OL_OK;
fail:
	free(*v);
	*v = NULL;
	*n = 0;
	return d->code;
}
