/* The tables of what each device tool reads: the environment here, the
 * options of each tool in linkline.c and toolargs.c (cache/step_key.h). */
#include "cache/step_key.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/dynamic_names.h"
#include "cache/linkline.h"
#include "cache/program.h"
#include "cache/toolargs.h"

/* Environment variables the device tools read that can change an image
 * (the ones clang reads show in the linker command it would run). */
static const struct {
	const char *name;
	bool paths; /* a list of directories: each in its travelling form */
} tool_env[] = {
	{ "LD_RUN_PATH", false },       /* GNU ld, lld: RUNPATH when no -rpath */
	{ "LD_LIBRARY_PATH", true },    /* GNU ld: where DT_NEEDED are found */
	{ "LDEMULATION", false },       /* GNU ld: the default emulation */
	{ "GNUTARGET", false },         /* GNU ld: the default input format */
	{ "SOURCE_DATE_EPOCH", false }, /* build IDs, timestamps */
	{ "LIBRARY_PATH", true },       /* clang: -L; nvlink */
	{ "COMPILER_PATH", true },      /* clang: where it finds ld */
	{ "GCC_EXEC_PREFIX", true },
	{ "CCC_OVERRIDE_OPTIONS", false },
	{ "CUDA_PATH", true },
};

void ol_key_tool_env(struct ol_key *k)
{
	struct ol_buf b = { 0 };

	for (size_t i = 0; i < sizeof(tool_env) / sizeof(tool_env[0]); i++) {
		const char *v = getenv(tool_env[i].name);

		if (!v || !tool_env[i].paths) {
			ol_key_text(k, tool_env[i].name, v ? v : "(unset)");
			continue;
		}
		/* each directory in its travelling form */
		for (const char *p = v;; ) {
			size_t n = strcspn(p, ":");
			char *dir = strndup(p, n);

			if (dir) {
				ol_key_text(k, tool_env[i].name, ol_key_path_form(k, dir, &b));
				free(dir);
			}
			if (!p[n])
				break;
			p += n + 1;
		}
	}
	ol_buf_free(&b);
}

struct ol_pathform ol_pathform_for(const char *tmpdir, const char *base_dir, const char *cwd)
{
	size_t n = base_dir ? strlen(base_dir) : 0;
	bool under = n && cwd && strncmp(cwd, base_dir, n) == 0 &&
		     (cwd[n] == '/' || cwd[n] == '\0' || base_dir[n - 1] == '/');

	return (struct ol_pathform){ .tmp = tmpdir, .cwd = under ? cwd : NULL };
}

struct ol_pathform ol_key_pathform(const struct ol_key *k)
{
	return ol_pathform_for(k->tmpdir, k->base_dir, k->cwd);
}

void ol_key_driver_args(struct ol_key *k, char *const *argv, size_t argc)
{
	struct ol_pathform f = ol_key_pathform(k);
	struct stat st;
	char q[256];

	for (size_t i = 1; i < argc && !k->uncacheable[0]; i++) {
		const char *a = argv[i];
		char *t;

		if (ol_pathform_ambiguous(a)) {
			ol_key_refuse(k, "the argument %s reads as the cache's own notation",
				      ol_key_quote(a, q, sizeof(q)));
			break;
		}
		if (ol_key_is_tmp(k, a)) {
			ol_key_path(k, "argument", a);
			continue;
		}
		if (a[0] != '-' && stat(a, &st) == 0 && S_ISREG(st.st_mode)) {
			if (ol_key_file(k, "argument", a) && ol_shared_without_soname(a))
				ol_key_verbatim(k, "written into the image as", a);
			continue;
		}
		if (!(t = ol_pathform_to(&f, a))) {
			ol_key_refuse(k, "out of memory");
			break;
		}
		ol_key_text(k, "argument", t);
		free(t);
	}
}

/* The linker's command, for what its dependency file cannot say. */
static void note_linker(struct ol_step_reads *r, char *const *argv, size_t argc)
{
	if (r->flavor == OL_LD_LLD)
		ol_linker_search_dirs(argv, argc, &r->dirs, &r->sysroot);
}

void ol_key_step_args(struct ol_key *k, const struct ol_cmd *c, const char *program,
		      struct ol_step_reads *r)
{
	char q[256];

	r->flavor = -1;
	switch (c->tool) {
	case OL_TOOL_CLANG_DRIVER:
		/* what clang runs is keyed apart (ol_key_linker_command) */
		ol_key_driver_args(k, c->argv.v, c->argv.n);
		break;
	case OL_TOOL_LINKER:
		if ((r->flavor = ol_ld_flavor_of(program)) < 0) {
			ol_key_refuse(k, "the linker %s is not one whose inputs the cache can list",
				      ol_key_quote(program, q, sizeof(q)));
		} else {
			ol_key_linker_args(k, (enum ol_ld_flavor)r->flavor, c->argv.v, c->argv.n);
			note_linker(r, c->argv.v, c->argv.n);
		}
		break;
	case OL_TOOL_NVLINK:
		ol_key_nvlink_args(k, c->argv.v, c->argv.n);
		break;
	case OL_TOOL_PTXAS:
		ol_key_ptxas_args(k, c->argv.v, c->argv.n);
		break;
	default:
		ol_key_plain_args(k, c->argv.v, c->argv.n);
		break;
	}
}

static const char *base_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

static bool is_sycl_linker(const char *path)
{
	return strcmp(base_name(path), "clang-sycl-linker") == 0;
}

bool ol_is_inputs_linker(const char *path)
{
	return strcmp(base_name(path), "spirv-link") == 0 || is_sycl_linker(path);
}

void ol_key_linker_command(struct ol_key *k, char *const *argv, size_t argc,
			   struct ol_step_reads *r)
{
	char q[256];

	r->flavor = -1;
	if (!argc) {
		ol_key_refuse(k, "clang -### did not say what it runs");
	} else if (ol_is_inputs_linker(argv[0])) {
		/* it reads its inputs and nothing else: no dependency file */
		ol_key_program(k, "linker", argv[0]);
		if (is_sycl_linker(argv[0]))
			ol_key_sycl_linker_args(k, argv, argc);
		else
			ol_key_spirv_link_args(k, argv, argc);
	} else if ((r->flavor = ol_ld_flavor_of(argv[0])) < 0) {
		ol_key_refuse(k, "clang runs the linker %s, whose inputs the cache cannot list "
				 "(GNU ld and lld write dependency files)",
			      ol_key_quote(argv[0], q, sizeof(q)));
	} else {
		ol_key_program(k, "linker", argv[0]);
		ol_key_linker_args(k, (enum ol_ld_flavor)r->flavor, argv, argc);
		note_linker(r, argv, argc);
	}
}

int ol_guess_clang_linker(const char *triple, char *const *argv, size_t argc)
{
	const char *use = NULL, *env[] = { getenv("COMPILER_PATH"), NULL, getenv("PATH") };
	char dir[PATH_MAX], path[PATH_MAX + 64], *slash;
	const char *names[2] = { NULL, "ld" };
	char tld[256];

	for (size_t i = 1; i < argc; i++)
		if (strncmp(argv[i], "-fuse-ld=", 9) == 0)
			use = argv[i] + 9;
	if (use && (strcmp(use, "lld") == 0 || strcmp(use, "ld.lld") == 0))
		return OL_LD_LLD;
	if (use && strcmp(use, "bfd") != 0 && strcmp(use, "ld") != 0)
		return use[0] == '/' ? ol_ld_flavor_of(use) : -1;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	env[1] = slash ? dir : NULL;
	snprintf(tld, sizeof(tld), "%s-ld", triple);
	names[0] = tld;
	for (size_t e = 0; e < 3; e++)
		for (const char *p = env[e]; p && *p; ) {
			size_t n = e == 1 ? strlen(p) : strcspn(p, ":");

			for (int k = 0; k < 2 && n; k++) {
				snprintf(path, sizeof(path), "%.*s/%s", (int)n, p, names[k]);
				if (access(path, X_OK) == 0)
					return ol_ld_flavor_of(path);
			}
			p += n;
			if (*p == ':')
				p++;
		}
	return -1;
}

void ol_step_reads_free(struct ol_step_reads *r)
{
	ol_strvec_free(&r->dirs);
	free(r->sysroot);
	r->dirs = (struct ol_strvec){ 0 };
	r->sysroot = NULL;
}
