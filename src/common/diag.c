#include "common/diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ol_diag_clear(struct ol_diag *d)
{
	memset(d, 0, sizeof(*d));
}

static enum ol_err diag_vset(struct ol_diag *d, enum ol_err code,
			     const char *field, const char *fmt, va_list ap)
{
	d->code = code;
	d->field = field;
	d->detail[0] = '\0';
	if (fmt)
		vsnprintf(d->detail, sizeof(d->detail), fmt, ap);
	return code;
}

enum ol_err ol_diag_set(struct ol_diag *d, enum ol_err code, const char *field,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vset(d, code, field, fmt, ap);
	va_end(ap);
	d->has_offset = false;
	return code;
}

enum ol_err ol_diag_at(struct ol_diag *d, enum ol_err code, uint64_t offset,
		       const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vset(d, code, field, fmt, ap);
	va_end(ap);
	d->has_offset = true;
	d->offset = offset;
	return code;
}

enum ol_err ol_diag_errno(struct ol_diag *d, int err, const char *what,
			  const char *path)
{
	ol_diag_set(d, OL_E_IO, NULL, "%s: %s", what, strerror(err));
	if (path && !d->file[0])
		snprintf(d->file, sizeof(d->file), "%s", path);
	return OL_E_IO;
}

void ol_diag_locate(struct ol_diag *d, const char *file, const char *member,
		    uint64_t base)
{
	if (d->has_offset)
		d->offset += base;
	if (file && !d->file[0])
		snprintf(d->file, sizeof(d->file), "%s", file);
	if (member && !d->member[0])
		snprintf(d->member, sizeof(d->member), "%s", member);
}

void ol_diag_prefix(struct ol_diag *d, const char *fmt, ...)
{
	enum { PREFIX_MAX = 255 };
	/* prefix, ": ", the old detail and its NUL */
	char joined[PREFIX_MAX + 2 + sizeof(d->detail)];
	size_t n, old = strlen(d->detail);
	va_list ap;

	va_start(ap, fmt);
	n = (size_t)vsnprintf(joined, PREFIX_MAX + 1, fmt, ap);
	va_end(ap);
	if (n > PREFIX_MAX)
		n = PREFIX_MAX;
	if (old) {
		memcpy(joined + n, ": ", 2);
		memcpy(joined + n + 2, d->detail, old + 1);
	}
	/* A detail too long for the buffer is cut, never overflowed. */
	memcpy(d->detail, joined, sizeof(d->detail) - 1);
	d->detail[sizeof(d->detail) - 1] = '\0';
}

void ol_diag_format(const struct ol_diag *d, char *out, size_t outlen)
{
	size_t n = 0;

#define PUT(...)                                                          \
	do {                                                              \
		if (n < outlen)                                           \
			n += (size_t)snprintf(out + n, outlen - n, __VA_ARGS__); \
	} while (0)

	out[0] = '\0';
	if (d->file[0] && d->member[0])
		PUT("%s(%s): ", d->file, d->member);
	else if (d->file[0])
		PUT("%s: ", d->file);
	if (d->has_offset)
		PUT("offset 0x%" PRIx64 ": ", d->offset);
	if (d->field)
		PUT("field '%s': ", d->field);
	/* Without a location the detail says it all ("no compatible code
	 * object found for ..."); the code's generic text would only repeat
	 * it. */
	if (!d->detail[0] || d->file[0] || d->has_offset || d->field)
		PUT("%s%s", ol_strerror(d->code), d->detail[0] ? ": " : "");
	if (d->detail[0])
		PUT("%s", d->detail);
#undef PUT
}
