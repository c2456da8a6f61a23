/* libFuzzer target: NVIDIA fat binaries (format/cuda_fatbin.c) -- one,
 * several back to back, every entry's code decompressed (zstd or LZ) --
 * checking what the decoder promises: every entry and name inside the
 * buffer, and each decompressed entry exactly its declared size. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/cuda_fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void check_one(const uint8_t *p, size_t len)
{
	struct ol_fatbin f;
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_fatbin_decode(p, len, &f, &d) != OL_OK)
		return;
	if (f.size > len)
		__builtin_trap();
	for (size_t i = 0; i < f.n; i++) {
		const struct ol_fatbin_entry *e = &f.v[i];
		struct ol_buf out = { 0 };
		const uint8_t *code;
		size_t n;

		if (e->payload < p || (size_t)(e->payload - p) > f.size ||
		    e->stored > f.size - (size_t)(e->payload - p))
			__builtin_trap();
		if (e->name && ((const uint8_t *)e->name < p ||
				(size_t)((const uint8_t *)e->name - p) + e->name_len > f.size))
			__builtin_trap();
		if (ol_fatbin_entry_code(e, &out, &code, &n, &d) == OL_OK) {
			if (ol_fatbin_compression(e) && e->kind != OL_FATBIN_PTX && n != e->size)
				__builtin_trap();
			for (size_t k = 0; k < n; k += 61)
				sink += code[k];
		}
		ol_buf_free(&out);
	}
	ol_fatbin_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_span *v;
	size_t n;
	struct ol_diag d;

	check_one(data, size);
	ol_diag_clear(&d);
	if (ol_fatbin_spans(data, size, &v, &n, &d) == OL_OK) {
		for (size_t i = 0; i < n; i++) {
			if (v[i].offset >= size)
				__builtin_trap();
			check_one(data + v[i].offset, size - v[i].offset);
		}
		free(v);
	}
	return 0;
}
