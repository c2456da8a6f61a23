#include "common/json.h"

#include <string.h>

#include "common/escape.h"

/* U+0080..U+009F written as UTF-8: a C1 control, which ol_utf8_printable
 * leaves out. */
static bool utf8_c1(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

void ol_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else if ((k = ol_utf8_printable(p + i, n - i))) {
			fwrite(p + i, 1, k, f);
			i += k;
			continue;
		} else if (utf8_c1(p + i, n - i)) {
			fprintf(f, "\\u%04x", p[i + 1]);
			i += 2;
			continue;
		} else /* C0, DEL, a raw C1 byte, a byte of malformed UTF-8 */
			fprintf(f, "\\u%04x", c);
		i++;
	}
	fputc('"', f);
}
