/* Writing JSON text: string escaping only, the rest is printf. */
#ifndef OFFLINK_COMMON_JSON_H
#define OFFLINK_COMMON_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal (with quotes) to f. */
void ol_json_string(FILE *f, const char *s);

#endif
