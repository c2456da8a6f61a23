/* A link's OpenMP registration as an x86_64 ELF object, written by
 * offlink itself: the object GNU as makes of wrap_openmp_asm's assembly
 * for x86_64 (registration_asm.c, asm_x86_64.c), byte for byte, without
 * the assembler's process (3-5 ms of every link, most of it as's own
 * start).  The same sections in the same order, the same symbols, the
 * same relocations; the machine code of the two functions and their
 * call-frame information are the bytes as encodes for asm_x86_64.c's
 * instructions.  tests/e2e/registration_forms.sh compares the two
 * objects byte for byte and runs both.
 *
 * Nothing from an input reaches a name: the symbols are offlink's, the
 * runtime's, and the entries section's bounds. */
#include "wrap/wrapper.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>

#include "wrap/elf_object.h"

#define SHT_LLVM_OFFLOADING 0x6fff4c0b

/* __offlink_omp_register: lea desc(%rip),%rdi; sub $8,%rsp; call
 * __tgt_register_lib@PLT; lea __offlink_omp_unregister(%rip),%rdi; add
 * $8,%rsp; jmp atexit@PLT.  __offlink_omp_unregister (at 0x20): lea
 * desc(%rip),%rdi; jmp __tgt_unregister_lib@PLT. */
static const uint8_t code[] = {
	0x48, 0x8d, 0x3d, 0, 0, 0, 0, 0x48, 0x83, 0xec, 0x08, 0xe8, 0, 0, 0, 0,
	0x48, 0x8d, 0x3d, 0x09, 0, 0, 0, 0x48, 0x83, 0xc4, 0x08, 0xe9, 0, 0, 0, 0,
	0x48, 0x8d, 0x3d, 0, 0, 0, 0, 0xe9, 0, 0, 0, 0,
};
enum { REGISTER_SIZE = 0x20, UNREGISTER = 0x20 };

/* A CIE (code 1, data -8, return address r16, pc-relative sdata4; the
 * CFA rsp+8, the return address at CFA-8) and an FDE per function:
 * register's CFA offset 16 after the sub (at 11), 8 after the add (at
 * 27); pc_begin fields at 0x20 and 0x38. */
static const uint8_t eh_frame[] = {
	0x14, 0, 0, 0, 0, 0, 0, 0, 0x01, 'z', 'R', 0, 0x01, 0x78, 0x10, 0x01,
	0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
	0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, REGISTER_SIZE, 0, 0, 0,
	0x00, 0x4b, 0x0e, 0x10, 0x50, 0x0e, 0x08, 0,
	0x14, 0, 0, 0, 0x34, 0, 0, 0, 0, 0, 0, 0, sizeof(code) - UNREGISTER, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
};

/* The symbols' names, which live as long as the object. */
struct names {
	char dummy[96], start[96], stop[96];
	char (*image)[48];
};

/* Image i: its offload binary's header, the image, the padding; where
 * the image's bytes start (*at) in the section. */
static enum ol_err image(struct elf_object *o, size_t sec, const struct wrap_openmp *w,
			 const struct wrap_image *img,
			 const char *sym, uint64_t *at)
{
	struct ol_buf head = { 0 };
	uint64_t offset, pad, start;

	if (wrap_omp_image_head(w, img, &head, &offset, &pad))
		return OL_E_NOMEM;
	eo_align(o, sec, 8);
	start = eo_here(o, sec);
	eo_bytes(o, sec, head.data, head.len);
	eo_ref(o, sec, img->data, (size_t)img->size);
	eo_zeros(o, sec, pad);
	ol_buf_free(&head);
	*at = start + offset;
	eo_local(o, sym, sec, start, eo_here(o, sec) - start, STT_OBJECT);
	return OL_OK;
}

static void functions(struct elf_object *o, size_t desc)
{
	size_t text = eo_section(o, ".text.startup", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
				 16, 0);
	size_t reg = eo_local(o, "__offlink_omp_register", text, 0, REGISTER_SIZE, STT_FUNC);
	size_t lib, ax, unlib, init, eh;

	eo_local(o, "__offlink_omp_unregister", text, UNREGISTER, sizeof(code) - UNREGISTER,
		 STT_FUNC);
	eo_bytes(o, text, code, sizeof(code));
	lib = eo_undefined(o, "__tgt_register_lib", STV_DEFAULT);
	ax = eo_undefined(o, "atexit", STV_DEFAULT);
	unlib = eo_undefined(o, "__tgt_unregister_lib", STV_DEFAULT);
	/* as's order: the fixed fields, then the relaxed jumps' */
	eo_reloc(o, text, 0x03, R_X86_64_PC32, desc, -4);
	eo_reloc(o, text, 0x0c, R_X86_64_PLT32, lib, -4);
	eo_reloc(o, text, UNREGISTER + 0x03, R_X86_64_PC32, desc, -4);
	eo_reloc(o, text, 0x1c, R_X86_64_PLT32, ax, -4);
	eo_reloc(o, text, UNREGISTER + 0x08, R_X86_64_PLT32, unlib, -4);
	/* priority 101, as LLVM's wrapper (registration_asm.c, constructor) */
	init = eo_section(o, ".init_array.101", SHT_INIT_ARRAY, SHF_ALLOC | SHF_WRITE, 8, 8);
	eo_quad_of(o, init, R_X86_64_64, reg, 0);
	eo_section(o, ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0);
	eh = eo_section(o, ".eh_frame", SHT_PROGBITS, SHF_ALLOC, 8, 0);
	eo_bytes(o, eh, eh_frame, sizeof(eh_frame));
	eo_reloc(o, eh, 0x20, R_X86_64_PC32, eo_section_symbol(o, text), 0);
	eo_reloc(o, eh, 0x38, R_X86_64_PC32, eo_section_symbol(o, text), UNREGISTER);
}

static enum ol_err build(const struct wrap_openmp *w, struct elf_object *o, struct names *n)
{
	const char *s = w->entries_section;
	size_t entries, blob, rel, start, stop, table, desc;
	uint64_t at[WRAP_OMP_MAX_IMAGES]; /* (wrap_openmp_object checked) */

	snprintf(n->dummy, sizeof(n->dummy), "__offlink_dummy_%s", s);
	snprintf(n->start, sizeof(n->start), "__start_%s", s);
	snprintf(n->stop, sizeof(n->stop), "__stop_%s", s);
	entries = eo_section(o, s, SHT_PROGBITS, SHF_ALLOC, 8, 0);
	eo_local(o, n->dummy, entries, 0, 0, STT_OBJECT);
	start = eo_undefined(o, n->start, STV_HIDDEN);
	stop = eo_undefined(o, n->stop, STV_HIDDEN);
	blob = eo_section(o, wrap_omp_image_section(w->relocatable), SHT_LLVM_OFFLOADING,
			  SHF_ALLOC, 8, 0);
	for (size_t i = 0; i < w->nimages; i++) {
		snprintf(n->image[i], sizeof(n->image[i]), "__offlink_omp_image_%zu", i);
		if (image(o, blob, w, &w->images[i], n->image[i], &at[i]))
			return OL_E_NOMEM;
	}
	rel = eo_section(o, ".data.rel.ro", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8, 0);
	table = eo_local(o, "__offlink_omp_images", rel, 0, 0, STT_NOTYPE);
	for (size_t i = 0; i < w->nimages; i++) {
		eo_quad_of(o, rel, R_X86_64_64, eo_section_symbol(o, blob), (int64_t)at[i]);
		eo_quad_of(o, rel, R_X86_64_64, eo_section_symbol(o, blob),
			   (int64_t)(at[i] + w->images[i].size));
		eo_quad_of(o, rel, R_X86_64_64, start, 0);
		eo_quad_of(o, rel, R_X86_64_64, stop, 0);
	}
	desc = eo_local(o, "__offlink_omp_descriptor", rel, eo_here(o, rel), 32, STT_OBJECT);
	eo_u32(o, rel, (uint32_t)w->nimages);
	eo_zeros(o, rel, 4);
	eo_quad_of(o, rel, R_X86_64_64, table, 0);
	eo_quad_of(o, rel, R_X86_64_64, start, 0);
	eo_quad_of(o, rel, R_X86_64_64, stop, 0);
	functions(o, desc);
	return o->err;
}

enum ol_err wrap_openmp_object(const struct wrap_openmp *w, struct ol_pieces *out,
			       struct ol_diag *d)
{
	struct names n = { 0 };
	struct elf_object o;
	enum ol_err rc;

	if (w->style != WRAP_OMP_LINK)
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				   "the object form writes a link's registration only");
	if (w->nimages > WRAP_OMP_MAX_IMAGES)
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "more than %d OpenMP device images",
				   WRAP_OMP_MAX_IMAGES);
	if (!(n.image = calloc(w->nimages ? w->nimages : 1, sizeof(*n.image))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	eo_init(&o, EM_X86_64);
	rc = build(w, &o, &n);
	if (!rc)
		rc = eo_finish(&o, out);
	eo_free(&o);
	free(n.image);
	return rc ? ol_diag_set(d, rc, NULL, NULL) : OL_OK;
}
