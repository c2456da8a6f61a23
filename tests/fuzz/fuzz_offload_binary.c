/* libFuzzer target: the offload binary decoder, over a whole section of
 * concatenated binaries, touching every decoded byte so that a bad bound
 * shows up under ASan. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/offload_binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const struct ob_binary *b)
{
	for (size_t i = 0; i < b->nentries; i++) {
		const struct ob_entry *e = &b->entries[i];

		for (uint64_t j = 0; j < e->image_size; j++)
			sink += e->image[j];
		for (size_t k = 0; k < e->nstrings; k++)
			sink += strlen(e->strings[k].key) + strlen(e->strings[k].value);
		sink += ob_entry_get(e, "triple") != NULL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ob_walk w;
	struct ob_binary b;
	struct ol_diag d;
	bool have;

	ol_diag_clear(&d);
	ob_walk_init(&w, data, size);
	while (ob_walk_next(&w, &b, &have, &d) == OL_OK && have) {
		touch(&b);
		ob_binary_free(&b);
	}
	return 0;
}
