/* The registration as assembly: the same sections, symbols, tables and
 * constructors as the C generators' output compiled by clang (tests
 * compare what the runtime stub logs from both), written for the host's
 * assembler so that no compiler process runs.  The data is the same for
 * every ELF architecture (directives only); the functions come from the
 * architecture's code writer (asm_x86_64.c, asm_aarch64.c).
 *
 * What comes from outside: the output path and the images' origins,
 * triples and archs, only inside the header comment, which the C form
 * shares (comment.c: every byte escaped, common/escape.h);
 * the linked files' paths, in .incbin strings, escaped; managed-variable
 * symbol names, always quoted ("name"), which GNU as and llvm-mc both
 * read as exactly that symbol: "." is not the location counter, "$" not
 * an operand, and the generator's own labels are .L__offlink_*, a prefix
 * no input name may have (wrap_symbol_allowed).  A name holding a newline,
 * '"' or '\\' goes the C path (wrap_asm_symbol_ok). */
#include "wrap/wrapper.h"

#include <stdio.h>
#include <string.h>

#include "common/escape.h"
#include "wrap/asm_code.h"
#include "wrap/comment.h"
#include "wrap/emit.h"

const struct asm_arch *asm_arch_of(const char *host_triple)
{
	if (strncmp(host_triple, "x86_64-", 7) == 0)
		return &asm_x86_64;
	if (strncmp(host_triple, "aarch64-", 8) == 0)
		return &asm_aarch64;
	return NULL;
}

/* GNU as and llvm-mc read a quoted symbol name byte for byte, but for a
 * newline (which ends the line) and for '"' and '\\', whose escapes they
 * read differently (GNU as takes \\" as '"', llvm-mc keeps the backslash):
 * a name holding one of those goes the C path. */
bool wrap_asm_symbol_ok(const char *name)
{
	return name && *name && !strpbrk(name, "\n\"\\");
}

static enum ol_err quoted_symbol(struct ol_buf *out, const char *name)
{
	return ol_buf_puts(out, "\"") || ol_buf_puts(out, name) || ol_buf_puts(out, "\"")
		? OL_E_NOMEM : OL_OK;
}

static enum ol_err section(struct ol_buf *out, const char *name, const char *flags,
			   const char *type, unsigned align)
{
	P("\t.section %s,\"%s\",%%%s\n\t.balign %u\n", name, flags, type, align);
	return OL_OK;
}

/* sym: prefix bytes, the file at path, pad zero bytes (a local object). */
static enum ol_err blob(struct ol_buf *out, const char *sym, const uint8_t *prefix,
			size_t nprefix, const char *path, uint64_t pad)
{
	P("\t.type %s,%%object\n%s:\n", sym, sym);
	for (size_t i = 0; i < nprefix; i += 16) {
		P("\t.byte ");
		for (size_t k = i; k < nprefix && k < i + 16; k++)
			P("%s0x%02x", k > i ? "," : "", prefix[k]);
		P("\n");
	}
	P("\t.incbin \"");
	E(path);
	P("\"\n");
	if (pad)
		P("\t.zero %llu\n", (unsigned long long)pad);
	P("\t.size %s, . - %s\n", sym, sym);
	return OL_OK;
}

/* The entries section exists, with its bounds, even without entries;
 * the bounds are the linker's, hidden. */
static enum ol_err entries_bounds(struct ol_buf *out, const char *entries)
{
	if (section(out, entries, "a", "progbits", 8))
		return OL_E_NOMEM;
	P("\t.type __offlink_dummy_%s,%%object\n__offlink_dummy_%s:\n"
	  "\t.size __offlink_dummy_%s, 0\n", entries, entries, entries);
	P("\t.hidden __start_%s\n\t.hidden __stop_%s\n", entries, entries);
	return OL_OK;
}

/* fn in .init_array.<priority> (or .fini_array), then the stack note. */
static enum ol_err array_entry(struct ol_buf *out, const char *array, unsigned priority,
			       const char *fn, bool last)
{
	char name[48];

	snprintf(name, sizeof(name), ".%s.%u", array, priority);
	if (section(out, name, "aw", array, 8))
		return OL_E_NOMEM;
	P("\t.quad %s\n", fn);
	/* No executable stack: an object without this note would ask for one. */
	if (last)
		P("\t.section .note.GNU-stack,\"\",%%progbits\n");
	return OL_OK;
}

static enum ol_err constructor(struct ol_buf *out, const char *fn)
{
	/* Priority 101, as LLVM's wrapper: before the program's own
	 * constructors, which may already offload. */
	return array_entry(out, "init_array", 101, fn, true);
}

/* Image i of w where its style puts it; *offset: where the image starts
 * in the blob. */
static enum ol_err omp_image(const struct wrap_openmp *w, size_t i, struct ol_buf *out,
			     uint64_t *offset)
{
	const struct wrap_image *img = &w->images[i];
	struct ol_buf head = { 0 };
	char sym[64];
	uint64_t pad = 0;
	enum ol_err rc;

	snprintf(sym, sizeof(sym), "__offlink_omp_image_%zu", i);
	*offset = img->inner_offset;
	if (w->style == WRAP_OMP_LLVM14)
		return section(out, ".rodata", "a", "progbits", 16) ||
		       blob(out, sym, NULL, 0, img->path, 0) ? OL_E_NOMEM : OL_OK;
	if (w->style == WRAP_OMP_LINK && wrap_omp_image_head(w, img, &head, offset, &pad))
		return OL_E_NOMEM;
	rc = section(out, wrap_omp_image_section(w->relocatable), "a", "0x6fff4c0b", 8);
	if (!rc)
		rc = blob(out, sym, head.data, head.len, img->path, pad);
	ol_buf_free(&head);
	return rc;
}

enum ol_err wrap_openmp_asm(const struct wrap_openmp *w, const struct asm_arch *a,
			    struct ol_buf *out, struct ol_diag *d)
{
	const char *s = w->entries_section;
	enum ol_err rc = OL_OK;

#define TRY(x)                                          \
	do {                                            \
		if ((x))                                \
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL); \
	} while (0)
	TRY(wrap_openmp_comment(w, a->name, out));
	TRY(entries_bounds(out, s));

	uint64_t offsets[WRAP_OMP_MAX_IMAGES];

	if (w->nimages > sizeof(offsets) / sizeof(offsets[0]))
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "more than %zu OpenMP device images",
				   sizeof(offsets) / sizeof(offsets[0]));
	for (size_t i = 0; i < w->nimages && !rc; i++)
		rc = omp_image(w, i, out, &offsets[i]);
	TRY(rc);
	TRY(section(out, ".data.rel.ro", "aw", "progbits", 8));
	TRY(ol_buf_puts(out, "__offlink_omp_images:\n"));
	for (size_t i = 0; i < w->nimages; i++)
		TRY(ol_buf_printf(out, "\t.quad __offlink_omp_image_%zu+%llu, __offlink_omp_image_%zu+%llu\n"
				       "\t.quad __start_%s, __stop_%s\n",
				  i, (unsigned long long)offsets[i], i,
				  (unsigned long long)(offsets[i] + w->images[i].size), s, s));
	TRY(ol_buf_printf(out, "\t.type __offlink_omp_descriptor,%%object\n"
			       "__offlink_omp_descriptor:\n\t.long %zu\n\t.zero 4\n"
			       "\t.quad __offlink_omp_images, __start_%s, __stop_%s\n"
			       "\t.size __offlink_omp_descriptor, 32\n\n",
			  w->nimages, s, s));
	TRY(a->omp_code(out, w->style != WRAP_OMP_LLVM14));
	if (w->style == WRAP_OMP_LLVM14) /* LLVM 14: both at priority 1 */
		TRY(array_entry(out, "init_array", 1, "__offlink_omp_register", false) ||
		    array_entry(out, "fini_array", 1, "__offlink_omp_unregister", true));
	else
		TRY(constructor(out, "__offlink_omp_register"));
#undef TRY
	return OL_OK;
}

/* SYCL (LLVM 23 on): each image as it is, the table of (image, size)
 * pairs the architecture's code walks, and the release's constructor. */
enum ol_err wrap_sycl_asm(const struct wrap_sycl *w, const struct asm_arch *a,
			  struct ol_buf *out, struct ol_diag *d)
{
	char sym[64];

#define TRY(x)                                          \
	do {                                            \
		if ((x))                                \
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL); \
	} while (0)
	TRY(wrap_sycl_comment(w, a->name, out));
	for (size_t i = 0; i < w->nimages; i++) {
		snprintf(sym, sizeof(sym), "__offlink_sycl_image_%zu", i);
		TRY(section(out, wrap_omp_image_section(w->relocatable), "a", "0x6fff4c0b", 16));
		TRY(blob(out, sym, NULL, 0, w->images[i].path, 0));
	}
	TRY(section(out, ".data.rel.ro", "aw", "progbits", 8));
	TRY(ol_buf_puts(out, "__offlink_sycl_images:\n"));
	for (size_t i = 0; i < w->nimages; i++)
		TRY(ol_buf_printf(out, "\t.quad __offlink_sycl_image_%zu, %llu\n", i,
				  (unsigned long long)w->images[i].size));
	TRY(ol_buf_puts(out, "__offlink_sycl_images_end:\n\n"));
	TRY(a->sycl_walk(out, "__offlink_sycl_register", "__sycl_register_lib", w->use_atexit) ||
	    a->sycl_walk(out, "__offlink_sycl_unregister", "__sycl_unregister_lib", false));
	if (w->use_atexit)
		TRY(constructor(out, "__offlink_sycl_register"));
	else /* LLVM 23: both at priority 1 */
		TRY(array_entry(out, "init_array", 1, "__offlink_sycl_register", false) ||
		    array_entry(out, "fini_array", 1, "__offlink_sycl_unregister", true));
#undef TRY
	return OL_OK;
}

struct names {
	const char *lower, *prefix, *fatbin_section, *wrapper_section, *entries;
	unsigned magic, align;
};

static const struct names cuda = { "cuda", "__cuda", ".nv_fatbin", ".nvFatBinSegment",
				   "cuda_offloading_entries", 0x466243b1, 16 };
static const struct names hip = { "hip", "__hip", ".hip_fatbin", ".hipFatBinSegment",
				  "hip_offloading_entries", 0x48495046, 4096 };

/* nvcc's modules' data: where their relocatable fat binaries are listed
 * for the version 2 wrapper (null-terminated), their callbacks, how many
 * have come in (the constructor counts as one), and the "def <ID>" of
 * each in __nv_module_id, as nvcc -dlink's object has them, with a table
 * of their addresses for the modules' dummy_ref.  IDs are identifiers. */
static enum ol_err nvcc_data(struct ol_buf *out, const struct wrap_cuda_hip *w)
{
	P("\t.type __offlink_nvcc_prelinked,%%object\n__offlink_nvcc_prelinked:\n"
	  "\t.zero %zu\n\t.size __offlink_nvcc_prelinked, %zu\n",
	  8 * (w->nnvcc + 1), 8 * (w->nnvcc + 1));
	P("\t.type __offlink_nvcc_callback,%%object\n__offlink_nvcc_callback:\n"
	  "\t.zero %zu\n\t.size __offlink_nvcc_callback, %zu\n", 8 * w->nnvcc, 8 * w->nnvcc);
	P("\t.type __offlink_nvcc_arrived,%%object\n__offlink_nvcc_arrived:\n"
	  "\t.zero 8\n\t.size __offlink_nvcc_arrived, 8\n");
	if (section(out, "__nv_module_id", "a", "progbits", 1))
		return OL_E_NOMEM;
	for (size_t i = 0; i < w->nnvcc; i++)
		P("\t.type __offlink_nvcc_def_%zu,%%object\n__offlink_nvcc_def_%zu:\n"
		  "\t.asciz \"def %s\"\n\t.size __offlink_nvcc_def_%zu, %zu\n",
		  i, i, w->nvcc_modules[i], i, strlen(w->nvcc_modules[i]) + 5);
	if (section(out, ".data.rel.ro", "aw", "progbits", 8))
		return OL_E_NOMEM;
	P("__offlink_nvcc_defs:\n");
	for (size_t i = 0; i < w->nnvcc; i++)
		P("\t.quad __offlink_nvcc_def_%zu\n", i);
	return OL_OK;
}

static enum ol_err cuda_hip(const struct wrap_cuda_hip *w, const struct asm_arch *a,
			    struct ol_buf *out)
{
	const struct names *n = w->hip ? &hip : &cuda;
	const char *entries = w->new_entries ? "llvm_offload_entries" : n->entries;
	size_t nnvcc = w->hip ? 0 : w->nnvcc;
	struct asm_cuda_hip p = { w->hip, n->lower, n->prefix, entries, w->new_entries,
				  w->new_entries ? 0 : w->nmanaged, w->nvcc_modules, nnvcc };
	char sym[64];

	if (wrap_cuda_hip_comment(w, entries, a->name, out))
		return OL_E_NOMEM;
	/* The container, embedded as it is, and the wrapper the runtime
	 * takes: {magic, version 1, data, unused}. */
	if (section(out, n->fatbin_section, "a", "progbits", n->align))
		return OL_E_NOMEM;
	snprintf(sym, sizeof(sym), "__offlink_%s_fatbin", n->lower);
	if (blob(out, sym, NULL, 0, w->bundle_path, 0) ||
	    section(out, n->wrapper_section, "aw", "progbits", 8))
		return OL_E_NOMEM;
	/* (version 2 where nvcc's modules are linked in: its last field lists
	 * their relocatable fat binaries, as nvcc -dlink's wrapper does) */
	P("\t.type __offlink_%s_fatbin_wrapper,%%object\n__offlink_%s_fatbin_wrapper:\n"
	  "\t.long 0x%08x, %d\n\t.quad __offlink_%s_fatbin, %s\n"
	  "\t.size __offlink_%s_fatbin_wrapper, 24\n",
	  n->lower, n->lower, n->magic, nnvcc ? 2 : 1, n->lower,
	  nnvcc ? "__offlink_nvcc_prelinked" : "0", n->lower);
	if (section(out, ".bss", "aw", "nobits", 8))
		return OL_E_NOMEM;
	P("\t.type __offlink_%s_handle,%%object\n__offlink_%s_handle:\n\t.zero 8\n"
	  "\t.size __offlink_%s_handle, 8\n", n->lower, n->lower, n->lower);
	if (nnvcc && nvcc_data(out, w))
		return OL_E_NOMEM;
	if (entries_bounds(out, entries))
		return OL_E_NOMEM;
	if (p.nmanaged) {
		/* LLVM 19's entries lack the managed pointer: initial value ->
		 * pointer variable, from the objects' relocations. */
		if (section(out, ".data.rel.ro", "aw", "progbits", 8))
			return OL_E_NOMEM;
		P("__offlink_%s_managed:\n", n->lower);
		for (size_t i = 0; i < w->nmanaged; i++) {
			P("\t.quad ");
			if (quoted_symbol(out, w->managed[i].init_symbol))
				return OL_E_NOMEM;
			P(", ");
			if (quoted_symbol(out, w->managed[i].pointer_symbol))
				return OL_E_NOMEM;
			P("\n");
		}
	}
	P("\n");
	if (a->cuda_hip_code(out, &p))
		return OL_E_NOMEM;
	/* (with nvcc's modules the constructor is one arrival of several:
	 * the last registers) */
	snprintf(sym, sizeof(sym), nnvcc ? "__offlink_nvcc_count" : "__offlink_%s_register",
		 n->lower);
	return constructor(out, sym);
}

enum ol_err wrap_cuda_hip_asm(const struct wrap_cuda_hip *w, const struct asm_arch *a,
			      struct ol_buf *out, struct ol_diag *d)
{
	for (size_t i = 0; i < w->nmanaged; i++)
		if (!wrap_symbol_allowed(w->managed[i].init_symbol) ||
		    !wrap_symbol_allowed(w->managed[i].pointer_symbol))
			return ol_diag_set(d, OL_E_BAD_FIELD, "symbol name",
					   "managed variable %zu: a name offlink cannot reference", i);
	for (size_t i = 0; !w->new_entries && i < w->nmanaged; i++)
		if (!wrap_asm_symbol_ok(w->managed[i].init_symbol) ||
		    !wrap_asm_symbol_ok(w->managed[i].pointer_symbol))
			return ol_diag_set(d, OL_E_UNSUPPORTED, "symbol name",
					   "managed variable %zu: a name the assembly path does not write", i);
	if (wrap_nvcc_ids_check(w, d))
		return d->code;
	if (cuda_hip(w, a, out))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}
