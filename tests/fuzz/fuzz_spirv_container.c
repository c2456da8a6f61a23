/* libFuzzer target: the SPIR-V container reader (format/spirv_container.h),
 * which offlink-binary --list and the runtime stub run on registered
 * images; and the writer, whose output the reader must read back as the
 * module it was given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/pieces.h"
#include "format/spirv_container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_spirv_container c;
	struct ol_pieces p = { 0 };
	struct ol_buf flat = { 0 };
	struct ol_diag d;
	const char *field;

	if (!ol_spirv_container_read(data, size, &c, &field))
		for (uint64_t i = 0; i < c.module_size; i++)
			sink += data[c.module_offset + i];
	/* the input as a module: a container of it reads back as it */
	ol_diag_clear(&d);
	if (ol_spirv_container_encode(data, size, &p, &d) == OL_OK) {
		if (ol_pieces_flatten(&p, &flat) ||
		    ol_spirv_container_read(flat.data, flat.len, &c, &field) || c.module_size != size ||
		    memcmp(flat.data + c.module_offset, data, size) != 0 || c.nmodules != 1 ||
		    c.images != 1 || strcmp(c.version, "1.0") != 0) {
			fprintf(stderr, "a container of %zu bytes does not read back\n", size);
			abort();
		}
	}
	ol_buf_free(&flat);
	ol_pieces_free(&p);
	return 0;
}
