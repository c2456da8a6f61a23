/* CUDA and HIP registration source.
 *
 * The fatbinary (CUDA) or offload bundle (HIP) is embedded by reference in
 * .nv_fatbin / .hip_fatbin; a wrapper struct {magic, 1, data, NULL} in
 * .nvFatBinSegment / .hipFatBinSegment points at it; a priority-101
 * constructor registers it, then walks the entry table: kernels (size 0)
 * to __*RegisterFunction, variables to __*RegisterVar, managed variables
 * to __*RegisterManagedVar (LLVM 19 drops those), and for HIP surfaces
 * and textures; CUDA ends with __cudaRegisterFatBinaryEnd; the
 * unregistration runs at exit. */
#include "wrap/wrapper.h"

#include <stdio.h>
#include <string.h>

#include "common/escape.h"
#include "wrap/comment.h"
#include "wrap/emit.h"

struct names {
	const char *lower, *prefix, *fatbin_section, *wrapper_section;
	const char *entries;
	unsigned magic, align;
	const char *new_kinds; /* Kind values of this language in 56-byte entries */
};

static const struct names cuda = {
	"cuda", "__cuda", ".nv_fatbin", ".nvFatBinSegment", "cuda_offloading_entries",
	0x466243b1, 16, "e->Kind == 2",
};
static const struct names hip = {
	"hip", "__hip", ".hip_fatbin", ".hipFatBinSegment", "hip_offloading_entries",
	0x48495046, 4096, "(e->Kind == 3 || e->Kind == 4)", /* LLVM 20, LLVM 21+ */
};

static enum ol_err entry_type(const struct wrap_cuda_hip *w, const char *sect,
			      struct ol_buf *out)
{
	if (w->new_entries) {
		P("/* LLVM 20+ entry (56 bytes), shared by every offload kind. */\n"
		  "struct __tgt_offload_entry {\n"
		  "\t__UINT64_TYPE__ Reserved;\n\t__UINT16_TYPE__ Version;\n"
		  "\t__UINT16_TYPE__ Kind;\n\t__UINT32_TYPE__ Flags;\n"
		  "\tvoid *Address;\n\tchar *SymbolName;\n\t__UINT64_TYPE__ Size;\n"
		  "\t__UINT64_TYPE__ Data;\n\tvoid *AuxAddr;\n};\n\n");
	} else {
		P("/* LLVM 19 entry (32 bytes). */\n"
		  "struct __tgt_offload_entry {\n"
		  "\tvoid *addr;\n\tchar *name;\n\t__SIZE_TYPE__ size;\n"
		  "\t__INT32_TYPE__ flags;\n\t__INT32_TYPE__ data;\n};\n\n");
	}
	P("extern const struct __tgt_offload_entry __start_%s[]\n"
	  "\t__attribute__((visibility(\"hidden\")));\n"
	  "extern const struct __tgt_offload_entry __stop_%s[]\n"
	  "\t__attribute__((visibility(\"hidden\")));\n"
	  "static const char __offlink_dummy_%s[0]\n"
	  "\t__attribute__((section(\"%s\"), used, aligned(8)));\n\n", sect, sect, sect, sect);
	return OL_OK;
}

static enum ol_err runtime_decls(const struct names *n, struct ol_buf *out)
{
	P("extern void **%sRegisterFatBinary(const void *wrapper);\n", n->prefix);
	P("extern void %sUnregisterFatBinary(void **handle);\n", n->prefix);
	P("extern void %sRegisterFunction(void **handle, const void *host_function,\n"
	  "\tchar *device_function, const char *device_name, int thread_limit,\n"
	  "\tvoid *tid, void *bid, void *block_dim, void *grid_dim, int *warp_size);\n", n->prefix);
	P("extern void %sRegisterVar(void **handle, char *host_var, char *device_address,\n"
	  "\tconst char *device_name, int ext, __SIZE_TYPE__ size, int constant, int global);\n",
	  n->prefix);
	if (n == &cuda) {
		P("extern void __cudaRegisterFatBinaryEnd(void **handle);\n");
		P("extern void __cudaRegisterManagedVar(void **handle, void **host_var_ptr,\n"
		  "\tchar *device_address, const char *device_name, int ext, __SIZE_TYPE__ size,\n"
		  "\tint constant, int global);\n");
	} else {
		P("extern void __hipRegisterManagedVar(void **handle, void **pointer, void *init_value,\n"
		  "\tconst char *name, __SIZE_TYPE__ size, unsigned align);\n");
		P("extern void __hipRegisterSurface(void **handle, void *var, char *host_var,\n"
		  "\tchar *device_var, int type, int ext);\n");
		P("extern void __hipRegisterTexture(void **handle, void *var, char *host_var,\n"
		  "\tchar *device_var, int type, int normalized, int ext);\n");
	}
	P("extern int atexit(void (*fn)(void));\n\n");
	return OL_OK;
}

/* LLVM 19's entries lack the managed pointer: a table built at link time
 * from the objects' relocations maps each initial value to it.  One table
 * and one loop, so that clang's time stays linear in the number of
 * variables (a comparison per variable made it superlinear: 20,000 took
 * 808 s).  The table is kept ("used") whatever the optimiser folds, as in
 * the assembly form: two variables naming one pointer let clang -O2 fold
 * it away, and the object's symbols would then depend on the names. */
static enum ol_err managed_table(const struct wrap_cuda_hip *w,
				 const struct names *n, struct ol_buf *out)
{
	for (size_t i = 0; i < w->nmanaged; i++) {
		P("extern char __offlink_init_%zu[] __asm__(\"", i);
		E(w->managed[i].init_symbol);
		P("\");\nextern void *__offlink_ptr_%zu __asm__(\"", i);
		E(w->managed[i].pointer_symbol);
		P("\");\n");
	}
	P("static const struct { const void *init; void **ptr; } __offlink_%s_managed[]\n"
	  "\t__attribute__((used)) = {\n",
	  n->lower);
	for (size_t i = 0; i < w->nmanaged; i++)
		P("\t{ __offlink_init_%zu, &__offlink_ptr_%zu },\n", i, i);
	P("};\n\nstatic void **__offlink_%s_managed_pointer(const void *init)\n{\n"
	  "\tfor (unsigned long i = 0; i < sizeof(__offlink_%s_managed) / "
	  "sizeof(__offlink_%s_managed[0]); i++)\n"
	  "\t\tif (__offlink_%s_managed[i].init == init)\n"
	  "\t\t\treturn __offlink_%s_managed[i].ptr;\n\treturn 0;\n}\n\n",
	  n->lower, n->lower, n->lower, n->lower, n->lower);
	return OL_OK;
}

/* How each entry of the old (32-byte) or new (56-byte) layout is read. */
struct fields {
	const char *addr, *name, *size, *flags, *data, *aux;
};

static const struct fields old_fields = { "e->addr", "e->name", "e->size", "e->flags", "e->data", NULL };
static const struct fields new_fields = { "e->Address", "e->SymbolName", "e->Size", "e->Flags", "e->Data", "e->AuxAddr" };

static enum ol_err managed_call(const struct names *n, const struct fields *f,
				struct ol_buf *out)
{
	char ptr[96];

	if (f->aux)
		snprintf(ptr, sizeof(ptr), "(void **)%s", f->aux);
	else
		snprintf(ptr, sizeof(ptr), "__offlink_%s_managed_pointer(%s)", n->lower, f->addr);
	/* An extern declaration's entry is left to the defining object's
	 * (a second registration would allocate a second copy); a managed
	 * variable whose pointer is unknown is not registered rather than
	 * registered with a null pointer. */
	P("\t\t\tif (ext || !%s)\n\t\t\t\tbreak;\n", ptr);
	if (n == &cuda)
		P("\t\t\t__cudaRegisterManagedVar(h, %s, %s, %s, ext, %s, constant, 0);\n",
		  ptr, f->addr, f->name, f->size);
	else /* data is the alignment; LLVM 19 leaves it 0, so derive one */
		P("\t\t\t__hipRegisterManagedVar(h, %s, %s, %s, %s,\n"
		  "\t\t\t\t%s ? (unsigned)%s : __offlink_natural_align(%s));\n",
		  ptr, f->addr, f->name, f->size, f->data, f->data, f->size);
	return OL_OK;
}

static enum ol_err globals_function(const struct wrap_cuda_hip *w,
				    const struct names *n, const char *sect,
				    struct ol_buf *out)
{
	const struct fields *f = w->new_entries ? &new_fields : &old_fields;

	if (n == &hip)
		P("/* A power of two that divides the size, at most 16. */\n"
		  "static unsigned __offlink_natural_align(__SIZE_TYPE__ size)\n{\n"
		  "\tunsigned a = 16;\n\n\twhile (a > 1 && size %% a)\n\t\ta /= 2;\n\treturn a;\n}\n\n");
	P("static void __offlink_%s_register_globals(void **h)\n{\n", n->lower);
	P("\tfor (const struct __tgt_offload_entry *e = __start_%s; e != __stop_%s; ++e) {\n",
	  sect, sect);
	P("\t\tint type = %s & 7, ext = (%s >> 3) & 1, constant = (%s >> 4) & 1;\n",
	  f->flags, f->flags, f->flags);
	if (w->new_entries)
		P("\n\t\tif (e->Reserved != 0 || !(%s))\n\t\t\tcontinue;\n", n->new_kinds);
	P("\t\tif (%s == 0) {\n", f->size);
	P("\t\t\t%sRegisterFunction(h, %s, %s, %s, -1, 0, 0, 0, 0, 0);\n",
	  n->prefix, f->addr, f->name, f->name);
	P("\t\t\tcontinue;\n\t\t}\n\t\tswitch (type) {\n\t\tcase 0:\n");
	P("\t\t\t%sRegisterVar(h, %s, %s, %s, ext, %s, constant, 0);\n\t\t\tbreak;\n",
	  n->prefix, f->addr, f->name, f->name, f->size);
	P("\t\tcase 1: /* managed */\n");
	if (managed_call(n, f, out))
		return OL_E_NOMEM;
	P("\t\t\tbreak;\n");
	if (n == &hip) {
		P("\t\tcase 2: /* surface */\n"
		  "\t\t\t__hipRegisterSurface(h, %s, %s, %s, (int)%s, ext);\n\t\t\tbreak;\n",
		  f->addr, f->name, f->name, f->data);
		P("\t\tcase 3: /* texture */\n"
		  "\t\t\t__hipRegisterTexture(h, %s, %s, %s, (int)%s, (%s >> 5) & 1, ext);\n"
		  "\t\t\tbreak;\n", f->addr, f->name, f->name, f->data, f->flags);
	}
	P("\t\t}\n\t\t(void)constant;\n\t}\n}\n\n");
	return OL_OK;
}

/* nvcc's relocatable modules (nvcc -rdc): each one's constructor calls
 * __cudaRegisterLinkedBinary<ID> with its registration callback and its
 * own (relocatable) fat binary's wrapper.  As nvcc -dlink's code does
 * (the CUDA toolkit's crt/link.stub), the linked fat binary is registered
 * once every module has come in, then each callback registers its module's
 * kernels and variables against that handle; clang's entries come in as
 * one more participant, this file's constructor.  The reference to each
 * module's __fatbinwrap<ID> makes the host linker take the object or
 * archive member defining it, whose constructor then comes in. */
static enum ol_err nvcc_modules(const struct wrap_cuda_hip *w, struct ol_buf *out)
{
	size_t n = w->nnvcc;

	P("/* nvcc relocatable modules: %zu */\n", n);
	for (size_t i = 0; i < n; i++) {
		P("extern const struct __offlink_fatbin_wrapper __fatbinwrap%s;\n", w->nvcc_modules[i]);
		P("static const char __offlink_nvcc_def_%zu[]\n"
		  "\t__attribute__((section(\"__nv_module_id\"), aligned(1), used)) = \"def %s\";\n",
		  i, w->nvcc_modules[i]);
	}
	P("static void (*__offlink_nvcc_callback[%zu])(void **);\n", n);
	P("static unsigned __offlink_nvcc_arrived;\n"
	  "static void __offlink_cuda_register_all(void);\n\n"
	  "/* All %zu modules and this file's constructor: the registration. */\n"
	  "static void __offlink_nvcc_arrive(void)\n{\n"
	  "\tif (++__offlink_nvcc_arrived == %zu)\n\t\t__offlink_cuda_register_all();\n}\n\n",
	  n, n + 1);
	for (size_t i = 0; i < n; i++)
		P("void __cudaRegisterLinkedBinary%s(void (*callback)(void **), void *prelinked,\n"
		  "\tvoid *unused, void (*dummy_ref)(void *));\n"
		  "void __cudaRegisterLinkedBinary%s(void (*callback)(void **), void *prelinked,\n"
		  "\tvoid *unused, void (*dummy_ref)(void *))\n{\n"
		  "\tstatic const char *volatile def;\n\n"
		  "\t(void)prelinked;\n\t(void)unused;\n"
		  "\tdef = __offlink_nvcc_def_%zu;\n"
		  "\tdummy_ref((void *)&def);\n"
		  "\t__offlink_nvcc_prelinked[%zu] = __fatbinwrap%s.data;\n"
		  "\t__offlink_nvcc_callback[%zu] = callback;\n"
		  "\t__offlink_nvcc_arrive();\n}\n\n",
		  w->nvcc_modules[i], w->nvcc_modules[i], i, i, w->nvcc_modules[i], i);
	return OL_OK;
}

static enum ol_err constructor(const struct wrap_cuda_hip *w, const struct names *n,
			       struct ol_buf *out)
{
	bool nvcc = n == &cuda && w->nnvcc;

	P("static void **__offlink_%s_handle;\n\n", n->lower);
	P("__attribute__((section(\".text.startup\")))\n"
	  "static void __offlink_%s_unregister(void)\n{\n\t%sUnregisterFatBinary(__offlink_%s_handle);\n}\n\n",
	  n->lower, n->prefix, n->lower);
	P("%sstatic void __offlink_%s_register_all(void)\n{\n"
	  "\t__offlink_%s_handle = %sRegisterFatBinary(&__offlink_%s_fatbin_wrapper);\n"
	  "\t__offlink_%s_register_globals(__offlink_%s_handle);\n",
	  nvcc ? "" : "__attribute__((section(\".text.startup\")))\n", n->lower, n->lower, n->prefix,
	  n->lower, n->lower, n->lower);
	if (nvcc)
		P("\tfor (unsigned i = 0; i < %zu; i++)\n"
		  "\t\t__offlink_nvcc_callback[i](__offlink_%s_handle);\n", w->nnvcc, n->lower);
	if (n == &cuda)
		P("\t__cudaRegisterFatBinaryEnd(__offlink_%s_handle);\n", n->lower);
	P("\tatexit(__offlink_%s_unregister);\n}\n\n", n->lower);
	P("/* Priority 101, as LLVM's wrapper. */\n"
	  "__attribute__((constructor(101), section(\".text.startup\")))\n"
	  "static void __offlink_%s_register(void)\n{\n\t%s();\n}\n",
	  n->lower, nvcc ? "__offlink_nvcc_arrive" : (n == &cuda ? "__offlink_cuda_register_all"
								 : "__offlink_hip_register_all"));
	return OL_OK;
}

static enum ol_err embed(const struct wrap_cuda_hip *w, const struct names *n,
			 struct ol_buf *out)
{
	char sym[64], section[96];

	snprintf(sym, sizeof(sym), "__offlink_%s_fatbin", n->lower);
	snprintf(section, sizeof(section), "%s,\"a\"", n->fatbin_section);
	P("/* The %s, embedded as it is. */\n", n == &cuda ? "fatbinary" : "offload bundle");
	if (wrap_emit_blob(out, sym, section, n->align, NULL, 0, w->bundle_path, 0))
		return OL_E_NOMEM;
	P("extern const char %s[] __attribute__((visibility(\"hidden\")));\n\n", sym);
	P("struct __offlink_fatbin_wrapper {\n"
	  "\t__INT32_TYPE__ magic;\n\t__INT32_TYPE__ version;\n"
	  "\tconst void *data;\n\tvoid *unused;\n};\n\n");
	/* (version 2 where nvcc modules are linked in: its last field lists
	 * their relocatable fat binaries, as nvcc -dlink's wrapper does) */
	if (n == &cuda && w->nnvcc)
		P("static const void *__offlink_nvcc_prelinked[%zu];\n", w->nnvcc + 1);
	P("static const struct __offlink_fatbin_wrapper __offlink_%s_fatbin_wrapper\n"
	  "\t__attribute__((section(\"%s\"), aligned(8), used)) = {\n"
	  "\t0x%08x, %d, %s, %s,\n};\n\n", n->lower, n->wrapper_section, n->magic,
	  n == &cuda && w->nnvcc ? 2 : 1, sym,
	  n == &cuda && w->nnvcc ? "(void *)__offlink_nvcc_prelinked" : "0");
	return OL_OK;
}

bool wrap_symbol_allowed(const char *name)
{
	return name[0] != '\0' && name[0] != '\1' && strncmp(name, "__offlink_", 10) != 0 &&
	       strncmp(name, ".L__offlink_", 12) != 0;
}

enum ol_err wrap_nvcc_ids_check(const struct wrap_cuda_hip *w, struct ol_diag *d)
{
	for (size_t i = 0; i < w->nnvcc; i++)
		if (!ol_identifier_chars(w->nvcc_modules[i], strlen(w->nvcc_modules[i])))
			return ol_diag_set(d, OL_E_BAD_FIELD, "nvcc module ID",
					   "module %zu: not an identifier", i);
	return OL_OK;
}

enum ol_err wrap_cuda_hip_source(const struct wrap_cuda_hip *w, struct ol_buf *out,
				 struct ol_diag *d)
{
	const struct names *n = w->hip ? &hip : &cuda;
	const char *sect = w->new_entries ? "llvm_offload_entries" : n->entries;
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < w->nmanaged; i++) {
		const struct wrap_managed *m = &w->managed[i];

		if (!wrap_symbol_allowed(m->init_symbol) || !wrap_symbol_allowed(m->pointer_symbol))
			return ol_diag_set(d, OL_E_BAD_FIELD, "symbol name",
					   "managed variable %zu: a name offlink cannot reference", i);
	}
	if (wrap_nvcc_ids_check(w, d))
		return d->code;

	rc |= wrap_cuda_hip_comment(w, sect, NULL, out);
	rc |= entry_type(w, sect, out);
	rc |= embed(w, n, out);
	rc |= runtime_decls(n, out);
	if (!w->new_entries)
		rc |= managed_table(w, n, out);
	rc |= globals_function(w, n, sect, out);
	if (n == &cuda && w->nnvcc)
		rc |= nvcc_modules(w, out);
	rc |= constructor(w, n, out);
	return rc ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL) : OL_OK;
}
