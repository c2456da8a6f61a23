/* The tools' one way to print a message line: "<tool>: <kind>: <text>\n"
 * on stderr, the text made safe for a terminal (common/escape.h), since
 * messages quote names read from inputs.  Libraries never print; only a
 * tool's front end calls these. */
#ifndef OFFLINK_COMMON_MESSAGE_H
#define OFFLINK_COMMON_MESSAGE_H

#include <stdarg.h>

#include "common/diag.h"

/* Print one message line; kind is "error", "warning" or NULL (none). */
void ol_message(const char *tool, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ol_vmessage(const char *tool, const char *kind, const char *fmt, va_list ap);
/* Print a diagnostic as an error line. */
void ol_message_diag(const char *tool, const struct ol_diag *d);

#endif
