/* The SYCL runtime's registration entry points (LLVM 23 on: libLLVMSYCL):
 * __sycl_register_lib(image, size) with each image a program registers --
 * an offload binary clang-sycl-linker wrote, its entries SYCL images (a
 * SPIR-V module each) with the kernels' names in their "symbols" string.
 * The binary is checked and logged (runtime "sycl": each entry an image,
 * each kernel name an entry), then passed to a real SYCL runtime when one
 * comes after the stub in the lookup order.  Debian ships none: the stub
 * stands for it, copied as libLLVMSYCL.so for programs to link with. */
#include "offstub.h"

#include <stdint.h>
#include <string.h>

#include "common/le.h"
#include "format/spirv_container.h"

enum { SYCL_KIND = 8, MAX_ENTRIES = 256 };

/* The kernel names of a "symbols" string: a count, then (offset, size)
 * for each name, from the string's start, then the names. */
static void kernels(struct record *r, const struct binary_entry *e)
{
	char name[4096];
	uint32_t n;

	if (!e->symbols)
		return;
	if (e->symbols_len < 4 || (n = ol_le32(e->symbols)) > (e->symbols_len - 4) / 8)
		stub_fail("__sycl_register_lib", "a symbols string of %llu bytes that holds no "
			  "table of names", (unsigned long long)e->symbols_len);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = ol_le32(e->symbols + 4 + 8 * i), len = ol_le32(e->symbols + 8 + 8 * i);

		if (off > e->symbols_len || len > e->symbols_len - off || len >= sizeof(name))
			stub_fail("__sycl_register_lib", "kernel name %u at %u, %u bytes, outside "
				  "its symbols string", i, off, len);
		memcpy(name, e->symbols + off, len);
		name[len] = '\0';
		check_name("__sycl_register_lib", name);
		record_entry(r, name, 0, 0, "kernel", -1, 0);
	}
}

static const char *format_of(const struct binary_entry *e)
{
	if (ol_is_spirv(e->image, (size_t)e->image_size))
		return "spirv";
	if (e->image_size >= 4 && memcmp(e->image, "\177ELF", 4) == 0)
		return "elf";
	if (e->image_size >= 4 && memcmp(e->image, "BC\xc0\xde", 4) == 0)
		return "bitcode";
	return "data";
}

static void check_and_record(const void *image, uint64_t size)
{
	struct binary_entry e[MAX_ENTRIES];
	struct record r;
	int n;

	if (!image || size == 0)
		stub_fail("__sycl_register_lib", "an image of %llu bytes at %p",
			  (unsigned long long)size, image);
	if ((n = binary_entries(image, (size_t)size, e, MAX_ENTRIES)) < 0)
		stub_fail("__sycl_register_lib", "%llu bytes that are no offload binary "
			  "(of at most %d entries, each inside it)", (unsigned long long)size,
			  MAX_ENTRIES);
	record_open(&r, "sycl");
	for (int i = 0; i < n; i++) {
		if (e[i].offload_kind != SYCL_KIND)
			stub_fail("__sycl_register_lib", "entry %d of offload kind %u, not SYCL's 8", i,
				  e[i].offload_kind);
		record_image(&r, e[i].image, (size_t)e[i].image_size, format_of(&e[i]), e[i].arch,
			     e[i].triple);
	}
	for (int i = 0; i < n; i++)
		kernels(&r, &e[i]);
	record_write(&r);
}

STUB_NEXT(void, __sycl_register_lib, (const void *, uint64_t))
STUB_NEXT(void, __sycl_unregister_lib, (const void *, uint64_t))

void __sycl_register_lib(const void *image, uint64_t size);
void __sycl_unregister_lib(const void *image, uint64_t size);

void __sycl_register_lib(const void *image, uint64_t size)
{
	check_and_record(image, size);
	if (next___sycl_register_lib())
		next___sycl_register_lib()(image, size);
}

void __sycl_unregister_lib(const void *image, uint64_t size)
{
	if (!image)
		stub_fail("__sycl_unregister_lib", "a null image");
	if (next___sycl_unregister_lib())
		next___sycl_unregister_lib()(image, size);
}
