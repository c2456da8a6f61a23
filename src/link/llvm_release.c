/* choose_llvm: which LLVM release a link follows, and where its tools are.
 *
 * Every LLVM tool offlink runs (clang for CPU device links and the
 * registration code, ld.lld, clang-nvlink-wrapper, llvm-objcopy, ...) must
 * come from the release that produced the device code: an older LLVM
 * reading newer bitcode is not supported and may fail or miscompile.  The
 * rule (docs/design.md, "Which LLVM"):
 *
 *   1. --llvm=<release or bin directory>, else $OFFLINK_LLVM, decides;
 *   2. otherwise the newest of the clang that started offlink (its parent
 *      process, as `clang -B <compat dir>` runs it) and the LLVM releases
 *      that produced the linked device code (the `.comment` of the objects
 *      carrying it, the producer of bitcode images);
 *   3. with neither (offlink run by hand on inputs without a producer),
 *      the newest release installed.
 *
 * The release also picks the behaviour that differs between releases
 * (registration layout, the NVPTX LTO path); the plan says which release
 * was chosen and why. */
#include "link/llvm_release.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/env.h"
#include "format/bitcode_symtab.h"
#include "os/findprog.h"
#include "os/llvm_install.h"

/* The release that produced img: its object's `.comment`, or for bitcode
 * its symbol table's producer, whichever is newer. */
static unsigned producer_of(struct ol_image *img)
{
	const struct ob_entry *e = img->entry;
	unsigned bc = bc_is_bitcode(e->image, (size_t)e->image_size)
		? bc_producer_major(e->image, (size_t)e->image_size) : 0;

	return bc > img->producer ? bc : img->producer;
}

/* The newest producer of the linked device code, its image in *from. */
static unsigned newest_producer(struct ol_link *l, const struct ol_image **from,
				unsigned *oldest)
{
	unsigned newest = 0;

	*oldest = 0;
	*from = NULL;
	for (size_t i = 0; i < l->nimages; i++) {
		struct ol_image *img = &l->images[i];
		unsigned p;

		if (!img->taken || !(p = producer_of(img)))
			continue;
		if (p > newest) {
			newest = p;
			*from = img;
		}
		if (!*oldest || p < *oldest)
			*oldest = p;
	}
	return newest;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --llvm=<N|dir> or $OFFLINK_LLVM=<N|dir>: a release number (digits only,
 * 1-999: "19abc" is not 19, nor 99999999999999999999 a release that
 * wraps), or an existing directory. */
static enum ol_err explicit_release(struct ol_link *l, const char *value, const char *source)
{
	struct ol_llvm *r = &l->llvm;
	char searched[512] = "";
	unsigned long n;

	if (all_digits(value) ? !ol_parse_uint(value, 1, 999, &n) : !is_dir(value)) {
		ol_link_errorf(l, "%s=%s: expected an LLVM release number such as 16, 19 or 23, "
				  "or the bin directory of an LLVM installation",
			       source, ol_link_quote(l, value));
		return OL_E_USAGE;
	}
	if (all_digits(value)) {
		r->major = (unsigned)n;
		r->bin = ol_llvm_find_release(r->major, searched, sizeof(searched));
	} else {
		r->major = ol_llvm_major_of_bin(value);
		r->bin = strdup(value);
		snprintf(searched, sizeof(searched), "%s", value);
	}
	r->why = ol_arena_printf(&l->arena, "%s=%s", source, value);
	r->searched = ol_arena_strdup(&l->arena, searched);
	return OL_OK;
}

static void implicit_release(struct ol_link *l)
{
	struct ol_llvm *r = &l->llvm;
	const struct ol_image *from;
	char parent_bin[4096], searched[512] = "";
	unsigned parent = ol_llvm_parent_clang(parent_bin, sizeof(parent_bin));
	unsigned oldest, newest = newest_producer(l, &from, &oldest);
	const char *mixed = oldest && oldest != newest
		? ol_arena_printf(&l->arena, "; device code from LLVM %u to %u, so the newest",
				  oldest, newest)
		: "";

	if (parent && parent >= newest) {
		r->major = parent;
		r->bin = strdup(parent_bin);
		r->why = ol_arena_printf(&l->arena, "clang %u started offlink (%s/clang)%s",
					 parent, parent_bin, mixed);
	} else if (newest) {
		r->major = newest;
		r->bin = ol_llvm_find_release(newest, searched, sizeof(searched));
		r->why = ol_arena_printf(&l->arena, "LLVM %u produced %s%s%s", newest,
					 from->origin, mixed,
					 parent ? ol_arena_printf(&l->arena,
								  ", newer than the clang %u that started offlink",
								  parent)
						: "");
	} else {
		r->major = ol_llvm_newest(&r->bin);
		r->why = r->major
			? "no clang started offlink and no input names its LLVM: the newest installed"
			: "no LLVM found";
		snprintf(searched, sizeof(searched), "/usr/lib/llvm-<N>/bin, clang-<N> and clang on PATH");
	}
	r->searched = ol_arena_strdup(&l->arena, searched);
}

static bool any_taken(const struct ol_link *l)
{
	for (size_t i = 0; i < l->nimages; i++)
		if (l->images[i].taken)
			return true;
	return l->opt.override_images.n > 0;
}

enum ol_err ol_choose_llvm(struct ol_link *l)
{
	const char *env = getenv("OFFLINK_LLVM");

	if (l->opt.llvm && explicit_release(l, l->opt.llvm, "--llvm"))
		return OL_E_USAGE;
	if (!l->opt.llvm && env && *env && explicit_release(l, env, "OFFLINK_LLVM"))
		return OL_E_USAGE;
	if (!l->opt.llvm && !(env && *env))
		implicit_release(l);
	if (l->llvm.bin || !any_taken(l) || l->opt.dry_run)
		return OL_OK;
	ol_link_errorf(l, "LLVM %u is not installed (%s); looked in %s", l->llvm.major,
		       ol_link_quote(l, l->llvm.why), l->llvm.searched);
	return OL_E_NOT_FOUND;
}

bool ol_llvm_at_least(const struct ol_link *l, unsigned major)
{
	/* Unknown (0): behave as the newest release offlink knows. */
	return !l->llvm.major || l->llvm.major >= major;
}

char *ol_llvm_tool(struct ol_link *l, const char *name, const char *env)
{
	const char *override = env ? getenv(env) : NULL;

	if (override && *override)
		return ol_find_in_path(override);
	return l->llvm.bin ? ol_find_in_dir(l->llvm.bin, name) : NULL;
}

const char *ol_llvm_where(struct ol_link *l, const char *env)
{
	const char *dir = l->llvm.bin ? l->llvm.bin : l->llvm.searched;

	return env ? ol_arena_printf(&l->arena, "$%s, then the tools of LLVM %u in %s", env,
				     l->llvm.major, dir)
		   : ol_arena_printf(&l->arena, "the tools of LLVM %u in %s", l->llvm.major, dir);
}
