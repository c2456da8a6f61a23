#include "format/bundle_seq.h"

#include "format/bundle.h"
#include "format/ccob.h"
#include "format/spans.h"

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

static const struct ol_span_kind bundle_kind = { "bundle", starts_bundle, extent_of,
						 OL_E_BAD_BUNDLE };

enum ol_err ol_bundle_spans(const uint8_t *p, size_t len, struct ol_span **v, size_t *n,
			    struct ol_diag *d)
{
	return ol_spans(&bundle_kind, p, len, v, n, d);
}
