/* Writing JSON text: string escaping only, the rest is printf. */
#ifndef OFFLINK_COMMON_JSON_H
#define OFFLINK_COMMON_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal (with quotes) to f, always valid UTF-8
 * JSON (RFC 8259) whatever the bytes of s, which come from files offlink
 * did not write: printable ASCII and well-formed UTF-8 of U+00A0 and
 * above stay as they are; '"' and '\' are escaped, and so is every
 * control -- C0, DEL, C1 raw or UTF-8-encoded -- as \uXXXX of its code
 * point (\n and \t by name), so none reaches a terminal that shows the
 * text; a byte that is not part of well-formed UTF-8 becomes \u00XX of
 * its value (the byte read as Latin-1: a legacy name still reads as it
 * was meant, and no byte is lost to U+FFFD). */
void ol_json_string(FILE *f, const char *s);

#endif
