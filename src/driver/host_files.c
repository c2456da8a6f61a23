/* The files the host linker writes that name its output: the dependency
 * file (--dependency-file) and the map (-Map, -M).  offlink links to
 * "<dir>/.offlink-XXXXXX/<base>" and renames (os/outfile.c), so the
 * linker would write that name where LLVM's link writes the user's: a
 * Makefile's "-include prog.d" would then hold no rule for prog, and make
 * would never relink it.  Each such file is redirected into the link's
 * temporary directory and written to where the user asked after the link,
 * with the private directory's token taken out of every name -- the
 * linker's text is then byte for byte what it writes for the user's
 * output, whatever its escaping -- and, from the dependency file, the
 * link's own temporaries left out (the registration objects, gone once
 * the link ends: naming them would make every make relink).
 *
 * The files named after the output (GNU ld's -Map=DIR and -Map=%, lld's
 * --time-trace and --save-temps files) need nothing here: the linker's
 * output keeps its base name inside the private directory, and whatever
 * it writes there is moved beside the output (ol_out_commit). */
#include "driver/host_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/linkline.h"
#include "common/grow.h"
#include "common/pieces.h"
#include "os/mapfile.h"

/* "--dependency-file=V", "-dependency-file V", "-Map=V", "--Map V", "-M":
 * which kind, and where its value is (*value NULL: a separate argument
 * follows; "-M" and "--print-map" have none and set *print). */
static bool host_file_option(const char *a, int *kind, const char **value, bool *print)
{
	static const struct {
		const char *name;
		int kind;
	} opts[] = { { "dependency-file", HOST_DEPFILE }, { "Map", HOST_MAP } };
	const char *n = a[0] == '-' ? a + 1 + (a[1] == '-') : NULL;

	*print = false;
	if (!n)
		return false;
	if (strcmp(a, "-M") == 0 || strcmp(a, "--print-map") == 0) {
		*kind = HOST_MAP;
		*print = true;
		*value = NULL;
		return true;
	}
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t len = strlen(opts[i].name);

		if (strncmp(n, opts[i].name, len) == 0 && (n[len] == '=' || n[len] == '\0')) {
			*kind = opts[i].kind;
			*value = n[len] == '=' ? n + len + 1 : NULL;
			return true;
		}
	}
	return false;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where the linker puts a map given as v: GNU ld writes "-" to standard
 * output (NULL), an existing directory's "<base>.map" inside it, and
 * replaces the first '%' with the output's path (".map" added when
 * nothing follows it); lld writes "-" to standard output and anything
 * else as named.  *keep: a form this does not know (a directory with a
 * '%' in its name): the option goes to the linker as given. */
static const char *map_dest(struct ol_link *l, const char *v, int flavor, bool *keep)
{
	const char *pct = strchr(v, '%'), *slash = strrchr(l->output, '/');

	*keep = false;
	if (strcmp(v, "-") == 0)
		return NULL;
	if (flavor != OL_LD_GNU)
		return v;
	if (is_dir(v)) {
		*keep = pct != NULL;
		return ol_arena_printf(&l->arena, "%s/%s.map", v, slash ? slash + 1 : l->output);
	}
	if (!pct)
		return v;
	return ol_arena_printf(&l->arena, "%.*s%s%s", (int)(pct - v), v, l->output,
			       pct[1] ? pct + 1 : ".map");
}

static enum ol_err add_file(struct ol_link *l, const struct ol_host_file *f)
{
	struct ol_host_file *v = ol_grow(l->host_files, l->nhost_files, &l->caphost_files,
					 sizeof(*v), 4);

	if (!v)
		return OL_E_NOMEM;
	l->host_files = v;
	v[l->nhost_files++] = *f;
	return OL_OK;
}

/* The option at host_args[i]: note it, and what the linker gets instead. */
static enum ol_err plan_one(struct ol_link *l, size_t i, int flavor, size_t *skip)
{
	const char *a = l->host_args.v[i], *v;
	struct ol_host_file f = { 0 };
	bool print, keep;
	int kind;

	*skip = 0;
	if (!host_file_option(a, &kind, &v, &print))
		return OL_OK;
	if (!print && !v) {
		if (i + 1 >= l->host_args.n)
			return OL_OK; /* the linker says what is missing */
		*skip = 1;
		v = l->host_args.v[i + 1];
	}
	f.kind = kind;
	f.tmp = ol_link_temp_path(l, ol_arena_printf(&l->arena, "host.%zu.%s", l->nhost_files,
						     kind == HOST_DEPFILE ? "d" : "map"));
	if (!f.tmp)
		return OL_E_NOMEM;
	if (kind == HOST_DEPFILE)
		f.dest = v;
	else
		f.dest = print ? NULL : map_dest(l, v, flavor, &keep);
	if (kind == HOST_MAP && !print && keep)
		return OL_OK;
	f.arg = (long)(i + *skip);
	if (print)
		f.replacement = ol_arena_printf(&l->arena, "-Map=%s", f.tmp);
	else if (*skip)
		f.replacement = f.tmp;
	else
		f.replacement = ol_arena_printf(&l->arena, "%.*s%s", (int)(v - a), a, f.tmp);
	if (!f.replacement || (f.dest == NULL && !print && strcmp(v, "-") != 0))
		return OL_E_NOMEM;
	return add_file(l, &f);
}

enum ol_err ol_plan_host_files(struct ol_link *l)
{
	int flavor = ol_ld_flavor_of(l->opt.linker_path);

	l->nhost_files = 0;
	for (size_t i = 0; i < l->host_args.n; i++) {
		size_t skip;
		enum ol_err rc = plan_one(l, i, flavor, &skip);

		if (rc)
			return rc;
		i += skip;
	}
	return OL_OK;
}

const char *ol_host_file_arg(const struct ol_link *l, size_t i)
{
	for (size_t k = 0; k < l->nhost_files; k++)
		if (l->host_files[k].arg == (long)i)
			return l->host_files[k].replacement;
	return NULL;
}

/* ---- writing them where the user asked ---- */

/* p := s[0..n) without the token's occurrences. */
static enum ol_err add_text(struct ol_pieces *p, const char *s, size_t n, const char *tok)
{
	size_t tlen = strlen(tok);

	while (n > 0) {
		const char *hit = tlen ? memmem(s, n, tok, tlen) : NULL;
		size_t keep = hit ? (size_t)(hit - s) : n;

		if (keep && ol_pieces_ref(p, s, keep))
			return OL_E_NOMEM;
		if (!hit)
			break;
		s += keep + tlen;
		n -= keep + tlen;
	}
	return OL_OK;
}

/* A path as lld escapes it in a dependency file ('$' doubled; '#' and
 * ' ' after a backslash, a space's preceding backslashes doubled); GNU
 * ld writes paths as they are. */
static const char *lld_escape(struct ol_link *l, const char *s)
{
	struct ol_buf b = { 0 };
	const char *r;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '#')
			ol_buf_puts(&b, "\\");
		else if (s[i] == '$')
			ol_buf_puts(&b, "$");
		else if (s[i] == ' ')
			for (size_t j = i; j > 0 && s[j - 1] == '\\'; j--)
				ol_buf_puts(&b, "\\");
		ol_buf_append(&b, &s[i], 1);
	}
	ol_buf_puts(&b, "");
	r = b.data ? ol_arena_strdup(&l->arena, (const char *)b.data) : NULL;
	ol_buf_free(&b);
	return r;
}

/* s with "." components dropped, ".." taking back the one before it and
 * slashes collapsed, as lld prints the files it read; each component
 * kept is followed by '/'. */
static const char *lexical_normal(struct ol_link *l, const char *s)
{
	char *out = ol_arena_strdup(&l->arena, s);
	size_t root = *s == '/', n = root;

	if (!out)
		return NULL;
	for (const char *p = s; *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p), last = n;

		while (last > root && out[last - 1] == '/')
			last--;
		while (last > root && out[last - 1] != '/')
			last--;
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* dropped */
		} else if (len == 2 && memcmp(p, "..", 2) == 0 && n > root &&
			   !(n - last == 3 && memcmp(out + last, "../", 3) == 0)) {
			n = last;
		} else if (!(len == 2 && memcmp(p, "..", 2) == 0 && root && n == root)) {
			memmove(out + n, p, len);
			n += len;
			out[n++] = '/';
		}
		p += len + (e != NULL);
	}
	out[n] = '\0';
	return out;
}

/* The forms the link's temporary directory takes in a dependency file. */
struct tmp_forms {
	const char *v[4];
};

static struct tmp_forms tmp_forms(struct ol_link *l)
{
	const char *raw = ol_arena_printf(&l->arena, "%s/", l->tmpdir);
	const char *norm = raw ? lexical_normal(l, raw) : NULL;
	struct tmp_forms f = { { raw, norm, raw ? lld_escape(l, raw) : NULL,
				 norm ? lld_escape(l, norm) : NULL } };

	return f;
}

/* A dependency-file line names one of the link's temporaries: "  path \",
 * " path", or "path:". */
static bool names_temporary(const char *s, size_t n, const struct tmp_forms *t)
{
	while (n > 0 && *s == ' ') {
		s++;
		n--;
	}
	for (size_t i = 0; i < 4; i++) {
		size_t len = t->v[i] ? strlen(t->v[i]) : 0;

		if (len && n > len && memcmp(s, t->v[i], len) == 0)
			return true;
	}
	return false;
}

/* Strip a line's continuation (" \"): its length without it. */
static size_t unwrap(const char *s, size_t n, bool *cont)
{
	*cont = n > 0 && s[n - 1] == '\\';
	if (!*cont)
		return n;
	n--;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

struct line {
	const char *s;
	size_t n;
};

/* The rule "target: \ prereq \ ... last", then the empty rules
 * "prereq:", each line kept unless it names a temporary; the rule's
 * continuations follow what is kept. */
static enum ol_err filter_depfile(struct ol_link *l, const char *text, size_t len,
				  const char *tok, struct ol_pieces *p)
{
	struct tmp_forms forms = tmp_forms(l);
	const char *end = text + len;
	struct line *rule = NULL;
	size_t nrule = 0, cap = 0;
	bool in_rule = true, skip_blank = false, cont;
	enum ol_err rc = OL_OK;

	for (const char *s = text; s < end && !rc;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *next = nl ? nl + 1 : end;

		if (in_rule) {
			size_t body = unwrap(s, n, &cont);
			struct line *v;

			if (nrule == 0 || !names_temporary(s, body, &forms)) {
				if (!(v = ol_grow(rule, nrule, &cap, sizeof(*v), 64)))
					rc = OL_E_NOMEM;
				else
					(rule = v)[nrule++] = (struct line){ s, body };
			}
			in_rule = cont;
			if (!in_rule) {
				for (size_t i = 0; i < nrule && !rc; i++) {
					rc = add_text(p, rule[i].s, rule[i].n, tok);
					if (!rc)
						rc = ol_buf_puts(&p->own, i + 1 < nrule ? " \\\n" : "\n");
				}
			}
		} else if (skip_blank && n == 0) {
			skip_blank = false;
		} else if (n > 0 && s[n - 1] == ':' && names_temporary(s, n - 1, &forms)) {
			skip_blank = true;
		} else {
			skip_blank = false;
			rc = add_text(p, s, (size_t)(next - s), tok);
		}
		s = next;
	}
	free(rule);
	return rc;
}

static enum ol_err write_stdout(const struct ol_pieces *p, struct ol_diag *d)
{
	fflush(stdout);
	for (size_t i = 0; i < p->n; i++) {
		const char *b = (const char *)ol_piece_data(p, i);
		size_t n = p->v[i].len;

		while (n > 0) {
			ssize_t w = write(STDOUT_FILENO, b, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return ol_diag_errno(d, errno, "cannot write the map", "standard output");
			b += w;
			n -= (size_t)w;
		}
	}
	return OL_OK;
}

static enum ol_err deliver(struct ol_link *l, const struct ol_host_file *f, struct ol_diag *d)
{
	const char *tok = ol_out_dir_token(&l->out);
	struct ol_pieces p = { 0 };
	struct ol_map m = { 0 };
	enum ol_err rc;

	if (ol_map_file(f->tmp, &m, d)) {
		ol_diag_prefix(d, f->kind == HOST_DEPFILE ? "the host linker's dependency file"
							  : "the host linker's map");
		return d->code;
	}
	if (f->kind == HOST_DEPFILE)
		rc = filter_depfile(l, (const char *)m.data, m.len, tok ? tok : "", &p);
	else
		rc = add_text(&p, (const char *)m.data, m.len, tok ? tok : "");
	if (!rc)
		rc = ol_pieces_finish(&p);
	if (rc)
		rc = ol_diag_set(d, rc, NULL, NULL);
	else if (f->dest)
		rc = ol_write_pieces_atomic(f->dest, &p, d);
	else
		rc = write_stdout(&p, d);
	ol_pieces_free(&p);
	ol_unmap(&m);
	return rc;
}

enum ol_err ol_deliver_host_files(struct ol_link *l, bool to_stdout)
{
	enum ol_err rc = OL_OK;
	struct ol_diag d;

	if (l->opt.dry_run)
		return OL_OK;
	for (size_t i = 0; i < l->nhost_files; i++) {
		const struct ol_host_file *f = &l->host_files[i];

		if ((f->dest == NULL) != to_stdout)
			continue;
		if (to_stdout && access(f->tmp, F_OK) != 0)
			continue; /* a failed link may have written none */
		ol_diag_clear(&d);
		if (deliver(l, f, &d)) {
			ol_link_error(l, &d);
			rc = d.code;
		}
	}
	return rc;
}
