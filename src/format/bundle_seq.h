/* Offload bundles back to back in one buffer.  A HIP library's
 * .hip_fatbin holds one bundle per translation unit: the linker put each
 * object's section, aligned to 4096, after the last, so the bundles
 * (binary "__CLANG_OFFLOAD_BUNDLE__" or compressed "CCOB", of any version,
 * mixed) follow each other with zero bytes between them.  LLVM's bundler
 * reads the first and stops ("Src size is incorrect" for compressed
 * ones). */
#ifndef OFFLINK_FORMAT_BUNDLE_SEQ_H
#define OFFLINK_FORMAT_BUNDLE_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "format/spans.h"

/* The bundles of p[0..len), in order: the first at offset 0, each next one
 * after the zero bytes that follow the last.  *n = 0 when p does not begin
 * with a bundle.  Anything else after a bundle -- bytes that are neither
 * zero nor a bundle's magic, a bundle that runs past the end -- is an
 * error at its offset naming the bundle it follows. */
enum ol_err ol_bundle_spans(const uint8_t *p, size_t len, struct ol_span **v, size_t *n,
			    struct ol_diag *d);

#endif
