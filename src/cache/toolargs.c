#include "cache/toolargs.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/strvec.h"

enum role { TEXT, OUTPUT, SEARCH, LIBRARY, REFUSE };
enum { FLAG, VALUE }; /* VALUE: "-x v", "-x=v", or joined "-xv" for one dash + one letter */

struct tool_opt {
	const char *name;
	unsigned char role, value;
};

static const struct tool_opt nvlink_opts[] = {
	{ "-arch", TEXT, VALUE }, { "--arch", TEXT, VALUE }, { "-o", OUTPUT, VALUE },
	{ "--output-file", OUTPUT, VALUE }, { "-L", SEARCH, VALUE },
	{ "--library-path", SEARCH, VALUE }, { "-l", LIBRARY, VALUE },
	{ "--library", LIBRARY, VALUE }, { "-g", TEXT, FLAG }, { "--debug", TEXT, FLAG },
	{ "-m64", TEXT, FLAG }, { "-w", TEXT, FLAG }, { "--disable-warnings", TEXT, FLAG },
	{ "--suppress-stack-size-warning", TEXT, FLAG }, { "--suppress-arch-warning", TEXT, FLAG },
	{ "--preserve-relocs", TEXT, FLAG }, { "--extra-warnings", TEXT, FLAG },
	{ "-Werror", TEXT, FLAG }, { "--Werror", TEXT, FLAG },
	{ "-v", REFUSE, FLAG }, { "--verbose", REFUSE, FLAG },
	{ "--dump-callgraph", REFUSE, FLAG }, { "--dump-callgraph-no-demangle", REFUSE, FLAG },
	{ "-keep", REFUSE, FLAG }, { "--keep", REFUSE, FLAG },
};

static const struct tool_opt ptxas_opts[] = {
	{ "--gpu-name", TEXT, VALUE }, { "-arch", TEXT, VALUE }, { "-o", OUTPUT, VALUE },
	{ "--output-file", OUTPUT, VALUE }, { "-O", TEXT, VALUE }, { "--opt-level", TEXT, VALUE },
	{ "--maxrregcount", TEXT, VALUE }, { "-maxrregcount", TEXT, VALUE },
	{ "--fmad", TEXT, VALUE }, { "-fmad", TEXT, VALUE }, { "--ftz", TEXT, VALUE },
	{ "--prec-div", TEXT, VALUE }, { "--prec-sqrt", TEXT, VALUE },
	{ "--def-load-cache", TEXT, VALUE }, { "--def-store-cache", TEXT, VALUE },
	{ "-m64", TEXT, FLAG }, { "-c", TEXT, FLAG }, { "--compile-only", TEXT, FLAG },
	{ "-g", TEXT, FLAG }, { "--device-debug", TEXT, FLAG }, { "-lineinfo", TEXT, FLAG },
	{ "--generate-line-info", TEXT, FLAG }, { "-w", TEXT, FLAG },
	{ "--disable-warnings", TEXT, FLAG }, { "--allow-expensive-optimizations", TEXT, VALUE },
	{ "-Werror", TEXT, FLAG }, { "--warn-on-spills", TEXT, FLAG },
	{ "--extensible-whole-program", TEXT, FLAG }, { "-ewp", TEXT, FLAG },
	{ "--split-compile", TEXT, VALUE }, { "-split-compile", TEXT, VALUE },
	{ "-v", REFUSE, FLAG }, { "--verbose", REFUSE, FLAG },
};

/* SPIRV-Tools' spirv-link (what clang runs for a SPIR-V device link):
 * its options all steer the link; -h and --version print instead. */
static const struct tool_opt spirv_link_opts[] = {
	{ "-o", OUTPUT, VALUE }, { "--allow-partial-linkage", TEXT, FLAG },
	{ "--create-library", TEXT, FLAG }, { "--verify-ids", TEXT, FLAG },
	{ "--use-highest-version", TEXT, FLAG }, { "--target-env", TEXT, VALUE },
	{ "-h", REFUSE, FLAG }, { "--help", REFUSE, FLAG }, { "--version", REFUSE, FLAG },
};

/* LLVM's clang-sycl-linker (23 on): it links the bitcode it is given and
 * generates SPIR-V in process; the AOT options run Intel's compilers. */
static const struct tool_opt sycl_linker_opts[] = {
	{ "-o", OUTPUT, VALUE }, { "-triple", TEXT, VALUE }, { "--triple", TEXT, VALUE },
	{ "-arch", TEXT, VALUE }, { "--arch", TEXT, VALUE }, { "-L", SEARCH, VALUE },
	{ "-l", LIBRARY, VALUE }, { "--module-split-mode", TEXT, VALUE }, { "-u", TEXT, VALUE },
	{ "--whole-archive", TEXT, FLAG }, { "--no-whole-archive", TEXT, FLAG },
	{ "--ocloc-options", REFUSE, VALUE }, { "--opencl-aot-options", REFUSE, VALUE },
	{ "--save-temps", REFUSE, FLAG }, { "--spirv-dump-device-code", REFUSE, VALUE },
	{ "--print-linked-module", REFUSE, FLAG }, { "--dry-run", REFUSE, FLAG },
	{ "-v", REFUSE, FLAG }, { "-help", REFUSE, FLAG }, { "--version", REFUSE, FLAG },
};

struct parsed {
	const struct tool_opt *o;
	const char *value;
};

/* argv[*i] against the table. */
static bool parse(const struct tool_opt *t, size_t n, char *const *argv, size_t argc, size_t *i,
		  struct parsed *p)
{
	const char *a = argv[*i];

	for (size_t k = 0; k < n; k++) {
		size_t len = strlen(t[k].name);

		if (strncmp(a, t[k].name, len) != 0)
			continue;
		if (t[k].value == FLAG && a[len] == '\0') {
			*p = (struct parsed){ &t[k], NULL };
			return true;
		}
		if (t[k].value != VALUE)
			continue;
		if (a[len] == '=') {
			*p = (struct parsed){ &t[k], a + len + 1 };
			return true;
		}
		if (a[len] == '\0' && *i + 1 < argc) {
			*p = (struct parsed){ &t[k], argv[++*i] };
			return true;
		}
		if (a[len] && len == 2) { /* -Ldir, -lname, -O3 */
			*p = (struct parsed){ &t[k], a + len };
			return true;
		}
	}
	return false;
}

static void key_input(struct ol_key *k, const char *path)
{
	if (ol_key_is_tmp(k, path))
		ol_key_path(k, "input", path);
	else
		ol_key_file(k, "input", path);
}

/* nvlink -l<name>, searched as nvlink searches (strace shows it): its
 * -L directories, then those of LIBRARY_PATH, for lib<name>.so in each,
 * then for lib<name>.a in each; the first file there is the one.  The
 * whole search is the key: a library appearing earlier in it, in a
 * LIBRARY_PATH directory too, is a different key. */
static void library(struct ol_key *k, const struct ol_strvec *dirs, const char *name)
{
	static const char *const ext[] = { ".so", ".a" };
	char path[PATH_MAX];
	struct stat st;

	ol_key_text(k, "-l", name);
	for (size_t f = 0; f < 2; f++) {
		for (size_t i = 0; i < dirs->n; i++) {
			int n = snprintf(path, sizeof(path), "%s/lib%s%s", dirs->v[i], name, ext[f]);

			if (n < 0 || (size_t)n >= sizeof(path))
				continue; /* (no such path can exist) */
			if (stat(path, &st) == 0) {
				ol_key_file(k, "found", path);
				return;
			}
			ol_key_depend(k, path, NULL); /* absent: must stay so */
		}
	}
	ol_key_text(k, "found", "nothing");
}

/* "a,b,c" (nvlink takes lists for -L and -l): each into out. */
static void push_list(struct ol_strvec *out, const char *v)
{
	while (*v) {
		size_t n = strcspn(v, ",");

		if (n)
			ol_strvec_pushn(out, v, n);
		v += n;
		if (*v == ',')
			v++;
	}
}

static void key_table(struct ol_key *k, const char *tool, const struct tool_opt *t, size_t n,
		      char *const *argv, size_t argc, bool library_path)
{
	struct ol_strvec dirs = { 0 }, libs = { 0 };
	struct parsed p;
	char q[256];
	const char *env = library_path ? getenv("LIBRARY_PATH") : NULL;

	for (size_t i = 1; i < argc; i++)
		if (argv[i][0] == '-' && parse(t, n, argv, argc, &i, &p) && p.o->role == SEARCH)
			push_list(&dirs, p.value);
	for (const char *e = env; e && *e; ) {
		size_t len = strcspn(e, ":");

		if (len)
			ol_strvec_pushn(&dirs, e, len);
		e += len;
		if (*e == ':')
			e++;
	}
	for (size_t i = 1; i < argc && !k->uncacheable[0]; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || a[1] == '\0') {
			key_input(k, a);
			continue;
		}
		if (!parse(t, n, argv, argc, &i, &p)) {
			ol_key_refuse(k, "the %s option %s is not known to the cache", tool,
				      ol_key_quote(a, q, sizeof(q)));
			break;
		}
		switch (p.o->role) {
		case TEXT:
			ol_key_text(k, p.o->name, p.value ? p.value : "");
			break;
		case SEARCH:
			ol_key_path(k, p.o->name, p.value);
			break;
		case LIBRARY:
			ol_strvec_free(&libs);
			push_list(&libs, p.value);
			for (size_t j = 0; j < libs.n; j++)
				library(k, &dirs, libs.v[j]);
			break;
		case OUTPUT:
			if (ol_key_is_tmp(k, p.value))
				ol_key_path(k, p.o->name, p.value);
			else
				ol_key_refuse(k, "%s writes %s", tool, ol_key_quote(p.value, q, sizeof(q)));
			break;
		default:
			ol_key_refuse(k, "the %s option %s prints or writes more than its output", tool,
				      ol_key_quote(a, q, sizeof(q)));
			break;
		}
	}
	ol_strvec_free(&dirs);
	ol_strvec_free(&libs);
}

void ol_key_nvlink_args(struct ol_key *k, char *const *argv, size_t argc)
{
	key_table(k, "nvlink", nvlink_opts, sizeof(nvlink_opts) / sizeof(nvlink_opts[0]), argv,
		  argc, true);
}

/* ptxas reads its input and nothing else (strace shows it), and of the
 * environment TMPDIR (its scratch files), CAN_FINALIZE_DEBUG and
 * DUMP_KNOBS_TO_FILE, which writes a file of its own. */
void ol_key_ptxas_args(struct ol_key *k, char *const *argv, size_t argc)
{
	const char *dbg = getenv("CAN_FINALIZE_DEBUG");

	if (getenv("DUMP_KNOBS_TO_FILE"))
		ol_key_refuse(k, "DUMP_KNOBS_TO_FILE makes ptxas write more than its output");
	ol_key_text(k, "CAN_FINALIZE_DEBUG", dbg ? dbg : "(unset)");
	key_table(k, "ptxas", ptxas_opts, sizeof(ptxas_opts) / sizeof(ptxas_opts[0]), argv, argc,
		  false);
}

void ol_key_spirv_link_args(struct ol_key *k, char *const *argv, size_t argc)
{
	key_table(k, "spirv-link", spirv_link_opts,
		  sizeof(spirv_link_opts) / sizeof(spirv_link_opts[0]), argv, argc, false);
}

void ol_key_sycl_linker_args(struct ol_key *k, char *const *argv, size_t argc)
{
	key_table(k, "clang-sycl-linker", sycl_linker_opts,
		  sizeof(sycl_linker_opts) / sizeof(sycl_linker_opts[0]), argv, argc, false);
}

void ol_key_plain_args(struct ol_key *k, char *const *argv, size_t argc)
{
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];
		struct stat st;

		if (ol_key_is_tmp(k, a))
			ol_key_path(k, "argument", a);
		else if (a[0] != '-' && stat(a, &st) == 0 && S_ISREG(st.st_mode))
			ol_key_file(k, "argument", a);
		else
			ol_key_text(k, "argument", a);
	}
}
