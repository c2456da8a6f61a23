/* libFuzzer target: the bitstream walker, the symbol-table reader and
 * the LTO-kind reader (a module block walked record by record). */
#include <stddef.h>
#include <stdint.h>

#include "format/bitcode_lto.h"
#include "format/bitcode_symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static enum ol_err on_symbol(void *ctx, const struct bc_symbol *s,
			     struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	for (size_t i = 0; i < s->len; i++)
		sink += (unsigned char)s->name[i];
	for (size_t i = 0; s->section && i < s->section_len; i++)
		sink += (unsigned char)s->section[i];
	return OL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_diag d;
	enum bc_lto_kind kind;

	ol_diag_clear(&d);
	bc_for_each_symbol(data, size, on_symbol, NULL, &d);
	ol_diag_clear(&d);
	if (bc_lto_kind(data, size, &kind, &d) == OL_OK)
		sink += kind;
	return 0;
}
