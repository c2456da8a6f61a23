/* A program that stands in for libomptarget and the CUDA and HIP runtimes
 * and prints what the registration object linked into it registers:
 * images (size and a digest of their bytes), the entry table's bounds,
 * containers, and each kernel and variable the constructor walks to, then
 * the unregistration at exit.  tests/e2e/offload_wrapper.sh links it with
 * LLVM's wrapper output and with offlink-wrapper's and compares.
 *
 * Built with -DENTRIES=56 (LLVM 20+: llvm_offload_entries, the kind in
 * each entry) or -DENTRIES=32 (LLVM 19 and older: one section per kind). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct image {
	const char *start, *end;
	const void *entries_begin, *entries_end;
};

struct descriptor {
	int32_t n;
	struct image *images;
	const void *entries_begin, *entries_end;
};

static uint32_t fnv(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

void __tgt_register_lib(struct descriptor *d);
void __tgt_unregister_lib(struct descriptor *d);

void __tgt_register_lib(struct descriptor *d)
{
	printf("register_lib: %d image(s), entries %ld bytes\n", d->n,
	       (long)((const char *)d->entries_end - (const char *)d->entries_begin));
	for (int i = 0; i < d->n; i++) {
		const struct image *m = &d->images[i];

		printf("  image %d: %ld bytes, fnv %08x, %s entries\n", i, (long)(m->end - m->start),
		       fnv(m->start, (size_t)(m->end - m->start)),
		       m->entries_begin == d->entries_begin && m->entries_end == d->entries_end
			       ? "the descriptor's" : "other");
	}
}

void __tgt_unregister_lib(struct descriptor *d)
{
	printf("unregister_lib: %d image(s)\n", d->n);
}

/* ---- CUDA and HIP ---- */

struct fatbin_wrapper {
	int32_t magic, version;
	const char *data;
	void *unused;
};

static void *handle_cell;

#define RUNTIME(P)                                                                               \
	void **P##RegisterFatBinary(struct fatbin_wrapper *w);                                   \
	void **P##RegisterFatBinary(struct fatbin_wrapper *w)                                    \
	{                                                                                        \
		printf(#P "RegisterFatBinary: magic %08x version %d data %.8s\n",               \
		       (unsigned)w->magic, w->version, w->data);                                 \
		return &handle_cell;                                                             \
	}                                                                                        \
	void P##RegisterFatBinaryEnd(void **h);                                                  \
	void P##RegisterFatBinaryEnd(void **h)                                                   \
	{                                                                                        \
		printf(#P "RegisterFatBinaryEnd: %s\n", h == &handle_cell ? "handle" : "other"); \
	}                                                                                        \
	void P##UnregisterFatBinary(void **h);                                                   \
	void P##UnregisterFatBinary(void **h)                                                    \
	{                                                                                        \
		printf(#P "UnregisterFatBinary: %s\n", h == &handle_cell ? "handle" : "other");  \
	}                                                                                        \
	void P##RegisterFunction(void **h, const char *f, const char *name, const char *dev,     \
				 int limit, void *a, void *b, void *c, void *d, int *e);         \
	void P##RegisterFunction(void **h, const char *f, const char *name, const char *dev,     \
				 int limit, void *a, void *b, void *c, void *d, int *e)          \
	{                                                                                        \
		(void)f, (void)a, (void)b, (void)c, (void)d, (void)e;                            \
		printf(#P "RegisterFunction: %s %s %d %s\n", name, dev, limit,                   \
		       h == &handle_cell ? "handle" : "other");                                  \
	}                                                                                        \
	void P##RegisterVar(void **h, char *host, const char *dev, const char *name, int ext,    \
			    size_t size, int constant, int global);                               \
	void P##RegisterVar(void **h, char *host, const char *dev, const char *name, int ext,    \
			    size_t size, int constant, int global)                                \
	{                                                                                        \
		(void)h, (void)host, (void)dev;                                                  \
		printf(#P "RegisterVar: %s %zu ext %d constant %d global %d\n", name, size, ext, \
		       constant, global);                                                        \
	}                                                                                        \
	void P##RegisterManagedVar(void **h, void **ptr, char *init, const char *name,           \
				   size_t size, unsigned align);                                 \
	void P##RegisterManagedVar(void **h, void **ptr, char *init, const char *name,           \
				   size_t size, unsigned align)                                  \
	{                                                                                        \
		(void)h, (void)ptr, (void)init;                                                  \
		printf(#P "RegisterManagedVar: %s %zu %u\n", name, size, align);                 \
	}                                                                                        \
	void P##RegisterSurface(void **h, void *v, const char *a, const char *name, int d,      \
				int e);                                                          \
	void P##RegisterSurface(void **h, void *v, const char *a, const char *name, int d,      \
				int e)                                                           \
	{                                                                                        \
		(void)h, (void)v, (void)a;                                                       \
		printf(#P "RegisterSurface: %s %d %d\n", name, d, e);                            \
	}                                                                                        \
	void P##RegisterTexture(void **h, void *v, const char *a, const char *name, int d,      \
				int e, int f);                                                   \
	void P##RegisterTexture(void **h, void *v, const char *a, const char *name, int d,      \
				int e, int f)                                                    \
	{                                                                                        \
		(void)h, (void)v, (void)a;                                                       \
		printf(#P "RegisterTexture: %s %d %d %d\n", name, d, e, f);                      \
	}

RUNTIME(__cuda)
RUNTIME(__hip)

/* ---- SYCL (LLVM 23 on): an image and its size ---- */

void __sycl_register_lib(const char *image, uint64_t size);
void __sycl_unregister_lib(const char *image, uint64_t size);

void __sycl_register_lib(const char *image, uint64_t size)
{
	printf("sycl_register_lib: %llu bytes, fnv %08x\n", (unsigned long long)size,
	       fnv(image, (size_t)size));
}

void __sycl_unregister_lib(const char *image, uint64_t size)
{
	printf("sycl_unregister_lib: %llu bytes\n", (unsigned long long)size);
}

/* ---- entries: a kernel and a variable of each kind ---- */

static char kernel_addr, variable_addr[4];

#if ENTRIES == 56
struct entry {
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	void *addr;
	const char *name;
	uint64_t size, data;
	void *aux;
};
#define ENTRY(tag, k, nm, sz, addr)                                                    \
	static const struct entry tag __attribute__((used, section("llvm_offload_entries"), \
						    aligned(8))) = { 0, 1, k, 0, addr, nm, sz, 0, 0 }
ENTRY(omp_kernel, 1, "omp_kernel", 0, &kernel_addr);
ENTRY(cuda_kernel, 2, "cuda_kernel", 0, &kernel_addr);
ENTRY(cuda_var, 2, "cuda_var", 4, variable_addr);
ENTRY(hip_kernel, 4, "hip_kernel", 0, &kernel_addr);
ENTRY(hip_var, 4, "hip_var", 4, variable_addr);
#else
struct entry {
	void *addr;
	const char *name;
	size_t size;
	int32_t flags, data;
};
#define ENTRY(tag, sect, nm, sz, addr)                                                 \
	static const struct entry tag __attribute__((used, section(sect), aligned(8))) = \
		{ addr, nm, sz, 0, 0 }
ENTRY(omp_kernel, "omp_offloading_entries", "omp_kernel", 0, &kernel_addr);
ENTRY(cuda_kernel, "cuda_offloading_entries", "cuda_kernel", 0, &kernel_addr);
ENTRY(cuda_var, "cuda_offloading_entries", "cuda_var", 4, variable_addr);
ENTRY(hip_kernel, "hip_offloading_entries", "hip_kernel", 0, &kernel_addr);
ENTRY(hip_var, "hip_offloading_entries", "hip_var", 4, variable_addr);
#endif

int main(void)
{
	printf("main\n");
	return 0;
}
