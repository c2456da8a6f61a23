/* libFuzzer target: the bundler's decoders -- binary bundles, text
 * bundles with each comment, compressed bundles, bundle IDs, and bundles
 * back to back (each span decoded) -- checking that no compressed bundle
 * inflates past 2048 times its compressed size, plus 64 KiB (issue 39:
 * sequences declaring sizes far above what they store). */
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "format/bundle.h"
#include "format/bundle_id.h"
#include "format/bundle_seq.h"
#include "format/ccob.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const struct ol_bundle *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct ol_bundle_id id;
		struct ol_diag d;

		ol_diag_clear(&d);
		for (uint64_t k = 0; k < b->entries[i].size; k++)
			sink += b->entries[i].data[k];
		if (ol_bundle_id_parse(b->entries[i].id, b->entries[i].id_len, &id, &d) == OL_OK)
			sink += id.text[0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const comments[] = { "//", ";", "#" };
	struct ol_buf inflated = { 0 };
	struct ol_ccob_info info;
	struct ol_bundle b;
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_bundle_decode_binary(data, size, &b, &d) == OL_OK) {
		touch(&b);
		ol_bundle_free(&b);
	}
	for (size_t c = 0; c < 3; c++)
		if (ol_bundle_decode_text(data, size, comments[c], &b, &d) == OL_OK) {
			touch(&b);
			ol_bundle_free(&b);
		}
	if (ol_ccob_decode(data, size, &inflated, &info, &d) == OL_OK) {
		if (inflated.len > ol_inflate_max(info.compressed_size))
			__builtin_trap();
		if (ol_bundle_decode_binary(inflated.data, inflated.len, &b, &d) == OL_OK) {
			touch(&b);
			ol_bundle_free(&b);
		}
	}
	ol_buf_free(&inflated);
	{
		struct ol_span *v;
		size_t n;

		if (ol_bundle_spans(data, size, &v, &n, &d) == OL_OK) {
			for (size_t i = 0; i < n; i++) {
				const uint8_t *p = data + v[i].offset;
				struct ol_buf z = { 0 };

				bool compressed;

				if (v[i].offset > size || v[i].size > size - v[i].offset)
					__builtin_trap(); /* a span past the buffer */
				compressed = ol_is_ccob(p, v[i].size);
				if (compressed &&
				    ol_ccob_decode(p, v[i].size, &z, &info, &d) == OL_OK) {
					if (z.len > ol_inflate_max(info.compressed_size))
						__builtin_trap();
					if (ol_bundle_decode_binary(z.data, z.len, &b, &d) == OL_OK) {
						touch(&b);
						ol_bundle_free(&b);
					}
				} else if (!compressed) {
					/* its extent came from decoding it: it decodes */
					if (ol_bundle_decode_binary(p, v[i].size, &b, &d) != OL_OK)
						__builtin_trap();
					touch(&b);
					ol_bundle_free(&b);
				}
				ol_buf_free(&z);
			}
			free(v);
		}
	}
	return 0;
}
