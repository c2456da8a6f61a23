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
#include <time.h>
#include <unistd.h>

#include "cache/clang_jobs.h"
#include "cache/depfile.h"
#include "cache/dynamic_names.h"
#include "cache/key.h"
#include "cache/ldtrace.h"
#include "cache/linkline.h"
#include "cache/manifest.h"
#include "cache/program.h"
#include "cache/toolargs.h"
#include "common/message.h"
#include "common/response_file.h"
#include "common/version.h"
#include "driver/device_link.h"
#include "os/findprog.h"
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

/* Where the stores are: options first, then the environment. */
static enum ol_err configure(struct ol_link *l, struct ol_cache_config *c, struct ol_strvec *remotes)
{
	const char *env = getenv("OFFLINK_CACHE_DIR"), *size = getenv("OFFLINK_CACHE_SIZE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *shared = getenv("OFFLINK_CACHE_SHARED"), *remote = getenv("OFFLINK_CACHE_REMOTE");
	const char *base = getenv("OFFLINK_CACHE_BASE_DIR");

	memset(c, 0, sizeof(*c));
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
	c->shared = l->opt.cache_shared || (shared && strcmp(shared, "1") == 0);
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

/* Takes p's dirs and sysroot. */
static bool add_depfile(struct ol_group *g, const char *path, struct pending *p, const char *trace)
{
	struct ol_depfile *v = realloc(g->depfiles, (g->ndepfiles + 1) * sizeof(*v));

	if (!v)
		return false;
	g->depfiles = v;
	v += g->ndepfiles++;
	memset(v, 0, sizeof(*v));
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
 * where it looked (--verbose, in the C locale: its messages are read). */
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
	ol_strvec_pushf(&c->argv, driver ? "-Wl,--dependency-file=%s" : "--dependency-file=%s", path);
	if (trace) {
		ol_strvec_push(&c->argv, driver ? "-Wl,--verbose" : "--verbose");
		ol_strvec_push(&c->env, "LC_ALL=C");
		free(c->stdout_path);
		c->stdout_path = strdup(trace);
	}
	return !c->argv.err && !c->env.err && (!trace || c->stdout_path);
}

/* Empty files where the group's inputs will be written (the archive, or
 * each image's file), so that clang -### (which drops an input that does
 * not exist) shows the real command; removed again after. */
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

/* A link through clang: keyed by the one linker command clang would run. */
static void key_driver(struct ol_link *l, struct ol_group *g, struct ol_key *k,
		       const struct ol_cmd *c, struct pending *p)
{
	struct ol_cmd probe = { .step = "device-link cache: what clang runs", .capture_stderr = true,
				.response_file = c->response_file };
	struct ol_run_opts run = l->run;
	struct ol_buf out = { 0 };
	struct ol_clang_jobs jobs = { 0 };
	struct ol_diag d;
	char q[256];

	run.dry_run = false;
	ol_strvec_extend(&probe.argv, &c->argv);
	ol_strvec_push(&probe.argv, "-###");
	ol_diag_clear(&d);
	placeholders(g, true);
	if (probe.argv.err || ol_run_capture(&probe, &run, &out, &d) || ol_buf_puts(&out, "") ||
	    ol_clang_jobs_parse((const char *)out.data, out.len, &jobs)) {
		ol_key_refuse(k, "clang -### did not say what it runs");
	} else if (jobs.n != 1) {
		ol_key_refuse(k, "clang runs %zu commands, not just the linker", jobs.n);
	} else if (is_spirv_link(jobs.job[0].v[0])) {
		/* it reads its inputs and nothing else: no dependency file */
		ol_key_program(k, "linker", jobs.job[0].v[0]);
		ol_key_spirv_link_args(k, jobs.job[0].v, jobs.job[0].n);
	} else if ((p->flavor = ol_ld_flavor_of(jobs.job[0].v[0])) < 0) {
		ol_key_refuse(k, "clang runs the linker %s, whose inputs the cache cannot list "
				 "(GNU ld and lld write dependency files)",
			      ol_key_quote(jobs.job[0].v[0], q, sizeof(q)));
	} else {
		ol_key_program(k, "linker", jobs.job[0].v[0]);
		ol_key_linker_args(k, (enum ol_ld_flavor)p->flavor, jobs.job[0].v, jobs.job[0].n);
		note_linker(p, jobs.job[0].v, jobs.job[0].n);
	}
	placeholders(g, false);
	ol_clang_jobs_free(&jobs);
	ol_buf_free(&out);
	ol_strvec_free(&probe.argv);
}

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
		key_driver(l, g, k, c, p);
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

static void free_pending(struct pending *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ol_strvec_free(&p[i].dirs);
		free(p[i].sysroot);
	}
	free(p);
}

/* The group's key: everything its steps are and read up front. */
static bool group_key(struct ol_link *l, struct ol_group *g, struct ol_buf *explain)
{
	struct pending *p = calloc(g->nsteps + 1, sizeof(*p));
	size_t np = 0;
	struct ol_key k;
	bool ok = true;

	if (!p)
		return false;
	key_init(l, &k, explain, KEY_DOMAIN);
	k.relative = &g->cache_relative;
	k.verbatim = &g->cache_verbatim;
	ol_key_text(&k, "offlink", OFFLINK_VERSION);
	ol_key_text(&k, "kind", ol_kind_name(g->kind));
	ol_key_text(&k, "triple", g->triple);
	ol_key_text(&k, "arch", g->arch);
	key_env(&k);
	for (size_t s = 0; s < g->nsteps && !k.uncacheable[0]; s++)
		key_step(l, g, &k, s, p, &np);
	for (size_t i = 0; i < g->nimages && !k.uncacheable[0]; i++) {
		const struct ob_entry *e = g->images[i]->entry;

		ol_key_u64(&k, "image kind", e->image_kind);
		ol_key_bytes(&k, "image", e->image, (size_t)e->image_size);
		/* the bytes come from its input's mapping, read again when the
		 * link's inputs are written: the file must not change */
		ol_key_depend(&k, g->images[i]->input->path, NULL);
	}
	ol_key_final(&k, g->cache_key);
	g->cache_deps = k.deps;
	g->ncache_deps = k.ndeps;
	k.deps = NULL;
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		free_pending(p, np);
		return false;
	}
	/* The key holds: the linkers now write what they read. */
	for (size_t i = 0; i < np && ok; i++)
		ok = record_reads(l, g, &p[i]);
	free_pending(p, np);
	return ok;
}

static void derive(const uint8_t key[32], const char *what, uint8_t out[32])
{
	struct ol_digest h;

	ol_digest_init(&h);
	ol_digest_add_str(&h, what);
	ol_digest_add(&h, key, 32);
	ol_digest_final(&h, out);
}

/* The image's key: the group's, and every file of the manifest as it is
 * now.  False when one of them cannot be a link input (a FIFO now). */
static bool result_key(struct ol_link *l, const struct ol_group *g, char *const *files,
		       size_t n, struct ol_buf *explain, uint8_t out[32], struct ol_key *keep)
{
	struct ol_key k;
	bool ok;

	key_init(l, &k, explain, "offlink device-link result 3");
	ol_key_digest(&k, "group", g->cache_key);
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
	ol_digest_hex(g->cache_key, hex);
	if (entry)
		ol_digest_hex(entry, ehex);
	ol_message("offlink", NULL, "%s: device-link cache %s (key %.16s%s%.*s)",
		   ol_group_label(l, g), what, hex, entry ? ", entry " : "", entry ? 64 : 0,
		   entry ? ehex : "");
}

static void lookup_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_buf explain = { 0 }, mbuf = { 0 };
	struct ol_strvec files = { 0 };
	const struct ol_remote *remote;
	uint8_t mkey[32], rkey[32];
	bool want_explain = getenv("OFFLINK_CACHE_EXPLAIN") && *getenv("OFFLINK_CACHE_EXPLAIN");
	enum ol_found found = OL_FOUND_NONE;
	size_t rejected = l->cache.rejected;

	if (!group_key(l, g, want_explain ? &explain : NULL)) {
		g->cache = CACHE_NOT_USED;
		if (!g->cache_note)
			g->cache_note = "not used: out of memory";
		ol_store_count(&l->cache, g->cache_key, OL_STAT_UNCACHEABLE);
		say(l, g, g->cache_note, NULL);
	} else {
		derive(g->cache_key, "manifest", mkey);
		if (ol_store_get(&l->cache, OL_ENTRY_MANIFEST, mkey, NULL, &mbuf, &remote) &&
		    ol_manifest_decode(mbuf.data, mbuf.len, &files) &&
		    result_key(l, g, files.v, files.n, want_explain ? &explain : NULL, rkey, NULL))
			found = ol_store_get(&l->cache, OL_ENTRY_IMAGE, rkey, g->image_path, NULL,
					     &remote);
		g->cache = found ? CACHE_HIT : CACHE_MISS;
		g->cache_note = found == OL_FOUND_LOCAL ? "local hit"
			: found == OL_FOUND_REMOTE
				? ol_arena_printf(&l->arena, "remote hit, %s", remote->shown)
				: "miss";
		ol_store_count(&l->cache, found ? rkey : g->cache_key,
			       found == OL_FOUND_LOCAL ? OL_STAT_LOCAL_HIT
			       : found == OL_FOUND_REMOTE ? OL_STAT_REMOTE_HIT : OL_STAT_MISS);
		say(l, g, found == OL_FOUND_LOCAL ? "hit (local): no device link runs"
			  : found == OL_FOUND_REMOTE
				? ol_arena_printf(&l->arena, "hit (remote %s): no device link runs",
						  remote->shown)
				: l->cache.rejected > rejected
				? "miss: an entry failed its check (damaged, or not written by a "
				  "holder of the secret) and was not used; linking"
				: "miss: linking", found ? rkey : NULL);
	}
	if (want_explain && explain.len)
		fprintf(stderr, "offlink: %s: device-link cache key ingredients:\n%.*s",
			ol_group_label(l, g), (int)explain.len, (char *)explain.data);
	ol_buf_free(&explain);
	ol_buf_free(&mbuf);
	ol_strvec_free(&files);
}

enum ol_err ol_lookup_device_cache(struct ol_link *l)
{
	if (!l->cache_on || l->opt.dry_run)
		return OL_OK;
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];

		if (g->nsteps && g->image_path)
			lookup_group(l, g);
	}
	l->cache_nkeyed = l->cache.files.n;
	return OL_OK;
}

void ol_cache_link_started(struct ol_link *l, struct ol_group *g)
{
	(void)l;
	(void)g;
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
			if (ok && !ol_strvec_contains(files, ol_key_path_form(&k, deps.v[j], &form)))
				ol_strvec_push(files, ol_key_path_form(&k, deps.v[j], &form));
		}
		/* lld: every place its scripts' searches may look, found or not */
		for (size_t j = 0; ok && j < places.n; j++) {
			if (ol_key_is_tmp(&k, places.v[j]))
				continue;
			ol_key_path_form(&k, places.v[j], &form);
			if (!ol_strvec_contains(files, (const char *)form.data))
				ol_strvec_push(files, (const char *)form.data);
		}
		/* GNU ld: where it looked and found nothing */
		for (size_t j = 0; ok && j < tried.n; j++) {
			if (ol_key_is_tmp(&k, tried.v[j]))
				continue;
			ol_key_path_form(&k, tried.v[j], &form);
			if (!ol_strvec_contains(files, (const char *)form.data))
				ol_strvec_push(files, (const char *)form.data);
			if (!ol_strvec_contains(absent, (const char *)form.data))
				ol_strvec_push(absent, (const char *)form.data);
		}
		ol_unmap(&m);
		ol_unmap(&t);
		ol_strvec_free(&deps);
		ol_strvec_free(&tried);
		ol_strvec_free(&found);
		ol_strvec_free(&places);
	}
	ol_buf_free(&form);
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

void ol_cache_store_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_strvec files = { 0 }, absent = { 0 };
	struct ol_buf manifest = { 0 };
	struct ol_map image = { 0 };
	struct ol_key rk = { 0 };
	struct ol_diag d;
	uint8_t mkey[32], rkey[32];
	const char *why = "out of memory";
	size_t remotes;

	if (g->cache != CACHE_MISS)
		return;
	ol_diag_clear(&d);
	if (!read_files(l, g, &files, &absent, &why) ||
	    !result_key(l, g, files.v, files.n, NULL, rkey, &rk) ||
	    !still_holds(l, g, &rk, &absent, &why)) {
		say(l, g, ol_arena_printf(&l->arena, "not stored: %s", why), NULL);
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
	derive(g->cache_key, "manifest", mkey);
	remotes = ol_store_put(&l->cache, OL_ENTRY_IMAGE, rkey, image.data, image.len);
	ol_store_put(&l->cache, OL_ENTRY_MANIFEST, mkey, manifest.data, manifest.len);
	if (l->cache.have_local)
		ol_store_count(&l->cache, rkey, OL_STAT_LOCAL_STORE);
	for (size_t i = 0; i < remotes; i++)
		ol_store_count(&l->cache, rkey, OL_STAT_REMOTE_STORE);
out:
	ol_key_free(&rk);
	ol_unmap(&image);
	ol_buf_free(&manifest);
	ol_strvec_free(&files);
	ol_strvec_free(&absent);
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
