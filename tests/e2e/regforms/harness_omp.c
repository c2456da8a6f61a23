/* The other half of an OpenMP registration, for
 * tests/e2e/registration_forms.sh: a few entries in the entries section,
 * and __tgt_register_lib / __tgt_unregister_lib printing the descriptor
 * they get (each image's size, first bytes and the offload binary around
 * it; the entries as offsets into this harness's table).  -DNEW_ENTRIES:
 * LLVM 20+'s section and 56-byte entries. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef NEW_ENTRIES
#define SECTION "llvm_offload_entries"
#define ENTRY_SIZE 56
#else
#define SECTION "omp_offloading_entries"
#define ENTRY_SIZE 32
#endif

__attribute__((section(SECTION), used, aligned(8))) static const char entries[3][ENTRY_SIZE] = {
	"first", "second", "third",
};

struct image {
	const unsigned char *start, *end;
	const char *entries_begin, *entries_end;
};

struct descriptor {
	int n;
	const struct image *images;
	const char *entries_begin, *entries_end;
};

static void describe(const char *what, const struct descriptor *d)
{
	printf("%s: %d images, entries %td..%td\n", what, d->n,
	       (d->entries_begin - entries[0]) / ENTRY_SIZE, (d->entries_end - entries[0]) / ENTRY_SIZE);
	for (int i = 0; i < d->n; i++) {
		const struct image *im = &d->images[i];
		static const unsigned char magic[4] = { 0x10, 0xff, 0x10, 0xad };
		const unsigned char *bin = im->start;
		int found;

		/* the offload binary (8-aligned, its header before the image):
		 * its magic within the header's few hundred bytes */
		while (!(found = memcmp(bin, magic, 4) == 0) && im->start - bin < 512)
			bin -= 8;
		printf("  image %d: %td bytes, %02x%02x%02x%02x, binary %s at -%td, entries %td..%td\n", i,
		       im->end - im->start, im->start[0], im->start[1], im->start[2], im->start[3],
		       found ? "found" : "MISSING", im->start - bin,
		       (im->entries_begin - entries[0]) / ENTRY_SIZE,
		       (im->entries_end - entries[0]) / ENTRY_SIZE);
	}
}

void __tgt_register_lib(const struct descriptor *d);
void __tgt_register_lib(const struct descriptor *d)
{
	describe("register", d);
}

void __tgt_unregister_lib(const struct descriptor *d);
void __tgt_unregister_lib(const struct descriptor *d)
{
	describe("unregister", d);
}

int main(void)
{
	printf("main\n");
	return 0;
}
