/* The machine code of the registration, as assembly for one host
 * architecture (asm_x86_64.c, asm_aarch64.c).
 *
 * The registration's functions do the same thing whatever was linked:
 * register a descriptor or a fatbinary, walk the entries section, and
 * unregister at exit.  They are written here once per architecture, as
 * assembly for the host's assembler (GNU as or LLVM's integrated one),
 * so that a link needs no compiler process to build them; the data
 * (images, tables) is written by registration_asm.c.  Every name in the
 * text is offlink's own or a runtime's: nothing from an input. */
#ifndef OFFLINK_WRAP_ASM_CODE_H
#define OFFLINK_WRAP_ASM_CODE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* What the CUDA/HIP registration function needs to know. */
struct asm_cuda_hip {
	bool hip;
	const char *lower;    /* "cuda" / "hip": offlink's symbol names */
	const char *prefix;   /* "__cuda" / "__hip": the runtime's */
	const char *entries;  /* the entries section */
	bool new_entries;     /* 56-byte entries (LLVM 20+), else 32-byte */
	size_t nmanaged;      /* pairs in __offlink_<lower>_managed (32-byte
			       * entries: initial value -> pointer variable) */
	/* CUDA: nvcc's relocatable modules (IDs of [A-Za-z0-9_]), each
	 * registered against the same linked fat binary (wrapper.h) */
	const char *const *nvcc_modules;
	size_t nnvcc;
};

struct asm_arch {
	const char *name;     /* "x86_64", "aarch64" */
	/* __offlink_omp_register (calls __tgt_register_lib on
	 * __offlink_omp_descriptor, then, with use_atexit,
	 * atexit(__offlink_omp_unregister)) and __offlink_omp_unregister, in
	 * .text.startup.  Without atexit the unregister function goes in
	 * .fini_array (LLVM 14's layout). */
	enum ol_err (*omp_code)(struct ol_buf *out, bool use_atexit);
	/* __offlink_<lower>_register and _unregister: register
	 * __offlink_<lower>_fatbin_wrapper, keep the handle in
	 * __offlink_<lower>_handle, register every entry of the entries
	 * section as the C generator's code does (cuda_hip_wrapper.c), call
	 * nvcc's modules' callbacks (__offlink_nvcc_callback), end (CUDA),
	 * atexit(unregister).  With nvcc's modules also
	 * __cudaRegisterLinkedBinary<ID> for each (global): keep its
	 * callback and its fat binary (__fatbinwrap<ID>'s data, in
	 * __offlink_nvcc_prelinked), pass &__offlink_nvcc_defs[i] to its
	 * dummy_ref, count it in; and __offlink_nvcc_count, which counts
	 * one arrival (the constructor's is one) and, at the last of
	 * nnvcc + 1, registers. */
	enum ol_err (*cuda_hip_code)(struct ol_buf *out, const struct asm_cuda_hip *p);
	/* One of SYCL's two functions, name: walk the pairs (image, size)
	 * from __offlink_sycl_images to __offlink_sycl_images_end and call
	 * callee (__sycl_register_lib, __sycl_unregister_lib) on each; with
	 * then_atexit end in atexit(__offlink_sycl_unregister). */
	enum ol_err (*sycl_walk)(struct ol_buf *out, const char *name, const char *callee,
				 bool then_atexit);
};

/* Shared by the code writers (asm_common.c). */

/* A local function in .text.startup, aligned to 2^p2align, with CFI. */
enum ol_err asm_function_start(struct ol_buf *out, const char *name, unsigned p2align);
enum ol_err asm_function_end(struct ol_buf *out, const char *name);

/* Where an entry's fields are: LLVM 19's 32-byte and LLVM 20's 56-byte
 * layouts (docs/format.md). */
struct asm_layout {
	unsigned size, addr, name, bytes, flags, data;
	bool data64;          /* Data is 64 bits (else 32) */
};
extern const struct asm_layout asm_old_layout, asm_new_layout;

extern const struct asm_arch asm_x86_64;
extern const struct asm_arch asm_aarch64;

/* The architecture of a host triple ("x86_64-...", "aarch64-..."), or
 * NULL when offlink writes no assembly for it (the C path is used). */
const struct asm_arch *asm_arch_of(const char *host_triple);

#endif
