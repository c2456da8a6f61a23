#include "wrap_oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "format/offload_binary.h"
#include "wrap/asm_code.h"
#include "wrap/wrapper.h"

extern char **environ;

static const char image_bytes[] = "offlink-oracle-image";

static int failf(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 1;
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)len + 1)) &&
	    fread(p, 1, (size_t)len, f) == (size_t)len) {
		p[len] = '\0';
		*n = (size_t)len;
	} else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

/* clang -Wall -Wextra -Werror -c src -o obj (and -O2 for C), its stderr
 * into errlog; a .s file is assembled by clang's integrated assembler. */
static int compile(const char *clang, const char *src, const char *obj,
		   const char *errlog)
{
	size_t n = strlen(src);
	bool assembly = n > 2 && strcmp(src + n - 2, ".s") == 0;
	char *argv[] = { (char *)clang, (char *)"--no-default-config",
			 (char *)"--target=x86_64-pc-linux-gnu", (char *)"-fPIC",
			 (char *)"-Wall", (char *)"-Wextra",
			 (char *)"-Werror", (char *)"-c", (char *)src, (char *)"-o",
			 (char *)obj, assembly ? NULL : (char *)"-O2", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	rc = posix_spawnp(&pid, clang, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* ---- the compiled object ---- */

struct object {
	char *bytes;
	size_t size;
	Elf *elf;
};

static int open_object(const char *path, struct object *o)
{
	memset(o, 0, sizeof(*o));
	elf_version(EV_CURRENT);
	o->bytes = read_file(path, &o->size);
	if (!o->bytes)
		return -1;
	o->elf = elf_memory(o->bytes, o->size);
	return o->elf ? 0 : -1;
}

static void close_object(struct object *o)
{
	if (o->elf)
		elf_end(o->elf);
	free(o->bytes);
}

/* Every named symbol but section and file symbols, one line each
 * ("<bind> <type> <defined> <name>"), sorted and without repeats. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct symset {
	char **v;
	size_t n;
};

static void symset_free(struct symset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int symset_add(struct symset *s, unsigned bind, unsigned type, bool defined,
		      const char *name)
{
	char **v = realloc(s->v, (s->n + 1) * sizeof(*v));
	struct ol_buf b = { 0 };

	if (!v)
		return -1;
	s->v = v;
	if (ol_buf_printf(&b, "%u %u %d ", bind, type, defined) ||
	    ol_buf_puts(&b, name))
		return -1;
	s->v[s->n++] = (char *)b.data;
	return 0;
}

static void symset_sort(struct symset *s)
{
	size_t k = 0;

	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	for (size_t i = 0; i < s->n; i++) {
		if (k && strcmp(s->v[k - 1], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
}

static int read_symbols(struct object *o, struct symset *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(o->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getsym(data, (int)i, &sym))
				return -1;
			type = GELF_ST_TYPE(sym.st_info);
			name = elf_strptr(o->elf, sh.sh_link, sym.st_name);
			if (!name || !*name || type == STT_SECTION || type == STT_FILE)
				continue;
			if (symset_add(out, GELF_ST_BIND(sym.st_info), type,
				       sym.st_shndx != SHN_UNDEF, name))
				return -1;
		}
	}
	symset_sort(out);
	return 0;
}

/* The contents of the section called name, or NULL. */
static const uint8_t *section(struct object *o, const char *name, size_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(o->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(o->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(o->elf, shstrndx, sh.sh_name)) || strcmp(n, name) != 0)
			continue;
		if (sh.sh_offset > o->size || sh.sh_size > o->size - sh.sh_offset)
			return NULL;
		*size = (size_t)sh.sh_size;
		return (const uint8_t *)o->bytes + sh.sh_offset;
	}
	return NULL;
}

/* ---- generation ---- */

enum which { OPENMP, CUDA_HIP, SYCL };

/* The C form, or (assembly) the x86_64 assembly form. */
static enum ol_err generate(enum which k, bool assembly, const struct wo_input *in,
			    const char *image_path, struct ol_buf *src, struct ol_diag *d)
{
	struct wrap_image imgs[WO_MAX_IMAGES];

	for (size_t i = 0; i < in->nimages; i++)
		imgs[i] = (struct wrap_image){ in->triple[i], in->arch[i], image_path,
					       sizeof(image_bytes) - 1, OB_IMG_OBJECT,
					       in->origin[i], 0, (const uint8_t *)image_bytes };
	if (k == OPENMP) {
		struct wrap_openmp w = { in->output, imgs, in->nimages,
					 in->new_entries ? "llvm_offload_entries"
							 : "omp_offloading_entries",
					 false, WRAP_OMP_LINK, 1 };

		return assembly ? wrap_openmp_asm(&w, &asm_x86_64, src, d)
				: wrap_openmp_source(&w, src, d);
	} else if (k == SYCL) {
		/* (the entry layout's bit picks LLVM 24's form, atexit, or 23's) */
		struct wrap_sycl w = { in->output, imgs, in->nimages, false, in->new_entries };

		return assembly ? wrap_sycl_asm(&w, &asm_x86_64, src, d)
				: wrap_sycl_source(&w, src, d);
	} else {
		struct wrap_managed m[WO_MAX_MANAGED];
		struct wrap_cuda_hip w = { in->hip, in->output, image_path, in->contents,
					   in->new_entries, m, in->nmanaged, NULL, 0 };

		for (size_t i = 0; i < in->nmanaged; i++)
			m[i] = (struct wrap_managed){ in->init[i], in->pointer[i] };
		return assembly ? wrap_cuda_hip_asm(&w, &asm_x86_64, src, d)
				: wrap_cuda_hip_source(&w, src, d);
	}
}

/* The same shape with harmless strings. */
static void harmless(const struct wo_input *in, struct wo_input *h,
		     char names[][2][32])
{
	*h = *in;
	h->output = "out";
	h->image_name = "img";
	h->contents = "c";
	for (size_t i = 0; i < in->nimages; i++) {
		h->triple[i] = "t";
		h->arch[i] = in->arch[i][0] ? "a" : "";
		h->origin[i] = "o";
	}
	for (size_t i = 0; i < in->nmanaged; i++) {
		snprintf(names[i][0], sizeof(names[i][0]), "wo_init_%zu", i);
		snprintf(names[i][1], sizeof(names[i][1]), "wo_ptr_%zu", i);
		h->init[i] = names[i][0];
		h->pointer[i] = names[i][1];
	}
}

/* Generate, write and compile; 0 and the object open, or 1 and why. */
static int build(enum which k, bool assembly, const struct wo_input *in, const char *dir,
		 const char *clang, const char *stem, struct object *o,
		 char *why, size_t len)
{
	char image[4096], src_path[4096], obj_path[4096], err_path[4096];
	struct ol_buf src = { 0 };
	struct ol_diag d;
	int rc;

	/* The image in a directory of its own, so its name cannot be one
	 * of the files written here. */
	snprintf(image, sizeof(image), "%s/i", dir);
	if (mkdir(image, 0755) != 0 && errno != EEXIST)
		return failf(why, len, "cannot create %s: %s", image, strerror(errno));
	snprintf(image, sizeof(image), "%s/i/%s", dir, in->image_name);
	snprintf(src_path, sizeof(src_path), "%s/%s.%s", dir, stem, assembly ? "s" : "c");
	snprintf(obj_path, sizeof(obj_path), "%s/%s.o", dir, stem);
	snprintf(err_path, sizeof(err_path), "%s/%s.err", dir, stem);
	ol_diag_clear(&d);
	if (write_file(image, image_bytes, sizeof(image_bytes) - 1))
		return failf(why, len, "cannot write %s: %s", image, strerror(errno));
	if (generate(k, assembly, in, image, &src, &d)) {
		ol_buf_free(&src);
		return failf(why, len, "%s: the generator failed: %s", stem, d.detail);
	}
	rc = write_file(src_path, src.data, src.len);
	ol_buf_free(&src);
	if (rc)
		return failf(why, len, "cannot write %s", src_path);
	rc = compile(clang, src_path, obj_path, err_path);
	if (rc < 0)
		return failf(why, len, "cannot run %s", clang);
	if (rc) {
		size_t n = 0;
		char *err = read_file(err_path, &n);

		failf(why, len, "%s does not compile cleanly: %.600s", src_path, err ? err : "");
		free(err);
		return 1;
	}
	unlink(image);
	if (open_object(obj_path, o))
		return failf(why, len, "cannot read %s", obj_path);
	return 0;
}

/* The harmless set with each managed placeholder replaced by its name. */
static int expected_symbols(const struct symset *h, const struct wo_input *in,
			    char names[][2][32], struct symset *out)
{
	for (size_t i = 0; i < h->n; i++) {
		unsigned bind, type;
		int defined, at = 0;
		const char *name;

		if (sscanf(h->v[i], "%u %u %d %n", &bind, &type, &defined, &at) < 3 || !at)
			return -1;
		name = h->v[i] + at;
		for (size_t m = 0; m < in->nmanaged; m++) {
			if (strcmp(name, names[m][0]) == 0)
				name = in->init[m];
			else if (strcmp(name, names[m][1]) == 0)
				name = in->pointer[m];
		}
		if (symset_add(out, bind, type, defined != 0, name))
			return -1;
	}
	symset_sort(out);
	return 0;
}

static int compare_symbols(const struct symset *want, const struct symset *got,
			   const char *stem, char *why, size_t len)
{
	size_t i = 0;

	for (; i < want->n && i < got->n; i++)
		if (strcmp(want->v[i], got->v[i]) != 0)
			break;
	if (i == want->n && i == got->n)
		return 0;
	return failf(why, len, "%s: symbols differ from the harmless build at %zu: "
		     "want '%s', got '%s' (%zu vs %zu symbols)", stem, i,
		     i < want->n ? want->v[i] : "(end)", i < got->n ? got->v[i] : "(end)",
		     want->n, got->n);
}

/* The images in .llvm.offloading carry the triples and archs exactly. */
static int check_offloading(struct object *o, const struct wo_input *in,
			    char *why, size_t len)
{
	size_t size = 0;
	const uint8_t *p = section(o, ".llvm.offloading", &size);
	struct ob_walk walk;
	size_t i = 0;

	if (!p)
		return failf(why, len, "openmp: no .llvm.offloading section");
	ob_walk_init(&walk, p, size);
	for (;; i++) {
		struct ob_binary b;
		struct ol_diag d;
		bool have;
		int bad;

		ol_diag_clear(&d);
		if (ob_walk_next(&walk, &b, &have, &d))
			return failf(why, len, "openmp: binary %zu does not decode: %s", i, d.detail);
		if (!have)
			break;
		bad = i >= in->nimages || b.nentries != 1 ||
		      strcmp(ob_entry_get(&b.entries[0], "triple"), in->triple[i]) != 0 ||
		      strcmp(ob_entry_get(&b.entries[0], "arch"), in->arch[i]) != 0 ||
		      b.entries[0].image_size != sizeof(image_bytes) - 1 ||
		      memcmp(b.entries[0].image, image_bytes, sizeof(image_bytes) - 1) != 0;
		ob_binary_free(&b);
		if (bad)
			return failf(why, len, "openmp: image %zu does not carry its triple, arch and bytes", i);
	}
	return i == in->nimages ? 0 : failf(why, len, "openmp: %zu images, want %zu", i, in->nimages);
}

/* SYCL's images are embedded as they are, each once. */
static int check_sycl_images(struct object *o, const struct wo_input *in, char *why, size_t len)
{
	size_t size = 0, found = 0, n = sizeof(image_bytes) - 1;
	const uint8_t *p = section(o, ".llvm.offloading", &size);

	for (size_t at = 0; p && at + n <= size; at++)
		if (memcmp(p + at, image_bytes, n) == 0)
			found++;
	return found == in->nimages ? 0
		: failf(why, len, "sycl: %zu images embedded as they are, want %zu", found,
			in->nimages);
}

static int check_container(struct object *o, const struct wo_input *in,
			   char *why, size_t len)
{
	size_t size = 0;
	const uint8_t *p = section(o, in->hip ? ".hip_fatbin" : ".nv_fatbin", &size);

	if (!p || size < sizeof(image_bytes) - 1 ||
	    memcmp(p, image_bytes, sizeof(image_bytes) - 1) != 0)
		return failf(why, len, "%s: the container is not embedded as it is",
			     in->hip ? "hip" : "cuda");
	return 0;
}

static bool managed_refused(const struct wo_input *in)
{
	for (size_t i = 0; i < in->nmanaged; i++)
		if (!wrap_symbol_allowed(in->init[i]) || !wrap_symbol_allowed(in->pointer[i]))
			return true;
	return false;
}

/* The harmless builds' symbols, by shape: the harmless input keeps only
 * the shape of the hostile one (the kind and form, HIP or CUDA, the entry
 * layout, how many images and which have an arch, how many managed
 * variables: of these, what the kind's generator reads), so cases of
 * one shape share one harmless object, compiled
 * once per clang.  The first of each shape is compiled as before; the
 * rest take its symbols (the check compares symbols only). */
struct shape_memo {
	char *key;
	struct symset syms;
};
static struct shape_memo *memo;
static size_t nmemo;

static char *shape_key(enum which k, bool assembly, const struct wo_input *h, const char *clang)
{
	struct ol_buf b = { 0 };

	/* (what generate() reads of each kind: OpenMP and SYCL the images,
	 * CUDA and HIP the managed variables) */
	if (ol_buf_printf(&b, "%d %d %d ", (int)k, assembly, h->new_entries))
		goto fail;
	if (k == CUDA_HIP && ol_buf_printf(&b, "%d %zu", h->hip, h->nmanaged))
		goto fail;
	for (size_t i = 0; k != CUDA_HIP && i < h->nimages; i++)
		if (ol_buf_puts(&b, h->arch[i][0] ? "a" : "-"))
			goto fail;
	if (ol_buf_puts(&b, " ") || ol_buf_puts(&b, clang))
		goto fail;
	return (char *)b.data;
fail:
	ol_buf_free(&b);
	return NULL;
}

static int symset_copy(const struct symset *from, struct symset *to)
{
	to->v = calloc(from->n ? from->n : 1, sizeof(*to->v));
	to->n = 0;
	if (!to->v)
		return -1;
	for (; to->n < from->n; to->n++)
		if (!(to->v[to->n] = strdup(from->v[to->n])))
			return -1;
	return 0;
}

/* The symbols of the harmless build h: from the memo, or built in dir. */
static int harmless_symbols(enum which k, bool assembly, const struct wo_input *h,
			    const char *dir, const char *clang, const char *hstem,
			    struct symset *out, char *why, size_t len)
{
	char *key = shape_key(k, assembly, h, clang);
	struct shape_memo *grown;
	struct object base;
	int rc;

	if (!key)
		return failf(why, len, "out of memory");
	for (size_t i = 0; i < nmemo; i++)
		if (strcmp(memo[i].key, key) == 0) {
			free(key);
			return symset_copy(&memo[i].syms, out) ? failf(why, len, "out of memory") : 0;
		}
	if (build(k, assembly, h, dir, clang, hstem, &base, why, len)) {
		free(key);
		return 1;
	}
	rc = read_symbols(&base, out);
	close_object(&base);
	if (rc || !(grown = realloc(memo, (nmemo + 1) * sizeof(*memo)))) {
		free(key);
		return failf(why, len, "%s: cannot read the symbols", hstem);
	}
	memo = grown;
	memo[nmemo].key = key;
	if (symset_copy(out, &memo[nmemo].syms)) {
		free(key);
		return failf(why, len, "out of memory");
	}
	nmemo++;
	return 0;
}

static int check_one(enum which k, bool assembly, const struct wo_input *in, const char *dir,
		     const char *clang, char *why, size_t len)
{
	char stem[32];
	char names[WO_MAX_MANAGED][2][32], hstem[48];
	struct wo_input h;
	struct object got;
	struct symset sgot = { 0 }, sbase = { 0 }, want = { 0 };
	int rc;

	snprintf(stem, sizeof(stem), "%s%s",
		 k == OPENMP ? "openmp" : k == SYCL ? "sycl" : in->hip ? "hip" : "cuda",
		 assembly ? "-asm" : "");
	harmless(in, &h, names);
	snprintf(hstem, sizeof(hstem), "%s-harmless", stem);
	if (harmless_symbols(k, assembly, &h, dir, clang, hstem, &sbase, why, len)) {
		symset_free(&sbase);
		return 1;
	}
	rc = build(k, assembly, in, dir, clang, stem, &got, why, len);
	if (rc) {
		symset_free(&sbase);
		return 1;
	}
	rc = read_symbols(&got, &sgot) || expected_symbols(&sbase, in, names, &want)
		     ? failf(why, len, "%s: cannot read the symbols", stem)
		     : compare_symbols(&want, &sgot, stem, why, len);
	if (!rc)
		rc = k == OPENMP ? check_offloading(&got, in, why, len)
		     : k == SYCL ? check_sycl_images(&got, in, why, len)
				 : check_container(&got, in, why, len);
	symset_free(&sgot);
	symset_free(&sbase);
	symset_free(&want);
	close_object(&got);
	return rc;
}

/* Managed names the assembly form does not write: it must refuse them
 * (the link then uses the C form). */
static bool asm_refuses(const struct wo_input *in)
{
	for (size_t i = 0; !in->new_entries && i < in->nmanaged; i++)
		if (!wrap_asm_symbol_ok(in->init[i]) || !wrap_asm_symbol_ok(in->pointer[i]))
			return true;
	return false;
}

static int check_form(bool assembly, const struct wo_input *in, const char *dir,
		      const char *clang, char *why, size_t whylen)
{
	if (check_one(OPENMP, assembly, in, dir, clang, why, whylen) ||
	    check_one(SYCL, assembly, in, dir, clang, why, whylen))
		return 1;
	if (managed_refused(in) || (assembly && asm_refuses(in))) {
		/* A name the code cannot (or this form will not) reference
		 * must be refused, not generated. */
		struct ol_buf src = { 0 };
		struct ol_diag d;
		enum ol_err rc;

		ol_diag_clear(&d);
		rc = generate(CUDA_HIP, assembly, in, "x", &src, &d);
		ol_buf_free(&src);
		if (managed_refused(in) && !assembly)
			return rc == OL_E_BAD_FIELD ? 0
				: failf(why, whylen, "a reserved managed variable name was not refused");
		return rc == OL_E_UNSUPPORTED || rc == OL_E_BAD_FIELD ? 0
			: failf(why, whylen, "the assembly form wrote a managed name it must refuse");
	}
	return check_one(CUDA_HIP, assembly, in, dir, clang, why, whylen);
}

int wo_check(const struct wo_input *in, const char *dir, const char *clang,
	     char *why, size_t whylen)
{
	return check_form(false, in, dir, clang, why, whylen) ||
	       check_form(true, in, dir, clang, why, whylen);
}
