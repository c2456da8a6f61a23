/* The registration's functions for x86_64 hosts (System V ABI, PIC).
 *
 * Arguments go in rdi, rsi, rdx, rcx, r8, r9, then on the stack; the
 * stack is 16-byte aligned at each call.  The CUDA/HIP walk keeps its
 * state in callee-saved registers: rbx the handle, r12 the entry, r13 the
 * end of the entries, r14 the entry's flags, r15 its size; 48 bytes below
 * the saved registers hold the outgoing stack arguments. */
#include "wrap/asm_code.h"

#include <stdio.h>

#include "wrap/emit.h"

static enum ol_err function_start(struct ol_buf *out, const char *name)
{
	return asm_function_start(out, name, 4);
}

static enum ol_err function_end(struct ol_buf *out, const char *name)
{
	return asm_function_end(out, name);
}

/* pushq reg, the frame now depth bytes above the return address. */
static enum ol_err push(struct ol_buf *out, const char *reg, int depth)
{
	L("\tpushq %%%s", reg);
	L("\t.cfi_def_cfa_offset %d", depth);
	L("\t.cfi_offset %%%s, -%d", reg, depth);
	return OL_OK;
}

static enum ol_err omp_code(struct ol_buf *out, bool use_atexit)
{
	if (function_start(out, "__offlink_omp_register"))
		return OL_E_NOMEM;
	L("\tleaq __offlink_omp_descriptor(%%rip), %%rdi");
	if (!use_atexit) {
		L("\tjmp __tgt_register_lib@PLT");
	} else {
		L("\tsubq $8, %%rsp");
		L("\t.cfi_def_cfa_offset 16");
		L("\tcall __tgt_register_lib@PLT");
		L("\tleaq __offlink_omp_unregister(%%rip), %%rdi");
		L("\taddq $8, %%rsp");
		L("\t.cfi_def_cfa_offset 8");
		L("\tjmp atexit@PLT");
	}
	if (function_end(out, "__offlink_omp_register") ||
	    function_start(out, "__offlink_omp_unregister"))
		return OL_E_NOMEM;
	L("\tleaq __offlink_omp_descriptor(%%rip), %%rdi");
	L("\tjmp __tgt_unregister_lib@PLT");
	return function_end(out, "__offlink_omp_unregister");
}

/* h, addr, name, name in rdi, rsi, rdx, rcx. */
static enum ol_err first_four(struct ol_buf *out, const struct asm_layout *f)
{
	L("\tmovq %%rbx, %%rdi");
	L("\tmovq %u(%%r12), %%rsi", f->addr);
	L("\tmovq %u(%%r12), %%rdx", f->name);
	L("\tmovq %%rdx, %%rcx");
	return OL_OK;
}

/* eax := (flags >> bit) & 1 */
static enum ol_err flag_bit(struct ol_buf *out, const char *reg, unsigned bit)
{
	L("\tmovl %%r14d, %s", reg);
	L("\tshrl $%u, %s", bit, reg);
	L("\tandl $1, %s", reg);
	return OL_OK;
}

static enum ol_err managed(struct ol_buf *out, const struct asm_cuda_hip *p,
			   const struct asm_layout *f)
{
	L(".L__offlink_%s_managed:", p->lower);
	L("\ttestl $8, %%r14d"); /* extern: left to the defining object */
	L("\tjnz .L__offlink_%s_next", p->lower);
	if (p->new_entries) {
		L("\tmovq 48(%%r12), %%rsi"); /* AuxAddr: the pointer variable */
	} else if (p->nmanaged == 0) {
		L("\tjmp .L__offlink_%s_next", p->lower);
		return OL_OK;
	} else {
		/* The pointer of this initial value, from the link's table. */
		L("\tleaq __offlink_%s_managed(%%rip), %%rax", p->lower);
		L("\tmovl $%zu, %%ecx", p->nmanaged);
		L("\tmovq %u(%%r12), %%rdx", f->addr);
		L(".L__offlink_%s_find:", p->lower);
		L("\ttestl %%ecx, %%ecx");
		L("\tjz .L__offlink_%s_next", p->lower);
		L("\tcmpq (%%rax), %%rdx");
		L("\tje .L__offlink_%s_found", p->lower);
		L("\taddq $16, %%rax");
		L("\tdecl %%ecx");
		L("\tjmp .L__offlink_%s_find", p->lower);
		L(".L__offlink_%s_found:", p->lower);
		L("\tmovq 8(%%rax), %%rsi");
	}
	L("\ttestq %%rsi, %%rsi");
	L("\tjz .L__offlink_%s_next", p->lower);
	L("\tmovq %%rbx, %%rdi");
	L("\tmovq %u(%%r12), %%rdx", f->addr);
	L("\tmovq %u(%%r12), %%rcx", f->name);
	if (!p->hip) {
		/* (h, ptr, addr, name, ext = 0, size, constant, 0) */
		L("\txorl %%r8d, %%r8d");
		L("\tmovq %%r15, %%r9");
		if (flag_bit(out, "%eax", 4))
			return OL_E_NOMEM;
		L("\tmovq %%rax, 0(%%rsp)");
		L("\tmovq $0, 8(%%rsp)");
		L("\tcall __cudaRegisterManagedVar@PLT");
	} else {
		/* (h, ptr, addr, name, size, data ? data : natural alignment) */
		L("\tmovq %%r15, %%r8");
		if (f->data64) {
			L("\tmovq %u(%%r12), %%rax", f->data);
			L("\ttestq %%rax, %%rax");
		} else {
			L("\tmovl %u(%%r12), %%eax", f->data);
			L("\ttestl %%eax, %%eax");
		}
		L("\tjnz .L__offlink_%s_align", p->lower);
		/* the largest power of two dividing the size, at most 16 */
		L("\tmovq %%r15, %%rax");
		L("\tnegq %%rax");
		L("\tandq %%r15, %%rax");
		L("\tcmpq $16, %%rax");
		L("\tjbe .L__offlink_%s_align", p->lower);
		L("\tmovl $16, %%eax");
		L(".L__offlink_%s_align:", p->lower);
		L("\tmovl %%eax, %%r9d");
		L("\tcall __hipRegisterManagedVar@PLT");
	}
	L("\tjmp .L__offlink_%s_next", p->lower);
	return OL_OK;
}

static enum ol_err surface_texture(struct ol_buf *out, const struct asm_cuda_hip *p,
				   const struct asm_layout *f)
{
	/* (h, addr, name, name, (int)data, ext) */
	L(".L__offlink_%s_surface:", p->lower);
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tmovl %u(%%r12), %%r8d", f->data);
	if (flag_bit(out, "%r9d", 3))
		return OL_E_NOMEM;
	L("\tcall __hipRegisterSurface@PLT");
	L("\tjmp .L__offlink_%s_next", p->lower);
	/* (h, addr, name, name, (int)data, normalized, ext) */
	L(".L__offlink_%s_texture:", p->lower);
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tmovl %u(%%r12), %%r8d", f->data);
	if (flag_bit(out, "%r9d", 5) || flag_bit(out, "%eax", 3))
		return OL_E_NOMEM;
	L("\tmovq %%rax, 0(%%rsp)");
	L("\tcall __hipRegisterTexture@PLT");
	L("\tjmp .L__offlink_%s_next", p->lower);
	return OL_OK;
}

/* nvcc's modules: each one's constructor calls
 * __cudaRegisterLinkedBinary<ID>(callback, prelinked, module ID,
 * dummy_ref); that function (global, a thunk) passes its index and its
 * module's fat binary wrapper, referenced by name so that the host linker
 * takes the module's object, to __offlink_nvcc_arrive. */
static enum ol_err nvcc_code(struct ol_buf *out, const struct asm_cuda_hip *p)
{
	char name[320];

	for (size_t i = 0; i < p->nnvcc; i++) {
		snprintf(name, sizeof(name), "__cudaRegisterLinkedBinary%s", p->nvcc_modules[i]);
		L("\t.globl %s", name);
		if (function_start(out, name))
			return OL_E_NOMEM;
		L("\tmovq __fatbinwrap%s@GOTPCREL(%%rip), %%rdx", p->nvcc_modules[i]);
		L("\tmovl $%zu, %%esi", i);
		L("\tjmp __offlink_nvcc_arrive");
		if (function_end(out, name))
			return OL_E_NOMEM;
	}
	/* (callback rdi, index esi, wrapper rdx, dummy_ref rcx) */
	if (function_start(out, "__offlink_nvcc_arrive"))
		return OL_E_NOMEM;
	if (push(out, "rbx", 16) || push(out, "r12", 24) || push(out, "r13", 32))
		return OL_E_NOMEM;
	L("\tmovq %%rdi, %%rbx");
	L("\tmovl %%esi, %%r12d");
	L("\tmovq %%rdx, %%r13");
	/* dummy_ref(&defs[i]), as nvcc -dlink's code hands it its "def" */
	L("\tleaq __offlink_nvcc_defs(%%rip), %%rdi");
	L("\tleaq (%%rdi,%%r12,8), %%rdi");
	L("\tcall *%%rcx");
	L("\tmovq 8(%%r13), %%rax");
	L("\tleaq __offlink_nvcc_prelinked(%%rip), %%rdx");
	L("\tmovq %%rax, (%%rdx,%%r12,8)");
	L("\tleaq __offlink_nvcc_callback(%%rip), %%rdx");
	L("\tmovq %%rbx, (%%rdx,%%r12,8)");
	L("\tpopq %%r13");
	L("\t.cfi_def_cfa_offset 24");
	L("\tpopq %%r12");
	L("\t.cfi_def_cfa_offset 16");
	L("\tpopq %%rbx");
	L("\t.cfi_def_cfa_offset 8");
	L("\tjmp __offlink_nvcc_count");
	if (function_end(out, "__offlink_nvcc_arrive") ||
	    function_start(out, "__offlink_nvcc_count"))
		return OL_E_NOMEM;
	L("\tmovl __offlink_nvcc_arrived(%%rip), %%eax");
	L("\taddl $1, %%eax");
	L("\tmovl %%eax, __offlink_nvcc_arrived(%%rip)");
	L("\tcmpl $%zu, %%eax", p->nnvcc + 1);
	L("\tje __offlink_%s_register", p->lower);
	L("\tret");
	return function_end(out, "__offlink_nvcc_count");
}

static enum ol_err cuda_hip_code(struct ol_buf *out, const struct asm_cuda_hip *p)
{
	const struct asm_layout *f = p->new_entries ? &asm_new_layout : &asm_old_layout;
	static const char *const saved[] = { "%rbx", "%r12", "%r13", "%r14", "%r15" };
	char name[64];

	snprintf(name, sizeof(name), "__offlink_%s_register", p->lower);
	if (function_start(out, name))
		return OL_E_NOMEM;
	for (unsigned i = 0; i < 5; i++) {
		L("\tpushq %s", saved[i]);
		L("\t.cfi_def_cfa_offset %u", 16 + 8 * i);
		L("\t.cfi_offset %s, -%u", saved[i], 16 + 8 * i);
	}
	L("\tsubq $48, %%rsp");
	L("\t.cfi_def_cfa_offset 96");
	L("\tleaq __offlink_%s_fatbin_wrapper(%%rip), %%rdi", p->lower);
	L("\tcall %sRegisterFatBinary@PLT", p->prefix);
	L("\tmovq %%rax, __offlink_%s_handle(%%rip)", p->lower);
	L("\tmovq %%rax, %%rbx");
	L("\tleaq __start_%s(%%rip), %%r12", p->entries);
	L("\tleaq __stop_%s(%%rip), %%r13", p->entries);
	L(".L__offlink_%s_entry:", p->lower);
	L("\tcmpq %%r13, %%r12");
	L("\tjae .L__offlink_%s_done", p->lower);
	if (p->new_entries) {
		/* Reserved 0 and this language's kind (HIP: 3 in LLVM 20, 4 from 21) */
		L("\tcmpq $0, 0(%%r12)");
		L("\tjne .L__offlink_%s_next", p->lower);
		L("\tmovzwl 10(%%r12), %%eax");
		if (p->hip) {
			L("\tcmpl $3, %%eax");
			L("\tje .L__offlink_%s_kind", p->lower);
			L("\tcmpl $4, %%eax");
		} else {
			L("\tcmpl $2, %%eax");
		}
		L("\tjne .L__offlink_%s_next", p->lower);
		L(".L__offlink_%s_kind:", p->lower);
	}
	L("\tmovl %u(%%r12), %%r14d", f->flags);
	L("\tmovq %u(%%r12), %%r15", f->bytes);
	L("\ttestq %%r15, %%r15");
	L("\tjnz .L__offlink_%s_variable", p->lower);
	/* A kernel: (h, addr, name, name, -1, 0, 0, 0, 0, 0) */
	if (first_four(out, f))
		return OL_E_NOMEM;
	L("\tmovl $-1, %%r8d");
	L("\txorl %%r9d, %%r9d");
	for (unsigned i = 0; i < 4; i++)
		L("\tmovq $0, %u(%%rsp)", 8 * i);
	L("\tcall %sRegisterFunction@PLT", p->prefix);
	L("\tjmp .L__offlink_%s_next", p->lower);
	L(".L__offlink_%s_variable:", p->lower);
	L("\tmovl %%r14d, %%eax");
	L("\tandl $7, %%eax");
	L("\tjz .L__offlink_%s_plain", p->lower);
	L("\tcmpl $1, %%eax");
	L("\tje .L__offlink_%s_managed", p->lower);
	if (p->hip) {
		L("\tcmpl $2, %%eax");
		L("\tje .L__offlink_%s_surface", p->lower);
		L("\tcmpl $3, %%eax");
		L("\tje .L__offlink_%s_texture", p->lower);
	}
	L("\tjmp .L__offlink_%s_next", p->lower);
	/* (h, addr, name, name, ext, size, constant, 0) */
	L(".L__offlink_%s_plain:", p->lower);
	if (first_four(out, f) || flag_bit(out, "%r8d", 3))
		return OL_E_NOMEM;
	L("\tmovq %%r15, %%r9");
	if (flag_bit(out, "%eax", 4))
		return OL_E_NOMEM;
	L("\tmovq %%rax, 0(%%rsp)");
	L("\tmovq $0, 8(%%rsp)");
	L("\tcall %sRegisterVar@PLT", p->prefix);
	L("\tjmp .L__offlink_%s_next", p->lower);
	if (managed(out, p, f) || (p->hip && surface_texture(out, p, f)))
		return OL_E_NOMEM;
	L(".L__offlink_%s_next:", p->lower);
	L("\taddq $%u, %%r12", f->size);
	L("\tjmp .L__offlink_%s_entry", p->lower);
	L(".L__offlink_%s_done:", p->lower);
	if (p->nnvcc) {
		/* each nvcc module's callback(handle), in the order they came */
		L("\tleaq __offlink_nvcc_callback(%%rip), %%r12");
		L("\tleaq __offlink_nvcc_callback+%zu(%%rip), %%r13", 8 * p->nnvcc);
		L(".L__offlink_nvcc_call:");
		L("\tcmpq %%r13, %%r12");
		L("\tjae .L__offlink_nvcc_called");
		L("\tmovq %%rbx, %%rdi");
		L("\tcall *(%%r12)");
		L("\taddq $8, %%r12");
		L("\tjmp .L__offlink_nvcc_call");
		L(".L__offlink_nvcc_called:");
	}
	if (!p->hip) {
		L("\tmovq %%rbx, %%rdi");
		L("\tcall __cudaRegisterFatBinaryEnd@PLT");
	}
	L("\tleaq __offlink_%s_unregister(%%rip), %%rdi", p->lower);
	L("\taddq $48, %%rsp");
	L("\t.cfi_def_cfa_offset 48");
	for (unsigned i = 5; i-- > 0;) {
		L("\tpopq %s", saved[i]);
		L("\t.cfi_def_cfa_offset %u", 8 + 8 * i);
	}
	L("\tjmp atexit@PLT");
	if (function_end(out, name))
		return OL_E_NOMEM;
	snprintf(name, sizeof(name), "__offlink_%s_unregister", p->lower);
	if (function_start(out, name))
		return OL_E_NOMEM;
	L("\tmovq __offlink_%s_handle(%%rip), %%rdi", p->lower);
	L("\tjmp %sUnregisterFatBinary@PLT", p->prefix);
	if (function_end(out, name))
		return OL_E_NOMEM;
	return p->nnvcc ? nvcc_code(out, p) : OL_OK;
}

/* One of the two SYCL functions: each (image, size) pair to callee; rbx
 * walks the pairs, r12 is their end. */
static enum ol_err sycl_walk(struct ol_buf *out, const char *name, const char *callee,
			     bool then_atexit)
{
	if (function_start(out, name))
		return OL_E_NOMEM;
	if (push(out, "rbx", 16) || push(out, "r12", 24))
		return OL_E_NOMEM;
	L("\tsubq $8, %%rsp");
	L("\t.cfi_def_cfa_offset 32");
	L("\tleaq __offlink_sycl_images(%%rip), %%rbx");
	L("\tleaq __offlink_sycl_images_end(%%rip), %%r12");
	L(".L%s_next:", name);
	L("\tcmpq %%r12, %%rbx");
	L("\tjae .L%s_done", name);
	L("\tmovq (%%rbx), %%rdi");
	L("\tmovq 8(%%rbx), %%rsi");
	L("\tcall %s@PLT", callee);
	L("\taddq $16, %%rbx");
	L("\tjmp .L%s_next", name);
	L(".L%s_done:", name);
	L("\taddq $8, %%rsp");
	L("\t.cfi_def_cfa_offset 24");
	L("\tpopq %%r12");
	L("\t.cfi_def_cfa_offset 16");
	L("\tpopq %%rbx");
	L("\t.cfi_def_cfa_offset 8");
	if (then_atexit) {
		L("\tleaq __offlink_sycl_unregister(%%rip), %%rdi");
		L("\tjmp atexit@PLT");
	} else {
		L("\tret");
	}
	return function_end(out, name);
}

const struct asm_arch asm_x86_64 = { "x86_64", omp_code, cuda_hip_code, sycl_walk };
