#include "wrap/wrapper.h"

#include <stdio.h>
#include <string.h>

#include "common/escape.h"
#include "format/offload_binary.h"

const char *wrap_omp_image_section(bool relocatable)
{
	return relocatable ? ".llvm.offloading.relocatable" : ".llvm.offloading";
}

enum ol_err wrap_omp_image_head(const struct wrap_openmp *w, const struct wrap_image *img,
				struct ol_buf *head, uint64_t *offset, uint64_t *pad)
{
	struct ob_kv kv[] = { { "triple", img->triple }, { "arch", img->arch } };
	struct ob_image_desc desc = { img->image_kind, 1 /* OpenMP */, 0, kv, 2, NULL, img->size };

	return ob_encode_head(&desc, w->ob_version, head, offset, pad);
}

/* One line of an asm block as a C string literal: "\t<text>\n", or
 * "<text>\n" for a label.  The text is offlink's own (directives, symbol
 * and section names it chose); the only bytes from outside in it are
 * ol_escape's output (the .incbin path), whose backslashes are quoted
 * here like any other, so the assembler receives that escaped path. */
static enum ol_err asm_line(struct ol_buf *out, bool indent, const char *text)
{
	enum ol_err rc = ol_buf_puts(out, indent ? "\t\"\\t" : "\t\"");

	for (const char *p = text; *p && !rc; p++) {
		if (*p == '\\' || *p == '"')
			rc = ol_buf_printf(out, "\\%c", *p);
		else
			rc = ol_buf_append(out, p, 1);
	}
	if (rc || ol_buf_puts(out, "\\n\"\n"))
		return OL_E_NOMEM;
	return OL_OK;
}

/* .incbin "<path>": the path escaped into an assembler string. */
static enum ol_err incbin_line(struct ol_buf *out, const char *path)
{
	struct ol_buf line = { 0 };
	enum ol_err rc = OL_OK;

	rc |= ol_buf_puts(&line, ".incbin \"");
	rc |= ol_escape_str(&line, path);
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
