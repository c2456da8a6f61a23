/* libFuzzer target: everything offlink-binary reads before it decodes
 * offload binaries: ELF section tables (libelf), static archives
 * (libarchive) and the archive symbol index; and what offlink reads of
 * an object's CUDA/HIP entry tables and their relocations (managed
 * variables). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "extract/offload_entries.h"
#include "extract/offload_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static enum ol_err on_binary(void *ctx, const struct ol_origin *o,
			     struct ob_binary *b, struct ol_diag *d)
{
	(void)ctx;
	(void)o;
	(void)d;
	for (size_t i = 0; i < b->nentries; i++)
		sink += b->entries[i].image_size;
	return OL_OK;
}

static enum ol_err on_symbol(void *ctx, const char *name, uint64_t off,
			     struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	sink += strlen(name) + off;
	return OL_OK;
}

static enum ol_err on_managed(void *ctx, const char *section, const char *init,
			      const char *pointer, struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	sink += strlen(section) + strlen(init) + (pointer ? strlen(pointer) : 0);
	return OL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The scanners take writable memory (libelf's interface); give them
	 * a private copy as the mapping would be. */
	uint8_t *p = malloc(size ? size : 1);
	struct ol_diag d;
	bool has_index;

	if (!p)
		return 0;
	memcpy(p, data, size);
	ol_diag_clear(&d);
	ol_scan_offload("fuzz", NULL, p, size, OL_SCAN_STRICT, on_binary, NULL, NULL, &d);
	if (ol_is_archive(p, size))
		ol_archive_for_each_symbol(p, size, on_symbol, NULL, &has_index, &d);
	ol_diag_clear(&d);
	{
		struct ol_elf e;

		if (ol_elf_open(&e, p, size, &d) == OL_OK) {
			ol_elf_managed_vars(&e, on_managed, NULL, &d);
			ol_elf_close(&e);
		}
	}
	free(p);
	return 0;
}
