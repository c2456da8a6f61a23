#include "format/bitcode_symtab.h"

#include <string.h>

#include "common/le.h"
#include "format/bitstream.h"

enum {
	BLOCK_STRTAB = 23,
	BLOCK_SYMTAB = 25,
	RECORD_BLOB = 1, /* STRTAB_BLOB and SYMTAB_BLOB */
	HEADER_WORDS = 19, /* Version + 9 two-word fields */
	SYMBOL_SIZE = 24,
};

/* The two table versions differ only in the Uncommon record: version 3
 * (LLVM up to 22) stores CommonSize in one word, version 4 (LLVM 23 on)
 * in two, so each record grows from 24 to 28 bytes and its section name,
 * the last of its two strings, moves from offset 16 to 20.  Headers and
 * symbols are the same. */
struct symtab_layout {
	uint32_t version;
	uint32_t uncommon_size;
	uint32_t section_at; /* the section name's {offset, size} */
};

static const struct symtab_layout layouts[] = {
	{ 3, 24, 16 },
	{ 4, 28, 20 },
};

static const struct symtab_layout *layout_of(uint32_t version)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == version)
			return &layouts[i];
	return NULL;
}

/* Inside a STRTAB or SYMTAB block: find its blob record. */
static void read_blob_block(struct bc_bits *b, unsigned width, struct bc_blob *out)
{
	struct bc_abbrev abbrevs[BC_MAX_ABBREVS];
	unsigned nabbrevs = 0;

	while (!b->bad) {
		uint64_t id = bc_read(b, width);

		if (id == BC_END_BLOCK) {
			bc_align32(b);
			return;
		}
		if (id == BC_DEFINE_ABBREV) {
			if (nabbrevs == BC_MAX_ABBREVS) {
				b->bad = true;
				return;
			}
			bc_define_abbrev(b, &abbrevs[nabbrevs++]);
		} else if (id == BC_UNABBREV_RECORD) {
			size_t n;

			bc_read_unabbrev(b, NULL, 0, &n);
		} else if (id >= 4 && id - 4 < nabbrevs) {
			uint64_t code = 0;
			struct bc_blob blob = { NULL, 0 };

			bc_read_record(b, &abbrevs[id - 4], &code, &blob);
			if (code == RECORD_BLOB && blob.p)
				*out = blob;
		} else {
			/* Nested blocks do not occur in these two. */
			b->bad = true;
		}
	}
}

static enum ol_err find_blobs(const uint8_t *p, size_t len, struct bc_blob *symtab,
			      struct bc_blob *strtab, struct ol_diag *d)
{
	struct bc_bits b = { p, len * 8, 32, false };

	while (!b.bad && b.nbits - b.pos >= 32) {
		uint64_t id = bc_read(&b, 2);
		struct bc_block blk;

		if (id == BC_END_BLOCK) /* zero padding at the end */
			break;
		if (id != BC_ENTER_SUBBLOCK)
			return ol_diag_at(d, OL_E_BAD_BITCODE, (b.pos - 2) / 8, NULL,
					  "expected a top-level block");
		if (!bc_enter_block(&b, &blk))
			return ol_diag_at(d, OL_E_BAD_BITCODE, b.pos / 8, NULL,
					  "block %llu runs past the end",
					  (unsigned long long)blk.id);
		if (blk.id == BLOCK_SYMTAB)
			read_blob_block(&b, blk.width, symtab);
		else if (blk.id == BLOCK_STRTAB)
			read_blob_block(&b, blk.width, strtab);
		b.pos = blk.end;
	}
	if (b.bad)
		return ol_diag_set(d, OL_E_BAD_BITCODE, NULL, "malformed bitstream");
	return OL_OK;
}

bool bc_is_bitcode(const uint8_t *p, size_t len)
{
	return len >= 4 && ((p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 && p[3] == 0xde) ||
			    ol_le32(p) == 0x0b17c0de);
}

/* The section name of the k-th symbol with uncommon data, or none. */
static void uncommon_section(const struct bc_blob *sym, const struct bc_blob *str,
			     const struct symtab_layout *lay, uint32_t k, struct bc_symbol *out)
{
	uint32_t uoff = ol_le32(sym->p + 36), ucount = ol_le32(sym->p + 40);
	const uint8_t *u;
	uint32_t soff, slen;

	if (k >= ucount || uoff > sym->len || ucount > (sym->len - uoff) / lay->uncommon_size)
		return;
	u = sym->p + uoff + (size_t)k * lay->uncommon_size;
	soff = ol_le32(u + lay->section_at);
	slen = ol_le32(u + lay->section_at + 4);
	if (soff <= str->len && slen <= str->len - soff) {
		out->section = (const char *)str->p + soff;
		out->section_len = slen;
	}
}

static enum ol_err walk_symbols(const struct bc_blob *sym, const struct bc_blob *str,
				bc_symbol_cb cb, void *ctx, struct ol_diag *d)
{
	uint32_t off, count, nuncommon = 0;
	const struct symtab_layout *lay;

	if (sym->len < HEADER_WORDS * 4)
		return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab", "truncated header");
	lay = layout_of(ol_le32(sym->p));
	if (!lay)
		return ol_diag_set(d, OL_E_UNSUPPORTED, "symtab",
				   "symbol table version %u, offlink reads 3 and 4",
				   ol_le32(sym->p));
	/* Header: Version, Producer, Modules, Comdats, Symbols, Uncommons, ... */
	off = ol_le32(sym->p + 28);
	count = ol_le32(sym->p + 32);
	if (off > sym->len || count > (sym->len - off) / SYMBOL_SIZE)
		return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab",
				   "%u symbols at offset %u do not fit", count, off);
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *s = sym->p + off + (size_t)i * SYMBOL_SIZE;
		uint32_t noff = ol_le32(s), nlen = ol_le32(s + 4), flags = ol_le32(s + 20);
		struct bc_symbol out = { 0 };

		if (noff > str->len || nlen > str->len - noff)
			return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab",
					   "symbol %u names bytes outside the string table", i);
		out.name = (const char *)str->p + noff;
		out.len = nlen;
		out.visibility = flags & 3;
		out.undefined = (flags >> 3) & 1;
		out.weak = (flags >> 4) & 1;
		out.common = (flags >> 5) & 1;
		out.used = (flags >> 7) & 1;
		out.may_omit = (flags >> 9) & 1;
		out.global = (flags >> 10) & 1;
		out.format_specific = (flags >> 11) & 1;
		/* (uncommons are numbered in symbol order, across modules) */
		if ((flags >> 2) & 1)
			uncommon_section(sym, str, lay, nuncommon++, &out);
		if (cb(ctx, &out, d))
			return d->code;
	}
	return OL_OK;
}

unsigned bc_producer_major(const uint8_t *p, size_t len)
{
	struct bc_blob symtab = { NULL, 0 }, strtab = { NULL, 0 };
	struct ol_diag d;
	uint32_t off, size;
	unsigned major = 0;

	ol_diag_clear(&d);
	if (bc_unwrap(&p, &len, &d) || len < 4 || p[0] != 'B' || p[1] != 'C' ||
	    find_blobs(p, len, &symtab, &strtab, &d) || !symtab.p || !strtab.p ||
	    symtab.len < HEADER_WORDS * 4)
		return 0;
	/* Header: Version, then Producer as {offset, size} into the strtab. */
	off = ol_le32(symtab.p + 4);
	size = ol_le32(symtab.p + 8);
	if (off > strtab.len || size > strtab.len - off)
		return 0;
	for (uint32_t i = 0; i < size && i < 4 && strtab.p[off + i] >= '0' &&
			     strtab.p[off + i] <= '9'; i++)
		major = major * 10 + (unsigned)(strtab.p[off + i] - '0');
	return major;
}

enum ol_err bc_for_each_symbol(const uint8_t *p, size_t len, bc_symbol_cb cb,
			       void *ctx, struct ol_diag *d)
{
	struct bc_blob symtab = { NULL, 0 }, strtab = { NULL, 0 };

	if (bc_unwrap(&p, &len, d))
		return d->code;
	if (len < 4 || p[0] != 'B' || p[1] != 'C' || p[2] != 0xc0 || p[3] != 0xde)
		return ol_diag_at(d, OL_E_BAD_BITCODE, 0, "magic", "not LLVM bitcode");
	if (find_blobs(p, len, &symtab, &strtab, d))
		return d->code;
	if (!symtab.p || !strtab.p)
		return ol_diag_set(d, OL_E_UNSUPPORTED, "symtab",
				   "the bitcode has no symbol table");
	return walk_symbols(&symtab, &strtab, cb, ctx, d);
}
