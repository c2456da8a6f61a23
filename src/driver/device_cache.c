/* The device-link cache: a group whose link would run again with the same
 * inputs, the same tools and the same arguments gets the image it made
 * last time, and no device linker runs (the common relink: only host code
 * was edited).
 *
 * The key of a group is the SHA-256 of everything its link depends on
 * that offlink can see:
 *   - offlink's version and the working directory;
 *   - each step's program: its real path, size, modification time, inode;
 *   - each argument, the link's private temporary directory written as
 *     <TMP> (it differs per run); for an argument that is an absolute path
 *     outside it, that file's identity as for programs; for -L<dir>, the
 *     directory's (a library added there changes what -l finds);
 *   - for CPU groups, the identity of every host library offlink resolved
 *     for the line (the device link reads the same -l's);
 *   - the bytes of every input image, in order, with its image kind;
 *   - LIBRARY_PATH, COMPILER_PATH, GCC_EXEC_PREFIX and CUDA_PATH.
 * What it cannot see -- files a tool reads on its own, such as a compiler
 * driver's implicit libraries -- is covered by that tool's identity: a
 * new toolchain is a new key.
 *
 * Where: --cache-dir, else $OFFLINK_CACHE_DIR, else
 * $XDG_CACHE_HOME/offlink, else ~/.cache/offlink; --no-cache or
 * OFFLINK_CACHE_DIR=off turns it off.  The cap: --cache-size, else
 * $OFFLINK_CACHE_SIZE, else 1 GiB.  A hit gives the bytes the miss stored,
 * so the program is the same either way; os/cache.c checks every entry it
 * hands out. */
#include "driver/phases.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/message.h"
#include "common/version.h"
#include "driver/device_link.h"
#include "os/digest.h"
#include "os/findprog.h"

#define DEFAULT_CAP ((uint64_t)1 << 30)

enum ol_err ol_open_cache(struct ol_link *l)
{
	const char *env = getenv("OFFLINK_CACHE_DIR"), *size = getenv("OFFLINK_CACHE_SIZE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	uint64_t cap = l->opt.cache_size;
	char *dir = NULL;
	enum ol_err rc;

	if (!cap && size && *size && ol_cache_parse_size(size, &cap)) {
		ol_link_errorf(l, "OFFLINK_CACHE_SIZE=%s: expected a size such as 500M or 2G",
			       ol_link_quote(l, size));
		return OL_E_USAGE;
	}
	if (!cap)
		cap = DEFAULT_CAP;
	if (l->opt.no_cache || l->opt.override_images.n || (env && strcmp(env, "off") == 0))
		dir = NULL;
	else if (l->opt.cache_dir)
		dir = ol_arena_strdup(&l->arena, l->opt.cache_dir);
	else if (env && *env)
		dir = ol_arena_strdup(&l->arena, env);
	else if (xdg && *xdg == '/')
		dir = ol_arena_printf(&l->arena, "%s/offlink", xdg);
	else if (home && *home == '/')
		dir = ol_arena_printf(&l->arena, "%s/.cache/offlink", home);
	rc = ol_cache_init(&l->cache, dir, cap);
	return rc;
}

/* path's identity: where it really is, its size, time and inode. */
static void add_identity(struct ol_digest *h, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (stat(path, &st) != 0) {
		ol_digest_add_str(h, "missing");
		ol_digest_add_str(h, path);
		return;
	}
	ol_digest_add_str(h, realpath(path, real) ? real : path);
	ol_digest_add_u64(h, (uint64_t)st.st_size);
	ol_digest_add_u64(h, (uint64_t)st.st_mtim.tv_sec);
	ol_digest_add_u64(h, (uint64_t)st.st_mtim.tv_nsec);
	ol_digest_add_u64(h, (uint64_t)st.st_ino);
	ol_digest_add_u64(h, (uint64_t)st.st_dev);
}

static void add_argument(struct ol_link *l, struct ol_digest *h, const char *a)
{
	size_t tl = strlen(l->tmpdir);
	struct stat st;

	if (strncmp(a, l->tmpdir, tl) == 0 && (a[tl] == '/' || a[tl] == '\0')) {
		ol_digest_add(h, "<TMP>", 5);
		ol_digest_add_str(h, a + tl);
		return;
	}
	ol_digest_add_str(h, a);
	if (a[0] == '/' && stat(a, &st) == 0 && S_ISREG(st.st_mode))
		add_identity(h, a);
	else if (strncmp(a, "-L/", 3) == 0)
		add_identity(h, a + 2);
}

static void compute_key(struct ol_link *l, struct ol_group *g)
{
	static const char *const env[] = { "LIBRARY_PATH", "COMPILER_PATH", "GCC_EXEC_PREFIX",
					   "CUDA_PATH" };
	char cwd[PATH_MAX];
	uint8_t digest[OL_DIGEST_SIZE];
	struct ol_digest h;

	ol_digest_init(&h);
	ol_digest_add_str(&h, "offlink device-link cache 1");
	ol_digest_add_str(&h, OFFLINK_VERSION);
	ol_digest_add_str(&h, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *v = getenv(env[i]);

		ol_digest_add_str(&h, env[i]);
		ol_digest_add_str(&h, v ? v : "");
	}
	for (size_t s = 0; s < g->nsteps; s++) {
		const struct ol_cmd *c = &g->steps[s];
		char *prog = ol_find_in_path(c->argv.v[0]);

		ol_digest_add_str(&h, "step");
		add_identity(&h, prog ? prog : c->argv.v[0]);
		free(prog);
		for (size_t i = 1; i < c->argv.n; i++)
			add_argument(l, &h, c->argv.v[i]);
	}
	if (ol_triple_is_cpu(g->triple))
		for (size_t i = 0; i < l->ninputs; i++)
			if (l->inputs[i].type == INPUT_ARCHIVE || l->inputs[i].type == INPUT_SHARED)
				add_identity(&h, l->inputs[i].path);
	for (size_t i = 0; i < g->nimages; i++) {
		const struct ob_entry *e = g->images[i]->entry;

		ol_digest_add_str(&h, "image");
		ol_digest_add_u64(&h, e->image_kind);
		ol_digest_add_u64(&h, e->image_size);
		ol_digest_add(&h, e->image, (size_t)e->image_size);
	}
	ol_digest_final(&h, digest);
	ol_digest_hex(digest, g->cache_key);
}

const char *ol_group_cache_key(struct ol_link *l, struct ol_group *g)
{
	if (!l->cache.dir || !g->nsteps)
		return NULL;
	if (!g->cache_key[0])
		compute_key(l, g);
	return g->cache_key;
}

bool ol_cache_lookup_group(struct ol_link *l, struct ol_group *g)
{
	const char *key = ol_group_cache_key(l, g);
	enum ol_cache_lookup r;

	if (!key)
		return false;
	r = ol_cache_get(&l->cache, key, g->image_path);
	g->cache_state = r == OL_CACHE_HIT ? 1 : 2;
	if (l->opt.verbose)
		ol_message("offlink", NULL, "%s: device-link cache %s (%.16s)", ol_group_label(l, g),
			   r == OL_CACHE_HIT ? "hit: no device link runs"
			   : r == OL_CACHE_CORRUPT ? "entry damaged, removed; linking"
						  : "miss: linking",
			   key);
	return r == OL_CACHE_HIT;
}

void ol_cache_store_group(struct ol_link *l, struct ol_group *g)
{
	const char *key = ol_group_cache_key(l, g);
	struct ol_diag d;

	if (!key)
		return;
	ol_diag_clear(&d);
	if (ol_cache_put(&l->cache, key, g->image_path, &d) && l->opt.verbose) {
		char msg[1024];

		ol_diag_format(&d, msg, sizeof(msg));
		ol_message("offlink", NULL, "%s: not stored in the device-link cache: %s",
			   ol_group_label(l, g), msg);
	}
}
