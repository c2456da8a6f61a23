#include "cache/key.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/filedigest.h"
#include "common/escape.h"
#include "common/grow.h"

void ol_key_init(struct ol_key *k, const char *domain)
{
	struct ol_buf *explain = k->explain;

	ol_digest_init(&k->h);
	ol_digest_add_str(&k->h, domain);
	if (explain)
		ol_buf_printf(explain, "key %s\n", domain);
}

void ol_key_final(struct ol_key *k, uint8_t out[OL_DIGEST_SIZE])
{
	ol_digest_final(&k->h, out);
}

void ol_key_free(struct ol_key *k)
{
	free(k->deps);
	k->deps = NULL;
	k->ndeps = k->capdeps = 0;
}

static void add_dep(struct ol_key *k, size_t index)
{
	size_t *v;

	for (size_t i = k->ndeps; i-- > 0 && i + 8 >= k->ndeps; )
		if (k->deps[i] == index)
			return; /* (just added: a file keyed twice in a row) */
	v = ol_grow(k->deps, k->ndeps, &k->capdeps, sizeof(*k->deps), 32);
	if (!v) {
		ol_key_refuse(k, "out of memory");
		return;
	}
	k->deps = v;
	k->deps[k->ndeps++] = index;
}

void ol_key_depend(struct ol_key *k, const char *path, const struct stat *st)
{
	size_t index;

	if (!k->files || ol_key_is_tmp(k, path))
		return;
	if (ol_fdigest_note(k->files, path, st, &index))
		add_dep(k, index);
	else
		ol_key_refuse(k, "out of memory");
}

static void explain(struct ol_key *k, const char *label, const char *text)
{
	if (!k->explain)
		return;
	ol_buf_printf(k->explain, "  %s: ", label);
	ol_escape_terminal(k->explain, text, strlen(text));
	ol_buf_puts(k->explain, "\n");
}

void ol_key_text(struct ol_key *k, const char *label, const char *text)
{
	ol_digest_add_str(&k->h, label);
	ol_digest_add_str(&k->h, text);
	explain(k, label, text);
}

void ol_key_u64(struct ol_key *k, const char *label, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	ol_key_text(k, label, s);
}

void ol_key_digest(struct ol_key *k, const char *label, const uint8_t d[OL_DIGEST_SIZE])
{
	char hex[2 * OL_DIGEST_SIZE + 1];

	ol_digest_hex(d, hex);
	ol_key_text(k, label, hex);
}

void ol_key_bytes(struct ol_key *k, const char *label, const void *p, size_t n)
{
	struct ol_digest h;
	uint8_t d[OL_DIGEST_SIZE];

	/* The bytes' own digest, so the key costs one pass over them and the
	 * explanation can name them. */
	ol_digest_init(&h);
	ol_digest_add(&h, p, n);
	ol_digest_final(&h, d);
	ol_key_u64(k, label, n);
	ol_key_digest(k, label, d);
}

bool ol_key_is_tmp(const struct ol_key *k, const char *path)
{
	size_t n = k->tmpdir ? strlen(k->tmpdir) : 0;

	return n && strncmp(path, k->tmpdir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* to, relative to from (both absolute, normalised by the caller's
 * realpath-free rule: only "/"-separated components are compared). */
static void relative(struct ol_buf *b, const char *from, const char *to)
{
	size_t common = 0, i = 0;

	/* the longest common prefix ending at a component boundary */
	for (;; i++) {
		bool fe = from[i] == '\0' || from[i] == '/', te = to[i] == '\0' || to[i] == '/';

		if (fe && te)
			common = i;
		if (from[i] != to[i] || from[i] == '\0')
			break;
	}
	for (const char *p = from + common; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			ol_buf_puts(b, b->len ? "/.." : "..");
	if (to[common] == '/' && to[common + 1]) {
		if (b->len)
			ol_buf_puts(b, to + common);
		else
			ol_buf_puts(b, to + common + 1);
	}
	if (!b->len)
		ol_buf_puts(b, ".");
}

const char *ol_key_path_form(const struct ol_key *k, const char *path, struct ol_buf *b)
{
	size_t n = k->base_dir ? strlen(k->base_dir) : 0;

	b->len = 0;
	if (ol_key_is_tmp(k, path)) {
		ol_buf_puts(b, "<TMP>");
		ol_buf_puts(b, path + strlen(k->tmpdir));
	} else if (n && k->cwd && path[0] == '/' && strncmp(path, k->base_dir, n) == 0 &&
		   (path[n] == '/' || path[n] == '\0' || k->base_dir[n - 1] == '/')) {
		relative(b, k->cwd, path);
		if (k->relative && !ol_strvec_contains(k->relative, path))
			ol_strvec_push(k->relative, path);
	} else {
		ol_buf_puts(b, path);
	}
	if (ol_buf_puts(b, ""))
		return path;
	return (const char *)b->data;
}

void ol_key_path(struct ol_key *k, const char *label, const char *path)
{
	struct ol_buf b = { 0 };

	ol_key_text(k, label, ol_key_path_form(k, path, &b));
	ol_buf_free(&b);
}

void ol_key_verbatim(struct ol_key *k, const char *label, const char *path)
{
	ol_key_text(k, label, path);
	if (k->verbatim && !ol_strvec_contains(k->verbatim, path))
		ol_strvec_push(k->verbatim, path);
}

void ol_key_refuse(struct ol_key *k, const char *fmt, ...)
{
	char why[sizeof(k->uncacheable)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!k->uncacheable[0])
		memcpy(k->uncacheable, why, sizeof(why));
	if (k->explain)
		ol_buf_printf(k->explain, "  not cacheable: %s\n", why);
}

const char *ol_key_quote(const char *text, char *buf, size_t len)
{
	struct ol_buf b = { 0 };

	ol_escape_terminal(&b, text, strlen(text) > 200 ? 200 : strlen(text));
	snprintf(buf, len, "'%s'", b.data ? (char *)b.data : "");
	ol_buf_free(&b);
	return buf;
}

bool ol_key_file(struct ol_key *k, const char *label, const char *path)
{
	uint8_t d[OL_DIGEST_SIZE];
	struct ol_diag diag;
	size_t index = 0;
	enum ol_err rc;

	ol_key_path(k, label, path);
	ol_diag_clear(&diag);
	rc = ol_fdigest_file_at(k->files, path, d, &index, &diag);
	if (rc != OL_E_NOMEM && !ol_key_is_tmp(k, path))
		add_dep(k, index);
	if (rc == OL_E_NOT_FOUND) {
		ol_key_text(k, label, "missing");
		return true;
	}
	if (rc) {
		char q[256];

		ol_key_refuse(k, "%s is not a readable regular file", ol_key_quote(path, q, sizeof(q)));
		return false;
	}
	ol_key_digest(k, label, d);
	return true;
}

bool ol_key_program_content(struct ol_key *k, const char *label, const char *path)
{
	uint8_t d[OL_DIGEST_SIZE];
	struct ol_diag diag;
	size_t index = 0;
	enum ol_err rc;
	char q[256];

	ol_key_path(k, label, path);
	ol_diag_clear(&diag);
	rc = ol_fdigest_program(k->files, path, d, &index, &diag);
	if (rc != OL_E_NOMEM)
		add_dep(k, index);
	if (rc == OL_E_NOT_FOUND) {
		ol_key_text(k, label, "missing");
		return true;
	}
	if (rc) {
		ol_key_refuse(k, "%s is not a readable regular file", ol_key_quote(path, q, sizeof(q)));
		return false;
	}
	ol_key_digest(k, "xxh3-128", d);
	return true;
}
