#include "extract/offload_scan.h"

#include <string.h>

#include "extract/archive_reader.h"
#include "extract/containers.h"
#include "extract/elf_file.h"

enum ol_input_kind ol_input_kind_of(const uint8_t *p, size_t len)
{
	if (ob_is_offload_binary(p, len))
		return OL_INPUT_OFFLOAD_BINARY;
	if (ol_is_elf(p, len))
		return OL_INPUT_ELF;
	if (ol_is_archive(p, len))
		return OL_INPUT_ARCHIVE;
	if (len >= 4 && ((p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 &&
			  p[3] == 0xde) ||
			 (p[0] == 0xde && p[1] == 0xc0 && p[2] == 0x17 &&
			  p[3] == 0x0b)))
		return OL_INPUT_BITCODE;
	return OL_INPUT_OTHER;
}

enum ol_err ol_scan_binaries(const struct ol_origin *where, const uint8_t *p,
			     size_t len, ol_binary_cb cb, void *ctx,
			     struct ol_diag *d)
{
	struct ob_walk w;
	struct ob_binary b;
	bool have;

	ob_walk_init(&w, p, len);
	for (;;) {
		struct ol_origin o = *where;
		size_t at = w.off;

		if (ob_walk_next(&w, &b, &have, d)) {
			ol_diag_locate(d, where->file, where->member, where->offset);
			if (where->section)
				ol_diag_prefix(d, "in section %s", where->section);
			return d->code;
		}
		if (!have)
			return OL_OK;
		o.offset = where->offset + at;
		if (cb(ctx, &o, &b, d)) {
			ob_binary_free(&b);
			return d->code;
		}
		ob_binary_free(&b);
	}
}

struct elf_scan {
	const char *file, *member;
	ol_binary_cb cb;
	void *ctx;
};

static enum ol_err on_section(void *ctx, const struct ol_elf_section *s,
			      struct ol_diag *d)
{
	struct elf_scan *es = ctx;
	struct ol_origin o = {
		.file = es->file, .member = es->member, .section = s->name,
		.offset = s->shdr.sh_offset,
		.final = (s->shdr.sh_flags & SHF_ALLOC) != 0,
	};

	if (!ol_elf_is_offload_section(s))
		return OL_OK;
	return ol_scan_binaries(&o, s->data, s->size, es->cb, es->ctx, d);
}

enum ol_err ol_scan_elf(const char *file, const char *member, uint8_t *p,
			size_t len, ol_binary_cb cb, void *ctx,
			struct ol_diag *d)
{
	struct elf_scan es = { file, member, cb, ctx };
	struct ol_elf e;
	enum ol_err rc;

	if (ol_elf_open(&e, p, len, d)) {
		ol_diag_locate(d, file, member, 0);
		return d->code;
	}
	rc = ol_elf_for_each_section(&e, on_section, &es, d);
	ol_elf_close(&e);
	if (rc)
		ol_diag_locate(d, file, member, 0);
	return rc;
}

struct ar_scan {
	const char *file;
	unsigned flags;
	ol_binary_cb cb;
	void *ctx;
};

static enum ol_err on_member(void *ctx, const struct ol_ar_member *m,
			     struct ol_diag *d)
{
	struct ar_scan *as = ctx;

	return ol_scan_offload(as->file, m->name, m->data, m->size, as->flags,
			       as->cb, as->ctx, NULL, d);
}

static enum ol_err ignore_symbol(void *ctx, const char *name, uint64_t off,
				 struct ol_diag *d)
{
	(void)ctx;
	(void)name;
	(void)off;
	(void)d;
	return OL_OK;
}

/* Host bitcode (LTO objects) keeps embedded offload binaries in IR
 * metadata, which offlink does not parse; say so rather than silently
 * linking a program without its device code. */
static enum ol_err check_bitcode(const char *file, const char *member,
				 const uint8_t *p, size_t len, struct ol_diag *d)
{
	static const char needle[] = ".llvm.offloading";

	if (!memmem(p, len, needle, sizeof(needle) - 1))
		return OL_OK;
	ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
		    "LLVM bitcode with embedded offload code (host LTO) is not supported; "
		    "compile the host side without -flto");
	ol_diag_locate(d, file, member, 0);
	return d->code;
}

enum ol_err ol_scan_offload(const char *file, const char *member, uint8_t *p,
			    size_t len, unsigned flags, ol_binary_cb cb,
			    void *ctx, struct ol_ar_keep *keep, struct ol_diag *d)
{
	struct ol_origin raw = { .file = file, .member = member };
	struct ar_scan as = { file, flags, cb, ctx };
	bool has_index;

	switch (ol_input_kind_of(p, len)) {
	case OL_INPUT_OFFLOAD_BINARY:
		return ol_scan_binaries(&raw, p, len, cb, ctx, d);
	case OL_INPUT_ELF:
		return ol_scan_elf(file, member, p, len, cb, ctx, d);
	case OL_INPUT_ARCHIVE:
		if (member) /* an archive inside an archive */
			return OL_OK;
		/* The index is read too, though nothing here needs it: an
		 * archive whose index is corrupt is malformed (ld says so). */
		if (ol_archive_for_each_symbol(p, len, ignore_symbol, NULL, &has_index, d) ||
		    ol_archive_for_each(file, p, len, on_member, &as, keep, d)) {
			ol_diag_locate(d, file, NULL, 0);
			return d->code;
		}
		return OL_OK;
	case OL_INPUT_BITCODE:
		return check_bitcode(file, member, p, len, d);
	case OL_INPUT_OTHER:
		break;
	}
	if (!(flags & OL_SCAN_STRICT) ||
	    ((flags & OL_SCAN_CONTAINERS) && ol_is_raw_container(p, len)))
		return OL_OK;
	ol_diag_set(d, OL_E_UNRECOGNIZED, NULL, NULL);
	ol_diag_locate(d, file, member, 0);
	return d->code;
}
