/* The symbol table LLVM stores in every bitcode file (the "irsymtab" of
 * the SYMTAB_BLOCK, with names in the STRTAB_BLOCK), read without an IR
 * reader, so the wrapper can resolve device symbols between bitcode images
 * (OpenMP's device runtime, -foffload-lto objects) the way it does between
 * ELF ones.
 *
 * Only what symbol resolution needs is decoded: the bitstream walker of
 * format/bitstream.h, skipping every block but those two, and the table
 * layouts of versions 3 (LLVM 14-22) and 4 (LLVM 23 on). */
#ifndef OFFLINK_FORMAT_BITCODE_SYMTAB_H
#define OFFLINK_FORMAT_BITCODE_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct bc_symbol {
	const char *name; /* not NUL-terminated */
	size_t len;
	bool undefined;
	bool weak;
	bool common;
	bool global;
	bool format_specific; /* e.g. llvm.* intrinsics: not linker symbols */
	bool used;            /* in llvm.used: kept whatever resolves it */
	bool may_omit;        /* may be left out of a symbol table (a linkonce_odr
			       * whose address nobody takes) */
	unsigned visibility; /* 0 default, 1 hidden, 2 protected */
	const char *section; /* its explicit section, not NUL-terminated, or NULL */
	size_t section_len;
};

typedef enum ol_err (*bc_symbol_cb)(void *ctx, const struct bc_symbol *s,
				    struct ol_diag *d);

/* True if p holds bitcode (raw 'BC' C0DE or the 0B17C0DE wrapper). */
bool bc_is_bitcode(const uint8_t *p, size_t len);

/* Call cb for every symbol of the file's symbol table.  A file without a
 * table, or with one of a version other than 3 or 4, is OL_E_UNSUPPORTED (the
 * caller then knows nothing of its symbols); broken bitstreams are
 * OL_E_BAD_BITCODE. */
enum ol_err bc_for_each_symbol(const uint8_t *p, size_t len, bc_symbol_cb cb,
			       void *ctx, struct ol_diag *d);

/* The major version of the LLVM that wrote the bitcode, from its symbol
 * table's producer string ("19.1.7"), or 0 when the file has no table or
 * the string does not start with a number. */
unsigned bc_producer_major(const uint8_t *p, size_t len);

#endif
