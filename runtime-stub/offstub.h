/* liboffstub: stand-in registration entry points of libomptarget and of
 * the CUDA and HIP runtimes, for checking offloading links on machines
 * without a GPU (and building on machines without the runtimes).
 *
 * Each registration is checked (pointers, order, entry tables, names,
 * images and their machine and arch) and, with OFFSTUB_LOG=<file>, one
 * JSON line is appended to that file.  A malformed table is reported on
 * stderr and the process exits with OFFSTUB_EXIT_MALFORMED.  No kernel
 * runs: OpenMP target regions fall back to the host unless a real
 * libomptarget comes after the stub (LD_PRELOAD), which then gets every
 * call. */
#ifndef OFFSTUB_H
#define OFFSTUB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OFFSTUB_EXIT_MALFORMED 3
#define STUB_NO_DEVICE 100 /* cudaErrorNoDevice, hipErrorNoDevice */

/* Note STUB_NO_DEVICE as the thread's last CUDA/HIP error and return it
 * (basics.c); the last error, left as it is or cleared. */
int stub_no_device(void);
int stub_peek_last_error(void);
int stub_take_last_error(void);

/* Append one line to $OFFSTUB_LOG (if set), in one write with O_APPEND:
 * lines of concurrent processes (and threads) do not interleave. */
void stub_log_line(const char *text, size_t len);

/* A JSON record under construction (open_memstream). */
struct record {
	FILE *f;
	char *text;
	size_t len;
	int nimages, nentries;
	long prelinked;  /* a version 2 wrapper's relocatable fat binaries, or -1 */
};

void record_open(struct record *r, const char *runtime);
void record_image(struct record *r, const void *start, size_t size,
		  const char *container_kind, const char *declared_arch,
		  const char *declared_triple);
/* A version 2 wrapper's relocatable fat binaries: how many. */
void record_prelinked(struct record *r, size_t n);
void record_entry(struct record *r, const char *name, uint64_t size,
		  uint32_t flags, const char *kind, int ext, int constant);
/* Close the record and append it to $OFFSTUB_LOG (if set). */
void record_write(struct record *r);

/* A launch of a registered kernel: {"runtime", "launch", "grid", "block"}. */
void record_launch(const char *runtime, const char *name, const unsigned grid[3],
		   const unsigned block[3]);

/* A call of the CUDA or HIP runtime API: {"runtime", "call", "result"};
 * returns result. */
int stub_api_call(const char *runtime, const char *name, int result);

/* Write the records of CUDA/HIP registrations still open.  HIP has no
 * "end of registration" call, so this runs at the program's first
 * runtime call after its constructors (and at exit), so that a program
 * that then crashes has still logged what it registered. */
void stub_write_pending(void);

/* Report a malformed registration and exit. */
void stub_fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* name must be a NUL-terminated string of printable bytes. */
void check_name(const char *what, const char *name);

/* The ELF machine's architecture name for an image: "sm_90" (cubin),
 * "gfx90a" (AMDGPU), "" for CPUs; NULL if the bytes are not ELF.  Fails
 * on an ELF whose machine contradicts the declared triple or arch. */
const char *image_arch(const void *start, size_t size, const char *declared_triple,
		       const char *declared_arch, unsigned *machine, unsigned *flags);

/* The kernels of a CUDA ELF image (entry functions), sorted, at most
 * max; 0 for anything else. */
size_t image_kernels(const void *start, size_t size, const char **names, size_t max);

/* Whether a CUDA ELF image defines the variable name (1); its initial
 * bytes in *data, *len of them, or *data NULL when it starts as zeros
 * (.nv.global, a NOBITS section). */
int image_variable(const void *start, size_t size, const char *name, const uint8_t **data,
		   size_t *len);

struct ol_spirv_container;
/* 1 and *c filled for a registered SPIR-V module: LLVM 22's container
 * (machine 205, format/spirv_container.h) or, from 23, an offload binary
 * with SPIR-V entries (its "version" string as the container's); 0 for
 * anything else; fails on a damaged one. */
int image_spirv(const void *start, size_t size, struct ol_spirv_container *c);

/* Whether an image is itself an (uncompressed) offload binary. */
int image_is_offload_binary(const void *start, size_t size);

/* One entry of an offload binary, as binary_entries reads it. */
struct binary_entry {
	uint16_t image_kind, offload_kind;
	const uint8_t *image;
	uint64_t image_size;
	const char *triple, *arch;          /* NULL when absent */
	const uint8_t *symbols;             /* SYCL's kernel names, as stored, */
	uint64_t symbols_len;               /* or NULL, 0 */
};

/* The entries of the offload binary at start (size bytes), at most max,
 * into out: their number, or -1 when it is not an uncompressed binary or
 * an entry does not fit. */
int binary_entries(const void *start, size_t size, struct binary_entry *out, size_t max);

/* The image's FNV-1a 64 digest: lets a test compare what two links
 * register without the image itself in the log. */
uint64_t image_digest(const void *start, size_t size);

/* The triple and arch of the offload binary an image sits in (as LLVM's
 * and offlink's registration code embed them: version 1 up to LLVM 22, 2
 * and 3 after), if one of its entries is the image and it is found
 * before the image in the same loaded segment. */
int enclosing_binary(const void *start, size_t size, const char **triple,
		     const char **arch);

/* Exported by every copy of the stub, and by nothing else (basics.c). */
extern const char offstub_copy[];

/* The definition of `name` after this library's in the lookup order (the
 * real runtime's, when the stub is preloaded), or NULL; NULL too when
 * that is another copy of the stub's. */
void *stub_next_symbol(const char *name);

/* Declares next_<name>(), the real runtime's <name> or NULL, looked up
 * once (pthread_once: the program's threads may ask at the same time),
 * when the stub is loaded: a lookup at exit (__tgt_unregister_lib's,
 * from an atexit handler) opens and closes the runtime's object while
 * it winds down, and libomptarget 24 then fails to close its host
 * plugin's image and crashes. */
#define STUB_NEXT(ret, name, params)                                 \
	typedef ret(*name##_fn) params;                              \
	static name##_fn name##_next;                                \
	static void look_up_##name(void)                             \
	{                                                            \
		void *p = stub_next_symbol(#name);                   \
		memcpy(&name##_next, &p, sizeof(name##_next));       \
	}                                                            \
	static pthread_once_t name##_once = PTHREAD_ONCE_INIT;       \
	static name##_fn next_##name(void)                           \
	{                                                            \
		pthread_once(&name##_once, look_up_##name);          \
		return name##_next;                                  \
	}                                                            \
	__attribute__((constructor)) static void early_##name(void)  \
	{                                                            \
		next_##name();                                       \
	}

/* Escape s as a JSON string into f. */
void json_string(FILE *f, const char *s);

#endif
