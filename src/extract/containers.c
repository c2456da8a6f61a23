#include "extract/containers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/le.h"
#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"
#include "format/bundle.h"
#include "format/bundle_id.h"
#include "format/bundle_seq.h"
#include "format/ccob.h"
#include "format/compress.h"
#include "format/cuda_fatbin.h"
#include "format/offload_binary.h"
#include "format/spirv_container.h"

/* A scan in progress: where, whom to tell, and what it may still cost
 * (containers.h). */
struct scan {
	const char *file, *member;
	bool linked;
	ol_contained_cb cb;
	void *ctx;
	unsigned depth;     /* containers opened around this one */
	struct ol_scan_budget *budget;
	uint64_t *room;     /* bytes containers may still take in the enclosing one */
};

/* (a bundle entry may point at the bundle itself: nesting is bounded) */
#define NESTING_MAX 8

void ol_scan_budget_init(struct ol_scan_budget *b, size_t len)
{
	b->inflate = ol_inflate_max(len);
}

/* n more bytes to inflate at path, taken from the input's budget. */
static enum ol_err spend_inflation(const struct scan *s, const char *path, uint64_t n,
				   struct ol_diag *d)
{
	if (n <= s->budget->inflate) {
		s->budget->inflate -= n;
		return OL_OK;
	}
	return ol_diag_set(d, OL_E_BAD_FIELD, NULL,
			   "%s: %llu bytes to inflate, and the input may inflate only %llu more "
			   "(%u times its size, plus %u bytes, nested containers included)",
			   path, (unsigned long long)n, (unsigned long long)s->budget->inflate,
			   OL_INFLATE_RATIO, OL_INFLATE_SLACK);
}

/* An entry of n bytes at path takes n of its container's room. */
static enum ol_err take_room(uint64_t *room, const char *path, uint64_t n, struct ol_diag *d)
{
	if (!room || n <= *room) {
		if (room)
			*room -= n;
		return OL_OK;
	}
	return ol_diag_set(d, OL_E_BAD_FIELD, NULL,
			   "%s: an entry of %llu bytes where its container's entries have %llu "
			   "bytes left: entries that share their bytes are not read again and "
			   "again", path, (unsigned long long)n, (unsigned long long)*room);
}

static const char *image_format(const uint8_t *p, size_t n)
{
	if (n == 0)
		return "empty";
	if (ol_is_spirv(p, n))
		return "spirv";
	if (bc_is_bitcode(p, n))
		return "bitcode";
	if (ol_is_elf(p, n))
		return n >= 18 && (p[16] | p[17] << 8) == 1 ? "object" : "elf";
	return "data";
}

static enum ol_err report(const struct scan *s, const char *path, const char *format,
			  const char *producer, const char *triple, const char *arch,
			  const uint8_t *data, size_t size, const char *compression, size_t stored,
			  struct ol_diag *d)
{
	struct ol_contained c = { s->file, s->member, path, format, producer, triple, arch,
				  data, size, compression, stored, s->linked };

	return s->cb(s->ctx, &c, d);
}

static enum ol_err nested(const struct scan *s, const char *path, const uint8_t *p, size_t len,
			  bool *found, struct ol_diag *d);

/* ---- NVIDIA fat binaries ---- */

static enum ol_err fatbin_entry(const struct scan *s, const char *path,
				const struct ol_fatbin_entry *e, struct ol_diag *d)
{
	struct ol_buf out = { 0 };
	const uint8_t *code;
	size_t len;
	char kind[16], arch[32];
	const char *format = e->kind == OL_FATBIN_ELF ? "cubin"
			     : ol_fatbin_kind_name(e->kind, kind, sizeof(kind));
	enum ol_err rc;

	ol_fatbin_arch_name(e, arch, sizeof(arch));
	if (ol_fatbin_compression(e) && spend_inflation(s, path, e->size, d))
		return d->code;
	if (ol_fatbin_entry_code(e, &out, &code, &len, d)) {
		ol_diag_prefix(d, "%s", path);
		ol_buf_free(&out);
		return d->code;
	}
	rc = report(s, path, format, "cuda", "nvptx64-nvidia-cuda", arch, code, len,
		    ol_fatbin_compression(e), e->stored, d);
	ol_buf_free(&out);
	return rc;
}

static enum ol_err fatbins(const struct scan *s, const char *where, const uint8_t *p,
			   size_t len, struct ol_diag *d)
{
	struct ol_span *v = NULL;
	size_t n = 0;
	enum ol_err rc = OL_OK;

	if (ol_fatbin_spans(p, len, &v, &n, d)) {
		ol_diag_prefix(d, "%s", where);
		return d->code;
	}
	for (size_t k = 0; k < n && !rc; k++) {
		struct ol_fatbin f;

		if ((rc = ol_fatbin_decode(p + v[k].offset, len - v[k].offset, &f, d)))
			break;
		for (size_t i = 0; i < f.n && !rc; i++) {
			char *path = NULL;

			if (asprintf(&path, "%s > fat binary %zu > entry %zu", where, k, i) < 0)
				rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			else
				rc = fatbin_entry(s, path, &f.v[i], d);
			free(path);
		}
		ol_fatbin_free(&f);
	}
	free(v);
	return rc;
}

/* ---- bundles ---- */

/* One bundle entry: its ID says the producer, triple and arch; an entry
 * that is itself a container is opened. */
static enum ol_err bundle_entry(const struct scan *s, const char *where,
				const struct ol_bundle_entry *e, const char *compression,
				size_t stored, struct ol_diag *d)
{
	struct ol_bundle_id id;
	struct ol_diag ignore;
	char *path = NULL, triple[200] = "";
	const char *producer = "";
	bool found = false;
	enum ol_err rc;

	ol_diag_clear(&ignore);
	/* (the host's part of a HIP bundle is empty: no device image) */
	if (e->size == 0 && e->id_len >= 5 && !memcmp(e->id, "host-", 5))
		return OL_OK;
	if (asprintf(&path, "%s > entry %.*s", where, (int)e->id_len, e->id) < 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (take_room(s->room, path, e->size, d)) {
		free(path);
		return d->code;
	}
	if (ol_bundle_id_parse(e->id, e->id_len, &id, &ignore) == OL_OK) {
		producer = !strcmp(id.kind, "hipv4") ? "hip" : id.kind;
		snprintf(triple, sizeof(triple), "%s-%s-%s%s%s", id.arch, id.vendor, id.os,
			 id.env[0] ? "-" : "", id.env);
	}
	if (!(rc = nested(s, path, e->data, (size_t)e->size, &found, d)) && !found)
		rc = report(s, path, image_format(e->data, (size_t)e->size), producer, triple,
			    ignore.code ? "" : id.target_id, e->data, (size_t)e->size, compression,
			    stored, d);
	free(path);
	return rc;
}

static enum ol_err one_bundle(const struct scan *parent, const char *where, const uint8_t *p,
			      size_t len, struct ol_diag *d)
{
	struct scan inner = *parent, *s = &inner;
	struct ol_buf inflated = { 0 };
	struct ol_ccob_info info;
	struct ol_bundle b;
	char compression[32] = "";
	uint64_t room;
	enum ol_err rc = OL_OK;

	if (ol_is_ccob(p, len)) {
		/* (its size from its header, against the input's budget, before
		 * anything is inflated) */
		if (ol_ccob_header(p, len, &info, d)) {
			ol_diag_prefix(d, "%s", where);
			return d->code;
		}
		if (spend_inflation(s, where, info.uncompressed_size, d))
			return d->code;
		if (ol_ccob_decode(p, len, &inflated, &info, d)) {
			ol_diag_prefix(d, "%s", where);
			ol_buf_free(&inflated);
			return d->code;
		}
		snprintf(compression, sizeof(compression), "ccob v%u %s", info.version,
			 info.method == 1 ? "zstd" : "zlib");
		p = inflated.data;
		len = inflated.len;
	}
	if (ol_bundle_decode_binary(p, len, &b, d)) {
		ol_diag_prefix(d, "%s", where);
		ol_buf_free(&inflated);
		return d->code;
	}
	/* (the containers in its entries take at most its bytes) */
	room = len;
	inner.room = &room;
	for (size_t i = 0; i < b.n && !rc; i++)
		rc = bundle_entry(s, where, &b.entries[i], compression[0] ? compression : NULL,
				  compression[0] ? (size_t)info.compressed_size : (size_t)b.entries[i].size,
				  d);
	ol_bundle_free(&b);
	ol_buf_free(&inflated);
	return rc;
}

static enum ol_err bundles(const struct scan *s, const char *where, const uint8_t *p,
			   size_t len, struct ol_diag *d)
{
	struct ol_span *v = NULL;
	size_t n = 0;
	enum ol_err rc = OL_OK;

	if (ol_bundle_spans(p, len, &v, &n, d)) {
		ol_diag_prefix(d, "%s", where);
		return d->code;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		char *path = NULL;

		if (asprintf(&path, n > 1 ? "%s > bundle %zu" : "%s", where, i) < 0)
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		else
			rc = one_bundle(s, path, p + v[i].offset, v[i].size, d);
		free(path);
	}
	free(v);
	return rc;
}

/* ---- offload binaries inside an image ---- */

/* LLVM 23 registers a SPIR-V module as the image of an offload binary
 * that is itself the registered image: each binary at p[0..len), each of
 * its entries reported (or opened, when it is a container again). */
static enum ol_err one_binary_entry(const struct scan *s, const char *where, size_t k,
				    const struct ob_entry *e, const char *compression,
				    size_t stored, uint64_t *room, struct ol_diag *d)
{
	struct scan inner = *s;
	const char *triple = ob_entry_get(e, "triple"), *arch = ob_entry_get(e, "arch");
	char *path = NULL;
	bool found = false;
	enum ol_err rc;

	inner.room = room;
	if (asprintf(&path, "%s > image %zu", where, k) < 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (take_room(room, path, e->image_size, d)) {
		free(path);
		return d->code;
	}
	if (!(rc = nested(&inner, path, e->image, (size_t)e->image_size, &found, d)) && !found)
		rc = report(&inner, path, image_format(e->image, (size_t)e->image_size),
			    ob_offload_kind_name(e->offload_kind), triple ? triple : "",
			    arch ? arch : "", e->image, (size_t)e->image_size, compression,
			    stored, d);
	free(path);
	return rc;
}

static enum ol_err binaries(const struct scan *s, const char *where, const uint8_t *p,
			    size_t len, struct ol_diag *d)
{
	struct ob_walk w;
	struct ob_binary b;
	bool have;
	enum ol_err rc = OL_OK;

	ob_walk_init(&w, p, len);
	for (size_t i = 0; !rc; i++) {
		char *path = NULL;
		uint64_t room;

		/* (a compressed binary inflates against the input's budget) */
		if (w.off <= len && len - w.off >= OB_HEADER_SIZE_V3 && ol_le32(p + w.off + 4) == 3 &&
		    spend_inflation(s, where, ol_le64(p + w.off + 32), d))
			return d->code;
		if (ob_walk_next(&w, &b, &have, d)) {
			ol_diag_prefix(d, "%s", where);
			return d->code;
		}
		if (!have)
			break;
		room = b.nbytes;
		if (asprintf(&path, "%s > offload binary %zu", where, i) < 0)
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		for (size_t k = 0; !rc && k < b.nentries; k++)
			rc = one_binary_entry(s, path, k, &b.entries[k],
					      b.inflated_size ? ol_compression_name(b.compression) : NULL,
					      (size_t)b.size, &room, d);
		free(path);
		ob_binary_free(&b);
	}
	return rc;
}

/* ---- nesting ---- */

static enum ol_err nested(const struct scan *parent, const char *path, const uint8_t *p,
			  size_t len, bool *found, struct ol_diag *d)
{
	struct scan inner = *parent, *s = &inner;

	*found = true;
	if (++inner.depth > NESTING_MAX && ol_is_raw_container(p, len))
		return ol_diag_set(d, OL_E_BAD_FIELD, NULL,
				   "%s: containers nested more than %d deep", path, NESTING_MAX);
	if (ol_is_fatbin(p, len))
		return fatbins(s, path, p, len, d);
	if (ol_is_binary_bundle(p, len) || ol_is_ccob(p, len))
		return bundles(s, path, p, len, d);
	if (ob_is_offload_binary(p, len)) {
		if (inner.depth > NESTING_MAX)
			return ol_diag_set(d, OL_E_BAD_FIELD, NULL,
					   "%s: containers nested more than %d deep", path, NESTING_MAX);
		return binaries(s, path, p, len, d);
	}
	if (ol_is_spirv_container(p, len)) {
		struct ol_spirv_container c;
		const char *field, *bad = ol_spirv_container_read(p, len, &c, &field);
		char *sub = NULL;
		enum ol_err rc;

		if (bad)
			return ol_diag_set(d, OL_E_BAD_FIELD, field, "%s: %s", path, bad);
		if (asprintf(&sub, "%s > Intel container", path) < 0)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		rc = report(s, sub, "spirv", "openmp", "spirv64-intel", "", p + c.module_offset,
			    (size_t)c.module_size, NULL, (size_t)c.module_size, d);
		free(sub);
		return rc;
	}
	*found = false;
	return OL_OK;
}

enum ol_err ol_scan_nested(const char *file, const char *member, const char *path, bool linked,
			   const uint8_t *p, size_t len, struct ol_scan_budget *budget,
			   uint64_t *room, ol_contained_cb cb, void *ctx, bool *found,
			   struct ol_diag *d)
{
	struct ol_scan_budget own;
	struct scan s = { file, member, linked, cb, ctx, 0, budget, room };

	if (!budget) {
		ol_scan_budget_init(&own, len);
		s.budget = &own;
	}
	if (take_room(room, path, len, d))
		return d->code;
	return nested(&s, path, p, len, found, d);
}

bool ol_is_raw_container(const uint8_t *p, size_t len)
{
	return ol_is_fatbin(p, len) || ol_is_binary_bundle(p, len) || ol_is_ccob(p, len);
}

/* ---- ELF sections, archives ---- */

static enum ol_err on_section(void *ctx, const struct ol_elf_section *sec, struct ol_diag *d)
{
	const struct scan *parent = ctx;
	struct scan s = *parent;
	char *where = NULL;
	enum ol_err rc = OL_OK;
	bool fatbin = !strcmp(sec->name, ".nv_fatbin") || !strcmp(sec->name, "__nv_relfatbin");
	bool bundle = !strcmp(sec->name, ".hip_fatbin");
	bool old = !strncmp(sec->name, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_LEN);

	if ((!fatbin && !bundle && !old) || !sec->data || !sec->size)
		return OL_OK;
	/* (nvcc's relocatable code is allocated too, but not linked yet) */
	s.linked = (sec->shdr.sh_flags & SHF_ALLOC) != 0 && strcmp(sec->name, "__nv_relfatbin");
	if (asprintf(&where, "section %s", sec->name) < 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	/* (sections may share their bytes too: the file's room; an old
	 * bundle's section is an entry, counted as one) */
	if ((fatbin || bundle) && take_room(s.room, where, sec->size, d)) {
		free(where);
		return d->code;
	}
	if (fatbin)
		rc = fatbins(&s, where, sec->data, sec->size, d);
	else if (bundle)
		rc = bundles(&s, where, sec->data, sec->size, d);
	else { /* one entry of an old-driver bundle: its ID is the name's rest */
		struct ol_bundle_entry e = { sec->name + OL_BUNDLE_MAGIC_LEN,
					     strlen(sec->name + OL_BUNDLE_MAGIC_LEN), sec->data, sec->size };
		/* (the host's own section holds one zero byte: the object itself) */
		if (!(e.size == 1 && e.data[0] == 0))
			rc = bundle_entry(&s, "bundle sections", &e, NULL, sec->size, d);
	}
	free(where);
	return rc;
}

static enum ol_err on_member(void *ctx, const struct ol_ar_member *m, struct ol_diag *d)
{
	const struct scan *s = ctx;
	char *name = strdup(m->name);
	enum ol_err rc;

	if (!name)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	/* (archives in archives are not read, as the linkers do not) */
	rc = ol_is_elf(m->data, m->size) || ol_is_raw_container(m->data, m->size)
		? ol_scan_containers(s->file, name, m->data, m->size, s->budget, s->cb, s->ctx, d)
		: OL_OK;
	free(name);
	return rc;
}

enum ol_err ol_scan_containers(const char *file, const char *member, uint8_t *p, size_t len,
			       struct ol_scan_budget *budget, ol_contained_cb cb, void *ctx,
			       struct ol_diag *d)
{
	struct ol_scan_budget own;
	struct scan s = { file, member, false, cb, ctx, 0, budget, NULL };
	enum ol_err rc;

	if (!budget) {
		ol_scan_budget_init(&own, len);
		s.budget = &own;
	}
	if (ol_is_elf(p, len)) {
		uint64_t room = len;
		struct ol_elf e;

		s.room = &room;

		if (ol_elf_open(&e, p, len, d))
			goto located;
		rc = ol_elf_for_each_section(&e, on_section, &s, d);
		ol_elf_close(&e);
		if (rc)
			goto located;
		return OL_OK;
	}
	if (ol_is_archive(p, len) && !member) {
		if (ol_archive_for_each(file, p, len, on_member, &s, NULL, d))
			goto located;
		return OL_OK;
	}
	if (ol_is_raw_container(p, len)) {
		bool found;

		if (nested(&s, "file", p, len, &found, d))
			goto located;
		return OL_OK;
	}
	ol_diag_set(d, OL_E_UNRECOGNIZED, NULL, NULL);
located:
	if (!d->file[0])
		ol_diag_locate(d, file, member, 0);
	return d->code;
}
