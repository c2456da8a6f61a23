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
#include "cache/key.h"
#include "cache/linkline.h"
#include "cache/manifest.h"
#include "cache/program.h"
#include "cache/toolargs.h"
#include "common/env.h"
#include "common/message.h"
#include "common/response_file.h"
#include "common/version.h"
#include "driver/device_link.h"
#include "os/findprog.h"
#include "os/mapfile.h"

#define DEFAULT_CAP ((uint64_t)1 << 30)
#define KEY_DOMAIN "offlink device-link cache 2"

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

/* A directory the user alone can write, for remembered digests. */
static const char *memo_dir(struct ol_link *l, const char *dir)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *top = NULL;
	struct stat st;

	if (dir && !l->opt.cache_shared && !env_on("OFFLINK_CACHE_SHARED"))
		return ol_arena_printf(&l->arena, "%s/digests", dir);
	if (xdg && *xdg == '/')
		top = ol_arena_printf(&l->arena, "%s/offlink", xdg);
	else if (home && *home == '/')
		top = ol_arena_printf(&l->arena, "%s/.cache/offlink", home);
	if (!top || stat(top, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return NULL;
	return ol_arena_printf(&l->arena, "%s/digests", top);
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
	c->memo_dir = memo_dir(l, c->dir);
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

static bool add_depfile(struct ol_group *g, const char *path, int flavor)
{
	struct ol_depfile *v = realloc(g->depfiles, (g->ndepfiles + 1) * sizeof(*v));

	if (!v)
		return false;
	g->depfiles = v;
	v[g->ndepfiles].path = strdup(path);
	v[g->ndepfiles].flavor = flavor;
	return v[g->ndepfiles++].path != NULL;
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

/* A link through clang: keyed by the one linker command clang would run. */
static void key_driver(struct ol_link *l, struct ol_group *g, struct ol_key *k,
		       const struct ol_cmd *c, int *flavor)
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
	} else if ((*flavor = ol_ld_flavor_of(jobs.job[0].v[0])) < 0) {
		ol_key_refuse(k, "clang runs the linker %s, whose inputs the cache cannot list "
				 "(GNU ld and lld write dependency files)",
			      ol_key_quote(jobs.job[0].v[0], q, sizeof(q)));
	} else {
		ol_key_program(k, "linker", jobs.job[0].v[0]);
		ol_key_linker_args(k, (enum ol_ld_flavor)*flavor, jobs.job[0].v, jobs.job[0].n);
	}
	placeholders(g, false);
	ol_clang_jobs_free(&jobs);
	ol_buf_free(&out);
	ol_strvec_free(&probe.argv);
}

struct pending { size_t step; int flavor; }; /* a dependency file to add */

static void key_step(struct ol_link *l, struct ol_group *g, struct ol_key *k, size_t s,
		     struct pending *p, size_t *np)
{
	const struct ol_cmd *c = &g->steps[s];
	char *prog = ol_find_in_path(c->argv.v[0]);
	const char *program = prog ? prog : c->argv.v[0];
	int flavor = -1;
	char q[256];

	ol_key_text(k, "step", c->step ? c->step : "");
	ol_key_program(k, "program", program);
	switch (c->tool) {
	case OL_TOOL_CLANG_DRIVER:
		key_driver(l, g, k, c, &flavor);
		break;
	case OL_TOOL_LINKER:
		if ((flavor = ol_ld_flavor_of(program)) < 0)
			ol_key_refuse(k, "the linker %s is not one whose inputs the cache can list",
				      ol_key_quote(program, q, sizeof(q)));
		else
			ol_key_linker_args(k, (enum ol_ld_flavor)flavor, c->argv.v, c->argv.n);
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
	if (flavor >= 0)
		p[(*np)++] = (struct pending){ s, flavor };
	free(prog);
}

static void key_init(struct ol_link *l, struct ol_key *k, struct ol_buf *explain,
		     const char *domain)
{
	memset(k, 0, sizeof(*k));
	k->explain = explain;
	k->tmpdir = l->tmpdir;
	k->base_dir = l->cache_base_dir;
	k->cwd = l->cwd;
	k->files = &l->cache.files;
	k->run = &l->run;
	ol_key_init(k, domain);
}

/* The group's key: everything its steps are and read up front. */
static bool group_key(struct ol_link *l, struct ol_group *g, struct ol_buf *explain)
{
	struct pending *p = calloc(g->nsteps ? g->nsteps : 1, sizeof(*p));
	size_t np = 0;
	struct ol_key k;

	if (!p)
		return false;
	key_init(l, &k, explain, KEY_DOMAIN);
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
	}
	ol_key_final(&k, g->cache_key);
	if (k.uncacheable[0]) {
		g->cache_note = ol_arena_printf(&l->arena, "not used: %s", k.uncacheable);
		free(p);
		return false;
	}
	/* The key holds: the linkers now write what they read. */
	for (size_t i = 0; i < np; i++) {
		struct ol_cmd *c = &g->steps[p[i].step];
		char *path = depfile_path(l, g, p[i].step);

		if (!path || !add_depfile(g, path, p[i].flavor)) {
			free(p);
			return false;
		}
		if (c->tool == OL_TOOL_CLANG_DRIVER)
			ol_strvec_pushf(&c->argv, "-Wl,--dependency-file=%s", path);
		else
			ol_strvec_pushf(&c->argv, "--dependency-file=%s", path);
	}
	free(p);
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

/* The image's key: the group's, and every file of the manifest as it is
 * now.  False when one of them cannot be a link input (a FIFO now). */
static bool result_key(struct ol_link *l, const struct ol_group *g, char *const *files,
		       size_t n, struct ol_buf *explain, uint8_t out[32])
{
	struct ol_key k;

	key_init(l, &k, explain, "offlink device-link result 2");
	ol_key_digest(&k, "group", g->cache_key);
	for (size_t i = 0; i < n; i++)
		ol_key_file(&k, "read", files[i]);
	ol_key_final(&k, out);
	return !k.uncacheable[0];
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
	bool want_explain = env_on("OFFLINK_CACHE_EXPLAIN");
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
		    result_key(l, g, files.v, files.n, want_explain ? &explain : NULL, rkey))
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
	return OL_OK;
}

void ol_cache_link_started(struct ol_link *l, struct ol_group *g)
{
	struct timespec ts;

	(void)l;
	clock_gettime(CLOCK_REALTIME, &ts);
	g->cache_started = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The files the group's linkers read, in their travelling form; false
 * when one changed after the link started (what it read is not known). */
static bool read_files(struct ol_link *l, const struct ol_group *g, struct ol_strvec *files)
{
	struct ol_key k;
	struct ol_buf form = { 0 };
	bool ok = true;

	key_init(l, &k, NULL, "paths");
	for (size_t i = 0; i < g->ndepfiles && ok; i++) {
		struct ol_strvec deps = { 0 };
		struct ol_map m = { 0 };
		struct ol_diag d;

		ol_diag_clear(&d);
		ok = ol_map_file(g->depfiles[i].path, &m, &d) == OL_OK &&
		     ol_depfile_parse((const char *)m.data, m.len,
				      (enum ol_ld_flavor)g->depfiles[i].flavor, &deps) == OL_OK;
		for (size_t j = 0; ok && j < deps.n; j++) {
			struct stat st;

			if (ol_key_is_tmp(&k, deps.v[j]))
				continue; /* the images: keyed by their bytes */
			if (stat(deps.v[j], &st) == 0 &&
			    (double)st.st_ctim.tv_sec + (double)st.st_ctim.tv_nsec / 1e9 >=
				    g->cache_started - 0.05)
				ok = false; /* changed while the link read it */
			else if (!ol_strvec_contains(files, ol_key_path_form(&k, deps.v[j], &form)))
				ol_strvec_push(files, ol_key_path_form(&k, deps.v[j], &form));
		}
		ol_unmap(&m);
		ol_strvec_free(&deps);
	}
	ol_buf_free(&form);
	return ok && !files->err;
}

void ol_cache_store_group(struct ol_link *l, struct ol_group *g)
{
	struct ol_strvec files = { 0 };
	struct ol_buf manifest = { 0 };
	struct ol_map image = { 0 };
	struct ol_diag d;
	uint8_t mkey[32], rkey[32];
	size_t remotes;

	if (g->cache != CACHE_MISS)
		return;
	ol_diag_clear(&d);
	if (!read_files(l, g, &files)) {
		say(l, g, "not stored: an input changed during the link, or its dependency "
			  "file could not be read", NULL);
		goto out;
	}
	if (!ol_manifest_encode(files.v, files.n, &manifest) || !result_key(l, g, files.v, files.n, NULL, rkey) ||
	    ol_map_file(g->image_path, &image, &d) || !image.len)
		goto out;
	say(l, g, "stored", rkey);
	derive(g->cache_key, "manifest", mkey);
	remotes = ol_store_put(&l->cache, OL_ENTRY_IMAGE, rkey, image.data, image.len);
	ol_store_put(&l->cache, OL_ENTRY_MANIFEST, mkey, manifest.data, manifest.len);
	if (l->cache.have_local)
		ol_store_count(&l->cache, rkey, OL_STAT_LOCAL_STORE);
	for (size_t i = 0; i < remotes; i++)
		ol_store_count(&l->cache, rkey, OL_STAT_REMOTE_STORE);
out:
	ol_unmap(&image);
	ol_buf_free(&manifest);
	ol_strvec_free(&files);
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
