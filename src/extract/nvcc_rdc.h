/* nvcc's relocatable device code (`nvcc -rdc=true -c`) in a host object:
 *
 *   __nv_module_id   the module's ID, NUL-terminated: nvcc's host code
 *                    calls __cudaRegisterLinkedBinary<ID> from a
 *                    constructor, and defines __fatbinwrap<ID>, the
 *                    wrapper of its relocatable fat binary;
 *   __nv_relfatbin   that fat binary (format/cuda_fatbin.h): a relocatable
 *                    cubin per SM and/or PTX, usually zstd-compressed.
 *
 * (Without -rdc, nvcc's object carries a linked .nv_fatbin and registers
 * it itself: nothing for the link to do.)  Here the module is found and
 * its device code made into an offload binary in memory, so that the
 * device link takes it as it takes clang's: per SM, beside clang's
 * cubins, in one nvlink (docs/compat.md, "nvcc"). */
#ifndef OFFLINK_EXTRACT_NVCC_RDC_H
#define OFFLINK_EXTRACT_NVCC_RDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "extract/elf_file.h"
#include "format/offload_binary.h"

#define OL_NVCC_MODULE_KEY "nvcc-module"

struct ol_nvcc_module {
	char id[256];             /* the ID: letters, digits and '_' */
	const uint8_t *fatbin;    /* __nv_relfatbin's contents, in the object */
	size_t fatbin_size;
	uint64_t fatbin_offset;   /* of the section, in the object */
};

/* The two sections, met on a walk of an object's sections that is done
 * for other reasons too (the link's scan): ol_nvcc_note_section on each,
 * then ol_nvcc_module_of. */
struct ol_nvcc_sections {
	struct ol_elf_section id, fatbin;
	bool has_id, has_fatbin;
};

void ol_nvcc_note_section(struct ol_nvcc_sections *f, const struct ol_elf_section *s);

/* The modules the object registers itself: "def <ID>" in its
 * __nv_module_id, which nvcc -dlink's object writes for each module it
 * linked (it defines their __cudaRegisterLinkedBinary<ID>), and an -r
 * output of offlink's holds; cb(ctx, id) for each.  A "def" without an
 * identifier after it, or a string without its NUL, is an error naming
 * the section. */
enum ol_err ol_nvcc_registered(const struct ol_nvcc_sections *f,
			       enum ol_err (*cb)(void *ctx, const char *id, struct ol_diag *d),
			       void *ctx, struct ol_diag *d);

/* As ol_elf_nvcc_module, from the sections a walk noted. */
enum ol_err ol_nvcc_module_of(const struct ol_nvcc_sections *f, struct ol_nvcc_module *m,
			      bool *found, struct ol_diag *d);

/* Whether the relocatable object e holds nvcc relocatable device code
 * (*found); its ID is the first string of __nv_module_id that is not
 * "def <ID>".  A module ID that is missing, empty, too long or not an
 * identifier, or a fat binary without an ID, is an error naming the
 * section. */
enum ol_err ol_elf_nvcc_module(struct ol_elf *e, struct ol_nvcc_module *m, bool *found,
			       struct ol_diag *d);

/* The module's device code as an offload binary of kind CUDA: one entry
 * per cubin (OB_IMG_CUBIN, arch sm_<N>) and per virtual architecture's
 * PTX (OB_IMG_PTX, arch compute_<N>) of its fat binary, decompressed,
 * with triple nvptx64-nvidia-cuda and OL_NVCC_MODULE_KEY = the ID; b owns
 * everything.  LTO IR (-dlto) is an error: nvcc's device LTO is nvlink's
 * alone. */
enum ol_err ol_nvcc_binary(const struct ol_nvcc_module *m, struct ob_binary *b,
			   struct ol_diag *d);

#endif
