#include "format/bitstream.h"

#include "common/le.h"

enum { ENC_FIXED = 1, ENC_VBR = 2, ENC_ARRAY = 3, ENC_CHAR6 = 4, ENC_BLOB = 5 };

uint64_t bc_read(struct bc_bits *b, unsigned n)
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

uint64_t bc_read_vbr(struct bc_bits *b, unsigned n)
{
	uint64_t v = 0, chunk;
	unsigned shift = 0;

	if (n < 2 || n > 32) {
		b->bad = true;
		return 0;
	}
	do {
		chunk = bc_read(b, n);
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

void bc_align32(struct bc_bits *b)
{
	size_t to = (b->pos + 31) & ~(size_t)31;

	if (to > b->nbits)
		b->bad = true;
	b->pos = to > b->nbits ? b->nbits : to;
}

void bc_define_abbrev(struct bc_bits *b, struct bc_abbrev *a)
{
	uint64_t n = bc_read_vbr(b, 5);

	if (n == 0 || n > BC_MAX_OPS) {
		b->bad = true;
		return;
	}
	a->nops = (unsigned)n;
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		struct bc_abbrev_op *op = &a->ops[i];

		op->literal = bc_read(b, 1);
		if (op->literal) {
			op->value = bc_read_vbr(b, 8);
			continue;
		}
		op->enc = (unsigned)bc_read(b, 3);
		if (op->enc < ENC_FIXED || op->enc > ENC_BLOB)
			b->bad = true;
		else if (op->enc == ENC_FIXED || op->enc == ENC_VBR)
			op->value = bc_read_vbr(b, 5);
	}
}

static uint64_t read_scalar(struct bc_bits *b, const struct bc_abbrev_op *op)
{
	if (op->literal)
		return op->value;
	switch (op->enc) {
	case ENC_FIXED: return bc_read(b, (unsigned)op->value);
	case ENC_VBR: return bc_read_vbr(b, (unsigned)op->value);
	case ENC_CHAR6: return bc_read(b, 6);
	default: b->bad = true; return 0;
	}
}

void bc_read_record(struct bc_bits *b, const struct bc_abbrev *a, uint64_t *code,
		    struct bc_blob *blob)
{
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		const struct bc_abbrev_op *op = &a->ops[i];
		uint64_t v;

		if (!op->literal && op->enc == ENC_ARRAY) {
			uint64_t n = bc_read_vbr(b, 6);
			const struct bc_abbrev_op *elem;

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
			uint64_t n = bc_read_vbr(b, 6);

			bc_align32(b);
			if (b->bad || n > (b->nbits - b->pos) / 8) {
				b->bad = true;
				return;
			}
			blob->p = b->p + b->pos / 8;
			blob->len = (size_t)n;
			b->pos += (size_t)n * 8;
			bc_align32(b);
			continue;
		}
		v = read_scalar(b, op);
		if (i == 0)
			*code = v;
	}
}

uint64_t bc_read_unabbrev(struct bc_bits *b, uint64_t *ops, size_t maxops, size_t *nops)
{
	uint64_t code = bc_read_vbr(b, 6), n = bc_read_vbr(b, 6);

	/* each operand takes at least 6 bits: a count past the end is corrupt */
	if (n > (b->nbits - b->pos) / 6) {
		b->bad = true;
		n = 0;
	}
	for (uint64_t k = 0; k < n && !b->bad; k++) {
		uint64_t v = bc_read_vbr(b, 6);

		if (k < maxops)
			ops[k] = v;
	}
	*nops = (size_t)(n < maxops ? n : maxops);
	return code;
}

bool bc_enter_block(struct bc_bits *b, struct bc_block *blk)
{
	uint64_t words;

	blk->id = bc_read_vbr(b, 8);
	blk->width = (unsigned)bc_read_vbr(b, 4);
	bc_align32(b);
	words = bc_read(b, 32);
	blk->body = b->pos;
	if (b->bad || blk->width < 2 || blk->width > 32 || words > (b->nbits - b->pos) / 32) {
		b->bad = true;
		return false;
	}
	blk->end = b->pos + (size_t)words * 32;
	return true;
}

enum ol_err bc_unwrap(const uint8_t **p, size_t *len, struct ol_diag *d)
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
