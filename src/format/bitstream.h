/* LLVM's bitstream container, read just far enough to find blocks: bits
 * and VBR fields, abbreviation definitions, records walked over (their
 * code and blob kept, their other operands skipped), blocks skipped by
 * their length word.  No IR is decoded: format/bitcode_symtab.c reads the
 * symbol table's blob with it, format/bitcode_lto.c looks for a module's
 * summary block.  Every read is bounded by the buffer; a read past it
 * sets bad and reads zeros. */
#ifndef OFFLINK_FORMAT_BITSTREAM_H
#define OFFLINK_FORMAT_BITSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

enum {
	BC_END_BLOCK = 0,
	BC_ENTER_SUBBLOCK = 1,
	BC_DEFINE_ABBREV = 2,
	BC_UNABBREV_RECORD = 3,
	BC_MAX_ABBREVS = 64,
	BC_MAX_OPS = 16,
};

struct bc_bits {
	const uint8_t *p;
	size_t nbits;
	size_t pos;
	bool bad;
};

struct bc_abbrev_op {
	bool literal;
	unsigned enc;     /* 1 fixed, 2 VBR, 3 array, 4 char6, 5 blob */
	uint64_t value;   /* the literal, or the width */
};

struct bc_abbrev {
	unsigned nops;
	struct bc_abbrev_op ops[BC_MAX_OPS];
};

struct bc_blob {
	const uint8_t *p;
	size_t len;
};

/* n bits (n <= 64), least significant first. */
uint64_t bc_read(struct bc_bits *b, unsigned n);
/* A VBR field of n-bit chunks (2 <= n <= 32). */
uint64_t bc_read_vbr(struct bc_bits *b, unsigned n);
/* To the next 32-bit boundary. */
void bc_align32(struct bc_bits *b);
/* The body of a DEFINE_ABBREV (after its abbreviation ID). */
void bc_define_abbrev(struct bc_bits *b, struct bc_abbrev *a);
/* An abbreviated record's operands; *code: its first, blob: its blob
 * operand, if any (left alone otherwise). */
void bc_read_record(struct bc_bits *b, const struct bc_abbrev *a, uint64_t *code,
		    struct bc_blob *blob);
/* An UNABBREV_RECORD's body: its code, *nops operands into ops (at most
 * maxops kept; the rest skipped). */
uint64_t bc_read_unabbrev(struct bc_bits *b, uint64_t *ops, size_t maxops, size_t *nops);

/* The header of a block after ENTER_SUBBLOCK: its ID, abbreviation width
 * and length; b left at its body.  False (b->bad) when it is malformed
 * or runs past the end. */
struct bc_block {
	uint64_t id;
	unsigned width;
	size_t body;      /* bit position of its first abbreviation ID */
	size_t end;       /* bit position just past it */
};
bool bc_enter_block(struct bc_bits *b, struct bc_block *blk);

/* The bitcode inside the optional 20-byte wrapper header (0x0B17C0DE);
 * p and len are left alone when there is none. */
enum ol_err bc_unwrap(const uint8_t **p, size_t *len, struct ol_diag *d);

#endif
