#include "format/bitcode_lto.h"

#include <stdlib.h>

#include "format/bitstream.h"

enum {
	BLOCK_BLOCKINFO = 0,
	BLOCK_MODULE = 8,
	BLOCK_THIN_SUMMARY = 20,   /* GLOBALVAL_SUMMARY_BLOCK */
	BLOCKINFO_SETBID = 1,
};

/* Abbreviations a module block starts with: those a top-level BLOCKINFO
 * block gives block 8 (LLVM writes its BLOCKINFO inside the module block,
 * for other blocks, but the format allows one before it). */
struct module_abbrevs {
	struct bc_abbrev v[BC_MAX_ABBREVS];
	unsigned n;
};

static void read_blockinfo(struct bc_bits *b, const struct bc_block *blk, struct module_abbrevs *ma)
{
	uint64_t current = UINT64_MAX;

	while (!b->bad && b->pos < blk->end) {
		uint64_t id = bc_read(b, blk->width), ops[1];
		size_t n;

		if (id == BC_END_BLOCK)
			return;
		if (id == BC_DEFINE_ABBREV) {
			struct bc_abbrev a;

			bc_define_abbrev(b, &a);
			if (current != BLOCK_MODULE)
				continue;
			if (ma->n == BC_MAX_ABBREVS) {
				b->bad = true;
				return;
			}
			ma->v[ma->n++] = a;
		} else if (id == BC_UNABBREV_RECORD) {
			if (bc_read_unabbrev(b, ops, 1, &n) == BLOCKINFO_SETBID && n == 1)
				current = ops[0];
		} else {
			b->bad = true; /* no abbreviations of its own, no nested blocks */
		}
	}
}

/* Walk a module block's own records and look at its sub-blocks' IDs. */
static void read_module(struct bc_bits *b, const struct bc_block *blk,
			const struct module_abbrevs *start, enum bc_lto_kind *kind)
{
	struct module_abbrevs ma = *start;

	while (!b->bad && b->pos < blk->end) {
		uint64_t id = bc_read(b, blk->width), code;
		struct bc_block sub;
		struct bc_blob blob;
		size_t n;

		if (id == BC_END_BLOCK)
			return;
		if (id == BC_ENTER_SUBBLOCK) {
			if (!bc_enter_block(b, &sub))
				return;
			if (sub.id == BLOCK_THIN_SUMMARY)
				*kind = BC_LTO_THIN;
			b->pos = sub.end;
		} else if (id == BC_DEFINE_ABBREV) {
			if (ma.n == BC_MAX_ABBREVS) {
				b->bad = true;
				return;
			}
			bc_define_abbrev(b, &ma.v[ma.n++]);
		} else if (id == BC_UNABBREV_RECORD) {
			bc_read_unabbrev(b, NULL, 0, &n);
		} else if (id - 4 < ma.n) {
			bc_read_record(b, &ma.v[id - 4], &code, &blob);
		} else {
			b->bad = true;
		}
	}
}

enum ol_err bc_lto_kind(const uint8_t *p, size_t len, enum bc_lto_kind *kind,
			struct ol_diag *d)
{
	struct module_abbrevs *ma;
	struct bc_bits b;

	*kind = BC_LTO_REGULAR;
	if (bc_unwrap(&p, &len, d))
		return d->code;
	if (len < 4 || p[0] != 'B' || p[1] != 'C' || p[2] != 0xc0 || p[3] != 0xde)
		return ol_diag_at(d, OL_E_BAD_BITCODE, 0, "magic", "not LLVM bitcode");
	/* (the abbreviations take 8 KB: not on the stack of a fuzzer's thread) */
	if (!(ma = calloc(1, sizeof(*ma))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	b = (struct bc_bits){ p, len * 8, 32, false };
	while (!b.bad && b.nbits - b.pos >= 32) {
		uint64_t id = bc_read(&b, 2);
		struct bc_block blk;

		if (id == BC_END_BLOCK) /* zero padding at the end */
			break;
		if (id != BC_ENTER_SUBBLOCK || !bc_enter_block(&b, &blk)) {
			b.bad = true;
			break;
		}
		if (blk.id == BLOCK_BLOCKINFO)
			read_blockinfo(&b, &blk, ma);
		else if (blk.id == BLOCK_MODULE)
			read_module(&b, &blk, ma, kind);
		b.pos = blk.end;
	}
	free(ma);
	if (b.bad)
		return ol_diag_set(d, OL_E_BAD_BITCODE, NULL, "malformed bitstream");
	return OL_OK;
}
