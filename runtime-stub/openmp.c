/* libomptarget's entry points: registration is checked and logged, then
 * passed on to a real libomptarget when one comes after the stub in the
 * lookup order (LD_PRELOAD=liboffstub.so with a program linked against
 * libomptarget); without one, target regions report failure, which makes
 * clang's code run them on the host, and data mapping does nothing. */
#include "offstub.h"

#include <stdint.h>
#include <string.h>

struct entry32 {
	void *addr;
	const char *name;
	size_t size;
	int32_t flags;
	int32_t data;
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

static const char *omp_kind(uint64_t size, uint32_t flags)
{
	if (flags & 0x10)
		return "requires";
	if (flags & 0x08)
		return "indirect";
	if (flags & 0x02)
		return "ctor";
	if (flags & 0x04)
		return "dtor";
	if (flags & 0x01)
		return "link";
	return size ? "variable" : "kernel";
}

static const char *entry_kind_name(uint16_t kind)
{
	switch (kind) {
	case 1: return "openmp";
	case 2: return "cuda";
	case 3: case 4: return "hip";
	default: return NULL;
	}
}

/* Checks the host entry table and records the OpenMP entries in it. */
static void entries(struct record *r, const char *begin, const char *end)
{
	size_t bytes;
	int wide;

	if (!begin || !end || end < begin)
		stub_fail("__tgt_bin_desc", "host entries [%p, %p) out of order", (const void *)begin,
			  (const void *)end);
	bytes = (size_t)(end - begin);
	if (bytes == 0)
		return;
	if ((uintptr_t)begin % 8)
		stub_fail("__tgt_bin_desc", "host entries at %p not 8-aligned", (const void *)begin);
	wide = bytes % sizeof(struct entry56) == 0 && ((const struct entry56 *)begin)->reserved == 0 &&
	       ((const struct entry56 *)begin)->version == 1;
	if (!wide && bytes % sizeof(struct entry32))
		stub_fail("__tgt_bin_desc",
			  "host entry table of %zu bytes is neither 32- nor 56-byte entries", bytes);
	if (wide) {
		for (const struct entry56 *e = (const void *)begin; (const char *)e < end; e++) {
			const char *lang = entry_kind_name(e->kind);

			if (e->reserved != 0 || e->version != 1 || !lang)
				stub_fail("offload entry", "entry %zu: reserved %llu, version %u, kind %u",
					  (size_t)(e - (const struct entry56 *)begin),
					  (unsigned long long)e->reserved, e->version, e->kind);
			if (e->kind != 1)
				continue; /* CUDA/HIP entries share the section from LLVM 20 */
			check_name("offload entry", e->name);
			if (!e->addr)
				stub_fail("offload entry", "%s has a null address", e->name);
			record_entry(r, e->name, e->size, e->flags, omp_kind(e->size, e->flags), -1, 0);
		}
		return;
	}
	for (const struct entry32 *e = (const void *)begin; (const char *)e < end; e++) {
		check_name("offload entry", e->name);
		if (!e->addr && !(e->flags & 0x10))
			stub_fail("offload entry", "%s has a null address", e->name);
		record_entry(r, e->name, e->size, (uint32_t)e->flags,
			     omp_kind(e->size, (uint32_t)e->flags), -1, 0);
	}
}

static const char *container(const void *start, size_t size)
{
	const uint8_t *p = start;

	if (size >= 4 && memcmp(p, "\177ELF", 4) == 0)
		return "elf";
	if (size >= 4 && (memcmp(p, "BC\xc0\xde", 4) == 0 || memcmp(p, "\xde\xc0\x17\x0b", 4) == 0))
		return "bitcode";
	/* (LLVM 23 registers a SPIR-V module inside an offload binary) */
	if (image_is_offload_binary(start, size))
		return "offload-binary";
	stub_fail("__tgt_device_image", "an image of %zu bytes that is neither ELF, bitcode nor an offload binary "
		  "(starts %02x %02x %02x %02x)", size, size > 0 ? p[0] : 0, size > 1 ? p[1] : 0,
		  size > 2 ? p[2] : 0, size > 3 ? p[3] : 0);
}

static void check_and_record(const struct bin_desc *desc)
{
	struct record r;

	if (!desc)
		stub_fail("__tgt_bin_desc", "a null descriptor");
	if (desc->num_images < 0 || desc->num_images > 4096)
		stub_fail("__tgt_bin_desc", "%d device images", desc->num_images);
	if (desc->num_images && !desc->images)
		stub_fail("__tgt_bin_desc", "%d device images at a null pointer", desc->num_images);
	record_open(&r, "openmp");
	for (int i = 0; i < desc->num_images; i++) {
		const struct device_image *img = &desc->images[i];
		const char *triple, *arch;
		size_t size;

		if (!img->start || img->end <= img->start)
			stub_fail("__tgt_device_image", "image %d spans [%p, %p)", i, img->start,
				  img->end);
		if (img->entries_begin != desc->entries_begin || img->entries_end != desc->entries_end)
			stub_fail("__tgt_device_image",
				  "image %d has entries [%p, %p), the descriptor [%p, %p)", i,
				  img->entries_begin, img->entries_end, desc->entries_begin,
				  desc->entries_end);
		size = (size_t)((const char *)img->end - (const char *)img->start);
		enclosing_binary(img->start, size, &triple, &arch);
		record_image(&r, img->start, size, container(img->start, size), arch, triple);
	}
	entries(&r, desc->entries_begin, desc->entries_end);
	record_write(&r);
}

/* ---- registration ---- */

STUB_NEXT(void, __tgt_register_lib, (const struct bin_desc *))
STUB_NEXT(void, __tgt_unregister_lib, (const struct bin_desc *))
STUB_NEXT(void, __tgt_register_requires, (int64_t))
STUB_NEXT(void, __tgt_init_all_rtls, (void))

void __tgt_register_lib(const struct bin_desc *desc);
void __tgt_unregister_lib(const struct bin_desc *desc);
void __tgt_register_requires(int64_t flags);
void __tgt_init_all_rtls(void);

void __tgt_register_lib(const struct bin_desc *desc)
{
	check_and_record(desc);
	if (next___tgt_register_lib())
		next___tgt_register_lib()(desc);
}

void __tgt_unregister_lib(const struct bin_desc *desc)
{
	if (!desc)
		stub_fail("__tgt_unregister_lib", "a null descriptor");
	if (next___tgt_unregister_lib())
		next___tgt_unregister_lib()(desc);
}

void __tgt_register_requires(int64_t flags)
{
	struct record r;

	/* none 1, reverse_offload 2, unified_address 4,
	 * unified_shared_memory 8, dynamic_allocators 0x10 */
	if (flags & ~(int64_t)0x1f)
		stub_fail("__tgt_register_requires", "unknown flags 0x%llx", (long long)flags);
	record_open(&r, "openmp-requires");
	record_entry(&r, "requires", 0, (uint32_t)flags, "requires", -1, 0);
	record_write(&r);
	if (next___tgt_register_requires())
		next___tgt_register_requires()(flags);
}

void __tgt_init_all_rtls(void)
{
	if (next___tgt_init_all_rtls())
		next___tgt_init_all_rtls()();
}

/* ---- what clang's code calls to offload ---- */

struct ident;

STUB_NEXT(int, __tgt_target_kernel, (struct ident *, int64_t, int32_t, int32_t, void *, void *))
STUB_NEXT(int, __tgt_target_kernel_nowait,
	(struct ident *, int64_t, int32_t, int32_t, void *, void *, int32_t, void *, int32_t, void *))

int __tgt_target_kernel(struct ident *loc, int64_t device, int32_t teams, int32_t threads,
			void *host_ptr, void *args);
int __tgt_target_kernel_nowait(struct ident *loc, int64_t device, int32_t teams,
			       int32_t threads, void *host_ptr, void *args, int32_t ndeps,
			       void *deps, int32_t nnoalias, void *noalias);

int __tgt_target_kernel(struct ident *loc, int64_t device, int32_t teams, int32_t threads,
			void *host_ptr, void *args)
{
	if (next___tgt_target_kernel())
		return next___tgt_target_kernel()(loc, device, teams, threads, host_ptr, args);
	return 1; /* OFFLOAD_FAIL: the region runs on the host */
}

int __tgt_target_kernel_nowait(struct ident *loc, int64_t device, int32_t teams,
			       int32_t threads, void *host_ptr, void *args, int32_t ndeps,
			       void *deps, int32_t nnoalias, void *noalias)
{
	if (next___tgt_target_kernel_nowait())
		return next___tgt_target_kernel_nowait()(loc, device, teams, threads, host_ptr,
							 args, ndeps, deps, nnoalias, noalias);
	return 1;
}

/* The data mapping calls share one shape. */
#define DATA_MAPPER(name)                                                                   \
	STUB_NEXT(void, name, (struct ident *, int64_t, int32_t, void **, void **, int64_t *,  \
			     int64_t *, void **, void **))                               \
	void name(struct ident *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
		  int64_t *sizes, int64_t *types, void **names, void **mappers);             \
	void name(struct ident *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
		  int64_t *sizes, int64_t *types, void **names, void **mappers)              \
	{                                                                                   \
		if (next_##name())                                                          \
			next_##name()(loc, device, n, bases, ptrs, sizes, types, names,     \
				      mappers);                                             \
	}

#define DATA_MAPPER_NOWAIT(name)                                                            \
	STUB_NEXT(void, name, (struct ident *, int64_t, int32_t, void **, void **, int64_t *,  \
			     int64_t *, void **, void **, int32_t, void *, int32_t, void *))\
	void name(struct ident *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
		  int64_t *sizes, int64_t *types, void **names, void **mappers, int32_t nd,  \
		  void *d, int32_t nn, void *na);                                          \
	void name(struct ident *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
		  int64_t *sizes, int64_t *types, void **names, void **mappers, int32_t nd,  \
		  void *d, int32_t nn, void *na)                                           \
	{                                                                                   \
		if (next_##name())                                                          \
			next_##name()(loc, device, n, bases, ptrs, sizes, types, names,     \
				      mappers, nd, d, nn, na);                              \
	}

DATA_MAPPER(__tgt_target_data_begin_mapper)
DATA_MAPPER(__tgt_target_data_end_mapper)
DATA_MAPPER(__tgt_target_data_update_mapper)
DATA_MAPPER_NOWAIT(__tgt_target_data_begin_nowait_mapper)
DATA_MAPPER_NOWAIT(__tgt_target_data_end_nowait_mapper)
DATA_MAPPER_NOWAIT(__tgt_target_data_update_nowait_mapper)

STUB_NEXT(int64_t, __tgt_mapper_num_components, (void *))
STUB_NEXT(void, __tgt_push_mapper_component,
	(void *, void *, void *, int64_t, int64_t, void *))
STUB_NEXT(void, __kmpc_push_target_tripcount_mapper, (struct ident *, int64_t, uint64_t))
STUB_NEXT(void, __tgt_set_info_flag, (uint32_t))

int64_t __tgt_mapper_num_components(void *handle);
void __tgt_push_mapper_component(void *handle, void *base, void *begin, int64_t size,
				 int64_t type, void *name);
void __kmpc_push_target_tripcount_mapper(struct ident *loc, int64_t device, uint64_t count);
void __tgt_set_info_flag(uint32_t flags);

int64_t __tgt_mapper_num_components(void *handle)
{
	return next___tgt_mapper_num_components() ? next___tgt_mapper_num_components()(handle) : 0;
}

void __tgt_push_mapper_component(void *handle, void *base, void *begin, int64_t size,
				 int64_t type, void *name)
{
	if (next___tgt_push_mapper_component())
		next___tgt_push_mapper_component()(handle, base, begin, size, type, name);
}

void __kmpc_push_target_tripcount_mapper(struct ident *loc, int64_t device, uint64_t count)
{
	if (next___kmpc_push_target_tripcount_mapper())
		next___kmpc_push_target_tripcount_mapper()(loc, device, count);
}

void __tgt_set_info_flag(uint32_t flags)
{
	if (next___tgt_set_info_flag())
		next___tgt_set_info_flag()(flags);
}
