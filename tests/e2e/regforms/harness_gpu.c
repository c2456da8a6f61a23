/* The other half of a CUDA or HIP registration, for
 * tests/e2e/registration_forms.sh: an entry table of every kind the
 * registration code handles (kernels, plain, constant and extern
 * variables, managed variables with and without a known pointer,
 * surfaces, textures, entries of other kinds or with Reserved set that
 * must be skipped), and the runtime's registration functions, which print
 * every argument they get, addresses by name.  Built with -DHIP for HIP
 * and -DNEW_ENTRIES for LLVM 20+'s 56-byte entries; the output of the
 * same harness linked with the C and the assembly registration must be
 * the same.  With -DNVCC, two nvcc relocatable modules as nvcc's host code
 * has them: each a fat binary wrapper __fatbinwrap<ID> and a constructor
 * calling __cudaRegisterLinkedBinary<ID> with its callback (one before
 * the registration's constructor, one after), whose callback registers a
 * kernel of its own. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef HIP
#define P(x) __hip##x
#define KIND 4
#define SECTION "hip_offloading_entries"
#else
#define P(x) __cuda##x
#define KIND 2
#define SECTION "cuda_offloading_entries"
#endif
#ifdef NEW_ENTRIES
#undef SECTION
#define SECTION "llvm_offload_entries"
#endif

void kern_a(void) {}
void kern_b(void) {}
int var_b, var_d, var_e, surf, tex;
long var_c;
char harness_init_0[12], harness_init_1[24];
void *harness_ptr_0, *harness_ptr_1;

#ifdef NVCC
void nv_kern_a(void);
void nv_kern_b(void);
#endif

static const struct { const void *p; const char *name; } known[] = {
#ifdef NVCC
	{ nv_kern_a, "nv_kern_a" }, { nv_kern_b, "nv_kern_b" },
#endif
	{ kern_a, "kern_a" }, { kern_b, "kern_b" }, { &var_b, "var_b" }, { &var_c, "var_c" },
	{ &var_d, "var_d" }, { &var_e, "var_e" }, { &surf, "surf" }, { &tex, "tex" },
	{ harness_init_0, "harness_init_0" }, { harness_init_1, "harness_init_1" },
	{ &harness_ptr_0, "harness_ptr_0" }, { &harness_ptr_1, "harness_ptr_1" },
};

static const char *sym(const void *p)
{
	if (!p)
		return "NULL";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].p == p)
			return known[i].name;
	return "?";
}

#ifdef NEW_ENTRIES
struct entry {
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	const void *addr;
	const char *name;
	uint64_t size, data;
	const void *aux;
};
#define E(k, a, n, s, f, d, x) { 0, 1, k, f, a, n, s, d, x }
#else
struct entry {
	const void *addr;
	const char *name;
	size_t size;
	int32_t flags, data;
};
#define E(k, a, n, s, f, d, x) { a, n, s, f, d }
#endif

__attribute__((section(SECTION), used, aligned(8))) static const struct entry entries[] = {
	E(KIND, kern_a, "kern_a", 0, 0, 0, NULL),
	E(KIND, &var_b, "var_b", 4, 0, 0, NULL),
	E(KIND, &var_c, "var_c", 8, 16, 0, NULL),
	E(KIND, &var_d, "var_d", 4, 8, 0, NULL),
	E(KIND, harness_init_0, "m0", 12, 1, 0, &harness_ptr_0),
	E(KIND, harness_init_1, "m1", 24, 1, 8, &harness_ptr_1),
	E(KIND, harness_init_1, "m1_extern", 24, 9, 0, &harness_ptr_1),
	E(KIND, &var_e, "m_unknown", 4, 1, 0, NULL),
	E(KIND, &surf, "surf", 4, 2, 2, NULL),
	E(KIND, &tex, "tex", 4, 3 | 8 | 32, 2, NULL),
	E(KIND, &var_b, "type5", 4, 5, 0, NULL),
	E(KIND, &var_c, "var_cx", 8, 24, 0, NULL),
	E(KIND, kern_b, "kern_b", 0, 0, 0, NULL),
#ifdef NEW_ENTRIES
	E(1, kern_a, "openmp_kind", 0, 0, 0, NULL),
	{ 1, 1, KIND, 0, kern_a, "reserved_set", 0, 0, NULL },
#ifdef HIP
	E(3, kern_b, "hip_kind_3", 0, 0, 0, NULL),
#endif
#endif
};

static int handle_storage;

struct wrapper {
	int32_t magic, version;
	const unsigned char *data;
	void *unused;
};

void **P(RegisterFatBinary)(const struct wrapper *w);
void **P(RegisterFatBinary)(const struct wrapper *w)
{
	printf("RegisterFatBinary magic=%#x version=%d data=%02x%02x%02x%02x unused=%s\n",
	       (unsigned)w->magic, w->version, w->data[0], w->data[1], w->data[2], w->data[3],
	       w->unused ? "set" : "NULL");
	/* version 2: the modules' relocatable fat binaries, null-terminated */
	for (const unsigned char *const *p = w->version == 2 ? w->unused : NULL; p && *p; p++)
		printf("prelinked %.6s\n", (const char *)*p);
	return (void **)&handle_storage;
}

static const char *h(void **p)
{
	return p == (void **)&handle_storage ? "h" : "BAD-HANDLE";
}

#ifdef NVCC
void nv_kern_a(void) {}
void nv_kern_b(void) {}
__attribute__((aligned(8))) static const unsigned char fatbin_a[8] = "FATB_A", fatbin_b[8] = "FATB_B";
const struct wrapper __fatbinwrap_mod_a = { 0x466243b1, 1, fatbin_a, 0 };
const struct wrapper __fatbinwrap_mod_b = { 0x466243b1, 1, fatbin_b, 0 };
void __cudaRegisterLinkedBinary_mod_a(void (*)(void **), void *, void *, void (*)(void *));
void __cudaRegisterLinkedBinary_mod_b(void (*)(void **), void *, void *, void (*)(void *));
void __cudaRegisterFunction(void **hd, const void *fn, char *dev, const char *name, int tl,
			    void *tid, void *bid, void *bd, void *gd, int *ws);

/* what nvcc's ____nv_dummy_param_ref gets: a pointer to "def <ID>" */
static void dummy_ref(void *p)
{
	printf("dummy_ref %s\n", *(const char *const *)p);
}

static void callback_a(void **hd)
{
	printf("callback a %s\n", h(hd));
	__cudaRegisterFunction(hd, nv_kern_a, "nv_a", "nv_a", -1, 0, 0, 0, 0, 0);
}

static void callback_b(void **hd)
{
	printf("callback b %s\n", h(hd));
	__cudaRegisterFunction(hd, nv_kern_b, "nv_b", "nv_b", -1, 0, 0, 0, 0, 0);
}

__attribute__((constructor(90))) static void module_b(void)
{
	printf("module b\n");
	__cudaRegisterLinkedBinary_mod_b(callback_b, (void *)&__fatbinwrap_mod_b,
					 (void *)"_mod_b", dummy_ref);
}

__attribute__((constructor(150))) static void module_a(void)
{
	printf("module a\n");
	__cudaRegisterLinkedBinary_mod_a(callback_a, (void *)&__fatbinwrap_mod_a,
					 (void *)"_mod_a", dummy_ref);
}
#endif

void P(RegisterFunction)(void **hd, const void *fn, char *dev, const char *name, int tl,
			 void *tid, void *bid, void *bd, void *gd, int *ws);
void P(RegisterFunction)(void **hd, const void *fn, char *dev, const char *name, int tl,
			 void *tid, void *bid, void *bd, void *gd, int *ws)
{
	printf("RegisterFunction %s %s %s %s %d %p %p %p %p %p\n", h(hd), sym(fn), dev, name, tl,
	       tid, bid, bd, gd, (void *)ws);
}

void P(RegisterVar)(void **hd, char *var, char *dev, const char *name, int ext, size_t size,
		    int constant, int global);
void P(RegisterVar)(void **hd, char *var, char *dev, const char *name, int ext, size_t size,
		    int constant, int global)
{
	printf("RegisterVar %s %s %s %s ext=%d size=%zu constant=%d global=%d\n", h(hd), sym(var),
	       dev, name, ext, size, constant, global);
}

#ifdef HIP
void __hipRegisterManagedVar(void **hd, void **ptr, void *init, const char *name, size_t size,
			     unsigned align);
void __hipRegisterManagedVar(void **hd, void **ptr, void *init, const char *name, size_t size,
			     unsigned align)
{
	printf("RegisterManagedVar %s %s %s %s size=%zu align=%u\n", h(hd), sym(ptr), sym(init),
	       name, size, align);
}

void __hipRegisterSurface(void **hd, void *var, char *hv, char *dv, int type, int ext);
void __hipRegisterSurface(void **hd, void *var, char *hv, char *dv, int type, int ext)
{
	printf("RegisterSurface %s %s %s %s type=%d ext=%d\n", h(hd), sym(var), hv, dv, type, ext);
}

void __hipRegisterTexture(void **hd, void *var, char *hv, char *dv, int type, int norm, int ext);
void __hipRegisterTexture(void **hd, void *var, char *hv, char *dv, int type, int norm, int ext)
{
	printf("RegisterTexture %s %s %s %s type=%d normalized=%d ext=%d\n", h(hd), sym(var), hv,
	       dv, type, norm, ext);
}
#else
void __cudaRegisterManagedVar(void **hd, void **ptr, char *init, const char *name, int ext,
			      size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **hd, void **ptr, char *init, const char *name, int ext,
			      size_t size, int constant, int global)
{
	printf("RegisterManagedVar %s %s %s %s ext=%d size=%zu constant=%d global=%d\n", h(hd),
	       sym(ptr), sym(init), name, ext, size, constant, global);
}

void __cudaRegisterFatBinaryEnd(void **hd);
void __cudaRegisterFatBinaryEnd(void **hd)
{
	printf("RegisterFatBinaryEnd %s\n", h(hd));
}
#endif

void P(UnregisterFatBinary)(void **hd);
void P(UnregisterFatBinary)(void **hd)
{
	printf("UnregisterFatBinary %s\n", h(hd));
}

int main(void)
{
	printf("main\n");
	return 0;
}
