/* What the architectures' code writers (asm_x86_64.c, asm_aarch64.c)
 * share: a function's frame in .text.startup, and where an entry's fields
 * are.  Below the writers and registration_asm.c, which picks a writer:
 * neither calls up into the other. */
#include "wrap/asm_code.h"

#include "wrap/emit.h"

const struct asm_layout asm_old_layout = { 32, 0, 8, 16, 24, 28, false };
const struct asm_layout asm_new_layout = { 56, 16, 24, 32, 12, 40, true };

enum ol_err asm_function_start(struct ol_buf *out, const char *name, unsigned p2align)
{
	L("\t.section .text.startup,\"ax\",%%progbits");
	L("\t.p2align %u", p2align);
	L("\t.type %s,%%function", name);
	L("%s:", name);
	L("\t.cfi_startproc");
	return OL_OK;
}

enum ol_err asm_function_end(struct ol_buf *out, const char *name)
{
	L("\t.cfi_endproc");
	L("\t.size %s, . - %s", name, name);
	return OL_OK;
}
