#include "cache/ldtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *line, size_t n, const char *prefix, size_t *plen)
{
	*plen = strlen(prefix);
	return n >= *plen && memcmp(line, prefix, *plen) == 0;
}

static bool ends(const char *line, size_t n, const char *suffix, size_t *slen)
{
	*slen = strlen(suffix);
	return n >= *slen && memcmp(line + n - *slen, suffix, *slen) == 0;
}

static enum ol_err add(struct ol_strvec *v, const char *p, size_t n)
{
	if (!n)
		return OL_E_BAD_FIELD;
	return ol_strvec_pushn(v, p, n) ? OL_E_NOMEM : OL_OK;
}

/* One line of the record, if it is one. */
static enum ol_err line_of(const char *line, size_t n, struct ol_strvec *found,
			   struct ol_strvec *absent, size_t *attempts)
{
	size_t p, s;

	if (starts(line, n, "attempt to open ", &p)) {
		++*attempts;
		if (ends(line, n, " succeeded", &s) && n > p + s)
			return add(found, line + p, n - p - s);
		if (ends(line, n, " failed", &s) && n > p + s)
			return add(absent, line + p, n - p - s);
		return OL_E_BAD_FIELD;
	}
	if (starts(line, n, "cannot find script file ", &p))
		return add(absent, line + p, n - p);
	if (starts(line, n, "opened script file ", &p))
		return add(found, line + p, n - p);
	/* ("found libx.so at lib/libx.so", a DT_NEEDED found: its
	 * dependency file lists it too) */
	return OL_OK;
}

enum ol_err ol_ldtrace_parse(const char *text, size_t len, struct ol_strvec *found,
			     struct ol_strvec *absent)
{
	size_t attempts = 0;
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < len && !rc; ) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text - i) : len - i;

		rc = line_of(text + i, n, found, absent, &attempts);
		i += n + 1;
	}
	if (!rc && !attempts)
		rc = OL_E_BAD_FIELD;
	return rc;
}

/* ---- lld: whether a script can make it search ---- */

static bool not_script(const uint8_t *p, size_t n)
{
	static const struct { const char *magic; size_t n; } kinds[] = {
		{ "\177ELF", 4 }, { "!<arch>\n", 8 }, { "!<thin>\n", 8 },
		{ "BC\xC0\xDE", 4 }, { "\xDE\xC0\x17\x0B", 4 },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (n >= kinds[i].n && memcmp(p, kinds[i].magic, kinds[i].n) == 0)
			return true;
	return false;
}

struct lexer {
	const char *p, *end;
};

/* The next token: a word, or one of ( ) , ; { } =; "" strings as
 * words.  False at the end. */
static bool next(struct lexer *lx, const char **tok, size_t *n)
{
	for (;;) {
		while (lx->p < lx->end && strchr(" \t\r\n\f\v", *lx->p) && *lx->p)
			lx->p++;
		if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
			const char *c = memmem(lx->p + 2, (size_t)(lx->end - lx->p - 2), "*/", 2);

			lx->p = c ? c + 2 : lx->end;
			continue;
		}
		break;
	}
	if (lx->p >= lx->end)
		return false;
	*tok = lx->p;
	if (*lx->p == '"') {
		const char *q = memchr(lx->p + 1, '"', (size_t)(lx->end - lx->p - 1));

		*tok = lx->p + 1;
		*n = q ? (size_t)(q - lx->p - 1) : (size_t)(lx->end - lx->p - 1);
		lx->p = q ? q + 1 : lx->end;
		return true;
	}
	if (strchr("(),;{}=", *lx->p) && *lx->p) {
		*n = 1;
		lx->p++;
		return true;
	}
	while (lx->p < lx->end && !strchr(" \t\r\n\f\v(),;{}=\"", *lx->p) && *lx->p)
		lx->p++;
	*n = (size_t)(lx->p - *tok);
	if (!*n) { /* a NUL byte: not text */
		*n = 1;
		lx->p++;
	}
	return true;
}

static bool is(const char *tok, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(tok, word, n) == 0;
}

/* dir/name as lld forms it ("=dir": under the sysroot). */
static void place(struct ol_strvec *out, const char *dir, const char *sysroot, const char *name,
		  size_t n)
{
	if (dir[0] == '=')
		ol_strvec_pushf(out, "%s%s/%.*s", sysroot ? sysroot : "", dir + 1, (int)n, name);
	else
		ol_strvec_pushf(out, "%s/%.*s", dir, (int)n, name);
}

/* dir/lib<name><suffix>, for -l<name> (any length: a fixed buffer
 * overflowed on a long name in a script) */
static void place_lib(struct ol_strvec *out, const char *dir, const char *sysroot,
		      const char *name, size_t n, const char *suffix)
{
	if (dir[0] == '=')
		ol_strvec_pushf(out, "%s%s/lib%.*s%s", sysroot ? sysroot : "", dir + 1, (int)n,
				name, suffix);
	else
		ol_strvec_pushf(out, "%s/lib%.*s%s", dir, (int)n, name, suffix);
}

/* Every place lld may look for the file tok[0..n) a script names (its
 * directory: scriptdir, or NULL). */
static void places_of(const char *tok, size_t n, const char *scriptdir,
		      const struct ol_strvec *dirs, const char *sysroot, struct ol_strvec *out)
{
	if (n == 0) /* ("" or a quote left open at the end: names nothing) */
		return;
	if (n > 3 && tok[0] == '-' && tok[1] == 'l' && tok[2] == ':') {
		for (size_t i = 0; i < dirs->n; i++)
			place(out, dirs->v[i], sysroot, tok + 3, n - 3);
	} else if (n > 2 && tok[0] == '-' && tok[1] == 'l') {
		for (size_t i = 0; i < dirs->n; i++) {
			place_lib(out, dirs->v[i], sysroot, tok + 2, n - 2, ".so");
			place_lib(out, dirs->v[i], sysroot, tok + 2, n - 2, ".a");
		}
	} else if (tok[0] == '/') {
		ol_strvec_pushn(out, tok, n);
		if (sysroot)
			ol_strvec_pushf(out, "%s%.*s", sysroot, (int)n, tok);
	} else if (tok[0] == '=') {
		ol_strvec_pushf(out, "%s/%.*s", sysroot ? sysroot : "", (int)n - 1, tok + 1);
		ol_strvec_pushn(out, tok + 1, n - 1);
	} else {
		if (scriptdir)
			place(out, scriptdir, NULL, tok, n);
		ol_strvec_pushn(out, tok, n);
		for (size_t i = 0; i < dirs->n; i++)
			place(out, dirs->v[i], sysroot, tok, n);
	}
}

bool ol_lld_script_places(const char *path, const uint8_t *p, size_t n,
			  const struct ol_strvec *dirs, const char *sysroot,
			  struct ol_strvec *places, char *why, size_t len)
{
	struct lexer lx = { (const char *)p, (const char *)p + n };
	const char *tok, *slash = strrchr(path, '/');
	char *scriptdir = slash ? strndup(path, (size_t)(slash - path)) : NULL;
	size_t tn;
	bool ok = true;

	if (not_script(p, n) || (slash && !scriptdir)) {
		free(scriptdir);
		return !slash || scriptdir;
	}
	while (ok && next(&lx, &tok, &tn)) {
		int depth = 0;

		if (is(tok, tn, "SEARCH_DIR")) {
			snprintf(why, len, "it names SEARCH_DIR, which changes lld's search");
			ok = false;
		} else if (is(tok, tn, "INCLUDE") || is(tok, tn, "INCLUDE_OPTIONAL")) {
			if (next(&lx, &tok, &tn))
				places_of(tok, tn, NULL, dirs, sysroot, places);
		} else if (is(tok, tn, "INPUT") || is(tok, tn, "GROUP")) {
			while (next(&lx, &tok, &tn)) {
				if (is(tok, tn, "("))
					depth++;
				else if (is(tok, tn, ")") && --depth <= 0)
					break;
				else if (!is(tok, tn, ",") && !is(tok, tn, "AS_NEEDED"))
					places_of(tok, tn, scriptdir, dirs, sysroot, places);
			}
		}
	}
	free(scriptdir);
	if (ok && places->err) {
		snprintf(why, len, "out of memory");
		ok = false;
	}
	return ok;
}
