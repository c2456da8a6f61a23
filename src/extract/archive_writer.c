#include "extract/archive_writer.h"

#include <archive.h>
#include <archive_entry.h>

#include <string.h>

#include <stdint.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/strvec.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"
#include "os/outfile.h"

static enum ol_err write_fail(struct archive *a, const char *dest,
			      struct ol_diag *d)
{
	const char *msg = archive_error_string(a);

	ol_diag_set(d, OL_E_IO, NULL, "cannot write archive: %s",
		    msg ? msg : "unknown libarchive error");
	ol_diag_locate(d, dest, NULL, 0);
	return d->code;
}

static int add_member(struct archive *a, const char *name, const uint8_t *data,
		      size_t size)
{
	struct archive_entry *e = archive_entry_new();
	int rc;

	if (!e)
		return ARCHIVE_FATAL;
	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	rc = archive_write_header(a, e);
	if (rc >= ARCHIVE_WARN && size > 0 &&
	    archive_write_data(a, data, size) != (la_ssize_t)size)
		rc = ARCHIVE_FATAL;
	archive_entry_free(e);
	return rc;
}

/* The GNU symbol index: every defined global of the ELF members, with the
 * offset of the member's header.  Offsets follow the layout libarchive
 * writes: magic, "/", "//" (if any), then each member, every member's
 * header 60 bytes and its data padded to an even size. */
struct armap {
	struct ol_strvec names;
	uint64_t *member_of; /* index of the member defining names.v[i] */
	size_t cap;
	size_t member;
};

static enum ol_err armap_add(void *ctx, const struct ol_elf_symbol *s,
			     struct ol_diag *d)
{
	struct armap *m = ctx;
	uint64_t *member_of;

	if (!s->defined || s->type == STT_FILE || s->type == STT_SECTION)
		return OL_OK;
	member_of = ol_grow(m->member_of, m->names.n, &m->cap, sizeof(*member_of), 64);
	if (!member_of)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	m->member_of = member_of;
	m->member_of[m->names.n] = m->member;
	if (ol_strvec_push(&m->names, s->name))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

static enum ol_err armap_add_bitcode(void *ctx, const struct bc_symbol *s,
				     struct ol_diag *d)
{
	struct armap *m = ctx;
	struct ol_elf_symbol e = { 0 };
	char name[4096];

	if (s->undefined || !s->global || s->format_specific ||
	    s->len >= sizeof(name))
		return OL_OK;
	memcpy(name, s->name, s->len);
	name[s->len] = '\0';
	e.name = name;
	e.defined = true;
	return armap_add(m, &e, d);
}

static enum ol_err collect_symbols(const struct ol_ar_out_member *m, size_t n,
				   struct armap *map, struct ol_diag *d)
{
	for (size_t i = 0; i < n; i++) {
		struct ol_elf e;
		enum ol_err rc;

		map->member = i;
		if (bc_is_bitcode(m[i].data, m[i].size)) {
			/* Bitcode members (device code for LTO) are indexed from
			 * their symbol table, as llvm-ar does. */
			rc = bc_for_each_symbol(m[i].data, m[i].size,
						armap_add_bitcode, map, d);
			if (rc == OL_E_UNSUPPORTED || rc == OL_E_BAD_BITCODE) {
				ol_diag_clear(d); /* no table: no index entries */
				rc = OL_OK;
			}
			if (rc)
				return rc;
			continue;
		}
		if (!ol_is_elf(m[i].data, m[i].size))
			continue;
		/* libelf wants a writable pointer; it does not write to it. */
		if (ol_elf_open(&e, (uint8_t *)(uintptr_t)m[i].data, m[i].size, d)) {
			ol_diag_locate(d, NULL, m[i].name, 0);
			return d->code;
		}
		rc = ol_elf_for_each_global(&e, false, armap_add, map, d);
		ol_elf_close(&e);
		if (rc) {
			ol_diag_locate(d, NULL, m[i].name, 0);
			return rc;
		}
	}
	return OL_OK;
}

static uint64_t padded(uint64_t n)
{
	return n + (n & 1);
}

static enum ol_err encode_armap(const struct armap *map,
				const struct ol_ar_out_member *m, size_t n,
				size_t strtab_len, struct ol_buf *out)
{
	uint64_t names = 0, at;
	uint64_t *offsets = calloc(n ? n : 1, sizeof(*offsets));
	enum ol_err rc = OL_OK;

	if (!offsets)
		return OL_E_NOMEM;
	for (size_t i = 0; i < map->names.n; i++)
		names += strlen(map->names.v[i]) + 1;
	at = 8 + 60 + padded(4 + 4 * map->names.n + names);
	if (strtab_len)
		at += 60 + padded(strtab_len);
	for (size_t i = 0; i < n; i++) {
		offsets[i] = at;
		at += 60 + padded(m[i].size);
	}
	if (at > UINT32_MAX) {
		free(offsets);
		return OL_E_UNSUPPORTED;
	}
	rc |= ol_buf_le32(out, 0); /* placeholder, fixed below */
	for (size_t i = 0; i < map->names.n; i++) {
		uint8_t be[4];
		uint32_t v = (uint32_t)offsets[map->member_of[i]];

		be[0] = (uint8_t)(v >> 24);
		be[1] = (uint8_t)(v >> 16);
		be[2] = (uint8_t)(v >> 8);
		be[3] = (uint8_t)v;
		rc |= ol_buf_append(out, be, 4);
	}
	for (size_t i = 0; i < map->names.n; i++)
		rc |= ol_buf_append(out, map->names.v[i], strlen(map->names.v[i]) + 1);
	if (!rc) {
		uint32_t c = (uint32_t)map->names.n;

		out->data[0] = (uint8_t)(c >> 24);
		out->data[1] = (uint8_t)(c >> 16);
		out->data[2] = (uint8_t)(c >> 8);
		out->data[3] = (uint8_t)c;
	}
	free(offsets);
	return rc ? OL_E_NOMEM : OL_OK;
}

/* GNU archives keep names longer than 15 bytes in a "//" member, each as
 * "name/\n"; libarchive needs that table written before the members that
 * refer to it. */
static enum ol_err long_name_table(const struct ol_ar_out_member *m, size_t n,
				   struct ol_buf *tab)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(m[i].name) > 15 &&
		    ol_buf_printf(tab, "%s/\n", m[i].name))
			return OL_E_NOMEM;
	return OL_OK;
}

static enum ol_err write_members(struct archive *a, const char *dest,
				 const struct ol_ar_out_member *m, size_t n,
				 bool symbol_table, struct ol_diag *d)
{
	struct ol_buf tab = { 0 }, index = { 0 };
	struct armap map = { 0 };
	enum ol_err rc = OL_OK;

	if (long_name_table(m, n, &tab))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (symbol_table) {
		if (collect_symbols(m, n, &map, d))
			goto out;
		if (encode_armap(&map, m, n, tab.len, &index)) {
			ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				    "archive symbol index larger than 4 GiB");
			goto out;
		}
		if (add_member(a, "/", index.data, index.len) < ARCHIVE_WARN)
			goto fail;
	}
	if (tab.len && add_member(a, "//", tab.data, tab.len) < ARCHIVE_WARN)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (add_member(a, m[i].name, m[i].data, m[i].size) < ARCHIVE_WARN)
			goto fail;
	if (archive_write_close(a) < ARCHIVE_WARN)
		goto fail;
	goto out;
fail:
	write_fail(a, dest, d);
out:
	rc = d->code;
	ol_strvec_free(&map.names);
	free(map.member_of);
	ol_buf_free(&index);
	ol_buf_free(&tab);
	return rc;
}

enum ol_err ol_archive_write(const char *dest,
			     const struct ol_ar_out_member *members, size_t n,
			     bool symbol_table, struct ol_diag *d)
{
	struct ol_outfile o;
	struct archive *a;
	enum ol_err rc;

	if (n == 0) /* libarchive writes nothing at all for no entries */
		return ol_write_file_atomic(dest, "!<arch>\n", 8, d);
	if (ol_out_open(&o, dest, d))
		return d->code;
	a = archive_write_new();
	if (!a) {
		ol_out_abort(&o);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (archive_write_set_format_ar_svr4(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, o.fd) != ARCHIVE_OK) {
		rc = write_fail(a, dest, d);
		goto out;
	}
	rc = write_members(a, dest, members, n, symbol_table, d);
out:
	archive_write_free(a);
	if (rc) {
		ol_out_abort(&o);
		return rc;
	}
	return ol_out_commit(&o, false, d);
}
