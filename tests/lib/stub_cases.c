/* Calls the runtime stub's registration entry points with well-formed and
 * malformed tables, one case per run: `stub_cases CASE`.  The CLI test
 * stub_checks.sh runs every case and checks the stub's verdict (exit 0
 * and a log record, or exit 3 and a message naming the fault). */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/offload_binary.h"

/* ---- the runtimes' declarations, as programs see them ---- */

struct entry32 {
	void *addr;
	const char *name;
	size_t size;
	int32_t flags, data;
};

struct entry56 {
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	void *addr;
	const char *name;
	uint64_t size, data;
	void *aux;
};

struct device_image {
	const void *start, *end;
	const void *entries_begin, *entries_end;
};

struct bin_desc {
	int32_t num_images;
	const struct device_image *images;
	const void *entries_begin, *entries_end;
};

struct fatbin_wrapper {
	int32_t magic, version;
	const void *data;
	void *unused;
};

struct dim3 {
	unsigned x, y, z;
};

void __tgt_register_lib(const struct bin_desc *desc);
void __tgt_unregister_lib(const struct bin_desc *desc);
void **__cudaRegisterFatBinary(const void *wrapper);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const void *host_function, char *device_function,
			    const char *name, int thread_limit, void *tid, void *bid,
			    void *block_dim, void *grid_dim, int *warp_size);
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *name,
		       int ext, size_t size, int constant, int global);
void **__hipRegisterFatBinary(const void *wrapper);
void __hipUnregisterFatBinary(void **handle);
void __hipRegisterManagedVar(void **handle, void **pointer, void *init_value, const char *name,
			     size_t size, unsigned align);
int hipLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
		    size_t shared, void *stream);

/* ---- building images in static memory (where the stub looks for the
 * offload binary around an image: a loaded segment) ---- */

static uint8_t area[1 << 16] __attribute__((aligned(4096)));
static size_t used;

static void *place(const void *bytes, size_t n)
{
	uint8_t *p = area + used;

	memcpy(p, bytes, n);
	used += (n + 15) & ~(size_t)15;
	return p;
}

/* A 64-byte ELF header for machine/flags/ABI version. */
static void elf_header(uint8_t *h, uint16_t machine, uint32_t flags, uint8_t abi_version)
{
	Elf64_Ehdr e = { 0 };

	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_ident[EI_ABIVERSION] = abi_version;
	e.e_type = ET_EXEC;
	e.e_machine = machine;
	e.e_version = EV_CURRENT;
	e.e_flags = flags;
	e.e_ehsize = sizeof(e);
	memcpy(h, &e, sizeof(e));
}

/* An image in a version 1 offload binary declaring triple and arch;
 * returns the image's address inside it. */
/* image inside an offload binary of version (0: 1) with other images
 * before it (a version 2 or 3 binary's images follow each other). */
static const uint8_t *in_binary_v(const uint8_t *image, size_t size, const char *triple,
				  const char *arch, unsigned version, uint16_t kind)
{
	struct ob_kv kv[] = { { "arch", arch }, { "triple", triple } };
	struct ob_image_desc desc[2] = {
		{ OB_IMG_OBJECT, OB_OFK_OPENMP, 0, kv, 2, (const uint8_t *)"another image", 13 },
		{ kind, OB_OFK_OPENMP, 0, kv, 2, image, size },
	};
	struct ob_encode_opts o = { .version = version };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const uint8_t *bin, *found;

	ol_diag_clear(&d);
	if (ob_encode(version > 1 ? desc : desc + 1, version > 1 ? 2 : 1, &o, &out, &d)) {
		fprintf(stderr, "stub_cases: cannot encode\n");
		exit(2);
	}
	bin = place(out.data, out.len);
	found = memmem(bin, out.len, image, size);
	ol_buf_free(&out);
	return found;
}

static const uint8_t *in_binary(const uint8_t *image, size_t size, const char *triple,
				const char *arch)
{
	return in_binary_v(image, size, triple, arch, 1, OB_IMG_OBJECT);
}

/* ---- OpenMP ---- */

static int target_a, target_b;
static struct entry32 entries32[2];
static struct entry56 entries56[2];

static void omp(const uint8_t *image, size_t size, const void *eb, const void *ee,
		int tamper_image_entries)
{
	static struct device_image img;
	static struct bin_desc desc;

	img = (struct device_image){ image, image + size, eb, ee };
	if (tamper_image_entries)
		img.entries_end = (const char *)ee - sizeof(struct entry32);
	desc = (struct bin_desc){ 1, &img, eb, ee };
	__tgt_register_lib(&desc);
	__tgt_unregister_lib(&desc);
}

static const uint8_t *x86_image(size_t *size)
{
	static uint8_t h[64];

	elf_header(h, EM_X86_64, 0, 0);
	*size = sizeof(h);
	return in_binary(h, sizeof(h), "x86_64-pc-linux-gnu", "");
}

static void omp_case(const char *c)
{
	size_t size;
	const uint8_t *image = x86_image(&size);
	uint8_t h[64];

	entries32[0] = (struct entry32){ &target_a, "__omp_offloading_1_2_main_l3", 0, 0, 0 };
	entries32[1] = (struct entry32){ &target_b, "table", sizeof(target_b), 0, 0 };
	if (!strcmp(c, "omp_good")) {
		omp(image, size, entries32, entries32 + 2, 0);
	} else if (!strcmp(c, "omp_good56")) {
		entries56[0] = (struct entry56){ 0, 1, 1, 0, &target_a, "__omp_offloading_1_2_main_l3",
						 0, 0, NULL };
		entries56[1] = (struct entry56){ 0, 1, 1, 1, &target_b, "linked", 4, 0, NULL };
		omp(image, size, entries56, entries56 + 2, 0);
	} else if (!strcmp(c, "omp_null_desc")) {
		__tgt_register_lib(NULL);
	} else if (!strcmp(c, "omp_image_order")) {
		omp(image + size, 0, entries32, entries32 + 2, 0);
	} else if (!strcmp(c, "omp_image_entries")) {
		omp(image, size, entries32, entries32 + 2, 1);
	} else if (!strcmp(c, "omp_v2") || !strcmp(c, "omp_v3")) {
		/* LLVM 23's and 24's registrations: the image the second entry
		 * of a binary of version 2 or 3 */
		elf_header(h, EM_X86_64, 0, 0);
		omp(in_binary_v(h, sizeof(h), "x86_64-pc-linux-gnu", "", c[5] - '0', OB_IMG_OBJECT),
		    sizeof(h), entries32, entries32 + 2, 0);
	} else if (!strcmp(c, "omp_nested_spirv") || !strcmp(c, "omp_nested_bad")) {
		/* LLVM 23's SPIR-V registration: the image is an offload binary
		 * with the module as its SPIR-V entry */
		static const uint8_t spv[20] = { 0x03, 0x02, 0x23, 0x07, 0, 4, 1, 0 };
		struct ob_kv kv[] = { { "triple", "spirv64-intel" }, { "version", "1.0" } };
		struct ob_image_desc inner = { OB_IMG_SPIRV, OB_OFK_OPENMP, 0, kv, 2,
					       c[11] == 's' ? spv : (const uint8_t *)"not spirv at all!!!!", 20 };
		struct ob_encode_opts o = { .version = 2 };
		struct ol_buf b = { 0 };
		struct ol_diag d;

		ol_diag_clear(&d);
		if (ob_encode(&inner, 1, &o, &b, &d))
			exit(2);
		omp(in_binary_v(place(b.data, b.len), b.len, "spirv64-intel", "", 2, OB_IMG_OBJECT), b.len,
		    entries32, entries32 + 2, 0);
		ol_buf_free(&b);
	} else if (!strcmp(c, "omp_not_elf")) {
		omp(place("not an image", 12), 12, entries32, entries32 + 2, 0);
	} else if (!strcmp(c, "omp_machine")) {
		elf_header(h, EM_X86_64, 0, 0);
		omp(in_binary(h, sizeof(h), "nvptx64-nvidia-cuda", "sm_90"), sizeof(h), entries32,
		    entries32 + 2, 0);
	} else if (!strcmp(c, "omp_arch")) {
		elf_header(h, 190 /* EM_CUDA */, 80 << 8, 8); /* an sm_80 cubin */
		omp(in_binary(h, sizeof(h), "nvptx64-nvidia-cuda", "sm_90"), sizeof(h), entries32,
		    entries32 + 2, 0);
	} else if (!strcmp(c, "omp_entry_size")) {
		omp(image, size, entries32, (const char *)entries32 + 40, 0);
	} else if (!strcmp(c, "omp_entry_name")) {
		entries32[1].name = "bad\001name";
		omp(image, size, entries32, entries32 + 2, 0);
	} else if (!strcmp(c, "omp_entry_addr")) {
		entries32[0].addr = NULL;
		omp(image, size, entries32, entries32 + 2, 0);
	} else {
		fprintf(stderr, "stub_cases: no case %s\n", c);
		exit(2);
	}
}

/* ---- CUDA ---- */

/* The host-side handle of a kernel: any unique address. */
static char kernel_a;

/* A fatbinary of one ELF entry for sm_90 (header 16 bytes, entry header
 * 64 bytes, then the cubin's ELF header). */
static const void *fatbin(uint32_t magic, uint64_t claimed_payload, uint32_t sm, uint32_t elf_sm)
{
	uint8_t b[16 + 64 + 64] = { 0 };
	uint64_t total = 64 + 64;

	memcpy(b, &magic, 4);
	b[4] = 1;
	b[6] = 16;
	memcpy(b + 8, &total, 8);
	b[16] = 2;                                 /* ELF */
	b[16 + 4] = 64;                            /* entry header size */
	memcpy(b + 16 + 8, &claimed_payload, 8);
	memcpy(b + 16 + 28, &sm, 4);
	b[16 + 40] = 0x11;                         /* 64-bit, Linux */
	elf_header(b + 80, 190, elf_sm << 8, 8);
	return place(b, sizeof(b));
}

static void cuda_case(const char *c)
{
	static struct fatbin_wrapper w;
	static char name[] = "_Z1av", var[] = "v", other[] = "w";
	static int v;
	void **h;

	w = (struct fatbin_wrapper){ 0x466243b1, 1, fatbin(0xba55ed50, 64, 90, 90), NULL };
	if (!strcmp(c, "cuda_bad_magic"))
		w.magic = 0x12345678;
	else if (!strcmp(c, "cuda_bad_fatbin"))
		w.data = fatbin(0xba55ed51, 64, 90, 90);
	else if (!strcmp(c, "cuda_overrun"))
		w.data = fatbin(0xba55ed50, 4096, 90, 90);
	else if (!strcmp(c, "cuda_arch"))
		w.data = fatbin(0xba55ed50, 64, 90, 80);
	h = __cudaRegisterFatBinary(&w);
	if (!strcmp(c, "cuda_bad_handle"))
		h = (void **)&v;
	__cudaRegisterFunction(h, &kernel_a, name, name, -1, 0, 0, 0, 0, 0);
	if (!strcmp(c, "cuda_twice"))
		__cudaRegisterFunction(h, &kernel_a, name, name, -1, 0, 0, 0, 0, 0);
	__cudaRegisterVar(h, (char *)&v, var, !strcmp(c, "cuda_var_name") ? other : var, 0,
			  sizeof(v), 0, 0);
	__cudaRegisterFatBinaryEnd(h);
	if (!strcmp(c, "cuda_after_end"))
		__cudaRegisterVar(h, (char *)&v, var, var, 0, sizeof(v), 0, 0);
	__cudaUnregisterFatBinary(h);
}

/* ---- HIP ---- */

static void hip_case(const char *c)
{
	static struct fatbin_wrapper w;
	static int init = 7;
	static int *pointer;
	uint8_t b[4096 + 64] = { 0 };
	uint64_t n = 1, off = 4096, size = 64, idlen = 29;
	void **h;

	memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
	memcpy(b + 24, &n, 8);
	memcpy(b + 32, &off, 8);
	memcpy(b + 40, &size, 8);
	memcpy(b + 48, &idlen, 8);
	memcpy(b + 56, "hip-amdgcn-amd-amdhsa--gfx90a", 29);
	elf_header(b + 4096, 224 /* EM_AMDGPU */, 0x3f /* gfx90a */, 0);
	if (!strcmp(c, "hip_bad_bundle"))
		b[0] = 'X';
	w = (struct fatbin_wrapper){ 0x48495046, 1, place(b, sizeof(b)), NULL };
	h = __hipRegisterFatBinary(&w);
	__hipRegisterManagedVar(h, (void **)&pointer, &init, "managed", sizeof(init),
				!strcmp(c, "hip_managed_align") ? 3 : 4);
	if (!strcmp(c, "hip_launch_unregistered"))
		hipLaunchKernel(&kernel_a, (struct dim3){ 1, 1, 1 },
				(struct dim3){ 1, 1, 1 }, NULL, 0, NULL);
	printf("managed: %d\n", *pointer);
	__hipUnregisterFatBinary(h);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: stub_cases CASE\n");
		return 2;
	}
	if (!strncmp(argv[1], "omp_", 4))
		omp_case(argv[1]);
	else if (!strncmp(argv[1], "cuda_", 5))
		cuda_case(argv[1]);
	else if (!strncmp(argv[1], "hip_", 4))
		hip_case(argv[1]);
	else
		return 2;
	return 0;
}
