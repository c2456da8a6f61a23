#include "common/response_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

enum { MAX_DEPTH = 20 };

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

enum ol_err ol_tokenize_gnu(const char *text, size_t len, struct ol_strvec *out)
{
	struct ol_buf tok = { 0 };
	bool in_token = false;
	char quote = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (!quote && is_space(c)) {
			if (in_token && ol_strvec_pushn(out, tok.len ? (char *)tok.data : "", tok.len))
				goto nomem;
			tok.len = 0;
			in_token = false;
			continue;
		}
		in_token = true;
		if (c == '\\' && quote != '\'' && i + 1 < len) {
			c = text[++i];
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
			continue;
		} else if (quote && c == quote) {
			quote = 0;
			continue;
		}
		if (ol_buf_append(&tok, &c, 1))
			goto nomem;
	}
	if (in_token && ol_strvec_pushn(out, tok.len ? (char *)tok.data : "", tok.len))
		goto nomem;
	ol_buf_free(&tok);
	return OL_OK;
nomem:
	ol_buf_free(&tok);
	return OL_E_NOMEM;
}

static bool read_whole(const char *path, struct ol_buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;

	if (!f)
		return false;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (ol_buf_append(b, chunk, n)) {
			fclose(f);
			return false;
		}
	fclose(f);
	return true;
}

static enum ol_err expand_one(const char *arg, struct ol_strvec *out,
			      int depth, struct ol_diag *d);

static enum ol_err expand_file(const char *path, struct ol_strvec *out,
			       int depth, struct ol_diag *d)
{
	struct ol_buf text = { 0 };
	struct ol_strvec toks = { 0 };
	enum ol_err rc = OL_OK;

	if (!read_whole(path, &text)) {
		ol_buf_free(&text);
		return OL_E_NOT_FOUND;
	}
	if (ol_tokenize_gnu((const char *)text.data, text.len, &toks)) {
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto out;
	}
	for (size_t i = 0; i < toks.n && !rc; i++)
		rc = expand_one(toks.v[i], out, depth + 1, d);
out:
	ol_strvec_free(&toks);
	ol_buf_free(&text);
	return rc;
}

static enum ol_err expand_one(const char *arg, struct ol_strvec *out,
			      int depth, struct ol_diag *d)
{
	enum ol_err rc;

	if (arg[0] != '@' || arg[1] == '\0')
		return ol_strvec_push(out, arg) ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL)
						: OL_OK;
	if (depth >= MAX_DEPTH)
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "response files nested more than %d deep at %s",
				   MAX_DEPTH, arg);
	rc = expand_file(arg + 1, out, depth, d);
	if (rc == OL_E_NOT_FOUND)
		return ol_strvec_push(out, arg) ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL)
						: OL_OK;
	return rc;
}

enum ol_err ol_expand_args(int argc, char **argv, int first,
			   struct ol_strvec *out, struct ol_diag *d)
{
	for (int i = first; i < argc; i++)
		if (expand_one(argv[i], out, 0, d))
			return d->code;
	return OL_OK;
}
