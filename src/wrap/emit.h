/* The generators' text output, inside functions returning enum ol_err
 * with a struct ol_buf *out in scope:
 *   P(fmt, ...)  offlink's own text, printf-style;
 *   E(s)         text from outside, escaped (common/escape.h);
 *   L(fmt, ...)  one line of assembly (P and a newline).
 * Each returns OL_E_NOMEM from the function when memory runs out. */
#ifndef OFFLINK_WRAP_EMIT_H
#define OFFLINK_WRAP_EMIT_H

#include "common/buf.h"
#include "common/escape.h"

#define P(...)                                     \
	do {                                       \
		if (ol_buf_printf(out, __VA_ARGS__)) \
			return OL_E_NOMEM;         \
	} while (0)
#define E(s)                               \
	do {                               \
		if (ol_escape_str(out, s)) \
			return OL_E_NOMEM; \
	} while (0)
#define L(...)                                     \
	do {                                       \
		P(__VA_ARGS__);                    \
		if (ol_buf_puts(out, "\n"))        \
			return OL_E_NOMEM;         \
	} while (0)

#endif
