/* A relocatable ELF64 object, built in memory and laid out as GNU as
 * lays one out: its default sections (.text, .data, .bss) first, each
 * section followed by its .rela section, then .symtab, .strtab, the
 * .rela contents and .shstrtab; local symbols in the order they were
 * made, a section's symbol where the section was made (kept only when a
 * relocation uses it), then the undefined globals in the order of their
 * first mention; names sharing a tail share the bytes.  An object written
 * so is byte for byte what GNU as 2.40 writes for the same directives
 * (tests/e2e/registration_forms.sh compares them), so a program linked
 * with it is the one the assembly form gives.
 *
 * Only what the registration needs: little-endian, RELA relocations,
 * symbols with no name from an input.  Bytes that lie elsewhere (a linked
 * image's mapping) are referenced, never copied (common/pieces.h). */
#ifndef OFFLINK_WRAP_ELF_OBJECT_H
#define OFFLINK_WRAP_ELF_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/pieces.h"

struct eo_reloc {
	uint64_t offset;
	uint32_t type;
	size_t sym;            /* index in o->syms */
	int64_t addend;
};

struct eo_section {
	const char *name;
	uint32_t type;
	uint64_t flags, align, entsize;
	struct ol_pieces data; /* (NOBITS: empty; size counts) */
	uint64_t size;
	size_t sym;            /* its section symbol, in o->syms */
	struct eo_reloc *rel;
	size_t nrel, caprel;
	/* laid out by eo_finish */
	unsigned index, rela_index;
	uint64_t offset, rela_offset;
	uint32_t name_at, rela_name_at;
};

struct eo_symbol {
	const char *name;      /* "" for a section's symbol */
	int section;           /* index in o->secs, or -1: undefined */
	uint64_t value, size;
	uint8_t info, other;
	bool is_section, used;
	uint32_t index, name_at; /* laid out by eo_finish */
};

struct elf_object {
	uint16_t machine;
	struct eo_section *secs;
	size_t nsecs, capsecs;
	struct eo_symbol *syms;
	size_t nsyms, capsyms;
	enum ol_err err;       /* the first failure; every call after it is a
			        * no-op, and the indices it returns mean nothing */
};

/* An empty object for machine (EM_*), with .text, .data and .bss. */
void eo_init(struct elf_object *o, uint16_t machine);
void eo_free(struct elf_object *o);

/* The section named so, made with these attributes if it is new (as
 * `.section` does); its index in o->secs. */
size_t eo_section(struct elf_object *o, const char *name, uint32_t type, uint64_t flags,
		  uint64_t align, uint64_t entsize);
/* Append to section s: bytes copied, bytes referenced (which must
 * outlive the object's pieces), zeros; pad with zeros to align. */
void eo_bytes(struct elf_object *o, size_t s, const void *data, size_t len);
void eo_ref(struct elf_object *o, size_t s, const void *data, size_t len);
void eo_zeros(struct elf_object *o, size_t s, uint64_t n);
void eo_align(struct elf_object *o, size_t s, uint64_t align);
void eo_u32(struct elf_object *o, size_t s, uint32_t v);
/* Where the next byte of s goes. */
uint64_t eo_here(const struct elf_object *o, size_t s);
/* Section s's own symbol, for a relocation against its start. */
size_t eo_section_symbol(const struct elf_object *o, size_t s);

/* A local symbol (STT_* type) in section s; its index in o->syms. */
size_t eo_local(struct elf_object *o, const char *name, size_t s, uint64_t value,
		uint64_t size, uint8_t type);
/* The undefined global named so (made on first mention, with STV_*
 * visibility). */
size_t eo_undefined(struct elf_object *o, const char *name, uint8_t visibility);
/* A relocation at offset of section s against symbol sym plus addend; a
 * local symbol is written as its section's symbol plus its value, as GNU
 * as writes it. */
void eo_reloc(struct elf_object *o, size_t s, uint64_t offset, uint32_t type, size_t sym,
	      int64_t addend);
/* Append a 64-bit field of s holding sym + addend (R_X86_64_64 and the
 * like: type). */
void eo_quad_of(struct elf_object *o, size_t s, uint32_t type, size_t sym, int64_t addend);

/* The whole object, into out (own bytes and the references). */
enum ol_err eo_finish(struct elf_object *o, struct ol_pieces *out);

#endif
