#include "extract/nvcc_rdc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/escape.h"
#include "common/grow.h"
#include "format/cuda_fatbin.h"

void ol_nvcc_note_section(struct ol_nvcc_sections *f, const struct ol_elf_section *s)
{
	/* (copies: the iteration's section record is its own) */
	if (strcmp(s->name, "__nv_module_id") == 0) {
		f->id = *s;
		f->has_id = true;
	} else if (strcmp(s->name, "__nv_relfatbin") == 0) {
		f->fatbin = *s;
		f->has_fatbin = true;
	}
}

static bool is_def(const char *s, size_t n)
{
	return n > 4 && memcmp(s, "def ", 4) == 0;
}

/* The strings of __nv_module_id, each with its NUL inside the section
 * (empty ones, padding, skipped): fn(ctx, s, n, offset) until it returns
 * an error. */
static enum ol_err each_id_string(const struct ol_nvcc_sections *f,
				  enum ol_err (*fn)(void *ctx, const char *s, size_t n,
						    uint64_t offset, struct ol_diag *d),
				  void *ctx, struct ol_diag *d)
{
	const char *p = (const char *)f->id.data;

	for (size_t at = 0; p && at < f->id.size;) {
		size_t n = strnlen(p + at, f->id.size - at);

		if (n == f->id.size - at)
			return ol_diag_at(d, OL_E_UNTERMINATED, f->id.shdr.sh_offset + at,
					  "__nv_module_id", "a string without its NUL");
		if (n && fn(ctx, p + at, n, f->id.shdr.sh_offset + at, d))
			return d->code;
		at += n + 1;
	}
	return OL_OK;
}

struct first_id {
	const char *s;
	size_t n;
	uint64_t offset;
};

static enum ol_err note_first(void *ctx, const char *s, size_t n, uint64_t offset,
			      struct ol_diag *d)
{
	struct first_id *f = ctx;

	(void)d;
	if (!f->s && !is_def(s, n))
		*f = (struct first_id){ s, n, offset };
	return OL_OK;
}

enum ol_err ol_nvcc_module_of(const struct ol_nvcc_sections *f, struct ol_nvcc_module *m,
			      bool *found, struct ol_diag *d)
{
	struct first_id id = { 0 };

	*found = false;
	memset(m, 0, sizeof(*m));
	if (!f->has_fatbin)
		return OL_OK;
	if (!f->has_id || !f->id.data)
		return ol_diag_set(d, OL_E_BAD_ELF, "__nv_module_id",
				   "nvcc relocatable device code (__nv_relfatbin) without its "
				   "module ID");
	/* (the module's own ID; "def <ID>" strings say which modules the
	 * object registers itself: an -r output's) */
	if (each_id_string(f, note_first, &id, d))
		return d->code;
	if (!id.s)
		return ol_diag_at(d, OL_E_BAD_FIELD, f->id.shdr.sh_offset, "__nv_module_id",
				  "no module ID");
	if (id.n >= sizeof(m->id) || !ol_identifier_chars(id.s, id.n))
		return ol_diag_at(d, OL_E_BAD_FIELD, id.offset, "__nv_module_id",
				  "the module ID is not a NUL-terminated identifier of at most %zu "
				  "bytes", sizeof(m->id) - 1);
	memcpy(m->id, id.s, id.n);
	m->id[id.n] = '\0';
	if (!f->fatbin.data)
		return ol_diag_set(d, OL_E_BAD_ELF, "__nv_relfatbin", "the section has no contents");
	m->fatbin = f->fatbin.data;
	m->fatbin_size = f->fatbin.size;
	m->fatbin_offset = f->fatbin.shdr.sh_offset;
	*found = true;
	return OL_OK;
}

struct defs_ctx {
	enum ol_err (*cb)(void *ctx, const char *id, struct ol_diag *d);
	void *ctx;
};

static enum ol_err on_def(void *ctx, const char *s, size_t n, uint64_t offset,
			  struct ol_diag *d)
{
	struct defs_ctx *c = ctx;
	char id[256];

	if (!is_def(s, n))
		return OL_OK;
	if (n - 4 >= sizeof(id) || !ol_identifier_chars(s + 4, n - 4))
		return ol_diag_at(d, OL_E_BAD_FIELD, offset, "__nv_module_id",
				  "\"def\" without a module ID of at most %zu bytes after it",
				  sizeof(id) - 1);
	memcpy(id, s + 4, n - 4);
	id[n - 4] = '\0';
	return c->cb(c->ctx, id, d);
}

enum ol_err ol_nvcc_registered(const struct ol_nvcc_sections *f,
			       enum ol_err (*cb)(void *ctx, const char *id, struct ol_diag *d),
			       void *ctx, struct ol_diag *d)
{
	struct defs_ctx c = { cb, ctx };

	if (!f->has_id || !f->id.data)
		return OL_OK;
	return each_id_string(f, on_def, &c, d);
}

static enum ol_err on_section(void *ctx, const struct ol_elf_section *s, struct ol_diag *d)
{
	(void)d;
	ol_nvcc_note_section(ctx, s);
	return OL_OK;
}

enum ol_err ol_elf_nvcc_module(struct ol_elf *e, struct ol_nvcc_module *m, bool *found,
			       struct ol_diag *d)
{
	struct ol_nvcc_sections f = { 0 };

	*found = false;
	if (e->ehdr.e_type != ET_REL || ol_elf_for_each_section(e, on_section, &f, d))
		return d->code;
	return ol_nvcc_module_of(&f, m, found, d);
}

/* ---- the offload binary ---- */

/* The largest SM an entry may name (sm_120 is today's newest). */
#define SM_MAX 10000

struct piece {
	const uint8_t *data;  /* in the object, or NULL: in the buffer at off */
	size_t off, len;
	unsigned sm;
	unsigned variant;     /* 0, or the SM's suffix: 1 "a", 2 "f" */
	char arch[32];        /* "sm_90", "compute_90", "sm_90a" */
	uint16_t image_kind;
};

static enum ol_err take_entry(const struct ol_fatbin_entry *e, struct ol_buf *buf,
			      struct piece *pc, struct ol_diag *d)
{
	const uint8_t *code;
	size_t base = buf->len, len;
	char kind[16];

	if (e->kind != OL_FATBIN_ELF && e->kind != OL_FATBIN_PTX)
		return ol_diag_at(d, OL_E_UNSUPPORTED, e->offset, "kind",
				  "a %s entry for sm_%u: offlink links nvcc's cubins and PTX "
				  "(nvcc -dlto's LTO IR is for nvlink's own LTO)",
				  ol_fatbin_kind_name(e->kind, kind, sizeof(kind)), e->arch);
	if (e->arch == 0 || e->arch > SM_MAX)
		return ol_diag_at(d, OL_E_BAD_FIELD, e->offset + 28, "arch", "sm_%u", e->arch);
	if (ol_fatbin_entry_code(e, buf, &code, &len, d))
		return d->code;
	*pc = (struct piece){ buf->len > base ? NULL : code, base, len, e->arch,
			      e->flags & OL_FATBIN_FLAG_ARCH_SPECIFIC ? 1
			      : e->flags & OL_FATBIN_FLAG_FAMILY ? 2 : 0,
			      "", e->kind == OL_FATBIN_ELF ? OB_IMG_CUBIN : OB_IMG_PTX };
	ol_fatbin_arch_name(e, pc->arch, sizeof(pc->arch));
	return OL_OK;
}

enum ol_err ol_nvcc_binary(const struct ol_nvcc_module *m, struct ob_binary *b,
			   struct ol_diag *d)
{
	struct ol_fatbin fb = { 0 };
	struct ol_buf buf = { 0 };
	struct piece *pcs = NULL;
	struct ol_span *spans = NULL;
	size_t nfb = 0, np = 0, cap = 0, strings_at;
	enum ol_err rc = OL_OK;

	memset(b, 0, sizeof(*b));
	/* (one fat binary; several, back to back, are read as well) */
	if (ol_fatbin_spans(m->fatbin, m->fatbin_size, &spans, &nfb, d))
		return d->code;
	if (!nfb) {
		free(spans);
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "__nv_relfatbin", "not a fat binary");
	}
	for (size_t k = 0; k < nfb && !rc; k++) {
		size_t at = spans[k].offset;

		if ((rc = ol_fatbin_decode(m->fatbin + at, m->fatbin_size - at, &fb, d)))
			break;
		for (size_t i = 0; i < fb.n && !rc; i++) {
			struct piece *grown = ol_grow(pcs, np, &cap, sizeof(*pcs), 4);

			if (!grown)
				rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			else if (!(rc = take_entry(&fb.v[i], &buf, &(pcs = grown)[np], d)))
				np++;
			if (rc && d->has_offset)
				d->offset += at;
		}
		ol_fatbin_free(&fb);
	}
	free(spans);
	if (rc)
		goto out;
	/* One cubin per SM and one PTX per virtual architecture, a suffix
	 * making another (sm_90 and sm_90a are two; nvcc writes one of each;
	 * a second is the same code again, and the first is taken): marked
	 * once each (take_entry bounds an SM by SM_MAX), so
	 * this is linear in the entries, however many a file declares, and a
	 * module has at most two images an SM.  PTX beside a cubin of the
	 * same SM stays: it is what a newer GPU's link compiles
	 * (ol_nvcc_archs chooses). */
	uint8_t seen[2][3][SM_MAX / 8 + 1] = { { { 0 } } };
	size_t kept = 0;

	for (size_t i = 0; i < np; i++) {
		unsigned sm = pcs[i].sm;
		uint8_t *mark = seen[pcs[i].image_kind == OB_IMG_PTX][pcs[i].variant];

		if (mark[sm / 8] & (1u << sm % 8))
			continue;
		mark[sm / 8] |= (uint8_t)(1u << sm % 8);
		pcs[kept++] = pcs[i];
	}
	np = kept;
	/* the strings, after the code in the same buffer */
	strings_at = buf.len;
	for (size_t i = 0; i < np; i++)
		rc |= ol_buf_printf(&buf, "triple%cnvptx64-nvidia-cuda%carch%c%s%c%s%c%s%c", 0, 0, 0,
				    pcs[i].arch, 0, OL_NVCC_MODULE_KEY, 0, m->id, 0);
	if (rc || !(b->entries = calloc(np ? np : 1, sizeof(*b->entries)))) {
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto out;
	}
	for (size_t i = 0, at = strings_at; i < np; i++) {
		struct ob_entry *e = &b->entries[i];
		const char *s = (const char *)buf.data + at;

		if (!(e->strings = calloc(3, sizeof(*e->strings)))) {
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			goto out;
		}
		b->nentries++;
		for (size_t k = 0; k < 3; k++) {
			e->strings[k].key = s;
			s += strlen(s) + 1;
			e->strings[k].value = s;
			e->strings[k].value_len = strlen(s);
			s += strlen(s) + 1;
		}
		e->nstrings = 3;
		at = (size_t)(s - (const char *)buf.data);
		e->image_kind = pcs[i].image_kind;
		e->offload_kind = OB_OFK_CUDA;
		e->offload_kind_raw = 2;
		e->image = pcs[i].data ? pcs[i].data : buf.data + pcs[i].off;
		e->image_size = pcs[i].len;
	}
	b->version = 1;
	b->size = m->fatbin_size;
	b->owned = buf.data;
	buf.data = NULL;
out:
	free(pcs);
	ol_buf_free(&buf);
	if (rc)
		ob_binary_free(b);
	return rc;
}
