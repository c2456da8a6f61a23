#include "common/env.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/escape.h"

bool ol_parse_bool(const char *s, bool *out)
{
	static const char *const on[] = { "1", "true", "yes", "on" };
	static const char *const off[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (strcasecmp(s, on[i]) == 0)
			return *out = true;
		if (strcasecmp(s, off[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

bool ol_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned long d = (unsigned long)(*s - '0');

		if (*s < '0' || *s > '9' || d > max || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v < min)
		return false;
	*out = v;
	return true;
}

enum ol_err ol_env_bool(const char *name, bool dflt, bool *out, struct ol_diag *d)
{
	const char *v = getenv(name);
	struct ol_buf b = { 0 };
	enum ol_err rc;

	*out = dflt;
	if (!v || !*v || ol_parse_bool(v, out))
		return OL_OK;
	*out = dflt;
	/* the value is the user's text: printed escaped */
	if (ol_escape_terminal(&b, v, strlen(v)) || ol_buf_puts(&b, ""))
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	else
		rc = ol_diag_set(d, OL_E_USAGE, NULL,
				 "%s=%s: expected 1, 0, true, false, yes, no, on or off", name,
				 (const char *)b.data);
	ol_buf_free(&b);
	return rc;
}
