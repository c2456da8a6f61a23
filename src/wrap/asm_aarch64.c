/* The registration's functions for aarch64 hosts (AAPCS64, PIC).
 *
 * Arguments go in x0-x7, then on the stack; calls are `bl` (the linker
 * adds a PLT stub where needed), addresses of the object's own symbols
 * and of the hidden section bounds come from adrp + add.  The CUDA/HIP
 * walk keeps its state in callee-saved registers: x19 the handle, x20 the
 * entry, x21 the end of the entries, x22 the entry's flags, x23 its size;
 * 16 bytes at sp hold the two stack arguments of RegisterFunction. */
#include "wrap/asm_code.h"

#include <stdio.h>

#include "wrap/emit.h"

static enum ol_err function_start(struct ol_buf *out, const char *name)
{
	return asm_function_start(out, name, 2);
}

static enum ol_err function_end(struct ol_buf *out, const char *name)
{
	return asm_function_end(out, name);
}

/* reg := the address of a symbol of this object (or a hidden one). */
static enum ol_err address(struct ol_buf *out, const char *reg, const char *sym)
{
	L("\tadrp %s, %s", reg, sym);
	L("\tadd %s, %s, :lo12:%s", reg, reg, sym);
	return OL_OK;
}

/* reg := n, any 32-bit value (movz, then movk for the high half). */
static enum ol_err immediate(struct ol_buf *out, const char *reg, size_t n)
{
	L("\tmovz %s, #%zu", reg, n & 0xffff);
	if (n > 0xffff)
		L("\tmovk %s, #%zu, lsl #16", reg, (n >> 16) & 0xffff);
	return OL_OK;
}

/* nvcc's modules: each one's constructor calls
 * __cudaRegisterLinkedBinary<ID>(callback, prelinked, module ID,
 * dummy_ref); that function (global, a thunk) passes its index and its
 * module's fat binary wrapper, referenced by name (through the GOT) so
 * that the host linker takes the module's object, to
 * __offlink_nvcc_arrive. */
static enum ol_err nvcc_code(struct ol_buf *out, const struct asm_cuda_hip *p)
{
	char name[320];

	for (size_t i = 0; i < p->nnvcc; i++) {
		snprintf(name, sizeof(name), "__cudaRegisterLinkedBinary%s", p->nvcc_modules[i]);
		L("\t.globl %s", name);
		if (function_start(out, name))
			return OL_E_NOMEM;
		L("\tadrp x2, :got:__fatbinwrap%s", p->nvcc_modules[i]);
		L("\tldr x2, [x2, :got_lo12:__fatbinwrap%s]", p->nvcc_modules[i]);
		if (immediate(out, "x1", i))
			return OL_E_NOMEM;
		L("\tb __offlink_nvcc_arrive");
		if (function_end(out, name))
			return OL_E_NOMEM;
	}
	/* (callback x0, index x1, wrapper x2, dummy_ref x3) */
	if (function_start(out, "__offlink_nvcc_arrive"))
		return OL_E_NOMEM;
	L("\tstp x29, x30, [sp, #-48]!");
	L("\t.cfi_def_cfa_offset 48");
	L("\tmov x29, sp");
	L("\tstp x19, x20, [sp, #16]");
	L("\tstr x21, [sp, #32]");
	L("\t.cfi_offset w29, -48");
	L("\t.cfi_offset w30, -40");
	L("\t.cfi_offset w19, -32");
	L("\t.cfi_offset w20, -24");
	L("\t.cfi_offset w21, -16");
	L("\tmov x19, x0");
	L("\tmov x20, x1");
	L("\tmov x21, x2");
	/* dummy_ref(&defs[i]), as nvcc -dlink's code hands it its "def" */
	if (address(out, "x0", "__offlink_nvcc_defs"))
		return OL_E_NOMEM;
	L("\tadd x0, x0, x20, lsl #3");
	L("\tblr x3");
	L("\tldr x9, [x21, #8]");
	if (address(out, "x10", "__offlink_nvcc_prelinked"))
		return OL_E_NOMEM;
	L("\tstr x9, [x10, x20, lsl #3]");
	if (address(out, "x10", "__offlink_nvcc_callback"))
		return OL_E_NOMEM;
	L("\tstr x19, [x10, x20, lsl #3]");
	L("\tldr x21, [sp, #32]");
	L("\tldp x19, x20, [sp, #16]");
	L("\tldp x29, x30, [sp], #48");
	L("\t.cfi_def_cfa_offset 0");
	L("\tb __offlink_nvcc_count");
	if (function_end(out, "__offlink_nvcc_arrive") ||
	    function_start(out, "__offlink_nvcc_count") ||
	    address(out, "x9", "__offlink_nvcc_arrived"))
		return OL_E_NOMEM;
	L("\tldr w10, [x9]");
	L("\tadd w10, w10, #1");
	L("\tstr w10, [x9]");
	if (immediate(out, "x11", p->nnvcc + 1))
		return OL_E_NOMEM;
	L("\tcmp w10, w11");
	L("\tb.eq __offlink_%s_register", p->lower);
	L("\tret");
	return function_end(out, "__offlink_nvcc_count");
}

static enum ol_err omp_code(struct ol_buf *out, bool use_atexit)
{
	if (function_start(out, "__offlink_omp_register"))
		return OL_E_NOMEM;
	if (!use_atexit) {
		if (address(out, "x0", "__offlink_omp_descriptor"))
			return OL_E_NOMEM;
		L("\tb __tgt_register_lib");
	} else {
		L("\tstp x29, x30, [sp, #-16]!");
		L("\t.cfi_def_cfa_offset 16");
		L("\t.cfi_offset w29, -16");
		L("\t.cfi_offset w30, -8");
		L("\tmov x29, sp");
		if (address(out, "x0", "__offlink_omp_descriptor"))
			return OL_E_NOMEM;
		L("\tbl __tgt_register_lib");
		if (address(out, "x0", "__offlink_omp_unregister"))
			return OL_E_NOMEM;
		L("\tldp x29, x30, [sp], #16");
		L("\t.cfi_def_cfa_offset 0");
		L("\tb atexit");
	}
	if (function_end(out, "__offlink_omp_register") ||
	    function_start(out, "__offlink_omp_unregister") ||
	    address(out, "x0", "__offlink_omp_descriptor"))
		return OL_E_NOMEM;
	L("\tb __tgt_unregister_lib");
	return function_end(out, "__offlink_omp_unregister");
}

/* h, addr, name, name in x0-x3. */
static enum ol_err first_four(struct ol_buf *out, const struct asm_layout *f)
{
	L("\tmov x0, x19");
	L("\tldr x1, [x20, #%u]", f->addr);
	L("\tldr x2, [x20, #%u]", f->name);
	L("\tmov x3, x2");
	return OL_OK;
}

static enum ol_err managed(struct ol_buf *out, const struct asm_cuda_hip *p,
			   const struct asm_layout *f)
{
	L(".L__offlink_%s_managed:", p->lower);
	L("\ttbnz w22, #3, .L__offlink_%s_next", p->lower); /* extern: the definer registers it */
	if (p->new_entries) {
		L("\tldr x1, [x20, #48]"); /* AuxAddr: the pointer variable */
	} else if (p->nmanaged == 0) {
		L("\tb .L__offlink_%s_next", p->lower);
		return OL_OK;
	} else {
		char table[64];

		snprintf(table, sizeof(table), "__offlink_%s_managed", p->lower);
		if (address(out, "x9", table))
			return OL_E_NOMEM;
		L("\tmov x10, #%zu", p->nmanaged);
		L("\tldr x11, [x20, #%u]", f->addr);
		L(".L__offlink_%s_find:", p->lower);
		L("\tcbz x10, .L__offlink_%s_next", p->lower);
		L("\tldr x12, [x9]");
		L("\tcmp x12, x11");
		L("\tb.eq .L__offlink_%s_found", p->lower);
		L("\tadd x9, x9, #16");
		L("\tsub x10, x10, #1");
		L("\tb .L__offlink_%s_find", p->lower);
		L(".L__offlink_%s_found:", p->lower);
		L("\tldr x1, [x9, #8]");
	}
	L("\tcbz x1, .L__offlink_%s_next", p->lower);
	L("\tmov x0, x19");
	L("\tldr x2, [x20, #%u]", f->addr);
	L("\tldr x3, [x20, #%u]", f->name);
	if (!p->hip) {
		/* (h, ptr, addr, name, ext = 0, size, constant, 0) */
		L("\tmov w4, wzr");
		L("\tmov x5, x23");
		L("\tubfx w6, w22, #4, #1");
		L("\tmov w7, wzr");
		L("\tbl __cudaRegisterManagedVar");
	} else {
		/* (h, ptr, addr, name, size, data ? data : natural alignment) */
		L("\tmov x4, x23");
		if (f->data64)
			L("\tldr x9, [x20, #%u]", f->data);
		else
			L("\tldr w9, [x20, #%u]", f->data);
		L("\tcbnz x9, .L__offlink_%s_align", p->lower);
		/* the largest power of two dividing the size, at most 16 */
		L("\tneg x9, x23");
		L("\tand x9, x9, x23");
		L("\tmov x10, #16");
		L("\tcmp x9, x10");
		L("\tcsel x9, x9, x10, ls");
		L(".L__offlink_%s_align:", p->lower);
		L("\tmov w5, w9");
		L("\tbl __hipRegisterManagedVar");
	}
	L("\tb .L__offlink_%s_next", p->lower);
	return OL_OK;
}

static enum ol_err surface_texture(struct ol_buf *out, const struct asm_cuda_hip *p,
				   const struct asm_layout *f)
{
	/* (h, addr, name, name, (int)data, ext) */
	L(".L__offlink_%s_surface:", p->lower);
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tldr w4, [x20, #%u]", f->data);
	L("\tubfx w5, w22, #3, #1");
	L("\tbl __hipRegisterSurface");
	L("\tb .L__offlink_%s_next", p->lower);
	/* (h, addr, name, name, (int)data, normalized, ext) */
	L(".L__offlink_%s_texture:", p->lower);
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tldr w4, [x20, #%u]", f->data);
	L("\tubfx w5, w22, #5, #1");
	L("\tubfx w6, w22, #3, #1");
	L("\tbl __hipRegisterTexture");
	L("\tb .L__offlink_%s_next", p->lower);
	return OL_OK;
}

static enum ol_err cuda_hip_code(struct ol_buf *out, const struct asm_cuda_hip *p)
{
	const struct asm_layout *f = p->new_entries ? &asm_new_layout : &asm_old_layout;
	char name[64], sym[96];

	snprintf(name, sizeof(name), "__offlink_%s_register", p->lower);
	if (function_start(out, name))
		return OL_E_NOMEM;
	L("\tstp x29, x30, [sp, #-64]!");
	L("\t.cfi_def_cfa_offset 64");
	L("\tmov x29, sp");
	L("\tstp x19, x20, [sp, #16]");
	L("\tstp x21, x22, [sp, #32]");
	L("\tstr x23, [sp, #48]");
	L("\t.cfi_offset w29, -64");
	L("\t.cfi_offset w30, -56");
	L("\t.cfi_offset w19, -48");
	L("\t.cfi_offset w20, -40");
	L("\t.cfi_offset w21, -32");
	L("\t.cfi_offset w22, -24");
	L("\t.cfi_offset w23, -16");
	L("\tsub sp, sp, #16");
	L("\t.cfi_def_cfa_offset 80");
	snprintf(sym, sizeof(sym), "__offlink_%s_fatbin_wrapper", p->lower);
	if (address(out, "x0", sym))
		return OL_E_NOMEM;
	L("\tbl %sRegisterFatBinary", p->prefix);
	L("\tmov x19, x0");
	snprintf(sym, sizeof(sym), "__offlink_%s_handle", p->lower);
	if (address(out, "x9", sym))
		return OL_E_NOMEM;
	L("\tstr x0, [x9]");
	snprintf(sym, sizeof(sym), "__start_%s", p->entries);
	if (address(out, "x20", sym))
		return OL_E_NOMEM;
	snprintf(sym, sizeof(sym), "__stop_%s", p->entries);
	if (address(out, "x21", sym))
		return OL_E_NOMEM;
	L(".L__offlink_%s_entry:", p->lower);
	L("\tcmp x20, x21");
	L("\tb.hs .L__offlink_%s_done", p->lower);
	if (p->new_entries) {
		/* Reserved 0 and this language's kind (HIP: 3 in LLVM 20, 4 from 21) */
		L("\tldr x9, [x20]");
		L("\tcbnz x9, .L__offlink_%s_next", p->lower);
		L("\tldrh w9, [x20, #10]");
		if (p->hip) {
			L("\tcmp w9, #3");
			L("\tb.eq .L__offlink_%s_kind", p->lower);
			L("\tcmp w9, #4");
		} else {
			L("\tcmp w9, #2");
		}
		L("\tb.ne .L__offlink_%s_next", p->lower);
		L(".L__offlink_%s_kind:", p->lower);
	}
	L("\tldr w22, [x20, #%u]", f->flags);
	L("\tldr x23, [x20, #%u]", f->bytes);
	L("\tcbnz x23, .L__offlink_%s_variable", p->lower);
	/* A kernel: (h, addr, name, name, -1, 0, 0, 0, 0, 0) */
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tmov w4, #-1");
	L("\tmov x5, xzr");
	L("\tmov x6, xzr");
	L("\tmov x7, xzr");
	L("\tstp xzr, xzr, [sp]");
	L("\tbl %sRegisterFunction", p->prefix);
	L("\tb .L__offlink_%s_next", p->lower);
	L(".L__offlink_%s_variable:", p->lower);
	L("\tand w9, w22, #7");
	L("\tcbz w9, .L__offlink_%s_plain", p->lower);
	L("\tcmp w9, #1");
	L("\tb.eq .L__offlink_%s_managed", p->lower);
	if (p->hip) {
		L("\tcmp w9, #2");
		L("\tb.eq .L__offlink_%s_surface", p->lower);
		L("\tcmp w9, #3");
		L("\tb.eq .L__offlink_%s_texture", p->lower);
	}
	L("\tb .L__offlink_%s_next", p->lower);
	/* (h, addr, name, name, ext, size, constant, 0) */
	L(".L__offlink_%s_plain:", p->lower);
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tubfx w4, w22, #3, #1");
	L("\tmov x5, x23");
	L("\tubfx w6, w22, #4, #1");
	L("\tmov w7, wzr");
	L("\tbl %sRegisterVar", p->prefix);
	L("\tb .L__offlink_%s_next", p->lower);
	if (managed(out, p, f) || (p->hip && surface_texture(out, p, f)))
		return OL_E_NOMEM;
	L(".L__offlink_%s_next:", p->lower);
	L("\tadd x20, x20, #%u", f->size);
	L("\tb .L__offlink_%s_entry", p->lower);
	L(".L__offlink_%s_done:", p->lower);
	if (p->nnvcc) {
		/* each nvcc module's callback(handle), in the order they came */
		if (address(out, "x20", "__offlink_nvcc_callback") ||
		    immediate(out, "x9", 8 * p->nnvcc))
			return OL_E_NOMEM;
		L("\tadd x21, x20, x9");
		L(".L__offlink_nvcc_call:");
		L("\tcmp x20, x21");
		L("\tb.hs .L__offlink_nvcc_called");
		L("\tldr x9, [x20], #8");
		L("\tmov x0, x19");
		L("\tblr x9");
		L("\tb .L__offlink_nvcc_call");
		L(".L__offlink_nvcc_called:");
	}
	if (!p->hip) {
		L("\tmov x0, x19");
		L("\tbl __cudaRegisterFatBinaryEnd");
	}
	snprintf(sym, sizeof(sym), "__offlink_%s_unregister", p->lower);
	if (address(out, "x0", sym))
		return OL_E_NOMEM;
	L("\tadd sp, sp, #16");
	L("\t.cfi_def_cfa_offset 64");
	L("\tldr x23, [sp, #48]");
	L("\tldp x21, x22, [sp, #32]");
	L("\tldp x19, x20, [sp, #16]");
	L("\tldp x29, x30, [sp], #64");
	L("\t.cfi_def_cfa_offset 0");
	L("\tb atexit");
	if (function_end(out, name))
		return OL_E_NOMEM;
	snprintf(name, sizeof(name), "__offlink_%s_unregister", p->lower);
	if (function_start(out, name))
		return OL_E_NOMEM;
	snprintf(sym, sizeof(sym), "__offlink_%s_handle", p->lower);
	if (address(out, "x9", sym))
		return OL_E_NOMEM;
	L("\tldr x0, [x9]");
	L("\tb %sUnregisterFatBinary", p->prefix);
	if (function_end(out, name))
		return OL_E_NOMEM;
	return p->nnvcc ? nvcc_code(out, p) : OL_OK;
}

/* One of the two SYCL functions: each (image, size) pair to callee; x19
 * walks the pairs, x20 is their end. */
static enum ol_err sycl_walk(struct ol_buf *out, const char *name, const char *callee,
			     bool then_atexit)
{
	if (function_start(out, name))
		return OL_E_NOMEM;
	L("\tstp x29, x30, [sp, #-32]!");
	L("\t.cfi_def_cfa_offset 32");
	L("\tmov x29, sp");
	L("\tstp x19, x20, [sp, #16]");
	L("\t.cfi_offset w29, -32");
	L("\t.cfi_offset w30, -24");
	L("\t.cfi_offset w19, -16");
	L("\t.cfi_offset w20, -8");
	if (address(out, "x19", "__offlink_sycl_images") ||
	    address(out, "x20", "__offlink_sycl_images_end"))
		return OL_E_NOMEM;
	L(".L%s_next:", name);
	L("\tcmp x19, x20");
	L("\tb.hs .L%s_done", name);
	L("\tldp x0, x1, [x19], #16");
	L("\tbl %s", callee);
	L("\tb .L%s_next", name);
	L(".L%s_done:", name);
	L("\tldp x19, x20, [sp, #16]");
	L("\tldp x29, x30, [sp], #32");
	L("\t.cfi_def_cfa_offset 0");
	if (then_atexit) {
		if (address(out, "x0", "__offlink_sycl_unregister"))
			return OL_E_NOMEM;
		L("\tb atexit");
	} else {
		L("\tret");
	}
	return function_end(out, name);
}

const struct asm_arch asm_aarch64 = { "aarch64", omp_code, cuda_hip_code, sycl_walk };
