#include "format/ptx_symbols.h"

#include <string.h>

/* A token: a word (a directive ".func", a name, a number) or one byte of
 * punctuation. */
struct lexer {
	const uint8_t *p;
	size_t len, at;
	size_t start, n;   /* the current token */
	bool word;
};

static bool word_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '%' || c == '.';
}

/* The next token into x (false at the end of the text); comments and
 * strings are skipped; one that does not end is OL_E_TRUNCATED. */
static bool next_token(struct lexer *x, struct ol_diag *d)
{
	while (x->at < x->len && x->p[x->at]) {
		uint8_t c = x->p[x->at];
		size_t from = x->at;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
			x->at++;
		} else if (c == '/' && x->at + 1 < x->len && x->p[x->at + 1] == '/') {
			while (x->at < x->len && x->p[x->at] && x->p[x->at] != '\n')
				x->at++;
		} else if (c == '/' && x->at + 1 < x->len && x->p[x->at + 1] == '*') {
			for (x->at += 2; x->at + 1 < x->len && x->p[x->at] &&
					 !(x->p[x->at] == '*' && x->p[x->at + 1] == '/');)
				x->at++;
			if (x->at + 1 >= x->len || !x->p[x->at]) {
				ol_diag_at(d, OL_E_TRUNCATED, from, "PTX", "a comment that does not end");
				return false;
			}
			x->at += 2;
		} else if (c == '"') {
			for (x->at++; x->at < x->len && x->p[x->at] && x->p[x->at] != '"' &&
				      x->p[x->at] != '\n';)
				x->at++;
			if (x->at >= x->len || x->p[x->at] != '"') {
				ol_diag_at(d, OL_E_TRUNCATED, from, "PTX", "a string that does not end");
				return false;
			}
			x->at++;
		} else {
			x->start = x->at;
			x->word = word_byte(c);
			if (x->word)
				while (x->at < x->len && word_byte(x->p[x->at]))
					x->at++;
			else
				x->at++;
			x->n = x->at - x->start;
			return true;
		}
	}
	return false;
}

static bool is(const struct lexer *x, const char *s)
{
	return x->n == strlen(s) && memcmp(x->p + x->start, s, x->n) == 0;
}

static bool is_punct(const struct lexer *x, char c)
{
	return !x->word && x->p[x->start] == (uint8_t)c;
}

/* A name: a word that is neither a directive nor a number. */
static bool is_name(const struct lexer *x)
{
	uint8_t c = x->p[x->start];

	return x->word && c != '.' && !(c >= '0' && c <= '9');
}

/* What one module-scope statement declares. */
struct statement {
	size_t start;           /* where it began */
	bool linkage;           /* .visible, .extern, .weak or .common */
	bool extern_, weak, shared;
	bool function;          /* .func or .entry */
	bool section;           /* .section: debug data in brackets */
	const uint8_t *name;
	size_t name_len;
	int parens;             /* depth of ( ) */
};

static void note_word(struct statement *s, const struct lexer *x)
{
	if (s->name)
		return;
	if (is(x, ".visible")) {
		s->linkage = true;
	} else if (is(x, ".extern")) {
		s->linkage = s->extern_ = true;
	} else if (is(x, ".weak") || is(x, ".common")) {
		s->linkage = s->weak = true;
	} else if (is(x, ".shared")) {
		s->shared = true;
	} else if (is(x, ".func") || is(x, ".entry")) {
		s->function = true;
	} else if (is(x, ".section")) {
		s->section = true;
	} else if (is_name(x) && s->parens == 0) {
		/* a function's name follows its kind (and its return
		 * parameters, in parentheses); a variable's, its directives */
		s->name = x->p + x->start;
		s->name_len = x->n;
	}
}

static enum ol_err report(const struct statement *s, ol_ptx_symbol_cb cb, void *ctx,
			  struct ol_diag *d)
{
	struct ol_ptx_symbol sym = { (const char *)s->name, s->name_len, !s->extern_, s->weak,
				     s->function };

	if (!s->linkage || !s->name || (s->extern_ && s->shared))
		return OL_OK;
	return cb(ctx, &sym, d);
}

/* Step over a bracketed block whose '{' was just read. */
static bool skip_block(struct lexer *x, struct ol_diag *d)
{
	size_t from = x->start;
	size_t depth = 1;

	while (depth && next_token(x, d)) {
		if (is_punct(x, '{'))
			depth++;
		else if (is_punct(x, '}'))
			depth--;
	}
	if (depth && !d->code)
		ol_diag_at(d, OL_E_TRUNCATED, from, "PTX", "a block that does not end");
	return !depth;
}

/* The directives that end at the end of their line, with no ';'. */
static bool line_directive(const struct lexer *x)
{
	return is(x, ".version") || is(x, ".target") || is(x, ".address_size") || is(x, ".file");
}

static void skip_line(struct lexer *x)
{
	while (x->at < x->len && x->p[x->at] && x->p[x->at] != '\n')
		x->at++;
}

bool ol_is_ptx(const uint8_t *p, size_t len)
{
	struct lexer x = { p, len, 0, 0, 0, false };
	struct ol_diag d;

	ol_diag_clear(&d);
	return next_token(&x, &d) && is(&x, ".version");
}

enum ol_err ol_ptx_for_each_symbol(const uint8_t *p, size_t len, ol_ptx_symbol_cb cb,
				   void *ctx, struct ol_diag *d)
{
	struct lexer x = { p, len, 0, 0, 0, false };
	struct statement s = { 0 };
	bool open = false;

	while (next_token(&x, d)) {
		if (!open && x.word && line_directive(&x)) {
			skip_line(&x);
			continue;
		}
		if (!open) {
			s = (struct statement){ .start = x.start };
			open = true;
		}
		if (x.word) {
			note_word(&s, &x);
		} else if (is_punct(&x, '(')) {
			s.parens++;
		} else if (is_punct(&x, ')')) {
			s.parens -= s.parens > 0;
		} else if (is_punct(&x, ';') && s.parens == 0) {
			if (report(&s, cb, ctx, d))
				return d->code;
			open = false;
		} else if (is_punct(&x, '{') && s.parens == 0) {
			/* a function's body ends its statement; a variable's
			 * initializer is inside its own */
			if (!skip_block(&x, d))
				return d->code;
			if (s.function || s.section) {
				if (report(&s, cb, ctx, d))
					return d->code;
				open = false;
			}
		}
	}
	if (d->code)
		return d->code;
	if (open && s.parens)
		return ol_diag_at(d, OL_E_TRUNCATED, s.start, "PTX",
				  "a declaration that does not end");
	return OL_OK;
}
