/* libFuzzer target: the reader of CUDA/HIP entry tables and their
 * relocations (extract/offload_entries.c), with the input at the very
 * start of its own mapping after an inaccessible guard page, and then at
 * the very end before one.  A read before or after the input faults
 * there, even where ASan would not see it (a mapping is not ASan's heap:
 * the SIGSEGV of issue 9, item 2 was a read 8 bytes before the mapping). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "extract/elf_file.h"
#include "extract/offload_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static enum ol_err on_managed(void *ctx, const char *section, const char *init,
			      const char *pointer, struct ol_diag *d)
{
	(void)ctx;
	(void)d;
	sink += strlen(section) + strlen(init) + (pointer ? strlen(pointer) : 0);
	return OL_OK;
}

static void scan(uint8_t *p, size_t size)
{
	struct ol_diag d;
	struct ol_elf e;

	ol_diag_clear(&d);
	if (ol_elf_open(&e, p, size, &d) == OL_OK) {
		ol_elf_managed_vars(&e, on_managed, NULL, &d);
		ol_elf_close(&e);
	}
}

/* pages of data between two guard pages; the input at the start, then at
 * the end of the data pages. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (size + page - 1) / page + (size == 0);
	uint8_t *m = mmap(NULL, (pages + 2) * page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *body;

	if (m == MAP_FAILED)
		return 0;
	body = m + page;
	if (mprotect(body, pages * page, PROT_READ | PROT_WRITE) == 0) {
		memcpy(body, data, size);
		scan(body, size);
		memmove(body + pages * page - size, body, size);
		scan(body + pages * page - size, size);
	}
	munmap(m, (pages + 2) * page);
	return 0;
}
