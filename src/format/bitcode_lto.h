/* Which kind of LTO a bitcode file was compiled for: ThinLTO (-flto=thin,
 * -foffload-lto=thin: its module carries a ThinLTO summary, and a link
 * compiles it on its own, after a thin link) or regular LTO (merged with
 * the others into one module).  Read as LLVM reads it: a module block
 * holding a GLOBALVAL_SUMMARY block is thin; anything else is regular. */
#ifndef OFFLINK_FORMAT_BITCODE_LTO_H
#define OFFLINK_FORMAT_BITCODE_LTO_H

#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

enum bc_lto_kind { BC_LTO_REGULAR, BC_LTO_THIN };

/* The kind of the bitcode in p[0..len) (the wrapper header allowed): thin
 * when any of its modules is.  A bitstream that cannot be walked is
 * OL_E_BAD_BITCODE. */
enum ol_err bc_lto_kind(const uint8_t *p, size_t len, enum bc_lto_kind *kind,
			struct ol_diag *d);

#endif
