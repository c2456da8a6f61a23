#include "format/bitcode_symtab.h"

#include <string.h>

#include "common/le.h"

enum {
	BLOCK_STRTAB = 23,
	BLOCK_SYMTAB = 25,
	RECORD_BLOB = 1, /* STRTAB_BLOB and SYMTAB_BLOB */
	ABBREV_END_BLOCK = 0,
	ABBREV_ENTER_SUBBLOCK = 1,
	ABBREV_DEFINE = 2,
	ABBREV_UNABBREV = 3,
	MAX_ABBREVS = 32,
	MAX_OPS = 16,
	ENC_FIXED = 1, ENC_VBR = 2, ENC_ARRAY = 3, ENC_CHAR6 = 4, ENC_BLOB = 5,
	SYMTAB_VERSION = 3,
	HEADER_WORDS = 19, /* Version + 9 two-word fields */
	SYMBOL_SIZE = 24,
};

struct bits {
	const uint8_t *p;
	size_t nbits;
	size_t pos;
	bool bad;
};

static uint64_t read_bits(struct bits *b, unsigned n)
{
	uint64_t v = 0;

	if (n > 64 || b->pos > b->nbits || n > b->nbits - b->pos) {
		b->bad = true;
		b->pos = b->nbits;
		return 0;
	}
	for (unsigned i = 0; i < n; i++, b->pos++)
		v |= (uint64_t)((b->p[b->pos / 8] >> (b->pos % 8)) & 1) << i;
	return v;
}

static uint64_t read_vbr(struct bits *b, unsigned n)
{
	uint64_t v = 0, chunk;
	unsigned shift = 0;

	if (n < 2 || n > 32) {
		b->bad = true;
		return 0;
	}
	do {
		chunk = read_bits(b, n);
		if (shift < 64)
			v |= (chunk & ((1u << (n - 1)) - 1)) << shift;
		shift += n - 1;
		if (shift > 70) {
			b->bad = true;
			return 0;
		}
	} while (!b->bad && (chunk >> (n - 1)) & 1);
	return v;
}

static void align32(struct bits *b)
{
	size_t to = (b->pos + 31) & ~(size_t)31;

	if (to > b->nbits)
		b->bad = true;
	b->pos = to > b->nbits ? b->nbits : to;
}

struct abbrev_op {
	bool literal;
	unsigned enc;
	uint64_t value;
};

struct abbrev {
	unsigned nops;
	struct abbrev_op ops[MAX_OPS];
};

static void define_abbrev(struct bits *b, struct abbrev *a)
{
	uint64_t n = read_vbr(b, 5);

	if (n == 0 || n > MAX_OPS) {
		b->bad = true;
		return;
	}
	a->nops = (unsigned)n;
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		struct abbrev_op *op = &a->ops[i];

		op->literal = read_bits(b, 1);
		if (op->literal) {
			op->value = read_vbr(b, 8);
			continue;
		}
		op->enc = (unsigned)read_bits(b, 3);
		if (op->enc < ENC_FIXED || op->enc > ENC_BLOB)
			b->bad = true;
		else if (op->enc == ENC_FIXED || op->enc == ENC_VBR)
			op->value = read_vbr(b, 5);
	}
}

static uint64_t read_scalar(struct bits *b, const struct abbrev_op *op)
{
	if (op->literal)
		return op->value;
	switch (op->enc) {
	case ENC_FIXED: return read_bits(b, (unsigned)op->value);
	case ENC_VBR: return read_vbr(b, (unsigned)op->value);
	case ENC_CHAR6: return read_bits(b, 6);
	default: b->bad = true; return 0;
	}
}

struct blob {
	const uint8_t *p;
	size_t len;
};

/* Read one abbreviated record; keeps its code and its blob, if any. */
static void read_record(struct bits *b, const struct abbrev *a, uint64_t *code,
			struct blob *blob)
{
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		const struct abbrev_op *op = &a->ops[i];
		uint64_t v;

		if (!op->literal && op->enc == ENC_ARRAY) {
			uint64_t n = read_vbr(b, 6);

			const struct abbrev_op *elem;

			if (i + 1 >= a->nops || a->ops[i + 1].enc == ENC_ARRAY ||
			    a->ops[i + 1].enc == ENC_BLOB) {
				b->bad = true;
				return;
			}
			elem = &a->ops[++i];
			/* Elements that take no bits (a literal, a 0-bit field)
			 * need no reading; any other takes at least one bit, so
			 * a count beyond the bits left is corrupt, not a loop of
			 * 2^63 turns. */
			if (elem->literal || (elem->enc == ENC_FIXED && elem->value == 0))
				continue;
			if (n > b->nbits - b->pos) {
				b->bad = true;
				return;
			}
			for (uint64_t k = 0; k < n && !b->bad; k++)
				read_scalar(b, elem);
			continue;
		}
		if (!op->literal && op->enc == ENC_BLOB) {
			uint64_t n = read_vbr(b, 6);

			align32(b);
			if (b->bad || n > (b->nbits - b->pos) / 8) {
				b->bad = true;
				return;
			}
			blob->p = b->p + b->pos / 8;
			blob->len = (size_t)n;
			b->pos += (size_t)n * 8;
			align32(b);
			continue;
		}
		v = read_scalar(b, op);
		if (i == 0)
			*code = v;
	}
}

/* Inside a STRTAB or SYMTAB block: find its blob record. */
static void read_blob_block(struct bits *b, unsigned width, struct blob *out)
{
	struct abbrev abbrevs[MAX_ABBREVS];
	unsigned nabbrevs = 0;

	while (!b->bad) {
		uint64_t id = read_bits(b, width);

		if (id == ABBREV_END_BLOCK) {
			align32(b);
			return;
		}
		if (id == ABBREV_DEFINE) {
			if (nabbrevs == MAX_ABBREVS) {
				b->bad = true;
				return;
			}
			define_abbrev(b, &abbrevs[nabbrevs++]);
		} else if (id == ABBREV_UNABBREV) {
			uint64_t n;

			read_vbr(b, 6);
			n = read_vbr(b, 6);
			for (uint64_t k = 0; k < n && !b->bad; k++)
				read_vbr(b, 6);
		} else if (id >= 4 && id - 4 < nabbrevs) {
			uint64_t code = 0;
			struct blob blob = { NULL, 0 };

			read_record(b, &abbrevs[id - 4], &code, &blob);
			if (code == RECORD_BLOB && blob.p)
				*out = blob;
		} else {
			/* Nested blocks do not occur in these two. */
			b->bad = true;
		}
	}
}

static enum ol_err find_blobs(const uint8_t *p, size_t len, struct blob *symtab,
			      struct blob *strtab, struct ol_diag *d)
{
	struct bits b = { p, len * 8, 32, false };

	while (!b.bad && b.nbits - b.pos >= 32) {
		uint64_t id = read_bits(&b, 2), block, width, words;
		size_t body;

		if (id == ABBREV_END_BLOCK) /* zero padding at the end */
			break;
		if (id != ABBREV_ENTER_SUBBLOCK)
			return ol_diag_at(d, OL_E_BAD_BITCODE, (b.pos - 2) / 8, NULL,
					  "expected a top-level block");
		block = read_vbr(&b, 8);
		width = read_vbr(&b, 4);
		align32(&b);
		words = read_bits(&b, 32);
		body = b.pos;
		if (b.bad || width < 2 || width > 32 || words > (b.nbits - b.pos) / 32)
			return ol_diag_at(d, OL_E_BAD_BITCODE, body / 8, NULL,
					  "block %llu of %llu words runs past the end",
					  (unsigned long long)block,
					  (unsigned long long)words);
		if (block == BLOCK_SYMTAB)
			read_blob_block(&b, (unsigned)width, symtab);
		else if (block == BLOCK_STRTAB)
			read_blob_block(&b, (unsigned)width, strtab);
		b.pos = body + (size_t)words * 32;
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

/* The bitcode proper, inside the optional 20-byte wrapper header. */
static enum ol_err unwrap(const uint8_t **p, size_t *len, struct ol_diag *d)
{
	uint32_t off, size;

	if (*len < 4 || ol_le32(*p) != 0x0b17c0de)
		return OL_OK;
	if (*len < 20)
		return ol_diag_at(d, OL_E_BAD_BITCODE, 0, "wrapper", "truncated header");
	off = ol_le32(*p + 8);
	size = ol_le32(*p + 12);
	if (off > *len || size > *len - off)
		return ol_diag_at(d, OL_E_BAD_BITCODE, 8, "wrapper",
				  "bitcode at %u (+%u) outside the %zu-byte file",
				  off, size, *len);
	*p += off;
	*len = size;
	return OL_OK;
}

static enum ol_err walk_symbols(const struct blob *sym, const struct blob *str,
				bc_symbol_cb cb, void *ctx, struct ol_diag *d)
{
	uint32_t off, count;

	if (sym->len < HEADER_WORDS * 4)
		return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab", "truncated header");
	if (ol_le32(sym->p) != SYMTAB_VERSION)
		return ol_diag_set(d, OL_E_UNSUPPORTED, "symtab",
				   "symbol table version %u, offlink reads %u",
				   ol_le32(sym->p), SYMTAB_VERSION);
	/* Header: Version, Producer, Modules, Comdats, Symbols, ... */
	off = ol_le32(sym->p + 28);
	count = ol_le32(sym->p + 32);
	if (off > sym->len || count > (sym->len - off) / SYMBOL_SIZE)
		return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab",
				   "%u symbols at offset %u do not fit", count, off);
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *s = sym->p + off + (size_t)i * SYMBOL_SIZE;
		uint32_t noff = ol_le32(s), nlen = ol_le32(s + 4), flags = ol_le32(s + 20);
		struct bc_symbol out;

		if (noff > str->len || nlen > str->len - noff)
			return ol_diag_set(d, OL_E_BAD_BITCODE, "symtab",
					   "symbol %u names bytes outside the string table", i);
		out.name = (const char *)str->p + noff;
		out.len = nlen;
		out.visibility = flags & 3;
		out.undefined = (flags >> 3) & 1;
		out.weak = (flags >> 4) & 1;
		out.common = (flags >> 5) & 1;
		out.global = (flags >> 10) & 1;
		out.format_specific = (flags >> 11) & 1;
		if (cb(ctx, &out, d))
			return d->code;
	}
	return OL_OK;
}

unsigned bc_producer_major(const uint8_t *p, size_t len)
{
	struct blob symtab = { NULL, 0 }, strtab = { NULL, 0 };
	struct ol_diag d;
	uint32_t off, size;
	unsigned major = 0;

	ol_diag_clear(&d);
	if (unwrap(&p, &len, &d) || len < 4 || p[0] != 'B' || p[1] != 'C' ||
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
	struct blob symtab = { NULL, 0 }, strtab = { NULL, 0 };

	if (unwrap(&p, &len, d))
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
