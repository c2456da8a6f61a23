/* Generating the registration source that makes linked device images known
 * to the runtime, as C text.  Images are embedded by reference: the bytes
 * before an image (an offload binary header, or nothing) are written out,
 * the image itself is pulled in with .incbin, so a megabyte image costs a
 * line of source and no copy. */
#ifndef OFFLINK_WRAP_WRAPPER_H
#define OFFLINK_WRAP_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"

struct wrap_image {
	const char *triple;
	const char *arch;
	const char *path;       /* the linked image, read by .incbin */
	uint64_t size;          /* its size in bytes */
	uint16_t image_kind;    /* OB_IMG_OBJECT, or OB_IMG_BITCODE (JIT) */
	const char *origins;    /* where its code came from, for the comment */
	uint64_t inner_offset;  /* WRAP_OMP_AS_GIVEN: where the image starts in
				 * the file (an offload binary's ImageOffset), or 0 */
	const uint8_t *data;    /* its size bytes, for the object form
				 * (wrap_openmp_object), which embeds them */
};

/* How the OpenMP registration holds its images and registers them. */
enum wrap_omp_style {
	/* a link's: each image in an offload binary offlink writes, in
	 * .llvm.offloading; a priority-101 constructor that unregisters with
	 * atexit */
	WRAP_OMP_LINK,
	/* LLVM 14's clang-offload-wrapper: each image as it is, in .rodata;
	 * constructor and destructor at priority 1 */
	WRAP_OMP_LLVM14,
	/* llvm-offload-wrapper: each file as it is (a raw image, or an
	 * offload binary whose image is registered) in .llvm.offloading; a
	 * priority-101 constructor that unregisters with atexit */
	WRAP_OMP_AS_GIVEN,
};

struct wrap_openmp {
	const char *output;           /* the program being linked */
	const struct wrap_image *images;
	size_t nimages;
	const char *entries_section;  /* omp_offloading_entries (LLVM <= 19)
				       * or llvm_offload_entries (newer) */
	bool relocatable;             /* -r: images in .llvm.offloading.relocatable */
	enum wrap_omp_style style;    /* the assembly form's; the C form writes
				       * WRAP_OMP_LINK only */
	unsigned ob_version;          /* the offload binary version each image
				       * is wrapped in (WRAP_OMP_LINK): the
				       * release's (ob_release_version); 0 is 1 */
};

/* The OpenMP registration: __tgt_device_image array, __tgt_bin_desc, and
 * a priority-101 constructor calling __tgt_register_lib, which registers
 * __tgt_unregister_lib with atexit. */
enum ol_err wrap_openmp_source(const struct wrap_openmp *w, struct ol_buf *out,
			       struct ol_diag *d);

/* The SYCL registration (LLVM 23 on): each image -- an offload binary
 * clang-sycl-linker wrote -- as it is, in .llvm.offloading, registered by
 * __sycl_register_lib(image, size) and unregistered likewise. */
struct wrap_sycl {
	const char *output;
	const struct wrap_image *images; /* triple, arch, path, size, origins */
	size_t nimages;
	bool relocatable;  /* -r: images in .llvm.offloading.relocatable */
	/* LLVM 24's: a priority-101 constructor that unregisters with atexit;
	 * else 23's: constructor and destructor at priority 1 */
	bool use_atexit;
};

/* The SYCL registration as C (sycl_wrapper.c). */
enum ol_err wrap_sycl_source(const struct wrap_sycl *w, struct ol_buf *out, struct ol_diag *d);

struct wrap_managed {
	const char *init_symbol;    /* "x.managed": the initial value */
	const char *pointer_symbol; /* "x": where the runtime puts the pointer */
};

/* Whether a symbol name from an input may be referenced by the generated
 * code: not empty, not starting with byte 1 (which clang takes as "no
 * prefix" in an asm label), and not in offlink's own namespaces
 * "__offlink_" and ".L__offlink_" (the assembly's local labels), so it can
 * never name one of the registration code's own symbols or labels. */
bool wrap_symbol_allowed(const char *name);

struct wrap_cuda_hip {
	bool hip;                 /* HIP, else CUDA */
	const char *output;
	const char *bundle_path;  /* the fatbinary or offload bundle, .incbin'd */
	const char *contents;     /* one comment line describing it */
	bool new_entries;         /* llvm_offload_entries (56 bytes) */
	const struct wrap_managed *managed; /* for LLVM 19's 32-byte entries */
	size_t nmanaged;
	/* CUDA: the IDs of nvcc's relocatable modules in the link (letters,
	 * digits, '_': extract/nvcc_rdc.h), registered against the same
	 * linked fat binary */
	const char *const *nvcc_modules;
	size_t nnvcc;
};

/* The CUDA or HIP registration: the container in .nv_fatbin/.hip_fatbin,
 * its wrapper struct, and a constructor registering it and every kernel,
 * variable, managed variable (and, for HIP, surface and texture) of the
 * entry table. */
enum ol_err wrap_cuda_hip_source(const struct wrap_cuda_hip *w, struct ol_buf *out,
				 struct ol_diag *d);

/* ---- the same registrations as assembly (registration_asm.c) ---- */

struct asm_arch;

/* Whether the assembly path can write this symbol name (quoted): any
 * name but one holding a newline, '"' or '\\', which the assemblers read
 * differently in a quoted name (those go the C path, whose compiler
 * writes symbols itself). */
bool wrap_asm_symbol_ok(const char *name);

/* The SYCL registration for architecture a, as assembly. */
enum ol_err wrap_sycl_asm(const struct wrap_sycl *w, const struct asm_arch *a,
			  struct ol_buf *out, struct ol_diag *d);

/* The OpenMP registration for architecture a, as assembly. */
enum ol_err wrap_openmp_asm(const struct wrap_openmp *w, const struct asm_arch *a,
			    struct ol_buf *out, struct ol_diag *d);

/* The OpenMP registration of a link (WRAP_OMP_LINK) as an x86_64 ELF
 * object: what wrap_openmp_asm's assembly for x86_64 assembles to, byte
 * for byte as GNU as writes it, with no assembler run.  Each image's
 * bytes are referenced from its data, not copied (common/pieces.h). */
struct ol_pieces;
enum ol_err wrap_openmp_object(const struct wrap_openmp *w, struct ol_pieces *out,
			       struct ol_diag *d);

/* The CUDA or HIP registration, as assembly; OL_E_UNSUPPORTED when a
 * managed variable's name is not one wrap_asm_symbol_ok accepts,
 * OL_E_BAD_FIELD when an nvcc module ID is not an identifier (IDs are
 * written into symbol names and strings as they are). */
enum ol_err wrap_cuda_hip_asm(const struct wrap_cuda_hip *w, const struct asm_arch *a,
			      struct ol_buf *out, struct ol_diag *d);

/* ---- shared by the generators ---- */

/* OL_OK when every nvcc module ID of w is a run of [A-Za-z0-9_]: the two
 * forms write IDs into identifiers, symbol names and strings as they are,
 * so anything else is refused (OL_E_BAD_FIELD, naming the module). */
enum ol_err wrap_nvcc_ids_check(const struct wrap_cuda_hip *w, struct ol_diag *d);

/* The most OpenMP images one registration holds (each generator's table
 * of image offsets). */
#define WRAP_OMP_MAX_IMAGES 256

/* The section a link's OpenMP images go in (-r: the relocatable one). */
const char *wrap_omp_image_section(bool relocatable);
/* Image img in its offload binary (of w's version), as a link's
 * registration embeds it: the bytes before the image (appended to head),
 * where the image starts in them (*offset) and how many zero bytes follow
 * it (*pad).  One encoder for the three forms, so that they embed the
 * same bytes. */
enum ol_err wrap_omp_image_head(const struct wrap_openmp *w, const struct wrap_image *img,
				struct ol_buf *head, uint64_t *offset, uint64_t *pad);

/* Append an asm block that defines the local symbol `sym` in `section`
 * (section flags/type text as in a .section directive), `align`-aligned,
 * holding prefix, then the file at path, then pad zero bytes. */
enum ol_err wrap_emit_blob(struct ol_buf *out, const char *sym,
			   const char *section, unsigned align,
			   const uint8_t *prefix, size_t nprefix,
			   const char *path, uint64_t pad);

#endif
