/* The clang-linker-wrapper command line: wrapper options are consumed;
 * everything else goes to the host linker unchanged and in order, while
 * the items the host link reads (inputs, -l, archive and group toggles,
 * -u) are noted for scanning. */
#include "driver/options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/response_file.h"
#include "cache/store.h"

enum opt_id {
	O_LINKER_PATH, O_HOST_TRIPLE, O_OPT_LEVEL, O_CUDA_PATH, O_BITCODE_LIB,
	O_BUILTIN_BITCODE, O_CLANG_BACKEND, O_DEVICE_DEBUG, O_PTXAS_ARG,
	O_REMARKS, O_DEVICE_LINKER, O_DEVICE_COMPILER, O_DRY_RUN, O_VERBOSE,
	O_EMBED_BITCODE, O_PRINT_WRAPPED, O_SAVE_TEMPS, O_COMPRESS,
	O_COMPRESSION_LEVEL, O_TIME_TRACE, O_IGNORED_VALUE, O_JOBS,
	O_OVERRIDE_IMAGE, O_SHOULD_EXTRACT, O_OFFLOAD_OPT, O_HELP, O_HELP_HIDDEN,
	O_VERSION, O_WHOLE_PROGRAM, O_INTERNAL, O_LLVM, O_EMIT_FATBIN, O_PRINT_COMPAT,
	O_REGISTRATION, O_CACHE_DIR, O_NO_CACHE, O_CACHE_SIZE, O_CACHE_SHARED,
	O_CACHE_SECRET, O_CACHE_BASE, O_CACHE_REMOTE, O_CACHE_STATS, O_CACHE_CLEAR,
	O_OFFLOAD_ENTRIES, O_PROGRESS,
};

struct wrapper_opt {
	const char *name;   /* after "--"; a trailing '=' takes a joined value */
	enum opt_id id;
	bool not_ld;        /* no linker has an option of this name: taken even
			     * after clang 16's "--" (-Wl,--wrapper-verbose) */
};

static const struct wrapper_opt wrapper_opts[] = {
	{ "linker-path=", O_LINKER_PATH, true },
	{ "llvm=", O_LLVM, true },
	{ "host-triple=", O_HOST_TRIPLE, true },
	{ "opt-level=", O_OPT_LEVEL, true },
	{ "cuda-path=", O_CUDA_PATH, true },
	{ "bitcode-library=", O_BITCODE_LIB, true },
	{ "builtin-bitcode=", O_BUILTIN_BITCODE, true },
	{ "clang-backend", O_CLANG_BACKEND, true },
	{ "device-debug", O_DEVICE_DEBUG, true },
	{ "ptxas-arg=", O_PTXAS_ARG, true },
	{ "pass-remarks=", O_REMARKS, false },
	{ "pass-remarks-missed=", O_REMARKS, false },
	{ "pass-remarks-analysis=", O_REMARKS, false },
	{ "device-linker=", O_DEVICE_LINKER, true },
	{ "device-compiler=", O_DEVICE_COMPILER, true },
	{ "dry-run", O_DRY_RUN, true },
	{ "wrapper-verbose", O_VERBOSE, true },
	{ "embed-bitcode", O_EMBED_BITCODE, true },
	{ "print-wrapped-module", O_PRINT_WRAPPED, true },
	{ "save-temps", O_SAVE_TEMPS, false },
	{ "compress", O_COMPRESS, false },
	{ "compression-level=", O_COMPRESSION_LEVEL, false },
	{ "wrapper-time-trace=", O_TIME_TRACE, true },
	{ "wrapper-time-trace-granularity=", O_IGNORED_VALUE, true },
	{ "wrapper-jobs=", O_JOBS, true },
	{ "override-image=", O_OVERRIDE_IMAGE, true },
	{ "should-extract=", O_SHOULD_EXTRACT, true },
	{ "offload-opt=", O_OFFLOAD_OPT, true },
	{ "help", O_HELP, false },
	{ "help-hidden", O_HELP_HIDDEN, false },
	{ "version", O_VERSION, false },
	{ "print-compat-dir", O_PRINT_COMPAT, true },
	{ "whole-program", O_WHOLE_PROGRAM, false },
	{ "no-canonical-prefixes", O_INTERNAL, false },
	{ "emit-fatbin-only", O_EMIT_FATBIN, true },
	{ "registration=", O_REGISTRATION, true },
	{ "cache-dir=", O_CACHE_DIR, true },
	{ "no-cache", O_NO_CACHE, true },
	{ "cache-size=", O_CACHE_SIZE, true },
	{ "cache-shared", O_CACHE_SHARED, true },
	{ "cache-secret-file=", O_CACHE_SECRET, true },
	{ "cache-base-dir=", O_CACHE_BASE, true },
	{ "cache-remote=", O_CACHE_REMOTE, true },
	{ "cache-stats", O_CACHE_STATS, true },
	{ "cache-clear", O_CACHE_CLEAR, true },
	{ "offload-entries=", O_OFFLOAD_ENTRIES, true },
	{ "progress=", O_PROGRESS, true },
	/* Per-group options LLVM synthesises internally; never meaningful
	 * on the command line. */
	{ "arch=", O_INTERNAL, false },
	{ "triple=", O_INTERNAL, false },
	{ "linker-arg=", O_INTERNAL, false },
	{ "compiler-arg=", O_INTERNAL, false },
};

/* GNU ld / lld options whose value is the next argument: both are passed
 * through, and the value is not an input file. */
static const char *const separate_value[] = {
	"m", "e", "entry", "T", "script", "Map", "soname", "h", "z",
	"dynamic-linker", "I", "rpath-link", "y", "trace-symbol", "Y", "A",
	"architecture", "b", "format", "c", "mri-script", "F", "filter", "f",
	"auxiliary", "G", "gpsize", "R", "just-symbols", "defsym", "wrap",
	"plugin", "plugin-opt", "version-script", "dynamic-list",
	"exclude-libs", "section-start", "Ttext", "Tdata", "Tbss",
	"Ttext-segment", "Trodata-segment", "Tldata-segment", "image-base",
	"sort-section", "audit", "P", "depaudit", "dependency-file",
	"out-implib", "require-defined", "init", "fini",
	"retain-symbols-file", "oformat", "a", "assert", "task-link",
	"export-dynamic-symbol", "export-dynamic-symbol-list",
	"error-handling-script", "symbol-ordering-file",
	"call-graph-ordering-file", "package-metadata", "soname", "hash-size",
	"dynamic-list-data", NULL,
};

static const char *strip_dashes(const char *a)
{
	if (a[0] == '-' && a[1] == '-')
		return a + 2;
	if (a[0] == '-')
		return a + 1;
	return NULL;
}

static const struct wrapper_opt *find_wrapper_opt(const char *a,
						  const char **value)
{
	static const struct wrapper_opt compress = { "compress", O_COMPRESS, false };

	/* clang 19 passes "-compress" for --offload-compress (LLVM's own tool
	 * forwards it to the host linker, which fails); take it as ours. */
	if (strcmp(a, "-compress") == 0) {
		*value = NULL;
		return &compress;
	}
	if (strncmp(a, "--", 2) != 0)
		return NULL;
	a += 2;
	for (size_t i = 0; i < sizeof(wrapper_opts) / sizeof(wrapper_opts[0]); i++) {
		const char *n = wrapper_opts[i].name;
		size_t len = strlen(n);

		if (n[len - 1] == '=' ? strncmp(a, n, len) == 0 : strcmp(a, n) == 0) {
			*value = n[len - 1] == '=' ? a + len : NULL;
			return &wrapper_opts[i];
		}
	}
	return NULL;
}

static enum ol_err usage(struct ol_diag *d, const char *fmt, const char *arg)
{
	return ol_diag_set(d, OL_E_USAGE, NULL, fmt, arg);
}

static enum ol_err parse_jobs(struct ol_link *l, const char *v, struct ol_diag *d)
{
	char *end;
	long n;

	if (strcmp(v, "jobserver") == 0) { /* LLVM 22's spelling */
		l->opt.jobs_mode = JOBS_JOBSERVER;
		return OL_OK;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n <= 0 || n > 4096)
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "--wrapper-jobs=%s: expected a positive integer, got '%s'",
				   v, v);
	l->opt.jobs = (unsigned)n;
	l->opt.jobs_mode = JOBS_GIVEN;
	return OL_OK;
}

static enum ol_err parse_opt_level(struct ol_link *l, const char *v,
				   struct ol_diag *d)
{
	static const char *const ok[] = { "O0", "O1", "O2", "O3", "Os", "Oz" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (strcmp(v, ok[i]) == 0) {
			free(l->opt.opt_level);
			l->opt.opt_level = strdup(v + 1);
			return l->opt.opt_level ? OL_OK : OL_E_NOMEM;
		}
	}
	return usage(d, "--opt-level=%s: expected O0, O1, O2, O3, Os or Oz", v);
}

static enum ol_err set_string(char **slot, const char *v)
{
	free(*slot);
	*slot = strdup(v);
	return *slot ? OL_OK : OL_E_NOMEM;
}

static enum ol_err apply_wrapper_opt(struct ol_link *l, enum opt_id id,
				     const char *arg, const char *v,
				     struct ol_diag *d)
{
	struct ol_options *o = &l->opt;

	switch (id) {
	case O_LINKER_PATH: return set_string(&o->linker_path, v);
	case O_HOST_TRIPLE: return set_string(&o->host_triple, v);
	case O_OPT_LEVEL: return parse_opt_level(l, v, d);
	case O_CUDA_PATH: return set_string(&o->cuda_path, v);
	case O_TIME_TRACE: return set_string(&o->time_trace, v);
	case O_LLVM: return set_string(&o->llvm, v);
	case O_BITCODE_LIB: return ol_strvec_push(&o->bitcode_libraries, v);
	case O_BUILTIN_BITCODE: return ol_strvec_push(&o->builtin_bitcode, v);
	case O_PTXAS_ARG: return ol_strvec_push(&o->ptxas_args, v);
	case O_REMARKS: return ol_strvec_pushf(&o->offload_opt, "-%s", arg + 2);
	case O_DEVICE_LINKER: return ol_strvec_push(&o->device_linker, v);
	case O_DEVICE_COMPILER: return ol_strvec_push(&o->device_compiler, v);
	case O_OFFLOAD_OPT: return ol_strvec_push(&o->offload_opt, v);
	case O_OVERRIDE_IMAGE: return ol_strvec_push(&o->override_images, v);
	case O_SHOULD_EXTRACT: return ol_strvec_push(&o->should_extract, v);
	case O_JOBS: return parse_jobs(l, v, d);
	case O_CLANG_BACKEND: o->clang_backend = true; return OL_OK;
	case O_DEVICE_DEBUG: o->device_debug = true; return OL_OK;
	case O_DRY_RUN: o->dry_run = true; return OL_OK;
	case O_VERBOSE: o->verbose = true; return OL_OK;
	case O_EMBED_BITCODE: o->embed_bitcode = true; return OL_OK;
	case O_PRINT_WRAPPED: o->print_wrapped = true; return OL_OK;
	case O_SAVE_TEMPS: o->save_temps = true; return OL_OK;
	case O_COMPRESS: o->compress = true; return OL_OK;
	case O_HELP: o->help = true; return OL_OK;
	case O_HELP_HIDDEN: o->help = o->help_hidden = true; return OL_OK;
	case O_VERSION: o->version = true; return OL_OK;
	case O_PRINT_COMPAT: o->print_compat_dir = true; return OL_OK;
	case O_WHOLE_PROGRAM: o->whole_program = true; return OL_OK;
	case O_EMIT_FATBIN: o->emit_fatbin_only = true; return OL_OK;
	case O_CACHE_DIR: return set_string(&o->cache_dir, v);
	case O_NO_CACHE: o->no_cache = true; return OL_OK;
	case O_CACHE_SHARED: o->cache_shared = true; return OL_OK;
	case O_CACHE_SECRET: return set_string(&o->cache_secret_file, v);
	case O_CACHE_BASE:
		if (v[0] != '/')
			return usage(d, "--cache-base-dir=%s: expected an absolute directory", v);
		return set_string(&o->cache_base_dir, v);
	case O_CACHE_REMOTE: return ol_strvec_push(&o->cache_remotes, v);
	case O_CACHE_STATS: o->cache_stats = true; return OL_OK;
	case O_CACHE_CLEAR: o->cache_clear = true; return OL_OK;
	case O_CACHE_SIZE:
		if (ol_cache_parse_size(v, &o->cache_size))
			return ol_diag_set(d, OL_E_USAGE, "--cache-size",
					   "'%s': expected a size such as 500M or 2G", v);
		return OL_OK;
	case O_REGISTRATION:
		if (strcmp(v, "obj") != 0 && strcmp(v, "asm") != 0 && strcmp(v, "c") != 0 &&
		    strcmp(v, "auto") != 0)
			return ol_diag_set(d, OL_E_USAGE, "--registration",
					   "'%s': expected obj, asm, c or auto", v);
		return set_string(&o->registration, v);
	case O_OFFLOAD_ENTRIES:
		if (strcmp(v, "warn") == 0)
			o->offload_entries = ENTRIES_WARN;
		else if (strcmp(v, "error") == 0)
			o->offload_entries = ENTRIES_ERROR;
		else if (strcmp(v, "off") == 0)
			o->offload_entries = ENTRIES_OFF;
		else
			return ol_diag_set(d, OL_E_USAGE, "--offload-entries",
					   "'%s': expected warn, error or off", v);
		return OL_OK;
	case O_PROGRESS:
		if (!ol_progress_parse(v, &o->progress))
			return ol_diag_set(d, OL_E_USAGE, "--progress",
					   "'%s': expected auto, always or never", v);
		o->progress_given = true;
		return OL_OK;
	case O_COMPRESSION_LEVEL: {
		char *end;
		long n = strtol(v, &end, 10);

		if (end == v || *end || n < -5 || n > 22)
			return usage(d, "--compression-level=%s: expected an integer from -5 to 22", v);
		o->compression_level = (int)n;
		return OL_OK;
	}
	case O_IGNORED_VALUE:
		return OL_OK;
	case O_INTERNAL:
		return ol_strvec_push(&o->ignored, arg);
	}
	return OL_OK;
}

/* ---- host linker options ---- */

struct parser {
	struct ol_link *l;
	struct ol_strvec *args;
	size_t i;
	bool whole;
	bool linker_only;   /* after clang 16's "--": linker arguments only */
	bool separated;     /* a "--" comes later (clang 15 and 16 write one) */
	struct ol_diag *d;
	size_t nitems, capitems;
};

static enum ol_err add_item(struct parser *p, enum ol_item_kind kind,
			    const char *value, const char *spelled)
{
	struct ol_link *l = p->l;

	struct ol_item *n = ol_grow(l->items, p->nitems, &p->capitems, sizeof(*n), 64);

	if (!n)
		return ol_diag_set(p->d, OL_E_NOMEM, NULL, NULL);
	l->items = n;
	l->items[p->nitems].kind = kind;
	l->items[p->nitems].value = value ? ol_arena_strdup(&l->arena, value) : NULL;
	l->items[p->nitems].spelled = ol_arena_strdup(&l->arena, spelled);
	l->items[p->nitems].host_arg = -1;
	l->nitems = ++p->nitems;
	return OL_OK;
}

static enum ol_err forward(struct parser *p, const char *a)
{
	if (ol_strvec_push(&p->l->host_args, a))
		return ol_diag_set(p->d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

/* The value of an option spelled -X<v>, -X <v>, --name=<v> or --name <v>;
 * forwards the tokens as they were.  *value is NULL if the option is not
 * this one. */
static enum ol_err take_value(struct parser *p, const char *shortname,
			      const char *longname, const char **value,
			      size_t *prefix)
{
	const char *a = p->args->v[p->i], *n = strip_dashes(a);
	size_t sl = shortname ? strlen(shortname) : 0;
	size_t ll = longname ? strlen(longname) : 0;

	*value = NULL;
	if (!n)
		return OL_OK;
	if ((shortname && strcmp(n, shortname) == 0 && n == a + 1) ||
	    (longname && strcmp(n, longname) == 0)) {
		if (p->i + 1 >= p->args->n)
			return ol_diag_set(p->d, OL_E_USAGE, NULL,
					   "missing value after %s", a);
		if (forward(p, a))
			return p->d->code;
		*value = p->args->v[++p->i];
		*prefix = 0;
		return forward(p, *value);
	}
	if (longname && strncmp(n, longname, ll) == 0 && n[ll] == '=') {
		*value = n + ll + 1;
		*prefix = (size_t)(*value - a);
		return forward(p, a);
	}
	if (shortname && n == a + 1 && strncmp(n, shortname, sl) == 0 && n[sl]) {
		*value = n + sl;
		*prefix = (size_t)(*value - a);
		return forward(p, a);
	}
	return OL_OK;
}

static bool is_any(const char *n, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(n, *names) == 0)
			return true;
	return false;
}

/* Options without a value that change what the inputs mean. */
static enum ol_err parse_toggle(struct parser *p, const char *a, bool *done)
{
	static const char *const bstatic[] = { "Bstatic", "static", "dn", "non_shared", NULL };
	static const char *const bdynamic[] = { "Bdynamic", "dy", "call_shared", NULL };
	const char *n = strip_dashes(a);
	enum ol_item_kind kind;

	*done = true;
	if (strcmp(a, "-(") == 0 || (n && strcmp(n, "start-group") == 0))
		kind = ITEM_GROUP_START;
	else if (strcmp(a, "-)") == 0 || (n && strcmp(n, "end-group") == 0))
		kind = ITEM_GROUP_END;
	else if (n && strcmp(n, "whole-archive") == 0)
		kind = ITEM_WHOLE_ON;
	else if (n && strcmp(n, "no-whole-archive") == 0)
		kind = ITEM_WHOLE_OFF;
	else if (n && is_any(n, bstatic))
		kind = ITEM_STATIC;
	else if (n && is_any(n, bdynamic))
		kind = ITEM_DYNAMIC;
	else if (n && strcmp(n, "as-needed") == 0)
		kind = ITEM_AS_NEEDED;
	else if (n && strcmp(n, "no-as-needed") == 0)
		kind = ITEM_NO_AS_NEEDED;
	else if (strcmp(a, "-r") == 0 || (n && (strcmp(n, "relocatable") == 0 ||
						strcmp(n, "Ur") == 0))) {
		p->l->opt.relocatable = true;
		return forward(p, a);
	} else {
		*done = false;
		return OL_OK;
	}
	if (add_item(p, kind, NULL, a))
		return p->d->code;
	return forward(p, a);
}

static enum ol_err note_output(struct parser *p, const char *value, size_t prefix)
{
	struct ol_link *l = p->l;

	l->output = ol_arena_strdup(&l->arena, value);
	l->output_arg = (long)l->host_args.n - 1;
	l->output_prefix = prefix;
	l->wrappers_at = l->host_args.n;
	return OL_OK;
}

/* Options with a value: -o, -L, -l, -u, -rpath, --sysroot. */
static enum ol_err parse_valued(struct parser *p, bool *done)
{
	struct ol_link *l = p->l;
	const char *v;
	size_t prefix;

	*done = true;
	if (take_value(p, "o", "output", &v, &prefix))
		return p->d->code;
	if (v)
		return note_output(p, v, prefix);
	if (take_value(p, "L", "library-path", &v, &prefix))
		return p->d->code;
	if (v)
		return ol_strvec_push(&l->lib_dirs, v);
	if (take_value(p, "l", "library", &v, &prefix))
		return p->d->code;
	if (v)
		return add_item(p, ITEM_LIBRARY, v, p->args->v[p->i]);
	if (take_value(p, "u", "undefined", &v, &prefix))
		return p->d->code;
	if (v)
		return add_item(p, ITEM_UNDEFINED, v, p->args->v[p->i]);
	if (take_value(p, NULL, "rpath", &v, &prefix))
		return p->d->code;
	if (v)
		return ol_strvec_push(&l->rpaths, v);
	if (take_value(p, NULL, "sysroot", &v, &prefix))
		return p->d->code;
	if (v)
		return set_string(&l->sysroot, v);
	*done = false;
	return OL_OK;
}

static enum ol_err parse_host_arg(struct parser *p)
{
	const char *a = p->args->v[p->i], *n = strip_dashes(a);
	bool done;

	if (parse_valued(p, &done) || done)
		return p->d->code;
	if (parse_toggle(p, a, &done) || done)
		return p->d->code;
	if (n && a[1] != '\0' && is_any(n, separate_value) && p->i + 1 < p->args->n) {
		if (forward(p, a))
			return p->d->code;
		return forward(p, p->args->v[++p->i]);
	}
	if (a[0] == '-' && a[1] != '\0')
		return forward(p, a); /* unknown option: pass it on */
	if (add_item(p, ITEM_FILE, a, a))
		return p->d->code;
	p->l->items[p->nitems - 1].host_arg = (long)p->l->host_args.n;
	return forward(p, a);
}

static enum ol_err parse_one(struct parser *p)
{
	const char *a = p->args->v[p->i], *v = NULL;
	const struct wrapper_opt *w;

	/* clang 16 separates the wrapper's options from the linker's with
	 * "--"; it is no linker argument (ld would take it for the end of
	 * its options and find no input).  After it, only options no linker
	 * has are still the wrapper's: clang 16 puts -Wl,--wrapper-verbose
	 * there too. */
	if (!p->linker_only && strcmp(a, "--") == 0) {
		p->linker_only = true;
		return OL_OK;
	}
	w = find_wrapper_opt(a, &v);
	if (p->linker_only && !(w && w->not_ld))
		return parse_host_arg(p);
	/* clang 15's -v: its wrapper's option was --verbose (16 renamed it
	 * --wrapper-verbose); before a "--" it is no linker's. */
	if (p->separated && strcmp(a, "--verbose") == 0) {
		p->l->opt.verbose = true;
		return OL_OK;
	}

	if (w)
		return apply_wrapper_opt(p->l, w->id, a, v, p->d);
	if (strcmp(a, "-mllvm") == 0 || strcmp(a, "--mllvm") == 0) {
		if (p->i + 1 >= p->args->n)
			return usage(p->d, "missing value after %s", a);
		return ol_strvec_push(&p->l->opt.mllvm, p->args->v[++p->i]);
	}
	if (strncmp(a, "-mllvm=", 7) == 0)
		return ol_strvec_push(&p->l->opt.mllvm, a + 7);
	if (strcmp(a, "-v") == 0) {
		/* LLVM's -v prints the version; offlink also turns on verbose
		 * output so a link line that carries it still links. */
		p->l->opt.version = true;
		p->l->opt.verbose = true;
		return OL_OK;
	}
	return parse_host_arg(p);
}

enum ol_err ol_parse_command_line(struct ol_link *l, int argc, char **argv,
				  struct ol_diag *d)
{
	struct ol_strvec args = { 0 };
	struct parser p = { .l = l, .args = &args, .d = d };
	enum ol_err rc = OL_OK;

	l->output_arg = -1;
	l->opt.compression_level = INT_MIN; /* not given */
	if (ol_expand_args(argc, argv, 1, &args, d)) {
		ol_strvec_free(&args);
		return d->code;
	}
	for (size_t i = 0; i < args.n; i++)
		p.separated |= strcmp(args.v[i], "--") == 0;
	for (p.i = 0; p.i < args.n && !rc; p.i++)
		rc = parse_one(&p);
	ol_strvec_free(&args);
	if (rc)
		return rc == OL_E_NOMEM ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL) : d->code;
	if (l->host_args.err || l->lib_dirs.err || l->rpaths.err)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (l->output_arg < 0) {
		/* No -o: the host linker writes a.out; say so explicitly so the
		 * output can be written under a temporary name too. */
		if (ol_strvec_insert(&l->host_args, 0, "-o") ||
		    ol_strvec_insert(&l->host_args, 1, "a.out"))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		l->output = "a.out";
		l->output_arg = 1;
		l->output_prefix = 0;
		l->wrappers_at = 2;
	}
	return OL_OK;
}
