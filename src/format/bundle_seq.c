#include "format/bundle_seq.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "format/bundle.h"
#include "format/ccob.h"

static bool starts_bundle(const uint8_t *p, size_t len)
{
	return ol_is_binary_bundle(p, len) || ol_is_ccob(p, len);
}

/* The extent of the bundle at p, whichever kind it is. */
static enum ol_err extent_of(const uint8_t *p, size_t len, uint64_t *extent, struct ol_diag *d)
{
	return ol_is_ccob(p, len) ? ol_ccob_extent(p, len, extent, d)
				  : ol_bundle_binary_extent(p, len, extent, d);
}

enum ol_err ol_bundle_spans(const uint8_t *p, size_t len, struct ol_bundle_span **v,
			    size_t *n, struct ol_diag *d)
{
	size_t at = 0, cap = 0;

	*v = NULL;
	*n = 0;
	while (at < len && starts_bundle(p + at, len - at)) {
		struct ol_bundle_span *grown;
		uint64_t size;

		if (extent_of(p + at, len - at, &size, d)) {
			if (d->has_offset)
				d->offset += at;
			ol_diag_prefix(d, "bundle %zu (at offset %zu)", *n, at);
			goto fail;
		}
		if (!(grown = ol_grow(*v, *n, &cap, sizeof(**v), 4))) {
			ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			goto fail;
		}
		*v = grown;
		(*v)[(*n)++] = (struct ol_bundle_span){ at, (size_t)size, ol_is_ccob(p + at, len - at) };
		at += (size_t)size;
		while (at < len && p[at] == 0)
			at++;
	}
	if (at < len && *n) {
		ol_diag_at(d, OL_E_BAD_BUNDLE, at, "padding",
			   "after bundle %zu, a byte 0x%02x that is neither padding nor the start of "
			   "a bundle", *n - 1, p[at]);
		goto fail;
	}
	return OL_OK;
fail:
	free(*v);
	*v = NULL;
	*n = 0;
	return d->code;
}
