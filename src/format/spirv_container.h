/* The ELF container in which LLVM 22's clang-linker-wrapper registers a
 * linked SPIR-V module for Intel's OpenMP runtime (docs/format.md, "The
 * SPIR-V container"):
 *
 *   ELF64 little-endian, ET_DYN, e_machine 205 (EM_INTELGT), no program
 *   headers, five sections, in this order in the file:
 *     0x40  .note.inteloneompoffload  SHT_NOTE, three notes, owner
 *           "INTELONEOMPOFFLOAD": type 1 the version "1.0", type 3 the
 *           module's record "0\0" "1\0" "\0" (index, format 1 = SPIR-V,
 *           compile options), type 2 the number of modules, "1";
 *     0xb0  __openmp_offload_spirv_0  SHT_PROGBITS, the module, as linked;
 *           .strtab (one NUL), .shstrtab;
 *   then the section headers, at the next multiple of 8.
 * Sections have no address, no flags and (but the string tables) no
 * alignment, so nothing pads the module: the container depends on its
 * bytes alone, and the same module gives the same container. */
#ifndef OFFLINK_FORMAT_SPIRV_CONTAINER_H
#define OFFLINK_FORMAT_SPIRV_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define OL_EM_INTELGT 205
#define OL_SPIRV_MAGIC 0x07230203u

/* True if p[0..len) starts as a SPIR-V module (its magic, little-endian). */
bool ol_is_spirv(const uint8_t *p, size_t len);
/* The SPIR-V version of a module ol_is_spirv accepts (its second word:
 * 0x00MMmm00). */
void ol_spirv_version(const uint8_t *module, unsigned *major, unsigned *minor);

/* What a container holds (ol_spirv_container_read). */
struct ol_spirv_container {
	char version[16];        /* the version note ("1.0"), "" if none */
	unsigned long images;    /* the image-count note, 0 if none */
	size_t nmodules;         /* __openmp_offload_spirv_<N> sections */
	uint64_t module_offset;  /* the first module */
	uint64_t module_size;
	unsigned spirv_major, spirv_minor; /* its SPIR-V version */
};

/* Whether p[0..len) is an ELF image for EM_INTELGT (the container's
 * header, nothing more checked). */
bool ol_is_spirv_container(const uint8_t *p, size_t len);

/* Read a container: NULL and *out filled, or a message saying what is
 * wrong (a static string; *field names the part).  Depends on nothing but
 * the bytes: the runtime stub reads registered images with it too. */
const char *ol_spirv_container_read(const uint8_t *p, size_t len, struct ol_spirv_container *out,
				    const char **field);

struct ol_pieces;
struct ol_diag;

/* The container of module[0..len) as pieces (common/pieces.h): the
 * module's bytes are referenced, not copied.  An error (OL_E_BAD_MAGIC)
 * when module is not a SPIR-V module. */
enum ol_err ol_spirv_container_encode(const uint8_t *module, size_t len, struct ol_pieces *out,
				      struct ol_diag *d);

#endif
