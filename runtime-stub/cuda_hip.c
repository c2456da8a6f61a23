/* The CUDA and HIP runtimes' registration entry points, and the few calls
 * a program makes to launch a kernel and to ask for devices.
 *
 * __*RegisterFatBinary checks the wrapper and the container it points at
 * (an NVIDIA fatbinary, or a clang offload bundle) and opens a record;
 * each kernel, variable, managed variable, surface and texture is checked
 * and added to it; the record is written at __cudaRegisterFatBinaryEnd
 * (CUDA) or at unregistration (HIP, which has no End call).  With a real
 * runtime after the stub (LD_PRELOAD), every call is also passed on and
 * the stub's handle maps to the runtime's; without one, launches and
 * device calls fail with "no device" and managed variables point at their
 * initial values, which is where the program's host code then finds them. */
#include "offstub.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"

struct dim3 {
	unsigned x, y, z;
};

struct fatbin_wrapper {
	int32_t magic, version;
	const void *data;
	void *unused;
};

struct kernel {
	const void *host_function;
	const char *name;
};

/* A plain (not compressed) ELF entry of a registered fat binary. */
struct elf_image {
	const uint8_t *p;
	size_t size;
};

/* What a handle the program holds points at. */
struct registration {
	uint32_t tag;
	int hip;
	int written;
	void **real;              /* the real runtime's handle, if any */
	struct record r;
	struct kernel *kernels;
	size_t nkernels, cap;
	struct elf_image *elfs;   /* where managed variables' initial values are */
	size_t nelfs;
	struct registration *next;
};

#define REGISTRATION_TAG 0x0ff57ab5u

static struct registration *registrations;

/* The stub's state -- the registrations, their kernels and records, the
 * kernel handles -- is shared by the program's threads: a program may
 * launch from many at once, and nvcc's stubs ask __cudaGetKernel for a
 * kernel's handle at its first launch, from whichever thread that is.
 * One lock, held only while that state is read or changed, never across
 * a call into the real runtime (which has locks of its own); stub_fail
 * leaves with _exit, so a failure while it is held runs nothing that
 * would wait for it. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock_state(void)
{
	pthread_mutex_lock(&state_lock);
}

static void unlock_state(void)
{
	pthread_mutex_unlock(&state_lock);
}

static const char *runtime_name(int hip)
{
	return hip ? "hip" : "cuda";
}


/* (the caller holds the state lock, as for everything below that reads or
 * changes a registration) */
static struct registration *registration_of(void **handle, const char *call)
{
	struct registration *g = (struct registration *)handle;

	for (struct registration *k = registrations; k; k = k->next)
		if (k == g && g->tag == REGISTRATION_TAG)
			return g;
	stub_fail(call, "handle %p was not returned by a RegisterFatBinary call", (void *)handle);
}

/* ---- containers ---- */

/* An NVIDIA fatbinary: a 16-byte header {magic 0xBA55ED50, u16 version 1,
 * u16 header size, u64 size of the entries}, then entries, each a header
 * {u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload size, ...,
 * u32 arch at 28, u64 flags at 40 (0x2000, 0x8000: compressed)} and its
 * payload. */
static void record_fatbinary(struct registration *g, const uint8_t *p)
{
	struct record *r = &g->r;
	uint64_t total, off;

	if (ol_le32(p) != 0xba55ed50u || ol_le16(p + 4) != 1)
		stub_fail("fatbinary", "magic 0x%08x, version %u (want 0xba55ed50, 1)", ol_le32(p),
			  ol_le16(p + 4));
	off = ol_le16(p + 6);
	total = off + ol_le64(p + 8);
	if (off < 16 || total < off || total > ((uint64_t)1 << 34))
		stub_fail("fatbinary", "header size %llu, size %llu", (unsigned long long)off,
			  (unsigned long long)ol_le64(p + 8));
	while (off < total) {
		const uint8_t *e = p + off;
		uint32_t hsize, arch;
		uint64_t size, flags;
		unsigned kind;
		char declared[16];
		const char *what;

		if (total - off < 48)
			stub_fail("fatbinary", "entry at %llu overruns the %llu bytes",
				  (unsigned long long)off, (unsigned long long)total);
		kind = ol_le16(e);
		hsize = ol_le32(e + 4);
		size = ol_le64(e + 8);
		arch = ol_le32(e + 28);
		flags = ol_le64(e + 40);
		if (hsize < 48 || hsize > total - off || size > total - off - hsize)
			stub_fail("fatbinary", "entry at %llu: header %u bytes, payload %llu bytes",
				  (unsigned long long)off, hsize, (unsigned long long)size);
		if (kind != 1 && kind != 2)
			stub_fail("fatbinary", "entry at %llu of kind %u", (unsigned long long)off, kind);
		snprintf(declared, sizeof(declared), "sm_%u", arch);
		if (flags & 0xa000) /* (0x2000 NVIDIA's LZ, 0x8000 zstd) */
			what = kind == 2 ? "fatbinary-compressed-elf" : "fatbinary-compressed-ptx";
		else
			what = kind == 2 ? "fatbinary-elf" : "fatbinary-ptx";
		if (kind == 2 && !(flags & 0xa000) && (size < 4 || memcmp(e + hsize, "\177ELF", 4)))
			stub_fail("fatbinary", "ELF entry at %llu for %s is not ELF",
				  (unsigned long long)off, declared);
		record_image(r, e + hsize, size, what, declared, "nvptx64-nvidia-cuda");
		if (kind == 2 && !(flags & 0xa000)) {
			struct elf_image *v = realloc(g->elfs, (g->nelfs + 1) * sizeof(*v));

			if (!v)
				stub_fail("fatbinary", "out of memory");
			g->elfs = v;
			g->elfs[g->nelfs++] = (struct elf_image){ e + hsize, (size_t)size };
		}
		off += hsize + size;
	}
}

/* A clang offload bundle: "__CLANG_OFFLOAD_BUNDLE__", u64 count, then
 * {u64 offset, u64 size, u64 id length, id} per entry; an ID is
 * <kind>-<triple of four parts>[-<target ID>]. */
static void record_bundle(struct record *r, const uint8_t *p)
{
	uint64_t n;
	const uint8_t *q;

	if (memcmp(p, "CCOB", 4) == 0) {
		/* Compressed: the header says what it holds, not how it splits. */
		record_image(r, p, (size_t)ol_le32(p + 8), "compressed-bundle", "", "");
		return;
	}
	if (memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0)
		stub_fail("HIP fatbin", "neither an offload bundle nor a compressed one "
			  "(starts %02x %02x %02x %02x)", p[0], p[1], p[2], p[3]);
	n = ol_le64(p + 24);
	if (n == 0 || n > 4096)
		stub_fail("HIP fatbin", "%llu bundle entries", (unsigned long long)n);
	q = p + 32;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = ol_le64(q), size = ol_le64(q + 8), idlen = ol_le64(q + 16);
		char id[256], triple[200];
		const char *arch = "", *t;
		int dashes = 0;

		if (idlen == 0 || idlen >= sizeof(id))
			stub_fail("HIP fatbin", "bundle entry %llu has an ID of %llu bytes",
				  (unsigned long long)i, (unsigned long long)idlen);
		memcpy(id, q + 24, idlen);
		id[idlen] = '\0';
		check_name("bundle entry ID", id);
		q += 24 + idlen;
		if (off < 32 || off > ((uint64_t)1 << 34) || size > ((uint64_t)1 << 34))
			stub_fail("HIP fatbin", "bundle entry %s at %llu, %llu bytes", id,
				  (unsigned long long)off, (unsigned long long)size);
		/* Skip the kind, then take four dash-separated parts. */
		t = strchr(id, '-');
		if (!t)
			stub_fail("HIP fatbin", "bundle entry ID %s has no triple", id);
		snprintf(triple, sizeof(triple), "%s", t + 1);
		for (char *c = triple; *c; c++)
			if (*c == '-' && ++dashes == 4) {
				*c = '\0';
				arch = t + 1 + (c - triple) + 1;
				break;
			}
		/* An empty environment leaves a dash: "amdgcn-amd-amdhsa-". */
		if (*triple && triple[strlen(triple) - 1] == '-')
			triple[strlen(triple) - 1] = '\0';
		if (!strncmp(id, "host-", 5))
			continue; /* the host's own (empty) part */
		if (strncmp(id, "hip-", 4) && strncmp(id, "hipv4-", 6))
			stub_fail("HIP fatbin", "bundle entry %s is not for HIP", id);
		record_image(r, p + off, size, "bundle", arch, triple);
	}
}

/* ---- registration ---- */

STUB_NEXT(void **, __cudaRegisterFatBinary, (const void *))
STUB_NEXT(void, __cudaRegisterFatBinaryEnd, (void **))
STUB_NEXT(void, __cudaUnregisterFatBinary, (void **))
STUB_NEXT(void, __cudaRegisterFunction,
	  (void **, const void *, char *, const char *, int, void *, void *, void *, void *, int *))
STUB_NEXT(void, __cudaRegisterVar, (void **, char *, char *, const char *, int, size_t, int, int))
STUB_NEXT(void, __cudaRegisterManagedVar,
	  (void **, void **, char *, const char *, int, size_t, int, int))
STUB_NEXT(void **, __hipRegisterFatBinary, (const void *))
STUB_NEXT(void, __hipUnregisterFatBinary, (void **))
STUB_NEXT(void, __hipRegisterFunction,
	  (void **, const void *, char *, const char *, int, void *, void *, void *, void *, int *))
STUB_NEXT(void, __hipRegisterVar, (void **, void *, char *, char *, int, size_t, int, int))
STUB_NEXT(void, __hipRegisterManagedVar, (void **, void **, void *, const char *, size_t, unsigned))
STUB_NEXT(void, __hipRegisterSurface, (void **, void *, char *, char *, int, int))
STUB_NEXT(void, __hipRegisterTexture, (void **, void *, char *, char *, int, int, int))

static void **register_fatbinary(const void *wrapper_ptr, int hip)
{
	const struct fatbin_wrapper *w = wrapper_ptr;
	const char *call = hip ? "__hipRegisterFatBinary" : "__cudaRegisterFatBinary";
	uint32_t magic = hip ? 0x48495046u : 0x466243b1u;
	struct registration *g;

	if (!w)
		stub_fail(call, "a null wrapper");
	/* (version 2, CUDA: a linked fat binary, and in the last field the
	 * relocatable ones of the modules nvcc -dlink linked into it, a
	 * null-terminated array: nvcc's link, and offlink's of nvcc's code) */
	if ((uint32_t)w->magic != magic || w->version < 1 || w->version > (hip ? 1 : 2))
		stub_fail(call, "wrapper magic 0x%08x, version %d (want 0x%08x, %s)",
			  (uint32_t)w->magic, w->version, magic, hip ? "1" : "1 or 2");
	if (!w->data || (uintptr_t)w->data % 8)
		stub_fail(call, "wrapper data at %p", w->data);
	g = calloc(1, sizeof(*g));
	if (!g)
		stub_fail(call, "out of memory");
	g->tag = REGISTRATION_TAG;
	g->hip = hip;
	record_open(&g->r, runtime_name(hip));
	if (hip)
		record_bundle(&g->r, w->data);
	else
		record_fatbinary(g, w->data);
	if (w->version == 2) {
		const void *const *prelinked = w->unused;
		size_t n = 0;

		if (!prelinked)
			stub_fail(call, "a version 2 wrapper without its prelinked fat binaries");
		for (; prelinked[n]; n++) {
			const uint8_t *f = prelinked[n];

			if ((uintptr_t)f % 8 || ol_le32(f) != 0xba55ed50u)
				stub_fail(call, "prelinked fat binary %zu at %p is not a fat binary", n,
					  prelinked[n]);
			if (n > 100000)
				stub_fail(call, "no end to the prelinked fat binaries");
		}
		record_prelinked(&g->r, n);
	}
	if (hip && next___hipRegisterFatBinary())
		g->real = next___hipRegisterFatBinary()(w);
	else if (!hip && next___cudaRegisterFatBinary())
		g->real = next___cudaRegisterFatBinary()(w);
	lock_state();
	g->next = registrations;
	registrations = g;
	unlock_state();
	return (void **)g;
}

/* The registration's record written, once; its real runtime's handle. */
static void **finish(struct registration *g)
{
	if (!g->written) {
		record_write(&g->r);
		g->written = 1;
	}
	return g->real;
}

static struct registration *open_registration(void **handle, const char *call)
{
	struct registration *g = registration_of(handle, call);

	if (g->written)
		stub_fail(call, "a registration after the fat binary's end");
	return g;
}

static void add_kernel(struct registration *g, const char *call, const void *host_function,
		       char *device_function, const char *name)
{
	check_name(call, name);
	if (!host_function)
		stub_fail(call, "kernel %s without a host function", name);
	for (size_t i = 0; i < g->nkernels; i++)
		if (g->kernels[i].host_function == host_function || !strcmp(g->kernels[i].name, name))
			stub_fail(call, "kernel %s registered twice", name);
	if (!device_function || strcmp(device_function, name) != 0)
		stub_fail(call, "kernel %s registered as device function %s", name,
			  device_function ? device_function : "(null)");
	if (g->nkernels == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct kernel *k = realloc(g->kernels, cap * sizeof(*k));

		if (!k)
			stub_fail(call, "out of memory");
		g->kernels = k;
		g->cap = cap;
	}
	g->kernels[g->nkernels++] = (struct kernel){ host_function, name };
	record_entry(&g->r, name, 0, 0, "kernel", -1, 0);
}

static void add_variable(struct registration *g, const char *call, const void *host_var,
			 const char *name, const char *kind, size_t size, int ext, int constant)
{
	check_name(call, name);
	if (!host_var)
		stub_fail(call, "%s %s without a host address", kind, name);
	if (size == 0 && strcmp(kind, "variable") == 0)
		stub_fail(call, "variable %s of size 0", name);
	if ((ext != 0 && ext != 1) || (constant != 0 && constant != 1))
		stub_fail(call, "%s %s with extern %d, constant %d", kind, name, ext, constant);
	record_entry(&g->r, name, size, 0, kind, ext, constant);
}

/* A managed variable's memory, without a runtime.  clang's registration
 * passes the variable's initial value as its device address, and the
 * program can read that.  nvcc's passes the variable's name as both its
 * device address and its name (the same string, crt/host_runtime.h's
 * __cudaRegisterManagedVariable): the initial value is then only in the
 * device code, so it is read from the registered image (an uncompressed
 * cubin defining the variable), zeros if none does. */
static void *managed_copy(struct registration *g, const char *name, size_t size)
{
	uint8_t *copy = calloc(1, size ? size : 1);
	const uint8_t *data;
	size_t len;

	if (!copy)
		stub_fail("__cudaRegisterManagedVar", "out of memory");
	for (size_t i = 0; i < g->nelfs; i++)
		if (image_variable(g->elfs[i].p, g->elfs[i].size, name, &data, &len)) {
			if (data)
				memcpy(copy, data, len < size ? len : size);
			break;
		}
	return copy;
}

void **__cudaRegisterFatBinary(const void *wrapper);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const void *host_function, char *device_function,
			    const char *name, int thread_limit, void *tid, void *bid,
			    void *block_dim, void *grid_dim, int *warp_size);
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *name,
		       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
			      const char *name, int ext, size_t size, int constant, int global);

void **__cudaRegisterFatBinary(const void *wrapper)
{
	return register_fatbinary(wrapper, 0);
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
	void **real;

	lock_state();
	real = finish(open_registration(handle, "__cudaRegisterFatBinaryEnd"));
	unlock_state();
	if (real && next___cudaRegisterFatBinaryEnd())
		next___cudaRegisterFatBinaryEnd()(real);
}

void __cudaUnregisterFatBinary(void **handle)
{
	void **real;

	lock_state();
	real = finish(registration_of(handle, "__cudaUnregisterFatBinary"));
	unlock_state();
	if (real && next___cudaUnregisterFatBinary())
		next___cudaUnregisterFatBinary()(real);
}

void __cudaRegisterFunction(void **handle, const void *host_function, char *device_function,
			    const char *name, int thread_limit, void *tid, void *bid,
			    void *block_dim, void *grid_dim, int *warp_size)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__cudaRegisterFunction");
	add_kernel(g, "__cudaRegisterFunction", host_function, device_function, name);
	real = g->real;
	unlock_state();
	if (real && next___cudaRegisterFunction())
		next___cudaRegisterFunction()(real, host_function, device_function, name,
					      thread_limit, tid, bid, block_dim, grid_dim,
					      warp_size);
}

void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *name,
		       int ext, size_t size, int constant, int global)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__cudaRegisterVar");
	if (!device_address || strcmp(device_address, name ? name : "") != 0)
		stub_fail("__cudaRegisterVar", "variable %s with device name %s",
			  name ? name : "(null)", device_address ? device_address : "(null)");
	add_variable(g, "__cudaRegisterVar", host_var, name, "variable", size, ext, constant);
	real = g->real;
	unlock_state();
	if (real && next___cudaRegisterVar())
		next___cudaRegisterVar()(real, host_var, device_address, name, ext, size,
					 constant, global);
}

void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
			      const char *name, int ext, size_t size, int constant, int global)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__cudaRegisterManagedVar");
	if (!host_var_ptr || !device_address)
		stub_fail("__cudaRegisterManagedVar", "managed %s: pointer %p, initial value %p",
			  name ? name : "(null)", (void *)host_var_ptr, (void *)device_address);
	add_variable(g, "__cudaRegisterManagedVar", host_var_ptr, name, "managed", size, ext,
		     constant);
	real = g->real;
	/* (without a runtime: the variable's memory is its initial value) */
	if (!real || !next___cudaRegisterManagedVar())
		*host_var_ptr = device_address == name ? managed_copy(g, name, size)
						       : device_address;
	unlock_state();
	if (real && next___cudaRegisterManagedVar())
		next___cudaRegisterManagedVar()(real, host_var_ptr, device_address, name, ext,
						size, constant, global);
}

void **__hipRegisterFatBinary(const void *wrapper);
void __hipUnregisterFatBinary(void **handle);
void __hipRegisterFunction(void **handle, const void *host_function, char *device_function,
			   const char *name, int thread_limit, void *tid, void *bid,
			   void *block_dim, void *grid_dim, int *warp_size);
void __hipRegisterVar(void **handle, void *var, char *host_var, char *device_var, int ext,
		      size_t size, int constant, int global);
void __hipRegisterManagedVar(void **handle, void **pointer, void *init_value, const char *name,
			     size_t size, unsigned align);
void __hipRegisterSurface(void **handle, void *var, char *host_var, char *device_var, int type,
			  int ext);
void __hipRegisterTexture(void **handle, void *var, char *host_var, char *device_var, int type,
			  int normalized, int ext);

void **__hipRegisterFatBinary(const void *wrapper)
{
	return register_fatbinary(wrapper, 1);
}

void __hipUnregisterFatBinary(void **handle)
{
	void **real;

	lock_state();
	real = finish(registration_of(handle, "__hipUnregisterFatBinary"));
	unlock_state();
	if (real && next___hipUnregisterFatBinary())
		next___hipUnregisterFatBinary()(real);
}

void __hipRegisterFunction(void **handle, const void *host_function, char *device_function,
			   const char *name, int thread_limit, void *tid, void *bid,
			   void *block_dim, void *grid_dim, int *warp_size)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__hipRegisterFunction");
	add_kernel(g, "__hipRegisterFunction", host_function, device_function, name);
	real = g->real;
	unlock_state();
	if (real && next___hipRegisterFunction())
		next___hipRegisterFunction()(real, host_function, device_function, name,
					     thread_limit, tid, bid, block_dim, grid_dim, warp_size);
}

static void same_names(const char *call, const char *host_var, const char *device_var)
{
	check_name(call, host_var);
	if (!device_var || strcmp(host_var, device_var) != 0)
		stub_fail(call, "%s registered with device name %s", host_var,
			  device_var ? device_var : "(null)");
}

void __hipRegisterVar(void **handle, void *var, char *host_var, char *device_var, int ext,
		      size_t size, int constant, int global)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__hipRegisterVar");
	same_names("__hipRegisterVar", host_var, device_var);
	add_variable(g, "__hipRegisterVar", var, host_var, "variable", size, ext, constant);
	real = g->real;
	unlock_state();
	if (real && next___hipRegisterVar())
		next___hipRegisterVar()(real, var, host_var, device_var, ext, size, constant,
					global);
}

void __hipRegisterManagedVar(void **handle, void **pointer, void *init_value, const char *name,
			     size_t size, unsigned align)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__hipRegisterManagedVar");
	if (!pointer || !init_value)
		stub_fail("__hipRegisterManagedVar", "managed %s: pointer %p, initial value %p",
			  name ? name : "(null)", (void *)pointer, init_value);
	if (align == 0 || (align & (align - 1)) || size % align)
		stub_fail("__hipRegisterManagedVar", "managed %s of %zu bytes aligned to %u",
			  name ? name : "(null)", size, align);
	add_variable(g, "__hipRegisterManagedVar", pointer, name, "managed", size, 0, 0);
	real = g->real;
	unlock_state();
	if (real && next___hipRegisterManagedVar())
		next___hipRegisterManagedVar()(real, pointer, init_value, name, size, align);
	else
		*pointer = init_value;
}

void __hipRegisterSurface(void **handle, void *var, char *host_var, char *device_var, int type,
			  int ext)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__hipRegisterSurface");
	same_names("__hipRegisterSurface", host_var, device_var);
	add_variable(g, "__hipRegisterSurface", var, host_var, "surface", 0, ext, 0);
	real = g->real;
	unlock_state();
	if (real && next___hipRegisterSurface())
		next___hipRegisterSurface()(real, var, host_var, device_var, type, ext);
}

void __hipRegisterTexture(void **handle, void *var, char *host_var, char *device_var, int type,
			  int normalized, int ext)
{
	struct registration *g;
	void **real;

	lock_state();
	g = open_registration(handle, "__hipRegisterTexture");
	same_names("__hipRegisterTexture", host_var, device_var);
	add_variable(g, "__hipRegisterTexture", var, host_var, "texture", 0, ext, normalized);
	real = g->real;
	unlock_state();
	if (real && next___hipRegisterTexture())
		next___hipRegisterTexture()(real, var, host_var, device_var, type, normalized,
					    ext);
}

void stub_write_pending(void)
{
	lock_state();
	for (struct registration *g = registrations; g; g = g->next)
		finish(g);
	unlock_state();
}

/* Registrations never unregistered (the program left with _exit, or
 * before its atexit handlers ran) are still logged. */
__attribute__((destructor)) static void write_pending_at_exit(void)
{
	stub_write_pending();
}

/* ---- launching ---- */

struct launch_config {
	struct dim3 grid, block;
	size_t shared;
	void *stream;
	int pushed;
};

static _Thread_local struct launch_config config;

/* (the name is the program's string: it outlives the lock) */
static const char *kernel_name(const void *host_function, int hip)
{
	const char *name = NULL;

	lock_state();
	for (struct registration *g = registrations; g && !name; g = g->next)
		for (size_t i = 0; g->hip == hip && i < g->nkernels && !name; i++)
			if (g->kernels[i].host_function == host_function)
				name = g->kernels[i].name;
	unlock_state();
	return name;
}

static int launch(const char *call, int hip, const void *function, struct dim3 grid,
		  struct dim3 block)
{
	const char *name = kernel_name(function, hip);
	unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };

	stub_write_pending();
	if (!name)
		stub_fail(call, "launch of %p, which no registration named", function);
	record_launch(runtime_name(hip), name, g, b);
	return stub_no_device();
}

STUB_NEXT(unsigned, __cudaPushCallConfiguration, (struct dim3, struct dim3, size_t, void *))
STUB_NEXT(int, __cudaPopCallConfiguration, (struct dim3 *, struct dim3 *, size_t *, void **))
STUB_NEXT(int, cudaLaunchKernel, (const void *, struct dim3, struct dim3, void **, size_t, void *))
STUB_NEXT(int, __hipPushCallConfiguration, (struct dim3, struct dim3, size_t, void *))
STUB_NEXT(int, __hipPopCallConfiguration, (struct dim3 *, struct dim3 *, size_t *, void **))
STUB_NEXT(int, hipLaunchKernel, (const void *, struct dim3, struct dim3, void **, size_t, void *))

unsigned __cudaPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shared,
				     void *stream);
int __cudaPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shared,
			       void **stream);
int cudaLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
		     size_t shared, void *stream);
int __hipPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shared, void *stream);
int __hipPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shared,
			      void **stream);
int hipLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
		    size_t shared, void *stream);

static void push(struct dim3 grid, struct dim3 block, size_t shared, void *stream)
{
	config = (struct launch_config){ grid, block, shared, stream, 1 };
}

static int pop(const char *call, struct dim3 *grid, struct dim3 *block, size_t *shared,
	       void **stream)
{
	if (!config.pushed)
		stub_fail(call, "no pushed launch configuration");
	*grid = config.grid;
	*block = config.block;
	*shared = config.shared;
	*stream = config.stream;
	config.pushed = 0;
	return 0;
}

unsigned __cudaPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shared,
				     void *stream)
{
	if (next___cudaPushCallConfiguration())
		return next___cudaPushCallConfiguration()(grid, block, shared, stream);
	push(grid, block, shared, stream);
	return 0;
}

int __cudaPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shared,
			       void **stream)
{
	if (next___cudaPopCallConfiguration())
		return next___cudaPopCallConfiguration()(grid, block, shared, stream);
	return pop("__cudaPopCallConfiguration", grid, block, shared, stream);
}

int cudaLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
		     size_t shared, void *stream)
{
	if (next_cudaLaunchKernel()) {
		const char *name = kernel_name(function, 0);
		unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };

		stub_write_pending();
		if (name)
			record_launch("cuda", name, g, b);
		return next_cudaLaunchKernel()(function, grid, block, args, shared, stream);
	}
	return launch("cudaLaunchKernel", 0, function, grid, block);
}

/* nvcc's launches (CUDA 12 on, crt/host_runtime.h): a stub asks once for
 * its kernel's handle (__cudaGetKernel), then launches by handle
 * (__cudaLaunchKernel; _ptsz with per-thread default streams).  Without a
 * runtime the handle is the host stub's address; with one, the runtime's
 * handle, remembered beside the stub it names, so that the launch is
 * logged by the kernel's name either way.  __cudaInitModule is what nvcc's
 * managed-memory code calls for its module. */
struct kernel_handle {
	void *handle;
	const void *host_function;
};
static struct kernel_handle kernel_handles[4096];
static size_t nkernel_handles;

STUB_NEXT(int, __cudaGetKernel, (void **, const void *))
STUB_NEXT(int, __cudaLaunchKernel, (void *, struct dim3, struct dim3, void **, size_t, void *))
STUB_NEXT(int, __cudaLaunchKernel_ptsz, (void *, struct dim3, struct dim3, void **, size_t, void *))
STUB_NEXT(char, __cudaInitModule, (void **))

int __cudaGetKernel(void **kernel, const void *host_function);
int __cudaLaunchKernel(void *kernel, struct dim3 grid, struct dim3 block, void **args,
		       size_t shared, void *stream);
int __cudaLaunchKernel_ptsz(void *kernel, struct dim3 grid, struct dim3 block, void **args,
			    size_t shared, void *stream);
char __cudaInitModule(void **handle);

/* (with the state lock held) */
static void remember_handle(void *handle, const void *host_function)
{
	for (size_t i = 0; i < nkernel_handles; i++)
		if (kernel_handles[i].host_function == host_function)
			return; /* (asked again: nvcc's stubs ask once, a program may ask more) */
	if (nkernel_handles == sizeof(kernel_handles) / sizeof(kernel_handles[0]))
		stub_fail("__cudaGetKernel", "more than %zu kernels asked for",
			  sizeof(kernel_handles) / sizeof(kernel_handles[0]));
	kernel_handles[nkernel_handles++] = (struct kernel_handle){ handle, host_function };
}

int __cudaGetKernel(void **kernel, const void *host_function)
{
	int rc = 0;

	if (!kernel)
		stub_fail("__cudaGetKernel", "a null kernel pointer");
	stub_write_pending();
	if (!kernel_name(host_function, 0))
		stub_fail("__cudaGetKernel", "the kernel of %p, which no registration named",
			  host_function);
	if (next___cudaGetKernel())
		rc = next___cudaGetKernel()(kernel, host_function);
	else
		*kernel = (void *)(uintptr_t)host_function;
	if (rc != 0)
		return rc;
	lock_state();
	remember_handle(*kernel, host_function);
	unlock_state();
	return rc;
}

/* The host function of a kernel handle __cudaGetKernel gave, or NULL. */
static const void *kernel_host_function(void *kernel)
{
	const void *f = NULL;

	lock_state();
	for (size_t i = 0; i < nkernel_handles && !f; i++)
		if (kernel_handles[i].handle == kernel)
			f = kernel_handles[i].host_function;
	unlock_state();
	return f;
}

/* With a real runtime after the stub, a handle the stub never saw is the
 * runtime's business: its __cudaGetKernel failed (no device: CUDA 13's
 * then leaves the host stub's address, or nothing, in the handle, and
 * nvcc's code launches with it anyway), and its __cudaLaunchKernel
 * answers with the same error.  Logged by name when the handle is a
 * registered kernel's host function. */
static int launch_by_handle(const char *call,
			    int (*next)(void *, struct dim3, struct dim3, void **, size_t, void *),
			    void *kernel, struct dim3 grid, struct dim3 block, void **args,
			    size_t shared, void *stream)
{
	const void *f = kernel_host_function(kernel);

	if (next) {
		unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };
		const char *name = kernel_name(f ? f : kernel, 0);

		stub_write_pending();
		if (name)
			record_launch("cuda", name, g, b);
		return next(kernel, grid, block, args, shared, stream);
	}
	if (!f)
		stub_fail(call, "a launch of kernel handle %p, which __cudaGetKernel did not give",
			  kernel);
	return launch(call, 0, f, grid, block);
}

int __cudaLaunchKernel(void *kernel, struct dim3 grid, struct dim3 block, void **args,
		       size_t shared, void *stream)
{
	return launch_by_handle("__cudaLaunchKernel", next___cudaLaunchKernel(), kernel, grid,
				block, args, shared, stream);
}

int __cudaLaunchKernel_ptsz(void *kernel, struct dim3 grid, struct dim3 block, void **args,
			    size_t shared, void *stream)
{
	return launch_by_handle("__cudaLaunchKernel_ptsz", next___cudaLaunchKernel_ptsz(), kernel,
				grid, block, args, shared, stream);
}

char __cudaInitModule(void **handle)
{
	void **real;

	lock_state();
	real = registration_of(handle, "__cudaInitModule")->real;
	unlock_state();
	if (real && next___cudaInitModule())
		return next___cudaInitModule()(real);
	return 1;
}

int __hipPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shared, void *stream)
{
	if (next___hipPushCallConfiguration())
		return next___hipPushCallConfiguration()(grid, block, shared, stream);
	push(grid, block, shared, stream);
	return 0;
}

int __hipPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shared,
			      void **stream)
{
	if (next___hipPopCallConfiguration())
		return next___hipPopCallConfiguration()(grid, block, shared, stream);
	return pop("__hipPopCallConfiguration", grid, block, shared, stream);
}

int hipLaunchKernel(const void *function, struct dim3 grid, struct dim3 block, void **args,
		    size_t shared, void *stream)
{
	if (next_hipLaunchKernel()) {
		const char *name = kernel_name(function, 1);
		unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };

		stub_write_pending();
		if (name)
			record_launch("hip", name, g, b);
		return next_hipLaunchKernel()(function, grid, block, args, shared, stream);
	}
	return launch("hipLaunchKernel", 1, function, grid, block);
}
