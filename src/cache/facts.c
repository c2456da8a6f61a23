#include "cache/facts.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strmap.h"
#include "common/strvec.h"

static const char *kind(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? "dir" : S_ISREG(st->st_mode) ? "file" : "other";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's entry names, sorted, as a digest. */
static void listing(const char *path, struct ol_buf *out)
{
	struct ol_strvec names = { 0 };
	struct ol_digest h;
	uint8_t d[OL_DIGEST_SIZE];
	char hex[2 * OL_DIGEST_SIZE + 1];
	DIR *dir = opendir(path);
	struct dirent *e;

	if (!dir) {
		ol_buf_puts(out, "unlistable");
		return;
	}
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			ol_strvec_push(&names, e->d_name);
	closedir(dir);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	ol_digest_init(&h);
	for (size_t i = 0; i < names.n; i++)
		ol_digest_add_str(&h, names.v[i]);
	ol_digest_final(&h, d);
	ol_digest_hex(d, hex);
	ol_buf_printf(out, "dir:%s", names.err ? "unlistable" : hex);
	ol_strvec_free(&names);
}

/* When st was last changed (content or inode). */
static double changed(const struct stat *st)
{
	double c = (double)st->st_ctim.tv_sec + (double)st->st_ctim.tv_nsec / 1e9;
	double m = (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9;

	return c > m ? c : m;
}

static void note(double *latest, const struct stat *st)
{
	if (latest && changed(st) > *latest)
		*latest = changed(st);
}

/* lstat, readlink, realpath: where a symbolic link leads. */
static void link_fact(char op, const char *path, struct ol_buf *out, double *latest)
{
	char buf[PATH_MAX + 1];
	struct stat st;
	ssize_t n = -1;
	bool there = lstat(path, &st) == 0;

	if (there)
		note(latest, &st);
	if (op == 'P') {
		if (realpath(path, buf))
			ol_buf_printf(out, "real:%s", buf);
		else
			ol_buf_puts(out, "unresolved");
		return;
	}
	if (there && S_ISLNK(st.st_mode))
		n = readlink(path, buf, sizeof(buf) - 1);
	if (n >= 0)
		ol_buf_printf(out, "link:%.*s", (int)n, buf);
	else if (op == 'R')
		ol_buf_puts(out, "not a link");
	else
		ol_buf_puts(out, there ? kind(&st) : "missing");
}

/* The fact of (op, path) now, into out (NUL-terminated); *latest, when
 * latest is not NULL, raised to when what was looked at last changed. */
static void fact(char op, const char *path, const struct ol_pathform *form,
		 struct ol_fdigest *files, struct ol_buf *out, double *latest)
{
	struct stat st;
	char hex[2 * OL_DIGEST_SIZE + 1];
	uint8_t d[OL_DIGEST_SIZE];
	struct ol_diag diag;

	out->len = 0;
	switch (op) {
	case 'E': {
		const char *v = getenv(path);
		char *f = v ? ol_pathform_to(form, v) : NULL;

		if (f)
			ol_buf_printf(out, "=%s", f);
		else
			ol_buf_puts(out, v ? "unreadable" : "unset");
		free(f);
		break;
	}
	case 'L':
	case 'R':
	case 'P':
		link_fact(op, path, out, latest);
		break;
	case 'D':
		if (stat(path, &st) != 0)
			ol_buf_puts(out, "missing");
		else if (note(latest, &st), S_ISDIR(st.st_mode))
			listing(path, out);
		else
			ol_buf_puts(out, kind(&st));
		break;
	default: /* S A X O */
		if (stat(path, &st) != 0) {
			ol_buf_puts(out, "missing");
			break;
		}
		/* (a directory that is only tested for is the same fact whatever
		 * is added to it: the working directory, where the link writes) */
		if (op == 'O' || !S_ISDIR(st.st_mode))
			note(latest, &st);
		ol_buf_puts(out, kind(&st));
		if (op == 'X')
			ol_buf_puts(out, access(path, X_OK) == 0 ? "+x" : "-x");
		if (op == 'O' && S_ISREG(st.st_mode)) {
			ol_diag_clear(&diag);
			if (ol_fdigest_file(files, path, d, &diag) == OL_OK) {
				ol_digest_hex(d, hex);
				ol_buf_printf(out, ":%s", hex);
			} else {
				ol_buf_puts(out, ":unreadable");
			}
		}
		break;
	}
	if (ol_buf_append(out, "", 1))
		out->len = 0; /* out of memory: no fact */
}

static bool skipped(const char *path, const char *tmpdir)
{
	size_t t = tmpdir ? strlen(tmpdir) : 0;

	if (strncmp(path, "/proc/", 6) == 0 || strcmp(path, "/dev/null") == 0)
		return true;
	return t && strncmp(path, tmpdir, t) == 0 && (path[t] == '/' || path[t] == '\0');
}

/* The end of the 'C' record at i (its count, then that many strings);
 * 0 when it does not read whole. */
static size_t skip_command(const uint8_t *log, size_t n, size_t i)
{
	const uint8_t *z = memchr(log + i, '\0', n - i);
	char *end;
	unsigned long argc;

	if (!z)
		return 0;
	argc = strtoul((const char *)log + i + 1, &end, 10);
	if (end != (const char *)z || !argc || argc > n)
		return 0;
	i = (size_t)(z - log) + 1;
	while (argc-- > 0) {
		if (i >= n || !(z = memchr(log + i, '\0', n - i)))
			return 0;
		i = (size_t)(z - log) + 1;
	}
	return i;
}

size_t ol_log_commands(const uint8_t *log, size_t n, struct ol_strvec *first, bool *whole)
{
	size_t count = 0;

	*whole = true;
	for (size_t i = 0; i < n; ) {
		const uint8_t *z = memchr(log + i, '\0', n - i);
		size_t next;

		if (!z) {
			*whole = false;
			break;
		}
		if (log[i] != 'C') {
			i = (size_t)(z - log) + 1;
			continue;
		}
		if (!(next = skip_command(log, n, i))) {
			*whole = false;
			break;
		}
		if (count++ == 0 && first) {
			for (size_t a = (size_t)(z - log) + 1; a < next; ) {
				size_t k = strlen((const char *)log + a);

				ol_strvec_pushn(first, (const char *)log + a, k);
				a += k + 1;
			}
		}
		i = next;
	}
	return count;
}

bool ol_facts_from_log(const uint8_t *log, size_t n, const struct ol_pathform *form,
		       struct ol_fdigest *files, struct ol_facts *out, double not_after)
{
	struct ol_strmap seen = { 0 };
	struct ol_buf f = { 0 };
	double latest = 0;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n && ok; ) {
		const uint8_t *end = memchr(log + i, '\0', n - i);
		char op = (char)log[i];
		const char *rec = (const char *)log + i, *path = rec + 1;

		if (op == 'C') { /* a program started: not a fact */
			if (!(i = skip_command(log, n, i))) {
				ok = false;
				break;
			}
			continue;
		}
		if (!end || !strchr("ESLAXODRP", op) || !op || end == log + i + 1) {
			ok = false;
			break;
		}
		i = (size_t)(end - log) + 1;
		if (op != 'E' && skipped(path, form->tmp))
			continue;
		/* (the record itself is the key: the log outlives the map) */
		if (ol_strmap_get(&seen, rec, (size_t)((const char *)end - rec)))
			continue;
		if (!ol_strmap_put(&seen, rec, (size_t)((const char *)end - rec))) {
			ok = false;
			break;
		}
		fact(op, path, form, files, &f, &latest);
		{
			char *stored = op == 'E' ? strdup(path) : ol_pathform_to(form, path);

			ok = stored && f.len && !ol_pathform_ambiguous(path) &&
			     !ol_buf_append(&out->data, &op, 1) &&
			     !ol_buf_append(&out->data, stored, strlen(stored) + 1) &&
			     !ol_buf_append(&out->data, f.data, f.len);
			free(stored);
		}
		out->n++;
	}
	ol_strmap_free(&seen);
	ol_buf_free(&f);
	if (not_after > 0 && latest >= not_after)
		ok = false;
	if (!ok)
		ol_facts_free(out);
	return ok;
}

/* Each record of f: op, path, fact. */
static bool next_record(const struct ol_facts *f, size_t *at, char *op, const char **path,
			const char **value)
{
	const uint8_t *p = f->data.data, *end = p + f->data.len;
	const uint8_t *a = p + *at, *z1, *z2;

	if (a >= end)
		return false;
	if (!(z1 = memchr(a + 1, '\0', (size_t)(end - a - 1))) ||
	    !(z2 = memchr(z1 + 1, '\0', (size_t)(end - z1 - 1))))
		return false;
	*op = (char)a[0];
	*path = (const char *)a + 1;
	*value = (const char *)z1 + 1;
	*at = (size_t)(z2 - p) + 1;
	return true;
}

bool ol_facts_hold(const struct ol_facts *f, const struct ol_pathform *form,
		   struct ol_fdigest *files, const char **why)
{
	struct ol_buf now = { 0 };
	const char *path, *value;
	size_t at = 0;
	char op;
	bool ok = true;

	while (ok && next_record(f, &at, &op, &path, &value)) {
		char *here = op == 'E' ? strdup(path) : ol_pathform_from(form, path);

		if (here)
			fact(op, here, form, files, &now, NULL);
		if (!here || !now.len || strcmp((const char *)now.data, value) != 0) {
			ok = false;
			if (why)
				*why = path;
		}
		free(here);
	}
	ol_buf_free(&now);
	return ok;
}

bool ol_facts_parse(const uint8_t *p, size_t n, struct ol_facts *out)
{
	const char *path, *value;
	size_t at = 0;
	char op;

	memset(out, 0, sizeof(*out));
	if (ol_buf_append(&out->data, p, n))
		return false;
	while (next_record(out, &at, &op, &path, &value)) {
		if (!strchr("ESLAXODRP", op) || !op || !*path) {
			ol_facts_free(out);
			return false;
		}
		out->n++;
	}
	if (at != n) {
		ol_facts_free(out);
		return false;
	}
	return true;
}

void ol_facts_free(struct ol_facts *f)
{
	ol_buf_free(&f->data);
	f->n = 0;
}
