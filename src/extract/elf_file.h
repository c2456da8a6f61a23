/* A checked view of an ELF file in memory, through libelf.  Every libelf
 * call is checked; section contents are handed out as slices of the
 * caller's buffer after a bounds check of our own. */
#ifndef OFFLINK_EXTRACT_ELF_FILE_H
#define OFFLINK_EXTRACT_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#ifndef SHT_LLVM_OFFLOADING
#define SHT_LLVM_OFFLOADING 0x6fff4c0b
#endif

struct ol_elf {
	Elf *elf;
	const uint8_t *p;
	size_t len;
	GElf_Ehdr ehdr;
	size_t shstrndx;
};

struct ol_elf_section {
	size_t index;
	const char *name;
	GElf_Shdr shdr;
	const uint8_t *data; /* NULL for SHT_NOBITS */
	size_t size;
};

struct ol_elf_symbol {
	const char *name;
	unsigned bind;       /* STB_* */
	unsigned type;       /* STT_* */
	unsigned visibility; /* STV_* */
	unsigned other;      /* st_other whole (a CUDA kernel: 0x10) */
	bool defined;        /* not SHN_UNDEF (commons count as defined) */
	bool common;
};

/* True if p starts with the ELF magic. */
bool ol_is_elf(const uint8_t *p, size_t len);

/* Open the ELF image p[0..len) (p must stay mapped while open). */
enum ol_err ol_elf_open(struct ol_elf *e, uint8_t *p, size_t len,
			struct ol_diag *d);
void ol_elf_close(struct ol_elf *e);

typedef enum ol_err (*ol_elf_section_cb)(void *ctx,
					 const struct ol_elf_section *s,
					 struct ol_diag *d);
/* Call cb for every section, in index order. */
enum ol_err ol_elf_for_each_section(struct ol_elf *e, ol_elf_section_cb cb,
				    void *ctx, struct ol_diag *d);

typedef enum ol_err (*ol_elf_symbol_cb)(void *ctx,
					const struct ol_elf_symbol *s,
					struct ol_diag *d);
/* Call cb for every global or weak symbol of .symtab (dynamic = false) or
 * .dynsym (dynamic = true).  Files without that table give no calls. */
enum ol_err ol_elf_for_each_global(struct ol_elf *e, bool dynamic,
				   ol_elf_symbol_cb cb, void *ctx,
				   struct ol_diag *d);

/* The release of the clang that compiled the object, from its .comment
 * ("... clang version 19.1.7 ..."), or 0 when it does not say. */
unsigned ol_elf_clang_major(struct ol_elf *e);

/* True if the section carries offload binaries: type SHT_LLVM_OFFLOADING
 * (what LLVM >= 16 matches) or a name starting with ".llvm.offloading"
 * (LLVM 15, and tools that lose the type). */
bool ol_elf_is_offload_section(const struct ol_elf_section *s);

#endif
