/* libFuzzer target: the PTX symbol reader (format/ptx_symbols.h), which
 * reads nvcc's PTX from untrusted objects: every name it reports lies in
 * the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/ptx_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;
static const uint8_t *input;
static size_t input_size;

static enum ol_err on_symbol(void *ctx, const struct ol_ptx_symbol *s, struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	if ((const uint8_t *)s->name < input || s->len == 0 ||
	    s->len > input_size - (size_t)((const uint8_t *)s->name - input))
		abort();
	for (size_t i = 0; i < s->len; i++)
		sink += (unsigned char)s->name[i];
	sink += s->defined + s->weak + s->function;
	return OL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_diag d;

	input = data;
	input_size = size;
	ol_diag_clear(&d);
	sink += ol_is_ptx(data, size);
	ol_ptx_for_each_symbol(data, size, on_symbol, NULL, &d);
	return 0;
}
