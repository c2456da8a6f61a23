#include "cache/linkline.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache/dynamic_names.h"
#include "common/response_file.h"
#include "common/strvec.h"
#include "os/mapfile.h"

int ol_ld_flavor_of(const char *path)
{
	char real[PATH_MAX];
	const char *base, *slash;
	size_t n;

	if (!realpath(path, real))
		return -1;
	slash = strrchr(real, '/');
	base = slash ? slash + 1 : real;
	n = strlen(base);
	/* ld.bfd, x86_64-linux-gnu-ld.bfd, ld (a build of binutils) */
	if ((n >= 6 && strcmp(base + n - 6, "ld.bfd") == 0) || strcmp(base, "ld") == 0 ||
	    (n > 3 && strcmp(base + n - 3, "-ld") == 0))
		return OL_LD_GNU;
	/* ld.lld is a link to lld */
	if (strcmp(base, "lld") == 0 || strcmp(base, "ld.lld") == 0 ||
	    (n > 4 && strncmp(base, "lld-", 4) == 0) ||
	    (n > 7 && strncmp(base, "ld.lld-", 7) == 0))
		return OL_LD_LLD;
	return -1;
}

/* What an option is to the cache. */
enum role {
	TEXT,      /* steers the link: its spelling and value are the ingredient */
	PATH_TEXT, /* a directory searched (-rpath-link, --sysroot): its form */
	FILE_IN,   /* a file the linker reads */
	SCRIPT_IN, /* a linker script: read from the working directory or -L */
	LIBRARY,   /* -l */
	SEARCH,    /* -L */
	JUST_SYMS, /* -R: a file's symbols, or (a directory) an -rpath */
	OUTPUT,    /* -o: the image, in the temporary directory */
	DEPFILE,   /* --dependency-file: offlink's own, read after the link */
	STATIC_ON, STATIC_OFF, PUSH, POP,
	REFUSE,    /* prints or writes besides the image, or reads what the
		    * cache cannot see */
};

enum { NONE = 0, SEP = 1, OPTVAL = 2 }; /* value: none, "=v" or the next
					 * argument, or optional "=v" only */

struct opt {
	const char *name;
	unsigned char role, value;
};

/* Long options, matched whole after one or two dashes (GNU ld and lld
 * accept both); a value after '=' or, for SEP, as the next argument. */
static const struct opt long_opts[] = {
	/* steering, no value */
	{ "shared", TEXT, NONE }, { "Bshareable", TEXT, NONE }, { "pie", TEXT, NONE },
	{ "no-pie", TEXT, NONE }, { "static", STATIC_ON, NONE }, { "Bstatic", STATIC_ON, NONE },
	{ "dn", STATIC_ON, NONE }, { "non_shared", STATIC_ON, NONE },
	{ "Bdynamic", STATIC_OFF, NONE }, { "dy", STATIC_OFF, NONE },
	{ "call_shared", STATIC_OFF, NONE }, { "push-state", PUSH, NONE },
	{ "pop-state", POP, NONE }, { "Bsymbolic", TEXT, NONE },
	{ "Bsymbolic-functions", TEXT, NONE }, { "Bsymbolic-non-weak-functions", TEXT, NONE },
	{ "Bno-symbolic", TEXT, NONE }, { "no-undefined", TEXT, NONE },
	{ "allow-shlib-undefined", TEXT, NONE }, { "no-allow-shlib-undefined", TEXT, NONE },
	{ "as-needed", TEXT, NONE }, { "no-as-needed", TEXT, NONE },
	{ "whole-archive", TEXT, NONE }, { "no-whole-archive", TEXT, NONE },
	{ "start-group", TEXT, NONE }, { "end-group", TEXT, NONE }, { "(", TEXT, NONE },
	{ ")", TEXT, NONE }, { "eh-frame-hdr", TEXT, NONE }, { "no-eh-frame-hdr", TEXT, NONE },
	{ "gc-sections", TEXT, NONE }, { "no-gc-sections", TEXT, NONE },
	{ "export-dynamic", TEXT, NONE }, { "no-export-dynamic", TEXT, NONE },
	{ "strip-all", TEXT, NONE }, { "strip-debug", TEXT, NONE },
	{ "discard-all", TEXT, NONE }, { "discard-locals", TEXT, NONE },
	{ "discard-none", TEXT, NONE }, { "enable-new-dtags", TEXT, NONE },
	{ "disable-new-dtags", TEXT, NONE }, { "relocatable", TEXT, NONE },
	{ "emit-relocs", TEXT, NONE }, { "relax", TEXT, NONE }, { "no-relax", TEXT, NONE },
	{ "fatal-warnings", TEXT, NONE }, { "no-fatal-warnings", TEXT, NONE },
	{ "warn-common", TEXT, NONE }, { "warn-once", TEXT, NONE },
	{ "no-warn-mismatch", TEXT, NONE }, { "no-warn-search-mismatch", TEXT, NONE },
	{ "warn-unresolved-symbols", TEXT, NONE }, { "error-unresolved-symbols", TEXT, NONE },
	{ "warn-shared-textrel", TEXT, NONE }, { "no-color-diagnostics", TEXT, NONE },
	{ "no-threads", TEXT, NONE }, { "no-demangle", TEXT, NONE },
	{ "gdb-index", TEXT, NONE }, { "no-gdb-index", TEXT, NONE },
	{ "undefined-version", TEXT, NONE }, { "no-undefined-version", TEXT, NONE },
	{ "copy-dt-needed-entries", TEXT, NONE }, { "no-copy-dt-needed-entries", TEXT, NONE },
	{ "add-needed", TEXT, NONE }, { "no-add-needed", TEXT, NONE },
	{ "check-sections", TEXT, NONE }, { "no-check-sections", TEXT, NONE },
	{ "ld-generated-unwind-info", TEXT, NONE }, { "no-ld-generated-unwind-info", TEXT, NONE },
	{ "no-dynamic-linker", TEXT, NONE }, { "apply-dynamic-relocs", TEXT, NONE },
	{ "rosegment", TEXT, NONE }, { "no-rosegment", TEXT, NONE },
	{ "dynamic-list-data", TEXT, NONE }, { "dynamic-list-cpp-new", TEXT, NONE },
	{ "dynamic-list-cpp-typeinfo", TEXT, NONE }, { "omagic", TEXT, NONE },
	{ "nmagic", TEXT, NONE }, { "no-omagic", TEXT, NONE }, { "noinhibit-exec", TEXT, NONE },
	{ "EL", TEXT, NONE }, { "EB", TEXT, NONE }, { "dc", TEXT, NONE }, { "dp", TEXT, NONE },
	{ "lto-emit-llvm", TEXT, NONE }, { "lto-emit-asm", TEXT, NONE },
	{ "lto-whole-program-visibility", TEXT, NONE }, { "lto-debug-pass-manager", TEXT, NONE },
	{ "nostdlib", TEXT, NONE }, { "no-inhibit-exec", TEXT, NONE }, { "Qy", TEXT, NONE },
	/* steering, optional "=value" */
	{ "build-id", TEXT, OPTVAL }, { "sort-common", TEXT, OPTVAL },
	{ "color-diagnostics", TEXT, OPTVAL }, { "threads", TEXT, OPTVAL },
	{ "demangle", TEXT, OPTVAL },
	/* steering, with a value */
	{ "hash-style", TEXT, SEP }, { "sort-section", TEXT, SEP }, { "icf", TEXT, SEP },
	{ "compress-debug-sections", TEXT, SEP }, { "error-limit", TEXT, SEP },
	{ "image-base", TEXT, SEP }, { "section-start", TEXT, SEP }, { "defsym", TEXT, SEP },
	{ "wrap", TEXT, SEP }, { "undefined", TEXT, SEP }, { "entry", TEXT, SEP },
	{ "soname", TEXT, SEP }, { "rpath", TEXT, SEP }, { "dynamic-linker", TEXT, SEP },
	{ "exclude-libs", TEXT, SEP }, { "require-defined", TEXT, SEP },
	{ "pack-dyn-relocs", TEXT, SEP }, { "export-dynamic-symbol", TEXT, SEP },
	{ "hash-size", TEXT, SEP }, { "plugin-opt", TEXT, SEP }, { "mllvm", TEXT, SEP },
	{ "lto-O0", TEXT, NONE }, { "lto-O1", TEXT, NONE }, { "lto-O2", TEXT, NONE },
	{ "lto-O3", TEXT, NONE }, { "lto-partitions", TEXT, SEP },
	{ "lto-newpm-passes", TEXT, SEP }, { "thinlto-jobs", TEXT, SEP },
	{ "Ttext", TEXT, SEP }, { "Tdata", TEXT, SEP }, { "Tbss", TEXT, SEP },
	{ "Ttext-segment", TEXT, SEP }, { "Trodata-segment", TEXT, SEP },
	{ "Tldata-segment", TEXT, SEP }, { "emulation", TEXT, SEP }, { "target2", TEXT, SEP },
	{ "unresolved-symbols", TEXT, SEP }, { "orphan-handling", TEXT, SEP },
	{ "rpath-link", PATH_TEXT, SEP }, { "sysroot", PATH_TEXT, SEP },
	/* files read */
	{ "script", SCRIPT_IN, SEP }, { "default-script", SCRIPT_IN, SEP },
	{ "dT", SCRIPT_IN, SEP }, { "version-script", FILE_IN, SEP },
	{ "dynamic-list", FILE_IN, SEP }, { "retain-symbols-file", FILE_IN, SEP },
	{ "just-symbols", FILE_IN, SEP }, { "symbol-ordering-file", FILE_IN, SEP },
	{ "call-graph-ordering-file", FILE_IN, SEP },
	{ "export-dynamic-symbol-list", FILE_IN, SEP },
	{ "library", LIBRARY, SEP }, { "library-path", SEARCH, SEP },
	{ "output", OUTPUT, SEP }, { "dependency-file", DEPFILE, SEP },
	/* printing or writing besides the image; plugins */
	{ "Map", REFUSE, SEP }, { "print-map", REFUSE, NONE }, { "cref", REFUSE, NONE },
	{ "trace", REFUSE, NONE }, { "trace-symbol", REFUSE, SEP }, { "verbose", REFUSE, NONE },
	{ "version", REFUSE, NONE }, { "help", REFUSE, NONE },
	{ "print-gc-sections", REFUSE, NONE }, { "print-icf-sections", REFUSE, NONE },
	{ "stats", REFUSE, NONE }, { "reproduce", REFUSE, SEP }, { "why-extract", REFUSE, SEP },
	{ "print-archive-stats", REFUSE, SEP }, { "time-trace", REFUSE, OPTVAL },
	{ "time-trace-file", REFUSE, SEP }, { "save-temps", REFUSE, NONE },
	{ "print-memory-usage", REFUSE, NONE }, { "plugin", REFUSE, SEP },
	{ "thinlto-cache-dir", REFUSE, SEP }, { "lto-obj-path", REFUSE, SEP },
	{ "mri-script", REFUSE, SEP }, { "lto-sample-profile", REFUSE, SEP },
	{ "lto-cs-profile-file", REFUSE, SEP }, { "print-symbol-counts", REFUSE, SEP },
};

/* One-letter options: a value joined (-lfoo) or as the next argument. */
struct short_opt {
	char c;
	unsigned char role, value;
};

static const struct short_opt short_opts[] = {
	{ 'l', LIBRARY, SEP }, { 'L', SEARCH, SEP }, { 'o', OUTPUT, SEP },
	{ 'T', SCRIPT_IN, SEP }, { 'e', TEXT, SEP }, { 'u', TEXT, SEP }, { 'z', TEXT, SEP },
	{ 'm', TEXT, SEP }, { 'h', TEXT, SEP }, { 'R', JUST_SYMS, SEP }, { 'f', TEXT, SEP },
	{ 'F', TEXT, SEP }, { 'G', TEXT, SEP }, { 'I', TEXT, SEP }, { 'Y', TEXT, SEP },
	{ 'O', TEXT, OPTVAL }, { 'E', TEXT, NONE }, { 's', TEXT, NONE }, { 'S', TEXT, NONE },
	{ 'x', TEXT, NONE }, { 'X', TEXT, NONE }, { 'r', TEXT, NONE }, { 'q', TEXT, NONE },
	{ 'N', TEXT, NONE }, { 'n', TEXT, NONE }, { 'i', TEXT, NONE }, { 'd', TEXT, NONE },
	{ 'g', TEXT, NONE }, { 't', REFUSE, NONE }, { 'M', REFUSE, NONE },
	{ 'v', REFUSE, NONE }, { 'V', REFUSE, NONE }, { 'y', REFUSE, SEP },
};

struct line {
	struct ol_key *k;
	enum ol_ld_flavor flavor;
	const char *linker;
	struct ol_strvec args;     /* @files expanded */
	struct ol_strvec dirs;     /* -L, in order */
	const char *sysroot;
	const char *emulation;
	bool nostdlib;
	struct ol_strvec defaults; /* GNU ld's own search directories */
	bool have_defaults;
};

/* "@file": its content into the key, its arguments in place. */
static void expand(struct line *ln, char *const *argv, size_t argc, int depth)
{
	for (size_t i = 0; i < argc && !ln->k->uncacheable[0]; i++) {
		const char *a = argv[i];
		struct ol_strvec inner = { 0 };
		struct ol_map m = { 0 };
		struct ol_diag d;
		struct stat st;

		if (a[0] != '@' || stat(a + 1, &st) != 0) {
			ol_strvec_push(&ln->args, a); /* as the linker leaves it */
			continue;
		}
		if (depth > 100) {
			ol_key_refuse(ln->k, "response files nested more than 100 deep");
			return;
		}
		if (!ol_key_file(ln->k, "response file", a + 1))
			return;
		ol_diag_clear(&d);
		if (ol_map_file(a + 1, &m, &d) || ol_tokenize_gnu((const char *)m.data, m.len, &inner)) {
			char q[256];

			ol_key_refuse(ln->k, "response file %s cannot be read",
				      ol_key_quote(a + 1, q, sizeof(q)));
		} else {
			expand(ln, inner.v, inner.n, depth + 1);
		}
		ol_unmap(&m);
		ol_strvec_free(&inner);
	}
}

static const struct opt *find_long(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(long_opts) / sizeof(long_opts[0]); i++)
		if (strlen(long_opts[i].name) == n && strncmp(long_opts[i].name, name, n) == 0)
			return &long_opts[i];
	return NULL;
}

static const struct short_opt *find_short(char c)
{
	for (size_t i = 0; i < sizeof(short_opts) / sizeof(short_opts[0]); i++)
		if (short_opts[i].c == c)
			return &short_opts[i];
	return NULL;
}

/* One parsed argument: its role, its spelling (what the option is), its
 * value; *next is advanced past a separate value. */
struct parsed {
	int role;
	const char *value;
	char spelling[64];
};

static bool parse(struct line *ln, size_t *i, struct parsed *p)
{
	const char *a = ln->args.v[*i], *name, *eq;
	bool dbl = strncmp(a, "--", 2) == 0;
	const struct opt *o;
	const struct short_opt *so;
	size_t n;

	p->value = NULL;
	if (a[0] != '-' || a[1] == '\0') {
		p->role = FILE_IN;
		p->value = a;
		snprintf(p->spelling, sizeof(p->spelling), "input");
		return true;
	}
	name = a + (dbl ? 2 : 1);
	eq = strchr(name, '=');
	n = eq ? (size_t)(eq - name) : strlen(name);
	if ((o = find_long(name, n))) {
		p->role = o->role;
		snprintf(p->spelling, sizeof(p->spelling), "--%.*s", (int)n, name);
		if (eq && o->value != NONE)
			p->value = eq + 1;
		else if (eq)
			return false; /* "--shared=x" */
		else if (o->value == SEP && *i + 1 < ln->args.n)
			p->value = ln->args.v[++*i];
		else if (o->value == SEP)
			return false;
		return true;
	}
	if (dbl || !(so = find_short(name[0])))
		return false;
	p->role = so->role;
	snprintf(p->spelling, sizeof(p->spelling), "-%c", name[0]);
	if (so->value == NONE)
		return name[1] == '\0';
	if (name[1])
		p->value = name + 1;
	else if (so->value == SEP && *i + 1 < ln->args.n)
		p->value = ln->args.v[++*i];
	else if (so->value == SEP)
		return false;
	return true;
}

/* GNU ld's built-in search directories, from `ld [-m emulation]
 * --verbose`: its SEARCH_DIR("=dir") lines. */
static void gnu_defaults(struct line *ln)
{
	struct ol_cmd c = { .step = "device-link cache: the linker's search directories" };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const char *p;

	ln->have_defaults = true;
	ol_strvec_push(&c.argv, ln->linker);
	if (ln->emulation) {
		ol_strvec_push(&c.argv, "-m");
		ol_strvec_push(&c.argv, ln->emulation);
	}
	ol_strvec_push(&c.argv, "--verbose");
	ol_diag_clear(&d);
	if (!c.argv.err && ol_run_capture(&c, ln->k->run, &out, &d) == OL_OK && !ol_buf_puts(&out, "")) {
		for (p = (const char *)out.data; (p = strstr(p, "SEARCH_DIR(\"")); ) {
			const char *end;

			p += strlen("SEARCH_DIR(\"");
			if (!(end = strchr(p, '"')))
				break;
			ol_strvec_pushn(&ln->defaults, p, (size_t)(end - p));
			p = end;
		}
	} else {
		ol_key_refuse(ln->k, "the linker's search directories are unknown (ld --verbose failed)");
	}
	ol_buf_free(&out);
	ol_strvec_free(&c.argv);
}

/* dir as the linker reads it: "=dir" and "$SYSROOT/dir" under the sysroot. */
static void dir_path(const struct line *ln, const char *dir, const char *name, char *out,
		     size_t len)
{
	const char *root = ln->sysroot ? ln->sysroot : "";

	if (dir[0] == '=')
		snprintf(out, len, "%s%s/%s", root, dir + 1, name);
	else if (strncmp(dir, "$SYSROOT", 8) == 0)
		snprintf(out, len, "%s%s/%s", root, dir + 8, name);
	else
		snprintf(out, len, "%s/%s", dir, name);
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool search_in(const struct line *ln, const struct ol_strvec *dirs, const char *names[2],
		      char *found, size_t len)
{
	for (size_t d = 0; d < dirs->n; d++)
		for (int k = 0; k < 2 && names[k]; k++) {
			dir_path(ln, dirs->v[d], names[k], found, len);
			if (regular(found))
				return true;
		}
	return false;
}

/* -l<name>: the file the linker will take, keyed; "not found" otherwise
 * (the link then fails and stores nothing). */
static void library(struct line *ln, const char *name, bool is_static)
{
	char a[PATH_MAX], b[PATH_MAX], found[PATH_MAX];
	const char *names[2];

	if (name[0] == ':') {
		names[0] = name + 1;
		names[1] = NULL;
	} else {
		snprintf(a, sizeof(a), "lib%s.so", name);
		snprintf(b, sizeof(b), "lib%s.a", name);
		names[0] = is_static ? b : a;
		names[1] = is_static ? NULL : b;
	}
	ol_key_text(ln->k, "-l", name);
	if (search_in(ln, &ln->dirs, names, found, sizeof(found))) {
		ol_key_file(ln->k, "found", found);
		return;
	}
	if (ln->flavor == OL_LD_GNU && !ln->nostdlib) {
		if (!ln->have_defaults)
			gnu_defaults(ln);
		if (search_in(ln, &ln->defaults, names, found, sizeof(found))) {
			ol_key_file(ln->k, "found", found);
			return;
		}
	}
	ol_key_text(ln->k, "found", "nothing");
}

/* A -T script: the working directory's, else the first -L directory's. */
static void script(struct line *ln, const char *path)
{
	char found[PATH_MAX];
	const char *names[2] = { path, NULL };

	if (path[0] != '/' && !regular(path) && search_in(ln, &ln->dirs, names, found, sizeof(found)))
		ol_key_file(ln->k, "script", found);
	else
		ol_key_file(ln->k, "script", path);
}

/* First pass: the -L directories (they apply to every -l, wherever
 * they stand), the sysroot, the emulation, -nostdlib. */
static bool collect(struct line *ln)
{
	for (size_t i = 0; i < ln->args.n; i++) {
		struct parsed p;

		if (!parse(ln, &i, &p))
			return false;
		if (p.role == SEARCH)
			ol_strvec_push(&ln->dirs, p.value);
		else if (p.role == PATH_TEXT && strcmp(p.spelling, "--sysroot") == 0)
			ln->sysroot = p.value;
		else if (strcmp(p.spelling, "-m") == 0 || strcmp(p.spelling, "--emulation") == 0)
			ln->emulation = p.value;
		else if (strcmp(p.spelling, "--nostdlib") == 0)
			ln->nostdlib = true;
	}
	return true;
}

static void add_one(struct line *ln, const struct parsed *p, bool *is_static, unsigned *stack,
		    int *depth)
{
	struct ol_key *k = ln->k;
	char q[256];
	struct stat st;

	switch (p->role) {
	case TEXT:
		ol_key_text(k, p->spelling, p->value ? p->value : "");
		break;
	case PATH_TEXT:
	case SEARCH:
		ol_key_path(k, p->spelling, p->value);
		break;
	case FILE_IN:
		if (strcmp(p->value, "-") == 0)
			ol_key_refuse(k, "the device linker reads its standard input");
		else if (ol_key_is_tmp(k, p->value))
			ol_key_path(k, p->spelling, p->value); /* an image: keyed by its bytes */
		else if (ol_key_file(k, p->spelling, p->value) && ol_shared_without_soname(p->value))
			ol_key_verbatim(k, "written into the image as", p->value);
		break;
	case SCRIPT_IN:
		script(ln, p->value);
		break;
	case LIBRARY:
		library(ln, p->value, *is_static);
		break;
	case JUST_SYMS:
		if (stat(p->value, &st) == 0 && S_ISDIR(st.st_mode))
			ol_key_text(k, "-rpath", p->value);
		else
			ol_key_file(k, "--just-symbols", p->value);
		break;
	case OUTPUT:
	case DEPFILE:
		if (!ol_key_is_tmp(k, p->value))
			ol_key_refuse(k, "the device linker writes %s (%s)",
				      ol_key_quote(p->value, q, sizeof(q)), p->spelling);
		else if (p->role == OUTPUT)
			ol_key_path(k, p->spelling, p->value);
		break;
	case STATIC_ON:
	case STATIC_OFF:
		*is_static = p->role == STATIC_ON;
		ol_key_text(k, p->spelling, "");
		break;
	case PUSH:
		if (*depth < 64)
			*stack = (*stack << 1) | *is_static, ++*depth;
		ol_key_text(k, p->spelling, "");
		break;
	case POP:
		if (*depth > 0)
			*is_static = *stack & 1, *stack >>= 1, --*depth;
		ol_key_text(k, p->spelling, "");
		break;
	default:
		ol_key_refuse(k, "the device linker option %s prints or writes more than the "
				 "image, or reads what the cache cannot see",
			      ol_key_quote(p->spelling, q, sizeof(q)));
		break;
	}
}

void ol_key_linker_args(struct ol_key *k, enum ol_ld_flavor flavor, char *const *argv,
			size_t argc)
{
	struct line ln = { .k = k, .flavor = flavor, .linker = argv[0] };
	bool is_static = false;
	unsigned stack = 0;
	int depth = 0;
	char q[256];

	ol_key_text(k, "linker flavor", flavor == OL_LD_GNU ? "GNU ld" : "lld");
	expand(&ln, argv + 1, argc ? argc - 1 : 0, 0);
	if (!k->uncacheable[0] && !collect(&ln)) {
		for (size_t i = 0; i < ln.args.n; i++) {
			struct parsed p;
			size_t at = i;

			if (!parse(&ln, &i, &p)) {
				ol_key_refuse(k, "the device linker option %s is not known to the cache",
					      ol_key_quote(ln.args.v[at], q, sizeof(q)));
				break;
			}
		}
	}
	for (size_t i = 0; i < ln.args.n && !k->uncacheable[0]; i++) {
		struct parsed p;

		if (parse(&ln, &i, &p))
			add_one(&ln, &p, &is_static, &stack, &depth);
	}
	ol_strvec_free(&ln.args);
	ol_strvec_free(&ln.dirs);
	ol_strvec_free(&ln.defaults);
}

/* argv with its @files expanded (as the linker reads them), into out. */
static void expand_plain(char *const *argv, size_t argc, struct ol_strvec *out, int depth)
{
	for (size_t i = 0; i < argc; i++) {
		struct ol_strvec inner = { 0 };
		struct ol_map m = { 0 };
		struct ol_diag d;
		struct stat st;

		if (argv[i][0] != '@' || depth > 100 || stat(argv[i] + 1, &st) != 0) {
			ol_strvec_push(out, argv[i]);
			continue;
		}
		ol_diag_clear(&d);
		if (ol_map_file(argv[i] + 1, &m, &d) == OL_OK &&
		    ol_tokenize_gnu((const char *)m.data, m.len, &inner) == OL_OK)
			expand_plain(inner.v, inner.n, out, depth + 1);
		ol_unmap(&m);
		ol_strvec_free(&inner);
	}
}

void ol_linker_search_dirs(char *const *argv, size_t argc, struct ol_strvec *dirs,
			   char **sysroot)
{
	struct ol_strvec args = { 0 };

	*sysroot = NULL;
	expand_plain(argv + (argc ? 1 : 0), argc ? argc - 1 : 0, &args, 0);
	for (size_t i = 0; i < args.n; i++) {
		const char *a = args.v[i], *v = NULL;
		bool dir = false;

		if (strcmp(a, "-L") == 0 || strcmp(a, "--library-path") == 0 ||
		    strcmp(a, "-library-path") == 0) {
			v = i + 1 < args.n ? args.v[++i] : NULL;
			dir = true;
		} else if (strncmp(a, "-L", 2) == 0) {
			v = a + 2;
			dir = true;
		} else if (strncmp(a, "--library-path=", 15) == 0 || strncmp(a, "-library-path=", 14) == 0) {
			v = strchr(a, '=') + 1;
			dir = true;
		} else if (strcmp(a, "--sysroot") == 0 || strcmp(a, "-sysroot") == 0) {
			v = i + 1 < args.n ? args.v[++i] : NULL;
		} else if (strncmp(a, "--sysroot=", 10) == 0 || strncmp(a, "-sysroot=", 9) == 0) {
			v = strchr(a, '=') + 1;
		}
		if (!v)
			continue;
		if (dir) {
			ol_strvec_push(dirs, v);
		} else {
			free(*sysroot);
			*sysroot = strdup(v);
		}
	}
	ol_strvec_free(&args);
}
