/* libFuzzer target: everything offlink-binary reads before it decodes
 * offload binaries: ELF section tables (libelf), static archives
 * (libarchive) and the archive symbol index; and what offlink reads of
 * an object's CUDA/HIP entry tables and their relocations (managed
 * variables); nvcc's relocatable device code (its module ID and fat
 * binary, made an offload binary); and every other container
 * (extract/containers.h), checking that what they report is bounded by
 * what the input holds (issue 39: entries that share their bytes, nested
 * fan-out, compressed containers in compressed ones). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/archive_reader.h"
#include "extract/containers.h"
#include "extract/elf_file.h"
#include "extract/nvcc_rdc.h"
#include "extract/offload_entries.h"
#include "extract/offload_scan.h"
#include "format/compress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;
static uint64_t reported; /* bytes of the images ol_scan_containers reported */

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

static enum ol_err on_contained(void *ctx, const struct ol_contained *c, struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	for (size_t i = 0; i < c->size; i += 97)
		sink += c->data[i];
	sink += strlen(c->path) + strlen(c->format);
	reported += c->size;
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
			struct ol_nvcc_module m;
			bool found;

			ol_elf_managed_vars(&e, on_managed, NULL, &d);
			ol_diag_clear(&d);
			if (ol_elf_nvcc_module(&e, &m, &found, &d) == OL_OK && found) {
				struct ob_binary b;

				if (ol_nvcc_binary(&m, &b, &d) == OL_OK) {
					on_binary(NULL, NULL, &b, &d);
					ob_binary_free(&b);
				}
			}
			ol_elf_close(&e);
		}
	}
	ol_diag_clear(&d);
	reported = 0;
	ol_scan_containers("fuzz", NULL, p, size, NULL, on_contained, NULL, &d);
	/* Each level's entries take at most their container's bytes, and all
	 * that is inflated at most 2048 times the input: what is reported
	 * stays within some levels of both, however the entries nest. */
	if (reported > 16 * ((uint64_t)size + ol_inflate_max(size)))
		__builtin_trap();
	free(p);
	return 0;
}
