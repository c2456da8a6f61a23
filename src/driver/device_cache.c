/* The device-link cache: a group whose link would read the same bytes
 * with the same tools and the same arguments gets the image it made last
 * time, and no device linker runs (the common relink: only host code was
 * edited).  A cache never changes what a link produces, so a key holds
 * everything that can change the image, by content (docs/design.md,
 * "Device-link cache", lists every ingredient):
 *
 * 1. The group's own key, computed before it links: offlink's version,
 *    the group's target, the environment variables its tools read, and
 *    per step the program (cache/program.h: its content and its own
 *    libraries') and its arguments read by what they mean to that tool
 *    (cache/linkline.h, cache/toolargs.h): files by content, -l as the
 *    file the tool's own search finds, @files by content and by what they
 *    hold.  A link through clang is keyed by what clang would run
 *    (`clang ... -###`: the linker found through PATH, the start files,
 *    its search directories), not by clang's arguments.  Then the bytes
 *    of every input image.
 * 2. What the linker read on its own (the libraries a linker script
 *    names, DT_NEEDED of the shared libraries, start files): its
 *    dependency file, written on the miss, is kept as a manifest under
 *    the group's key; a lookup digests each file it lists as it is now,
 *    and the image is stored under the digest of the group's key and
 *    those files' digests (ccache's direct mode, with the linker naming
 *    what it read).
 * A step whose inputs cannot all be named (an option the tables do not
 * know, a plugin, a linker that writes no dependency file) makes the
 * group uncacheable, and the plan says why. */
#include "driver/phases.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache/clang_jobs.h"
#include "cache/depfile.h"
#include "cache/dynamic_names.h"
#include "cache/facts.h"
#include "cache/key.h"
#include "cache/ldtrace.h"
#include "cache/linkline.h"
#include "cache/manifest.h"
#include "cache/pathform.h"
#include "cache/probe_memo.h"
#include "cache/program.h"
#include "cache/toolargs.h"
#include "common/env.h"
#include "common/message.h"
#include "common/response_file.h"
#include "common/version.h"
#include "driver/device_link.h"
#include "os/findprog.h"
#include "os/cleanup.h"
#include "os/mapfile.h"

#define DEFAULT_CAP ((uint64_t)1 << 30)
#define KEY_DOMAIN "offlink device-link cache 3"

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

static void warn_cache(void *ctx, const char *msg)
{
	ol_link_warnf(ctx, "%s", msg);
}

/* A boolean switch (common/env.h); configure() refused a value that is
 * not one before anything reads it here. */
static bool env_on(const char *name)
{
	const char *v = getenv(name);
	bool on = false;

	return v && ol_parse_bool(v, &on) && on;
}

/* Where remembered digests go when the local store cannot hold them:
 * the user's own cache directory (cache/store.c checks that it is). */
static const char *memo_dir(struct ol_link *l)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return ol_arena_printf(&l->arena, "%s/offlink-digests", xdg);
	if (home && *home == '/')
		return ol_arena_printf(&l->arena, "%s/.cache/offlink-digests", home);
	return NULL;
}

static enum ol_err check_switch(struct ol_link *l, const char *name)
{
	struct ol_diag d;
	bool on;

	ol_diag_clear(&d);
	if (ol_env_bool(name, false, &on, &d))
		ol_link_error(l, &d);
	return d.code;
}

/* Where the stores are: options first, then the environment. */
static enum ol_err configure(struct ol_link *l, struct ol_cache_config *c, struct ol_strvec *remotes)
{
	const char *env = getenv("OFFLINK_CACHE_DIR"), *size = getenv("OFFLINK_CACHE_SIZE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *remote = getenv("OFFLINK_CACHE_REMOTE");
	const char *base = getenv("OFFLINK_CACHE_BASE_DIR");

	memset(c, 0, sizeof(*c));
	if (check_switch(l, "OFFLINK_CACHE_SHARED") | check_switch(l, "OFFLINK_CACHE_EXPLAIN"))
		return OL_E_USAGE;
	c->cap = l->opt.cache_size;
	if (!c->cap && size && *size && ol_cache_parse_size(size, &c->cap)) {
		ol_link_errorf(l, "OFFLINK_CACHE_SIZE=%s: expected a size such as 500M or 2G",
			       ol_link_quote(l, size));
		return OL_E_USAGE;
	}
	if (!c->cap)
		c->cap = DEFAULT_CAP;
	if (l->opt.no_cache || l->opt.override_images.n)
		return OL_OK;
	if (l->opt.cache_dir)
		c->dir = l->opt.cache_dir;
	else if (env && *env)
		c->dir = env;
	else if (xdg && *xdg == '/')
		c->dir = ol_arena_printf(&l->arena, "%s/offlink", xdg);
	else if (home && *home == '/')
		c->dir = ol_arena_printf(&l->arena, "%s/.cache/offlink", home);
	if (c->dir && strcmp(c->dir, "off") == 0)
		c->dir = NULL;
	c->shared = l->opt.cache_shared || env_on("OFFLINK_CACHE_SHARED");
	c->secret_file = l->opt.cache_secret_file ? l->opt.cache_secret_file
						  : getenv("OFFLINK_CACHE_SECRET_FILE");
	ol_strvec_extend(remotes, &l->opt.cache_remotes);
	if (!l->opt.cache_remotes.n && remote && *remote)
		ol_tokenize_gnu(remote, strlen(remote), remotes);
	c->remotes = (const char *const *)remotes->v;
	c->nremotes = remotes->n;
	c->memo_dir = memo_dir(l);
	if (l->opt.cache_base_dir)
		l->cache_base_dir = strdup(l->opt.cache_base_dir);
	else if (base && *base == '/')
		l->cache_base_dir = strdup(base);
	return remotes->err;
}

enum ol_err ol_open_cache(struct ol_link *l)
{
	struct ol_cache_config c;
	struct ol_strvec remotes = { 0 };
	struct ol_diag d;
	char cwd[PATH_MAX];
	enum ol_err rc;

	ol_diag_clear(&d);
	if ((rc = configure(l, &c, &remotes))) {
		ol_strvec_free(&remotes);
		return rc;
	}
	if (!c.dir && !c.nremotes) {
		ol_strvec_free(&remotes);
		return OL_OK;
	}
	rc = ol_store_open(&l->cache, &c, warn_cache, l, &d);
	l->cache_opened = true;
	ol_strvec_free(&remotes);
	if (rc) {
		ol_link_error(l, &d);
		return rc;
	}
	l->cache_on = ol_store_active(&l->cache);
	if (getcwd(cwd, sizeof(cwd)))
		l->cwd = strdup(cwd);
	return OL_OK;
}

static void key_env(struct ol_key *k)
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

/* A dependency file for the step's linker, added to its command once
 * the whole key holds. */
static char *depfile_path(struct ol_link *l, struct ol_group *g, size_t step)
{
	return ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.%zu.deps", g->stem, step));
}

/* GNU ld's record of where it looked (--verbose, on its standard
 * output). */
static char *trace_path(struct ol_link *l, struct ol_group *g, size_t step)
{
	return ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.%zu.ldtrace", g->stem, step));
}

struct pending { /* a step whose linker will write what it read */
	size_t step;
	int flavor;
	struct ol_strvec dirs; /* lld: its search directories */
	char *sysroot;
};

static void free_pending(struct pending *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ol_strvec_free(&p[i].dirs);
		free(p[i].sysroot);
	}
}

/* Takes p's dirs and sysroot. */
static bool add_depfile(struct ol_group *g, const char *path, struct pending *p, const char *trace)
{
	struct ol_depfile *v = realloc(g->depfiles, (g->ndepfiles + 1) * sizeof(*v));

	if (!v)
		return false;
	g->depfiles = v;
	v += g->ndepfiles++;
	memset(v, 0, sizeof(*v));
	v->step = p->step;
	v->path = strdup(path);
	v->flavor = p->flavor;
	v->trace = trace ? strdup(trace) : NULL;
	v->dirs = p->dirs;
	v->sysroot = p->sysroot;
	memset(&p->dirs, 0, sizeof(p->dirs));
	p->sysroot = NULL;
	return v->path && (!trace || v->trace) && !v->dirs.err;
}

/* The step writes what it read (its dependency file) and, GNU ld,
 * where it looked (--verbose, in the C locale: its messages are read).
 * The step's arguments before these are remembered, to run it without
 * them should they be wrong for its linker. */
static bool record_reads(struct ol_link *l, struct ol_group *g, struct pending *p)
{
	struct ol_cmd *c = &g->steps[p->step];
	bool driver = c->tool == OL_TOOL_CLANG_DRIVER;
	char *path = depfile_path(l, g, p->step), *trace = NULL;

	if (!path)
		return false;
	if (p->flavor == OL_LD_GNU && !(trace = trace_path(l, g, p->step)))
		return false;
	if (!add_depfile(g, path, p, trace))
		return false;
	if (driver)
		g->driver_plain_argc = c->argv.n;
	ol_strvec_pushf(&c->argv, driver ? "-Wl,--dependency-file=%s" : "--dependency-file=%s", path);
	if (trace) {
		ol_strvec_push(&c->argv, driver ? "-Wl,--verbose" : "--verbose");
		/* (through clang: only its linker gets LC_ALL=C, from the
		 * recorder, so that clang decides in offlink's environment) */
		if (!driver || !l->probe_lib)
			ol_strvec_push(&c->env, "LC_ALL=C");
		free(c->stdout_path);
		c->stdout_path = strdup(trace);
	}
	return !c->argv.err && !c->env.err && (!trace || c->stdout_path);
}

/* The link through clang runs with the recorder preloaded: its linker
 * gets LC_ALL=C (GNU ld's words are read), and a first link records what
 * clang looked at and ran (the answer, without a -### of its own). */
static bool record_driver(struct ol_link *l, struct ol_group *g, bool gnu)
{
	struct ol_cmd *c = &g->steps[g->driver_step];
	const char *pre = getenv("LD_PRELOAD");

	if (!l->probe_lib || (!gnu && g->probe != PROBE_PENDING))
		return true;
	ol_strvec_pushf(&c->env, "LD_PRELOAD=%s%s%s", l->probe_lib, pre && *pre ? ":" : "",
			pre ? pre : "");
	if (gnu)
		ol_strvec_push(&c->env, "OFFLINK_PROBE_CHILD_ENV=LC_ALL=C");
	if (g->probe == PROBE_PENDING)
		ol_strvec_pushf(&c->env, "OFFLINK_PROBE_LOG=%s", g->probe_log);
	return !c->env.err;
}

/* Whether path names SPIRV-Tools' linker. */
static bool is_spirv_link(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcmp(base ? base + 1 : path, "spirv-link") == 0;
}

/* The linker's command, for what its dependency file cannot say. */
static void note_linker(struct pending *p, char *const *argv, size_t argc)
{
	if (p->flavor == OL_LD_LLD)
		ol_linker_search_dirs(argv, argc, &p->dirs, &p->sysroot);
}

static void key_init(struct ol_link *l, struct ol_key *k, struct ol_buf *explain,
		     const char *domain)
{
	memset(k, 0, sizeof(*k));
	/* The key's start: a file changed from here on is not trusted.  The
	 * coarse clock is the one the kernel stamps files with, so a file
	 * changed after this reads as changed at or after it. */
	if (!l->cache_key_time) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		l->cache_key_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	k->explain = explain;
	k->tmpdir = l->tmpdir;
	k->base_dir = l->cache_base_dir;
	k->cwd = l->cwd;
	k->files = &l->cache.files;
	k->run = &l->run;
	ol_key_init(k, domain);
}

/* The key's files become the group's: they must hold until its store. */
static void keep_deps(struct ol_group *g, struct ol_key *k)
{
	size_t *v = realloc(g->cache_deps, (g->ncache_deps + k->ndeps + 1) * sizeof(*v));

	if (!v) {
		ol_key_refuse(k, "out of memory");
		return;
	}
	memcpy(v + g->ncache_deps, k->deps, k->ndeps * sizeof(*v));
	g->cache_deps = v;
	g->ncache_deps += k->ndeps;
	ol_key_free(k);
}

/* How this link's own places are written in what travels between links
 * (cache/pathform.h): its temporary directory, and the working directory
 * when it lies under the base directory. */
static struct ol_pathform form_of(const struct ol_link *l)
{
	size_t n = l->cache_base_dir ? strlen(l->cache_base_dir) : 0;
	bool under = n && l->cwd && strncmp(l->cwd, l->cache_base_dir, n) == 0 &&
		     (l->cwd[n] == '/' || l->cwd[n] == '\0' || l->cache_base_dir[n - 1] == '/');

	return (struct ol_pathform){ .tmp = l->tmpdir, .cwd = under ? l->cwd : NULL };
}

/* The link through clang's own arguments, in the first key: text in
 * travelling form, an input file by its content too (a shared object
 * without an SONAME also by its path: it reaches the image). */
static void key_driver_args(struct ol_link *l, struct ol_key *k, char *const *argv, size_t argc)
{
	struct ol_pathform f = form_of(l);
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

/* What clang's answer is remembered under: clang (by content), its
 * arguments and the environment; not the device code, which clang does
 * not look into to decide on a linker command. */
static void key_probe(struct ol_link *l, struct ol_group *g, const char *program,
		      const struct ol_cmd *c)
{
	struct ol_key k;

	key_init(l, &k, NULL, "offlink what clang runs 1");
	ol_key_program(&k, "clang", program);
	key_env(&k);
	key_driver_args(l, &k, c->argv.v, c->argv.n);
	ol_key_final(&k, g->probe_key);
	keep_deps(g, &k);
}

/* ---- the first key: what the group's steps are, asking no tool ---- */

static void key_step(struct ol_link *l, struct ol_group *g, struct ol_key *k, size_t s,
		     struct pending *pv, size_t *np)
{
	const struct ol_cmd *c = &g->steps[s];
	char *prog = ol_find_in_path(c->argv.v[0]);
	const char *program = prog ? prog : c->argv.v[0];
	struct pending *p = &pv[*np];
	char q[256];

	*p = (struct pending){ .step = s, .flavor = -1 };
	ol_key_text(k, "step", c->step ? c->step : "");
	ol_key_program(k, "program", program);
	switch (c->tool) {
	case OL_TOOL_CLANG_DRIVER:
		/* What clang runs is keyed by the second key (key_linker):
		 * here its own arguments, as text and files by content. */
		if (g->driver_step >= 0)
			ol_key_refuse(k, "more than one link through clang");
		g->driver_step = (int)s;
		key_driver_args(l, k, c->argv.v, c->argv.n);
		key_probe(l, g, program, c);
		break;
	case OL_TOOL_LINKER:
		if ((p->flavor = ol_ld_flavor_of(program)) < 0) {
			ol_key_refuse(k, "the linker %s is not one whose inputs the cache can list",
				      ol_key_quote(program, q, sizeof(q)));
		} else {
			ol_key_linker_args(k, (enum ol_ld_flavor)p->flavor, c->argv.v, c->argv.n);
			note_linker(p, c->argv.v, c->argv.n);
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
	if (p->flavor >= 0)
		++*np;
	free(prog);
}

/* The group's first key: everything its steps are and read up front,
 * with no tool asked anything.  pv/np: the direct linkers' steps. */
static bool group_key(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		      struct pending *pv, size_t *np)
{
	struct ol_key k;

	key_init(l, &k, explain, KEY_DOMAIN);
	k.relative = &g->cache_relative;
	k.verbatim = &g->cache_verbatim;
	ol_key_text(&k, "offlink", OFFLINK_VERSION);
	ol_key_text(&k, "kind", ol_kind_name(g->kind));
	ol_key_text(&k, "triple", g->triple);
	ol_key_text(&k, "arch", g->arch);
	key_env(&k);
	for (size_t s = 0; s < g->nsteps && !k.uncacheable[0]; s++)
		key_step(l, g, &k, s, pv, np);
	for (size_t i = 0; i < g->nimages && !k.uncacheable[0]; i++) {
		const struct ob_entry *e = g->images[i]->entry;

		ol_key_u64(&k, "image kind", e->image_kind);
		ol_key_bytes(&k, "image", e->image, (size_t)e->image_size);
		/* the bytes come from its input's mapping, read again when the
		 * link's inputs are written: the file must not change */
		ol_key_depend(&k, g->images[i]->input->path, NULL);
	}
	ol_key_final(&k, g->cache_key);
	keep_deps(g, &k);
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		return false;
	}
	return true;
}

static void derive(const uint8_t key[32], const char *what, uint8_t out[32])
{
	struct ol_digest h;

	ol_digest_init(&h);
	ol_digest_add_str(&h, what);
	ol_digest_add(&h, key, 32);
	ol_digest_final(&h, out);
}

/* ---- what clang runs: remembered with the facts it decided on ---- */

/* The linker flavor clang will run, for a link whose answer is not
 * known yet: -fuse-ld, else the first ld where clang looks for it (its
 * COMPILER_PATH, its own directory, PATH).  -1: not one whose reads the
 * cache can list (or SPIR-V's spirv-link, OL_LD_NONE: nothing to add). */
enum { OL_LD_NONE = 100 };

static int predict_linker(struct ol_link *l, const struct ol_group *g, const struct ol_cmd *c)
{
	const char *use = NULL, *env[] = { getenv("COMPILER_PATH"), NULL, getenv("PATH") };
	char dir[PATH_MAX], path[PATH_MAX + 64], *slash;
	const char *names[2] = { NULL, "ld" };
	char tld[256];

	if (ol_triple_is_spirv(g->triple))
		return OL_LD_NONE;
	for (size_t i = 1; i < c->argv.n; i++)
		if (strncmp(c->argv.v[i], "-fuse-ld=", 9) == 0)
			use = c->argv.v[i] + 9;
	if (use && (strcmp(use, "lld") == 0 || strcmp(use, "ld.lld") == 0))
		return OL_LD_LLD;
	if (use && strcmp(use, "bfd") != 0 && strcmp(use, "ld") != 0)
		return use[0] == '/' ? ol_ld_flavor_of(use) : -1;
	snprintf(dir, sizeof(dir), "%s", c->argv.v[0]);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	env[1] = slash ? dir : NULL;
	snprintf(tld, sizeof(tld), "%s-ld", g->triple);
	names[0] = tld;
	(void)l;
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

/* The group's remembered answers (the probe memo) under its first key. */
static bool probe_memo(struct ol_link *l, const struct ol_group *g, struct ol_probe_memo *m)
{
	struct ol_buf b = { 0 };
	const struct ol_remote *remote;
	uint8_t key[32];
	bool ok;

	derive(g->probe_key, "what clang runs", key);
	ok = ol_store_get(&l->cache, OL_ENTRY_PROBE, key, NULL, &b, &remote) &&
	     ol_probe_memo_decode(b.data, b.len, m);
	ol_buf_free(&b);
	return ok;
}

/* The answer that holds here, into g->linker and g->facts; false when
 * none does (*seen: the memo has answers, only not for this machine or
 * directory as it is now). */
static bool known_answer(struct ol_link *l, struct ol_group *g, bool *seen)
{
	struct ol_probe_memo m = { 0 };
	struct ol_pathform f = form_of(l);
	bool found = false;

	*seen = false;
	if (!probe_memo(l, g, &m))
		return false;
	*seen = m.n > 0;
	for (size_t i = m.n; i-- > 0 && !found; ) {
		if (!ol_facts_hold(&m.v[i].facts, &f, &l->cache.files, NULL))
			continue;
		found = ol_pathform_from_all(&f, &m.v[i].argv, &g->linker);
		if (found) {
			g->facts = m.v[i].facts;
			memset(&m.v[i].facts, 0, sizeof(m.v[i].facts));
		}
	}
	ol_probe_memo_free(&m);
	return found;
}

/* The second key: the first, and the linker command clang runs, read by
 * what it means to that linker (the facts only say that clang would
 * answer so: two directories that clang tells apart but answers alike
 * share the key).  p: the driver's step, given its flavor. */
static bool key_linker(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
		       struct pending *p)
{
	struct ol_key k;
	char q[256];

	*p = (struct pending){ .step = (size_t)g->driver_step, .flavor = -1 };
	key_init(l, &k, explain, "offlink device-link linker 1");
	k.relative = &g->cache_relative;
	k.verbatim = &g->cache_verbatim;
	ol_key_digest(&k, "first key", g->cache_key);
	if (g->driver_step >= 0) {
		if (!g->linker.n) {
			ol_key_refuse(&k, "clang -### did not say what it runs");
		} else if (is_spirv_link(g->linker.v[0])) {
			/* it reads its inputs and nothing else: no dependency file */
			ol_key_program(&k, "linker", g->linker.v[0]);
			ol_key_spirv_link_args(&k, g->linker.v, g->linker.n);
		} else if ((p->flavor = ol_ld_flavor_of(g->linker.v[0])) < 0) {
			ol_key_refuse(&k, "clang runs the linker %s, whose inputs the cache cannot list "
					  "(GNU ld and lld write dependency files)",
				      ol_key_quote(g->linker.v[0], q, sizeof(q)));
		} else {
			ol_key_program(&k, "linker", g->linker.v[0]);
			ol_key_linker_args(&k, (enum ol_ld_flavor)p->flavor, g->linker.v, g->linker.n);
			note_linker(p, g->linker.v, g->linker.n);
		}
	}
	ol_key_final(&k, g->cache_key2);
	g->cache_key2_known = true;
	keep_deps(g, &k);
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		return false;
	}
	return true;
}

/* The image's key: the second key, and every file of the manifest as it
 * is now.  False when one of them cannot be a link input (a FIFO now). */
static bool result_key(struct ol_link *l, const struct ol_group *g, char *const *files,
		       size_t n, struct ol_buf *explain, uint8_t out[32], struct ol_key *keep)
{
	struct ol_key k;
	bool ok;

	key_init(l, &k, explain, "offlink device-link result 3");
	ol_key_digest(&k, "group", g->cache_key2);
	for (size_t i = 0; i < n; i++)
		ol_key_file(&k, "read", files[i]);
	ol_key_final(&k, out);
	ok = !k.uncacheable[0];
	if (keep)
		*keep = k;
	else
		ol_key_free(&k);
	return ok;
}

/* -v: what the cache did for g; the entry is named when there is one. */
static void say(struct ol_link *l, const struct ol_group *g, const char *what,
		const uint8_t *entry)
{
	char hex[65], ehex[65];

	if (!l->opt.verbose)
		return;
	/* (the key the lookup used: the second once what clang runs is known) */
	ol_digest_hex(g->cache_key2_known ? g->cache_key2 : g->cache_key, hex);
	if (entry)
		ol_digest_hex(entry, ehex);
	ol_message("offlink", NULL, "%s: device-link cache %s (key %.16s%s%.*s)",
		   ol_group_label(l, g), what, hex, entry ? ", entry " : "", entry ? 64 : 0,
		   entry ? ehex : "");
}

/* ---- the probe: clang -### under the recorder ---- */

/* The probe of g's link through clang: its arguments before the cache's
 * flags, its standard error (the answer) to a file, the recorder
 * preloaded.  It runs while the host linker does (its inputs are there
 * then), or at once when an answer is likely to lead to a hit. */
static bool plan_probe(struct ol_link *l, struct ol_group *g)
{
	const struct ol_cmd *c = &g->steps[g->driver_step];
	struct ol_cmd *p = &g->probe_cmd;
	const char *pre = getenv("LD_PRELOAD");

	if (!l->probe_lib)
		return false;
	g->probe_log = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.probe.log", g->stem));
	g->probe_out = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.probe.out", g->stem));
	if (!g->probe_log || !g->probe_out)
		return false;
	memset(p, 0, sizeof(*p));
	p->step = strdup(ol_arena_printf(&l->arena, "device-link cache: what clang runs for %s",
					 ol_group_label(l, g)));
	ol_strvec_extend(&p->argv, &c->argv);
	ol_strvec_push(&p->argv, "-###");
	p->stderr_path = strdup(g->probe_out);
	p->response_file = c->response_file;
	ol_strvec_pushf(&p->env, "LD_PRELOAD=%s%s%s", l->probe_lib, pre && *pre ? ":" : "",
			pre ? pre : "");
	ol_strvec_pushf(&p->env, "OFFLINK_PROBE_LOG=%s", g->probe_log);
	return p->step && p->stderr_path && !p->argv.err && !p->env.err;
}

/* Empty files where the group's inputs will be written (the archive, or
 * each image's file), so that clang -### (which drops an input that does
 * not exist) shows the real command, when it is asked before the link;
 * removed again after. */
static void placeholder(const char *path, bool make)
{
	int fd;

	if (!make) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

static void placeholders(struct ol_group *g, bool make)
{
	if (g->inputs_archive) {
		placeholder(g->inputs_archive, make);
		return;
	}
	for (size_t i = 0; i < g->nimages; i++)
		placeholder(g->input_paths[i], make);
}

/* Start the probe (its start: the facts it finds must not have changed
 * since); *pid, or false. */
static bool start_probe(struct ol_link *l, struct ol_group *g, pid_t *pid)
{
	struct ol_run_opts run = l->run;
	struct timespec ts;
	struct ol_diag d;

	ol_diag_clear(&d);
	run.dry_run = false;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	g->probe_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return ol_spawn(&g->probe_cmd, &run, pid, &d) == OL_OK;
}

static void finish_probe(struct ol_group *g, pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ol_cleanup_forget_child(pid);
	g->probe_ran = WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* What the probe found: the answer, in g->linker (temporary paths moved
 * back), and the facts, in g->facts; false with why when there is none. */
/* The command clang ran, from the recorder's log of the link itself,
 * with the flags the cache added taken out again (they are not what clang
 * decided); false when the log holds none (*count: how many). */
static bool recorded_command(struct ol_link *l, struct ol_group *g, const struct ol_map *log,
			     size_t *count)
{
	struct ol_strvec cmd = { 0 };
	const struct ol_cmd *c = &g->steps[g->driver_step];
	bool whole;

	*count = ol_log_commands(log->data, log->len, &cmd, &whole);
	if (*count != 1 || !whole) {
		ol_strvec_free(&cmd);
		return false;
	}
	/* "-Wl,X" that the cache added reached the linker as "X": the last
	 * of each goes */
	for (size_t a = g->driver_plain_argc; a < c->argv.n; a++) {
		const char *added = strncmp(c->argv.v[a], "-Wl,", 4) == 0 ? c->argv.v[a] + 4 : NULL;

		for (size_t i = cmd.n; added && i-- > 1; )
			if (strcmp(cmd.v[i], added) == 0) {
				free(cmd.v[i]);
				memmove(&cmd.v[i], &cmd.v[i + 1], (cmd.n - i) * sizeof(*cmd.v));
				cmd.n--;
				break;
			}
	}
	(void)l;
	ol_strvec_free(&g->linker);
	g->linker = cmd;
	return !cmd.err;
}

/* What clang answered: the command its link ran (recorded beside it) or
 * its -### (a probe of its own), in g->linker, and the facts it decided
 * on, in g->facts; false with why when there is none. */
static bool read_probe(struct ol_link *l, struct ol_group *g, const char **why)
{
	struct ol_map out = { 0 }, log = { 0 };
	struct ol_clang_jobs jobs = { 0 };
	struct ol_pathform f = form_of(l);
	struct ol_diag d;
	size_t count = 0;
	bool ok = false;

	ol_diag_clear(&d);
	*why = "clang did not say what it runs";
	if (g->linker.n && g->facts.n)
		return true; /* (read already) */
	if (!g->probe_log || ol_map_file(g->probe_log, &log, &d))
		goto out;
	if (!recorded_command(l, g, &log, &count)) {
		if (count > 1) {
			*why = ol_arena_printf(&l->arena, "clang runs %zu commands, not just the linker",
					       count);
			goto out;
		}
		if (!g->probe_ran || ol_map_file(g->probe_out, &out, &d) ||
		    ol_clang_jobs_parse((const char *)out.data, out.len, &jobs) || jobs.n != 1) {
			if (jobs.n > 1)
				*why = ol_arena_printf(&l->arena, "clang runs %zu commands, not just the "
								  "linker", jobs.n);
			goto out;
		}
		ol_strvec_free(&g->linker);
		if (ol_strvec_extend(&g->linker, &jobs.job[0]))
			goto out;
	}
	if (!ol_facts_from_log(log.data, log.len, &f, &l->cache.files, &g->facts, g->probe_time)) {
		*why = "what clang looked at changed while it was asked, or its record cannot be read";
		goto out;
	}
	ok = true;
out:
	ol_clang_jobs_free(&jobs);
	ol_unmap(&out);
	ol_unmap(&log);
	return ok;
}

/* Remember the probe's answer with its facts, under the first key. */
static void store_answer(struct ol_link *l, struct ol_group *g)
{
	struct ol_probe_memo m = { 0 };
	struct ol_facts facts = { 0 };
	struct ol_strvec argv = { 0 };
	struct ol_buf b = { 0 };
	uint8_t key[32];

	if (!probe_memo(l, g, &m))
		memset(&m, 0, sizeof(m));
	struct ol_pathform f = form_of(l);

	if (!ol_facts_parse(g->facts.data.data, g->facts.data.len, &facts) ||
	    !ol_pathform_to_all(&f, &g->linker, &argv)) {
		ol_facts_free(&facts);
		ol_strvec_free(&argv);
		ol_probe_memo_free(&m);
		return;
	}
	ol_probe_memo_add(&m, &facts, &argv);
	derive(g->probe_key, "what clang runs", key);
	if (ol_probe_memo_encode(&m, &b))
		ol_store_put(&l->cache, OL_ENTRY_PROBE, key, b.data, b.len);
	ol_buf_free(&b);
	ol_probe_memo_free(&m);
}

/* The probe run at once: before the lookup (its inputs stood for by
 * empty files), or after a link that failed. */
static bool probe_now(struct ol_link *l, struct ol_group *g, bool before_link)
{
	const char *why;
	pid_t pid;
	bool started;

	if (before_link)
		placeholders(g, true);
	if ((started = start_probe(l, g, &pid)))
		finish_probe(g, pid);
	if (before_link)
		placeholders(g, false);
	if (!started || !read_probe(l, g, &why))
		return false;
	store_answer(l, g);
	return true;
}

/* ---- lookup ---- */

/* The lookup of g under its second key: the manifest, then the image. */
static enum ol_found find_image(struct ol_link *l, struct ol_group *g, struct ol_buf *explain,
				uint8_t rkey[32], const struct ol_remote **remote)
{
	struct ol_buf mbuf = { 0 };
	struct ol_strvec files = { 0 };
	uint8_t mkey[32];
	enum ol_found found = OL_FOUND_NONE;

	derive(g->cache_key2, "manifest", mkey);
	if (ol_store_get(&l->cache, OL_ENTRY_MANIFEST, mkey, NULL, &mbuf, remote) &&
	    ol_manifest_decode(mbuf.data, mbuf.len, &files) &&
	    result_key(l, g, files.v, files.n, explain, rkey, NULL))
		found = ol_store_get(&l->cache, OL_ENTRY_IMAGE, rkey, g->image_path, NULL, remote);
	ol_buf_free(&mbuf);
	ol_strvec_free(&files);
	return found;
}

static void say_found(struct ol_link *l, struct ol_group *g, enum ol_found found,
		      const struct ol_remote *remote, size_t rejected, const uint8_t rkey[32])
{
	g->cache = found ? CACHE_HIT : CACHE_MISS;
	g->cache_note = found == OL_FOUND_LOCAL ? "local hit"
		: found == OL_FOUND_REMOTE ? ol_arena_printf(&l->arena, "remote hit, %s", remote->shown)
		: "miss";
	ol_store_count(&l->cache, found ? rkey : g->cache_key,
		       found == OL_FOUND_LOCAL ? OL_STAT_LOCAL_HIT
		       : found == OL_FOUND_REMOTE ? OL_STAT_REMOTE_HIT : OL_STAT_MISS);
	say(l, g, found == OL_FOUND_LOCAL ? "hit (local): no device link runs"
		  : found == OL_FOUND_REMOTE
			? ol_arena_printf(&l->arena, "hit (remote %s): no device link runs", remote->shown)
			: l->cache.rejected > rejected
			? "miss: an entry failed its check (damaged, or not written by a holder of "
			  "the secret) and was not used; linking"
			: "miss: linking", found ? rkey : NULL);
}

/* g's key, and its image when the cache has it.  A link through clang
 * whose answer is not remembered is planned as a miss: the link starts at
 * once, with what its linker is most likely to need, and clang is asked
 * beside it (the probe); what they made is stored after. */
static void lookup_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_buf explain = { 0 };
	struct pending *pv = calloc(g->nsteps + 2, sizeof(*pv));
	size_t np = 0;
	const struct ol_remote *remote = NULL;
	uint8_t rkey[32];
	bool want_explain = env_on("OFFLINK_CACHE_EXPLAIN");
	struct ol_buf *ex = want_explain ? &explain : NULL;
	enum ol_found found = OL_FOUND_NONE;
	size_t rejected = l->cache.rejected;
	double t0 = ol_now_us();
	bool keyed, known = false, ok = true;

	g->driver_step = -1;
	keyed = pv && group_key(l, g, ex, pv, &np);

	if (keyed && g->driver_step >= 0) {
		bool seen;

		known = known_answer(l, g, &seen);
		if (!known && !plan_probe(l, g)) {
			keyed = false;
			g->cache_note = "not used: no recorder for clang (offlink-probe.so) beside offlink";
		} else if (!known && seen) {
			/* answered before, for another directory or machine: likely
			 * a hit once asked, so clang is asked now */
			known = probe_now(l, g, true);
			ol_probe_cmd_forget(g);
		}
	}
	if (keyed && (g->driver_step < 0 || known))
		keyed = key_linker(l, g, ex, &pv[np++]);
	ol_link_span(l, "cache: key", t0);
	t0 = ol_now_us();
	if (!keyed) {
		g->cache = CACHE_NOT_USED;
		if (!g->cache_note)
			g->cache_note = "not used: out of memory";
		ol_store_count(&l->cache, g->cache_key, OL_STAT_UNCACHEABLE);
		say(l, g, g->cache_note, NULL);
		ol_probe_cmd_forget(g);
	} else if (g->driver_step >= 0 && !known) {
		/* the probe goes beside the link; the flags are the predicted
		 * linker's */
		int flavor = predict_linker(l, g, &g->steps[g->driver_step]);

		g->probe = PROBE_PENDING;
		g->predicted = flavor;
		say_found(l, g, OL_FOUND_NONE, NULL, rejected, rkey);
		if (flavor == OL_LD_GNU || flavor == OL_LD_LLD) {
			pv[np] = (struct pending){ .step = (size_t)g->driver_step, .flavor = flavor };
			np++;
		}
	} else {
		if (g->driver_step >= 0)
			g->probe = PROBE_KNOWN;
		found = find_image(l, g, ex, rkey, &remote);
		say_found(l, g, found, remote, rejected, rkey);
	}
	ol_link_span(l, "cache: lookup", t0);
	/* Not found: the linkers now write what they read. */
	for (size_t i = 0; i < np && g->cache == CACHE_MISS && ok; i++) {
		if (pv[i].flavor == OL_LD_GNU || pv[i].flavor == OL_LD_LLD)
			ok = record_reads(l, g, &pv[i]);
		if (ok && g->driver_step >= 0 && pv[i].step == (size_t)g->driver_step)
			ok = record_driver(l, g, pv[i].flavor == OL_LD_GNU);
	}
	if (ok && g->cache == CACHE_MISS && g->probe == PROBE_PENDING &&
	    !(np && pv[np - 1].step == (size_t)g->driver_step))
		ok = record_driver(l, g, false); /* (spirv-link, or no flags) */
	if (!ok) {
		g->cache = CACHE_NOT_USED;
		g->cache_note = "not used: out of memory";
	}
	if (want_explain && explain.len)
		fprintf(stderr, "offlink: %s: device-link cache key ingredients:\n%.*s",
			ol_group_label(l, g), (int)explain.len, (char *)explain.data);
	if (pv)
		free_pending(pv, g->nsteps + 2);
	free(pv);
	ol_buf_free(&explain);
}

enum ol_err ol_lookup_device_cache(struct ol_link *l)
{
	if (!l->cache_on || l->opt.dry_run)
		return OL_OK;
	l->probe_lib = ol_find_probe_lib();
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];

		if (g->nsteps && g->image_path)
			lookup_group(l, g);
	}
	l->cache_nkeyed = l->cache.files.n;
	return OL_OK;
}

void ol_probe_cmd_forget(struct ol_group *g)
{
	ol_cmd_free(&g->probe_cmd);
	g->probe = PROBE_NONE;
}

bool ol_cache_retry_plain(struct ol_link *l, struct ol_group *g, size_t failed_step)
{
	struct ol_cmd *c;
	const char *why;

	if (g->probe != PROBE_PENDING || g->driver_step < 0 || !g->driver_plain_argc ||
	    failed_step != (size_t)g->driver_step)
		return false;
	/* only when clang ran another linker than the one the flags were
	 * for (its recorded command says): otherwise the failure is the
	 * link's own */
	if (!read_probe(l, g, &why) || !g->linker.n || is_spirv_link(g->linker.v[0]) ||
	    ol_ld_flavor_of(g->linker.v[0]) == g->predicted)
		return false;
	c = &g->steps[g->driver_step];
	while (c->argv.n > g->driver_plain_argc)
		free(c->argv.v[--c->argv.n]);
	c->argv.v[c->argv.n] = NULL;
	ol_strvec_free(&c->env);
	free(c->stdout_path);
	c->stdout_path = NULL;
	g->cache = CACHE_NOT_USED;
	g->cache_note = "not used: clang runs another linker than the one predicted";
	return true;
}

/* A lookup checks every place of a manifest: beyond this many (a line of
 * 100k -L directories searched for each library), not worth storing. */
#define MAX_PLACES 65536

/* s into v once (set: v's strings). */
static bool add_unique(struct ol_strvec *v, struct ol_strmap *set, const char *s)
{
	uintptr_t *slot;

	if (ol_strmap_get(set, s, strlen(s)))
		return true;
	if (ol_strvec_push(v, s) ||
	    !(slot = ol_strmap_put(set, v->v[v->n - 1], strlen(v->v[v->n - 1]))))
		return false;
	*slot = 1;
	return true;
}

/* What the group's linkers read on their own (their dependency files)
 * and, GNU ld, where they looked without finding anything (its
 * --verbose record), in their travelling form, into files; the paths
 * that were not found also into absent.  Why not, in why, when what
 * they read cannot be known: a record that does not read whole, or (lld,
 * which keeps no such record) a linker script that makes it search. */
static bool read_files(struct ol_link *l, const struct ol_group *g, struct ol_strvec *files,
		       struct ol_strvec *absent, const char **why)
{
	struct ol_key k;
	struct ol_buf form = { 0 };
	struct ol_strmap in_files = { 0 }, in_absent = { 0 };
	char reason[160];
	bool ok = true;

	key_init(l, &k, NULL, "paths");
	for (size_t i = 0; i < g->ndepfiles && ok; i++) {
		const struct ol_depfile *df = &g->depfiles[i];
		struct ol_strvec deps = { 0 }, tried = { 0 }, found = { 0 }, places = { 0 };
		struct ol_map m = { 0 }, t = { 0 };
		struct ol_diag d;

		ol_diag_clear(&d);
		ok = ol_map_file(df->path, &m, &d) == OL_OK &&
		     ol_depfile_parse((const char *)m.data, m.len, (enum ol_ld_flavor)df->flavor,
				      &deps) == OL_OK;
		if (!ok)
			*why = "its dependency file could not be read";
		if (ok && df->trace) {
			ok = ol_map_file(df->trace, &t, &d) == OL_OK &&
			     ol_ldtrace_parse((const char *)t.data, t.len, &found, &tried) == OL_OK;
			if (!ok)
				*why = "GNU ld's record of where it looked (--verbose) could not be read";
		}
		for (size_t j = 0; ok && j < deps.n; j++) {
			struct ol_map sm = { 0 };

			if (ol_key_is_tmp(&k, deps.v[j]))
				continue; /* the images: keyed by their bytes */
			if (df->flavor == OL_LD_LLD && ol_map_file(deps.v[j], &sm, &d) == OL_OK &&
			    !ol_lld_script_places(deps.v[j], sm.data, sm.len, &df->dirs, df->sysroot,
						  &places, reason, sizeof(reason))) {
				*why = ol_arena_printf(&l->arena, "lld read the linker script %s and %s",
						       ol_link_quote(l, deps.v[j]), reason);
				ok = false;
			}
			ol_unmap(&sm);
			if (ok)
				ok = add_unique(files, &in_files, ol_key_path_form(&k, deps.v[j], &form));
		}
		/* lld: every place its scripts' searches may look, found or not */
		for (size_t j = 0; ok && j < places.n && files->n <= MAX_PLACES; j++) {
			if (ol_key_is_tmp(&k, places.v[j]))
				continue;
			ok = add_unique(files, &in_files, ol_key_path_form(&k, places.v[j], &form));
		}
		/* GNU ld: where it looked and found nothing */
		for (size_t j = 0; ok && j < tried.n && files->n <= MAX_PLACES; j++) {
			if (ol_key_is_tmp(&k, tried.v[j]))
				continue;
			ol_key_path_form(&k, tried.v[j], &form);
			ok = add_unique(files, &in_files, (const char *)form.data) &&
			     add_unique(absent, &in_absent, (const char *)form.data);
		}
		if (ok && files->n > MAX_PLACES) {
			*why = ol_arena_printf(&l->arena, "the linkers looked in %zu places, more than "
							  "a lookup checks (%d)", files->n, MAX_PLACES);
			ok = false;
		}
		ol_unmap(&m);
		ol_unmap(&t);
		ol_strvec_free(&deps);
		ol_strvec_free(&tried);
		ol_strvec_free(&found);
		ol_strvec_free(&places);
	}
	ol_buf_free(&form);
	ol_strmap_free(&in_files);
	ol_strmap_free(&in_absent);
	ol_key_free(&k);
	return ok && !files->err && !absent->err;
}

/* Whether everything the stored entry will depend on was the same from
 * before its key was computed until after its link ended: the files of
 * the group's key unchanged; each file the linkers read that was first
 * looked at after the link, last changed before the keys were begun;
 * each path they looked for and did not find, still absent. */
static bool still_holds(struct ol_link *l, const struct ol_group *g, const struct ol_key *rk,
			const struct ol_strvec *absent, const char **why)
{
	const struct ol_fdigest *f = &l->cache.files;
	char q[256];

	for (size_t i = 0; i < g->ncache_deps; i++)
		if (!ol_fdigest_unchanged(f, g->cache_deps[i])) {
			*why = ol_arena_printf(&l->arena, "%s changed during the link",
					       ol_key_quote(ol_fdigest_path(f, g->cache_deps[i]), q, sizeof(q)));
			return false;
		}
	for (size_t i = 0; i < rk->ndeps; i++) {
		size_t r = rk->deps[i];
		const char *path = ol_fdigest_path(f, r);

		if ((r >= l->cache_nkeyed && ol_fdigest_changed_since(f, r, l->cache_key_time)) ||
		    !ol_fdigest_unchanged(f, r)) {
			*why = ol_arena_printf(&l->arena, "%s changed during the link",
					       ol_key_quote(path, q, sizeof(q)));
			return false;
		}
	}
	for (size_t i = 0; i < absent->n; i++) {
		struct ol_fstate now;

		ol_fstate_of(absent->v[i], &now);
		if (now.exists) {
			*why = ol_arena_printf(&l->arena, "%s, which the linker looked for and did not find, "
							  "appeared during the link",
					       ol_key_quote(absent->v[i], q, sizeof(q)));
			return false;
		}
	}
	return true;
}

/* Whether s names a path the group's key held in its travelling form
 * (relative to the working directory, under the base directory) and not
 * as it is: an image naming it is the checkout's own, not every sharer's. */
static bool held_relative(const struct ol_group *g, const char *s)
{
	return ol_strvec_contains(&g->cache_relative, s) && !ol_strvec_contains(&g->cache_verbatim, s);
}

/* The image's DT_NEEDED, DT_RPATH and DT_RUNPATH against the paths the
 * key held relative (--cache-base-dir). */
static bool image_travels(struct ol_link *l, const struct ol_group *g, const struct ol_map *image,
			  const char **why)
{
	struct ol_dynamic_names dn;
	const char *bad = NULL;
	char q[256];

	if (!g->cache_relative.n || !ol_dynamic_names(image->data, image->len, &dn))
		return true;
	for (size_t i = 0; i < dn.needed.n && !bad; i++)
		if (held_relative(g, dn.needed.v[i]))
			bad = dn.needed.v[i];
	for (size_t i = 0; i < dn.paths.n && !bad; i++)
		if (held_relative(g, dn.paths.v[i]))
			bad = dn.paths.v[i];
	if (bad)
		*why = ol_arena_printf(&l->arena, "the image names %s, which its key holds relative to "
						  "the working directory (--cache-base-dir)",
				       ol_key_quote(bad, q, sizeof(q)));
	ol_dynamic_names_free(&dn);
	return !bad;
}

/* ---- store: after the links, while the host linker runs ---- */

/* A pending probe's answer, checked against the linker predicted for
 * the link (its flags were that linker's), then the second key. */
static bool settle_probe(struct ol_link *l, struct ol_group *g, const char **why)
{
	struct pending p = { 0 };
	bool ok;

	if (g->probe != PROBE_PENDING)
		return true;
	if (!read_probe(l, g, why))
		return false;
	store_answer(l, g); /* the answer stands, whatever becomes of the link */
	if (!is_spirv_link(g->linker.v[0]) && ol_ld_flavor_of(g->linker.v[0]) != g->predicted) {
		*why = ol_arena_printf(&l->arena, "clang runs %s, not the linker predicted; the next "
						  "link is keyed by it",
				       ol_link_quote(l, g->linker.v[0]));
		return false;
	}
	g->probe = PROBE_KNOWN;
	ok = key_linker(l, g, NULL, &p);
	/* lld's search directories, for its dependency file, now known */
	for (size_t i = 0; ok && i < g->ndepfiles; i++)
		if (g->depfiles[i].step == (size_t)g->driver_step && p.flavor == OL_LD_LLD) {
			ol_strvec_free(&g->depfiles[i].dirs);
			free(g->depfiles[i].sysroot);
			g->depfiles[i].dirs = p.dirs;
			g->depfiles[i].sysroot = p.sysroot;
			memset(&p.dirs, 0, sizeof(p.dirs));
			p.sysroot = NULL;
		}
	free_pending(&p, 1);
	if (!ok)
		*why = g->cache_note ? g->cache_note : "out of memory";
	return ok;
}

static void store_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_strvec files = { 0 }, absent = { 0 };
	struct ol_buf manifest = { 0 };
	struct ol_map image = { 0 };
	struct ol_key rk = { 0 };
	struct ol_diag d;
	uint8_t mkey[32], rkey[32];
	const char *why = "out of memory", *fact = NULL;
	struct ol_pathform pf = form_of(l);
	size_t remotes;
	double t0 = ol_now_us();

	if (g->cache != CACHE_MISS || !g->linked)
		return;
	ol_diag_clear(&d);
	if (!settle_probe(l, g, &why) || !read_files(l, g, &files, &absent, &why) ||
	    !result_key(l, g, files.v, files.n, NULL, rkey, &rk) ||
	    !still_holds(l, g, &rk, &absent, &why)) {
		say(l, g, ol_arena_printf(&l->arena, "not stored: %s", why), NULL);
		goto out;
	}
	/* what clang decided on must hold until now, too */
	if (g->driver_step >= 0 && !ol_facts_hold(&g->facts, &pf, &l->cache.files, &fact)) {
		say(l, g, ol_arena_printf(&l->arena, "not stored: %s, which clang looked at, changed "
						     "during the link", ol_link_quote(l, fact)), NULL);
		goto out;
	}
	if (!ol_manifest_encode(files.v, files.n, &manifest) ||
	    ol_map_file(g->image_path, &image, &d) || !image.len)
		goto out;
	if (!image_travels(l, g, &image, &why)) {
		say(l, g, ol_arena_printf(&l->arena, "not stored: %s", why), NULL);
		goto out;
	}
	say(l, g, "stored", rkey);
	derive(g->cache_key2, "manifest", mkey);
	remotes = ol_store_put(&l->cache, OL_ENTRY_IMAGE, rkey, image.data, image.len);
	ol_store_put(&l->cache, OL_ENTRY_MANIFEST, mkey, manifest.data, manifest.len);
	if (l->cache.have_local)
		ol_store_count(&l->cache, rkey, OL_STAT_LOCAL_STORE);
	for (size_t i = 0; i < remotes; i++)
		ol_store_count(&l->cache, rkey, OL_STAT_REMOTE_STORE);
out:
	ol_link_span(l, "cache: store", t0);
	ol_key_free(&rk);
	ol_unmap(&image);
	ol_buf_free(&manifest);
	ol_strvec_free(&files);
	ol_strvec_free(&absent);
}

void ol_cache_link_started(struct ol_link *l, struct ol_group *g)
{
	struct timespec ts;

	(void)l;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	g->probe_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ol_cache_linked(struct ol_link *l, struct ol_group *g)
{
	(void)l;
	g->linked = true;
}

/* The probes still to run (first links), side by side. */
static void run_probes(struct ol_link *l)
{
	pid_t *pids = calloc(l->ngroups + 1, sizeof(*pids));
	double t0 = ol_now_us();

	for (size_t i = 0; pids && i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];
		struct ol_map log = { 0 };
		struct ol_diag d;
		bool whole;

		/* (the link itself recorded what clang ran: nothing to ask) */
		ol_diag_clear(&d);
		if (g->probe != PROBE_PENDING || !g->linked || !g->probe_cmd.argv.n ||
		    (ol_map_file(g->probe_log, &log, &d) == OL_OK &&
		     ol_log_commands(log.data, log.len, NULL, &whole) > 0)) {
			ol_unmap(&log);
			continue;
		}
		ol_unmap(&log);
		if (!start_probe(l, g, &pids[i]))
			pids[i] = 0;
	}
	for (size_t i = 0; pids && i < l->ngroups; i++)
		if (pids[i] > 0)
			finish_probe(&l->groups[i], pids[i]);
	free(pids);
	ol_link_span(l, "cache: what clang runs", t0);
}

void ol_cache_store(void *ctx)
{
	struct ol_link *l = ctx;

	if (!l->cache_on || l->opt.dry_run || l->cache_stored)
		return;
	l->cache_stored = true;
	run_probes(l);
	for (size_t i = 0; i < l->ngroups; i++)
		store_group(l, &l->groups[i]);
}

/* ---- offlink --cache-stats, --cache-clear ---- */

static void print_size(const char *label, uint64_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	printf("%s%.1f %s", label, v, units[u]);
}

enum ol_err ol_cache_command(struct ol_link *l)
{
	uint64_t c[OL_STAT__COUNT], entries, bytes, hits, lookups;
	enum ol_err rc = ol_open_cache(l);

	if (rc)
		return rc;
	if (!l->cache_on) {
		printf("device-link cache: off\n");
		return OL_OK;
	}
	if (l->opt.cache_clear && l->cache.have_local) {
		ol_local_clear(&l->cache.local);
		printf("device-link cache %s: cleared\n", l->cache.local.dir);
	}
	if (!l->opt.cache_stats)
		return OL_OK;
	if (l->cache.have_local) {
		ol_local_stats(&l->cache.local, c, &entries, &bytes);
		hits = c[OL_STAT_LOCAL_HIT] + c[OL_STAT_REMOTE_HIT];
		lookups = hits + c[OL_STAT_MISS];
		printf("device-link cache: %s (%s)\n", l->cache.local.dir,
		       l->cache.local.shared ? "shared, entries authenticated" : "private");
		printf("  hits:             %8llu / %llu", (unsigned long long)hits,
		       (unsigned long long)lookups);
		if (lookups)
			printf(" (%.1f %%)", 100.0 * (double)hits / (double)lookups);
		printf("\n");
		for (int i = 0; i < OL_STAT__COUNT; i++)
			printf("  %-17s %8llu\n", ol_stat_name((enum ol_stat)i),
			       (unsigned long long)c[i]);
		printf("  entries:          %8llu\n", (unsigned long long)entries);
		print_size("  size:             ", bytes);
		print_size(" of ", l->cache.local.cap);
		printf("\n");
	} else {
		printf("device-link cache: no local store\n");
	}
	for (size_t i = 0; i < l->cache.nremotes; i++)
		printf("  remote:           %s%s\n", l->cache.remotes[i].shown,
		       l->cache.remotes[i].read_only ? " (read-only)" : "");
	return OL_OK;
}
