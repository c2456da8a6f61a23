/* The SYCL registration source (LLVM 23 on), in C:
 *
 *   each linked image, an offload binary  -> in .llvm.offloading, as it is
 *   constructor                           -> __sycl_register_lib(image, size)
 *   destructor, or atexit (LLVM 24)       -> __sycl_unregister_lib(image, size)
 *
 * LLVM 23's wrapper runs both at priority 1 (.init_array.1, .fini_array.1);
 * 24's registers at 101 and unregisters with atexit, as OpenMP does. */
#include "wrap/wrapper.h"

#include <stdio.h>

#include "wrap/comment.h"
#include "wrap/emit.h"

static enum ol_err embed(const struct wrap_sycl *w, size_t i, struct ol_buf *out)
{
	char sym[64], section[128];

	snprintf(sym, sizeof(sym), "__offlink_sycl_image_%zu", i);
	/* '%' rather than '@' before the type: '@' starts a comment on Arm. */
	snprintf(section, sizeof(section), "%s,\"a\",%%0x6fff4c0b",
		 wrap_omp_image_section(w->relocatable));
	if (wrap_emit_blob(out, sym, section, 16, NULL, 0, w->images[i].path, 0))
		return OL_E_NOMEM;
	P("extern const char %s[] __attribute__((visibility(\"hidden\")));\n\n", sym);
	return OL_OK;
}

/* The body of the register or unregister function: one call per image. */
static enum ol_err calls(const struct wrap_sycl *w, const char *fn, struct ol_buf *out)
{
	for (size_t i = 0; i < w->nimages; i++)
		P("\t%s(__offlink_sycl_image_%zu, %lluULL);\n", fn, i,
		  (unsigned long long)w->images[i].size);
	return OL_OK;
}

static enum ol_err functions(const struct wrap_sycl *w, struct ol_buf *out)
{
	P("extern void __sycl_register_lib(const void *image, unsigned long long size);\n"
	  "extern void __sycl_unregister_lib(const void *image, unsigned long long size);\n");
	if (w->use_atexit)
		P("extern int atexit(void (*fn)(void));\n");
	P("\n__attribute__((section(\".text.startup\")))\n"
	  "static void __offlink_sycl_unregister(void)\n{\n");
	if (calls(w, "__sycl_unregister_lib", out))
		return OL_E_NOMEM;
	P("}\n\n__attribute__((section(\".text.startup\")))\n"
	  "static void __offlink_sycl_register(void)\n{\n");
	if (calls(w, "__sycl_register_lib", out))
		return OL_E_NOMEM;
	if (w->use_atexit)
		P("\tatexit(__offlink_sycl_unregister);\n");
	P("}\n\n");
	/* (a priority below 101 is reserved to the implementation in C's
	 * attribute: the array entries are written as LLVM's are) */
	P("__attribute__((section(\".init_array.%u\"), used))\n"
	  "static void (*__offlink_sycl_ctor)(void) = __offlink_sycl_register;\n",
	  w->use_atexit ? 101u : 1u);
	if (!w->use_atexit)
		P("__attribute__((section(\".fini_array.1\"), used))\n"
		  "static void (*__offlink_sycl_dtor)(void) = __offlink_sycl_unregister;\n");
	return OL_OK;
}

enum ol_err wrap_sycl_source(const struct wrap_sycl *w, struct ol_buf *out, struct ol_diag *d)
{
	if (wrap_sycl_comment(w, NULL, out))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < w->nimages; i++)
		if (embed(w, i, out))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (functions(w, out))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}
