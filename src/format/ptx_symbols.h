/* The linker-visible symbols of a PTX module (nvcc's PTX in a fat binary,
 * docs/format.md), read from its module-scope declarations so that PTX
 * takes part in device-symbol resolution as cubins and bitcode do:
 *
 *   .visible .entry k(...) {...}        defined (a kernel)
 *   .visible .func (...) f(...) {...}   defined
 *   .visible .global .align 4 .u32 v = 5;
 *   .weak .func ..., .common .global ...  defined, weak
 *   .extern .func (...) g(...);         undefined
 *   .extern .global .align 4 .u32 w;    undefined
 *
 * Declarations without linkage are the module's own; `.extern .shared`
 * (dynamic shared memory) names no symbol another module defines.
 * Comments and strings are skipped, function bodies and initializers
 * are stepped over by their brackets; nothing else of PTX is parsed. */
#ifndef OFFLINK_FORMAT_PTX_SYMBOLS_H
#define OFFLINK_FORMAT_PTX_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_ptx_symbol {
	const char *name;   /* in the text, not NUL-terminated */
	size_t len;
	bool defined;
	bool weak;          /* .weak or .common */
	bool function;      /* .func or .entry, else a variable */
};

typedef enum ol_err (*ol_ptx_symbol_cb)(void *ctx, const struct ol_ptx_symbol *s,
					struct ol_diag *d);

/* Whether p starts as PTX text does (after blank lines and comments, a
 * `.version` directive). */
bool ol_is_ptx(const uint8_t *p, size_t len);

/* Call cb for each symbol with linkage that the module declares, in text
 * order (up to a NUL byte or the end).  Text that ends inside a comment,
 * a string or a bracket is OL_E_TRUNCATED with the offset where that
 * began. */
enum ol_err ol_ptx_for_each_symbol(const uint8_t *p, size_t len, ol_ptx_symbol_cb cb,
				   void *ctx, struct ol_diag *d);

#endif
