#include "wrap/wrapper.h"

#include <stdio.h>
#include <string.h>

enum ol_err wrap_c_string(struct ol_buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '"') {
			if (ol_buf_printf(out, "\\%c", c))
				return OL_E_NOMEM;
		} else if (c < 0x20 || c >= 0x7f) {
			if (ol_buf_printf(out, "\\%03o", c))
				return OL_E_NOMEM;
		} else if (ol_buf_append(out, &c, 1)) {
			return OL_E_NOMEM;
		}
	}
	return OL_OK;
}

/* One line of the asm block as a C string literal: "\t<text>\n", or
 * "<text>\n" for a label. */
static enum ol_err asm_line(struct ol_buf *out, bool indent, const char *text)
{
	if (ol_buf_puts(out, indent ? "\t\"\\t" : "\t\"") ||
	    wrap_c_string(out, text) || ol_buf_puts(out, "\\n\"\n"))
		return OL_E_NOMEM;
	return OL_OK;
}

/* .incbin "<path>", the path escaped for the assembler's string. */
static enum ol_err incbin_line(struct ol_buf *out, const char *path)
{
	struct ol_buf line = { 0 };
	enum ol_err rc = OL_OK;

	rc |= ol_buf_puts(&line, ".incbin \"");
	for (const char *p = path; *p && !rc; p++) {
		if (*p == '\\' || *p == '"')
			rc |= ol_buf_printf(&line, "\\%c", *p);
		else
			rc |= ol_buf_append(&line, p, 1);
	}
	rc |= ol_buf_puts(&line, "\"");
	if (!rc)
		rc = asm_line(out, true, (const char *)line.data);
	ol_buf_free(&line);
	return rc ? OL_E_NOMEM : OL_OK;
}

static enum ol_err byte_lines(struct ol_buf *out, const uint8_t *p, size_t n)
{
	char line[128];

	for (size_t i = 0; i < n; i += 16) {
		size_t len = 0;

		len += (size_t)snprintf(line + len, sizeof(line) - len, ".byte ");
		for (size_t k = i; k < n && k < i + 16; k++)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"%s0x%02x", k > i ? "," : "", p[k]);
		if (asm_line(out, true, line))
			return OL_E_NOMEM;
	}
	return OL_OK;
}

enum ol_err wrap_emit_blob(struct ol_buf *out, const char *sym,
			   const char *section, unsigned align,
			   const uint8_t *prefix, size_t nprefix,
			   const char *path, uint64_t pad)
{
	char line[512];
	enum ol_err rc = OL_OK;

	rc |= ol_buf_puts(out, "__asm__(\n");
	snprintf(line, sizeof(line), ".pushsection %s", section);
	rc |= asm_line(out, true, line);
	snprintf(line, sizeof(line), ".balign %u", align);
	rc |= asm_line(out, true, line);
	snprintf(line, sizeof(line), ".type %s, %%object", sym);
	rc |= asm_line(out, true, line);
	snprintf(line, sizeof(line), "%s:", sym);
	rc |= asm_line(out, false, line);
	rc |= byte_lines(out, prefix, nprefix);
	rc |= incbin_line(out, path);
	if (pad) {
		snprintf(line, sizeof(line), ".zero %llu", (unsigned long long)pad);
		rc |= asm_line(out, true, line);
	}
	snprintf(line, sizeof(line), ".size %s, . - %s", sym, sym);
	rc |= asm_line(out, true, line);
	rc |= asm_line(out, true, ".popsection");
	rc |= ol_buf_puts(out, ");\n");
	return rc ? OL_E_NOMEM : OL_OK;
}
