#include "common/response_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"

/* LLVM expands up to 100 levels; a file that includes itself is caught
 * sooner, by name. */
enum { MAX_DEPTH = 100 };

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
		/* A backslash escapes the next byte, inside quotes too (libiberty
		 * and LLVM agree). */
		if (c == '\\' && i + 1 < len) {
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

/* The file's bytes; OL_E_NOT_FOUND when it does not exist (the argument
 * then stays as it is, as GCC and LLVM leave it); any other failure --
 * a directory, no permission, no memory -- is an error saying so. */
static enum ol_err read_whole(const char *path, struct ol_buf *b, struct ol_diag *d)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return OL_E_NOT_FOUND;
	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot read the response file", path);
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		int err = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return ol_diag_errno(d, err, "cannot read the response file", path);
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			return ol_diag_errno(d, err, "cannot read the response file", path);
		}
		if (ol_buf_append(b, chunk, (size_t)n)) {
			close(fd);
			return ol_diag_set(d, OL_E_NOMEM, NULL, "reading the response file %s", path);
		}
	}
	close(fd);
	return OL_OK;
}

/* The files being expanded, outermost first: a file met again inside
 * itself is a cycle, not a reason to go 100 levels deep. */
struct chain {
	const char *path;
	const struct chain *up;
};

static enum ol_err expand_one(const char *arg, struct ol_strvec *out,
			      int depth, const struct chain *up, struct ol_diag *d);

static enum ol_err expand_file(const char *path, struct ol_strvec *out,
			       int depth, const struct chain *up, struct ol_diag *d)
{
	struct ol_buf text = { 0 };
	struct ol_strvec toks = { 0 };
	struct chain here = { path, up };
	enum ol_err rc;

	for (const struct chain *c = up; c; c = c->up)
		if (strcmp(c->path, path) == 0)
			return ol_diag_set(d, OL_E_USAGE, NULL,
					   "recursive expansion of the response file %s", path);
	rc = read_whole(path, &text, d);
	if (!rc && ol_tokenize_gnu(text.data ? (const char *)text.data : "", text.len, &toks))
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, "reading the response file %s", path);
	for (size_t i = 0; i < toks.n && !rc; i++)
		rc = expand_one(toks.v[i], out, depth + 1, &here, d);
	ol_strvec_free(&toks);
	ol_buf_free(&text);
	return rc;
}

static enum ol_err expand_one(const char *arg, struct ol_strvec *out,
			      int depth, const struct chain *up, struct ol_diag *d)
{
	enum ol_err rc;

	if (arg[0] != '@' || arg[1] == '\0')
		return ol_strvec_push(out, arg) ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL)
						: OL_OK;
	if (depth >= MAX_DEPTH)
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "response files nested more than %d deep at %s",
				   MAX_DEPTH, arg);
	rc = expand_file(arg + 1, out, depth, up, d);
	if (rc == OL_E_NOT_FOUND)
		return ol_strvec_push(out, arg) ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL)
						: OL_OK;
	return rc;
}

enum ol_err ol_expand_args(int argc, char **argv, int first,
			   struct ol_strvec *out, struct ol_diag *d)
{
	for (int i = first; i < argc; i++)
		if (expand_one(argv[i], out, 0, NULL, d))
			return d->code;
	return OL_OK;
}
