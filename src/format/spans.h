/* Containers back to back in one buffer, zero bytes between them: a
 * linked section that took one container from each object (a HIP
 * library's .hip_fatbin of bundles, a CUDA program's .nv_fatbin of fat
 * binaries).  One walk for each kind: where each starts (its magic) and
 * how far it runs (its own decoder's extent). */
#ifndef OFFLINK_FORMAT_SPANS_H
#define OFFLINK_FORMAT_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_span {
	size_t offset; /* in the buffer */
	size_t size;   /* its own bytes, without the padding after it */
};

struct ol_span_kind {
	const char *name;  /* "bundle", "fat binary": for messages */
	bool (*starts)(const uint8_t *p, size_t len);
	enum ol_err (*extent)(const uint8_t *p, size_t len, uint64_t *extent, struct ol_diag *d);
	enum ol_err bad;   /* the code of a byte that is neither padding nor a start */
};

/* The containers of kind k in p[0..len), in order (*v malloc'd; *n = 0
 * when p does not begin with one).  An extent that fails, or a byte after
 * one that is neither zero nor another's start, is an error at its
 * offset naming the container it follows. */
enum ol_err ol_spans(const struct ol_span_kind *k, const uint8_t *p, size_t len,
		     struct ol_span **v, size_t *n, struct ol_diag *d);

#endif
