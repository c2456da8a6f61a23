/* The OpenMP registration source, as seed 004 describes it in C:
 *
 *   images in offload binaries   -> __tgt_device_image[]  (pointers into them)
 *   __start_/__stop_<entries>    -> __tgt_bin_desc
 *   constructor (priority 101)   -> __tgt_register_lib(&desc); atexit(unregister)
 *
 * Each image is embedded in a version 1 offload binary (triple and arch)
 * in an allocated .llvm.offloading section, so llvm-objdump --offloading
 * and offlink-binary --list read the linked program, as with LLVM. */
#include "wrap/wrapper.h"

#include <stdio.h>
#include <string.h>

#include "wrap/comment.h"
#include "wrap/emit.h"

static enum ol_err declarations(const struct wrap_openmp *w, struct ol_buf *out)
{
	const char *s = w->entries_section;

	if (strcmp(s, "llvm_offload_entries") == 0)
		P("/* LLVM 20+ entry (56 bytes on 64-bit hosts). */\n"
		  "struct __tgt_offload_entry {\n"
		  "\t__UINT64_TYPE__ Reserved;\n"
		  "\t__UINT16_TYPE__ Version;\n"
		  "\t__UINT16_TYPE__ Kind;\n"
		  "\t__UINT32_TYPE__ Flags;\n"
		  "\tvoid *Address;\n"
		  "\tchar *SymbolName;\n"
		  "\t__UINT64_TYPE__ Size;\n"
		  "\t__UINT64_TYPE__ Data;\n"
		  "\tvoid *AuxAddr;\n"
		  "};\n\n");
	else
		P("/* LLVM 19 entry (32 bytes on 64-bit hosts). */\n"
		  "struct __tgt_offload_entry {\n"
		  "\tvoid *addr;\n"
		  "\tchar *name;\n"
		  "\t__SIZE_TYPE__ size;\n"
		  "\t__INT32_TYPE__ flags;\n"
		  "\t__INT32_TYPE__ reserved;\n"
		  "};\n\n");
	P("struct __tgt_device_image {\n"
	  "\tconst void *ImageStart;\n"
	  "\tconst void *ImageEnd;\n"
	  "\tconst struct __tgt_offload_entry *EntriesBegin;\n"
	  "\tconst struct __tgt_offload_entry *EntriesEnd;\n"
	  "};\n\n");
	P("struct __tgt_bin_desc {\n"
	  "\tint NumDeviceImages;\n"
	  "\tconst struct __tgt_device_image *DeviceImages;\n"
	  "\tconst struct __tgt_offload_entry *HostEntriesBegin;\n"
	  "\tconst struct __tgt_offload_entry *HostEntriesEnd;\n"
	  "};\n\n");
	P("/* The linker defines these around the entries of every object. */\n");
	P("extern const struct __tgt_offload_entry __start_%s[]\n"
	  "\t__attribute__((visibility(\"hidden\")));\n", s);
	P("extern const struct __tgt_offload_entry __stop_%s[]\n"
	  "\t__attribute__((visibility(\"hidden\")));\n\n", s);
	P("/* An empty object in the section, so that it, and its bounds, exist\n"
	  " * even in a program without entries. */\n");
	P("static const char __offlink_dummy_%s[0]\n"
	  "\t__attribute__((section(\"%s\"), used, aligned(8)));\n\n", s, s);
	return OL_OK;
}

static enum ol_err embed_image(const struct wrap_openmp *w, size_t i,
			       struct ol_buf *out, uint64_t *image_offset)
{
	const struct wrap_image *img = &w->images[i];
	struct ol_buf head = { 0 };
	char sym[64], section[128];
	uint64_t pad;
	enum ol_err rc;

	P("/* [%zu] ", i);
	if (wrap_image_name(img, out))
		return OL_E_NOMEM;
	P(" in its offload binary. */\n");
	if (wrap_omp_image_head(w, img, &head, image_offset, &pad))
		return OL_E_NOMEM;
	snprintf(sym, sizeof(sym), "__offlink_omp_image_%zu", i);
	/* '%' rather than '@' before the type: '@' starts a comment on Arm. */
	snprintf(section, sizeof(section), "%s,\"a\",%%0x6fff4c0b",
		 wrap_omp_image_section(w->relocatable));
	rc = wrap_emit_blob(out, sym, section, 8, head.data, head.len, img->path, pad);
	ol_buf_free(&head);
	if (rc)
		return rc;
	P("extern const char %s[] __attribute__((visibility(\"hidden\")));\n\n", sym);
	return OL_OK;
}

static enum ol_err tables(const struct wrap_openmp *w, const uint64_t *offsets,
			  struct ol_buf *out)
{
	const char *s = w->entries_section;

	P("static const struct __tgt_device_image __offlink_omp_images[] = {\n");
	for (size_t i = 0; i < w->nimages; i++)
		P("\t{ __offlink_omp_image_%zu + %llu, __offlink_omp_image_%zu + %llu,\n"
		  "\t  __start_%s, __stop_%s },\n",
		  i, (unsigned long long)offsets[i], i,
		  (unsigned long long)(offsets[i] + w->images[i].size), s, s);
	P("};\n\n");
	P("static const struct __tgt_bin_desc __offlink_omp_descriptor = {\n"
	  "\t%zu, __offlink_omp_images, __start_%s, __stop_%s,\n"
	  "};\n\n", w->nimages, s, s);
	return OL_OK;
}

static enum ol_err registration(struct ol_buf *out)
{
	P("extern void __tgt_register_lib(const struct __tgt_bin_desc *desc);\n"
	  "extern void __tgt_unregister_lib(const struct __tgt_bin_desc *desc);\n"
	  "extern int atexit(void (*fn)(void));\n\n");
	P("__attribute__((section(\".text.startup\")))\n"
	  "static void __offlink_omp_unregister(void)\n"
	  "{\n"
	  "\t__tgt_unregister_lib(&__offlink_omp_descriptor);\n"
	  "}\n\n");
	P("/* Priority 101, as LLVM's wrapper: before the program's own\n"
	  " * constructors, which may already offload. */\n");
	P("__attribute__((constructor(101), section(\".text.startup\")))\n"
	  "static void __offlink_omp_register(void)\n"
	  "{\n"
	  "\t__tgt_register_lib(&__offlink_omp_descriptor);\n"
	  "\tatexit(__offlink_omp_unregister);\n"
	  "}\n");
	return OL_OK;
}

enum ol_err wrap_openmp_source(const struct wrap_openmp *w, struct ol_buf *out,
			       struct ol_diag *d)
{
	uint64_t offsets[WRAP_OMP_MAX_IMAGES];

	if (w->nimages > sizeof(offsets) / sizeof(offsets[0]))
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				   "more than %zu OpenMP device images",
				   sizeof(offsets) / sizeof(offsets[0]));
	if (wrap_openmp_comment(w, NULL, out) || declarations(w, out))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < w->nimages; i++)
		if (embed_image(w, i, out, &offsets[i]))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (tables(w, offsets, out) || registration(out))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}
