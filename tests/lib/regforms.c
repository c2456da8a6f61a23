/* regforms KIND LAYOUT ARCH DIR FILE: write one registration in each
 * form, DIR/reg.c (the C generator's), DIR/reg.s (the assembly
 * generator's for ARCH) and, for OpenMP on x86_64, DIR/reg.o (the object
 * offlink writes itself), for tests/e2e/registration_forms.sh, which
 * builds each with a harness of entries and runtime functions and
 * compares what the programs register (and the object with what GNU as
 * makes of reg.s, byte for byte).
 *
 *   KIND    openmp | cuda | hip | nvcc (CUDA with two nvcc modules,
 *           _mod_a and _mod_b, registered against the same fat binary) |
 *           sycl23 | sycl24 (FILE twice, as LLVM 23 and 24 register it;
 *           LAYOUT does not apply)
 *   LAYOUT  old (32-byte entries, LLVM <= 19) | new (56-byte, LLVM 20+)
 *   ARCH    x86_64 | aarch64
 *   FILE    the image (OpenMP: both images) or the fatbinary/bundle
 *
 * OpenMP gets two images (an x86_64 one and an sm_90 one, both FILE);
 * CUDA and HIP with old entries get the harness's two managed variables
 * (harness_init_N -> harness_ptr_N). */
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/pieces.h"
#include "wrap/asm_code.h"
#include "wrap/wrapper.h"

static int write_file(const char *dir, const char *name, const struct ol_buf *b)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ol_buf c = { 0 }, s = { 0 }, obj = { 0 }, bytes = { 0 };
	struct ol_pieces pieces = { 0 };
	struct ol_diag d;
	const struct asm_arch *a;
	bool new_entries;
	int rc;

	if (argc != 6) {
		fprintf(stderr, "usage: regforms openmp|cuda|hip|nvcc|sycl23|sycl24 old|new x86_64|aarch64 DIR FILE\n");
		return 2;
	}
	new_entries = strcmp(argv[2], "new") == 0;
	a = strcmp(argv[3], "aarch64") == 0 ? &asm_aarch64 : &asm_x86_64;
	ol_diag_clear(&d);
	if (strcmp(argv[1], "openmp") == 0) {
		struct wrap_image images[2] = {
			{ "x86_64-pc-linux-gnu", "", argv[5], 0, 1, "harness", 0, NULL },
			{ "nvptx64-nvidia-cuda", "sm_90", argv[5], 0, 1, "harness", 0, NULL },
		};
		struct wrap_openmp w = { "regforms", images, 2,
					 new_entries ? "llvm_offload_entries" : "omp_offloading_entries",
					 false, WRAP_OMP_LINK, 1 };
		FILE *f = fopen(argv[5], "rb");
		char chunk[4096];
		size_t n;

		if (!f)
			return perror(argv[5]), 1;
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			ol_buf_append(&bytes, chunk, n);
		fclose(f);
		images[0].size = images[1].size = bytes.len;
		images[0].data = images[1].data = bytes.data;
		rc = wrap_openmp_source(&w, &c, &d) || wrap_openmp_asm(&w, a, &s, &d);
		if (!rc && a == &asm_x86_64)
			rc = wrap_openmp_object(&w, &pieces, &d) || ol_pieces_flatten(&pieces, &obj);
	} else if (strncmp(argv[1], "sycl", 4) == 0) {
		struct wrap_image images[2] = {
			{ "spirv64-unknown-unknown", "", argv[5], 0, 0, "harness", 0, NULL },
			{ "spirv64-unknown-unknown", "", argv[5], 0, 0, "harness", 0, NULL },
		};
		struct wrap_sycl w = { "regforms", images, 2, false, strcmp(argv[1], "sycl24") == 0 };
		FILE *f = fopen(argv[5], "rb");

		if (!f || fseek(f, 0, SEEK_END) != 0)
			return perror(argv[5]), 1;
		images[0].size = images[1].size = (uint64_t)ftell(f);
		fclose(f);
		rc = wrap_sycl_source(&w, &c, &d) || wrap_sycl_asm(&w, a, &s, &d);
	} else {
		static const struct wrap_managed managed[] = {
			{ "harness_init_0", "harness_ptr_0" },
			{ "harness_init_1", "harness_ptr_1" },
		};
		static const char *const modules[] = { "_mod_a", "_mod_b" };
		bool nvcc = strcmp(argv[1], "nvcc") == 0;
		struct wrap_cuda_hip w = { strcmp(argv[1], "hip") == 0, "regforms", argv[5],
					   "harness container", new_entries, managed, 2,
					   nvcc ? modules : NULL, nvcc ? 2 : 0 };

		rc = wrap_cuda_hip_source(&w, &c, &d) || wrap_cuda_hip_asm(&w, a, &s, &d);
	}
	if (rc) {
		char msg[512];

		ol_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "regforms: %s\n", msg);
		return 1;
	}
	rc = write_file(argv[4], "reg.c", &c) || write_file(argv[4], "reg.s", &s) ||
	     (obj.len && write_file(argv[4], "reg.o", &obj));
	ol_buf_free(&c);
	ol_buf_free(&s);
	ol_buf_free(&obj);
	ol_buf_free(&bytes);
	ol_pieces_free(&pieces);
	return rc;
}
