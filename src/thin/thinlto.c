/* Planning a ThinLTO device link (thin/thinlto.h): the group's
 * modules named by their content in a directory of its own, the thin
 * link, one backend per thin module. */
#include "thin/thinlto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/message.h"
#include "common/strmap.h"
#include "devplan/plan.h"
#include "format/bitcode_lto.h"
#include "link/llvm_release.h"
#include "os/digest.h"

const char *ol_thin_module_name(struct ol_arena *a, struct ol_strmap *copies, const void *image,
				size_t size)
{
	uint8_t sum[OL_DIGEST_SIZE];
	char hex[2 * OL_DIGEST_SIZE + 1];
	struct ol_digest h;
	const char *key;
	uintptr_t *seen;

	ol_digest_init(&h);
	ol_digest_add(&h, image, size);
	ol_digest_final(&h, sum);
	ol_digest_hex(sum, hex);
	hex[32] = '\0';
	/* "<hex>.bc" never equals "<hex>.<k>.bc": only copies of the same
	 * bytes can meet, and the map counts them (searching the names so far
	 * for a free one, each copy tried every earlier copy's name: 1,800
	 * copies took 4.4 s) */
	if (!(key = ol_arena_strdup(a, hex)) || !(seen = ol_strmap_put(copies, key, 32)))
		return NULL;
	if (++*seen == 1)
		return ol_arena_printf(a, "%s.bc", hex);
	return ol_arena_printf(a, "%s.%llu.bc", hex, (unsigned long long)*seen);
}

/* The modules: each bitcode image's name, its kind, its file. */
static enum ol_err name_modules(struct ol_link *l, struct ol_group *g, struct ol_thin *t,
				const char **names)
{
	struct ol_strmap copies = { 0 };
	enum ol_err rc = OL_OK;

	t->mods = ol_arena_array(&l->arena, g->nimages ? g->nimages : 1, sizeof(*t->mods));
	if (!t->mods)
		return OL_E_NOMEM;
	for (size_t i = 0; i < g->nimages; i++) {
		const struct ob_entry *e = g->images[i]->entry;
		struct ol_thin_module *m = &t->mods[t->nmods];
		enum bc_lto_kind kind = BC_LTO_REGULAR;
		struct ol_diag d;
		uintptr_t *slot;

		names[i] = NULL;
		if (e->image_kind != OB_IMG_BITCODE)
			continue;
		ol_diag_clear(&d);
		bc_lto_kind(e->image, (size_t)e->image_size, &kind, &d);
		m->image = i;
		m->thin = kind == BC_LTO_THIN;
		if (!(m->name = ol_thin_module_name(&l->arena, &copies, e->image,
						     (size_t)e->image_size)) ||
		    !(g->input_paths[i] = ol_arena_printf(&l->arena, "%s/%s", t->dir, m->name))) {
			rc = OL_E_NOMEM;
			break;
		}
		if (!(slot = ol_strmap_put(&t->by_name, m->name, strlen(m->name)))) {
			rc = OL_E_NOMEM;
			break;
		}
		*slot = t->nmods + 1;
		names[i] = m->name;
		t->nthin += m->thin;
		t->regular |= !m->thin;
		t->nmods++;
	}
	ol_strmap_free(&copies);
	return rc;
}

/* The options both the thin link and the backends take as LLVM options:
 * -mllvm values, --offload-opt values, the --device-linker -mllvm pairs. */
static void llvm_options(struct ol_link *l, const struct ol_group *g, struct ol_strvec *out)
{
	ol_strvec_extend(out, &l->opt.mllvm);
	ol_strvec_extend(out, &l->opt.offload_opt);
	ol_linker_mllvm(l, g->triple, out);
}

/* Step 0: llvm-lto2 in the group's directory. */
static enum ol_err thin_link(struct ol_link *l, struct ol_group *g, const struct ol_thin *t,
			     const struct ol_thin_target *tt, const char **names)
{
	struct ol_strvec opts = { 0 }, res = { 0 };
	struct ol_cmd *c;
	struct ol_diag d;
	enum ol_err rc;

	ol_diag_clear(&d);
	if ((rc = ol_lto_resolutions(l, g, names, &res, &d))) {
		ol_diag_prefix(&d, "device link %s: ThinLTO", ol_group_label(l, g));
		ol_link_error(l, &d);
		ol_strvec_free(&res);
		return OL_E_UNSUPPORTED;
	}
	if (!(c = ol_tool_step(l, g, "llvm-lto2", "OFFLINK_LLVM_LTO2", "ThinLTO: thin link"))) {
		ol_strvec_free(&res);
		return OL_E_UNSUPPORTED;
	}
	c->cwd = strdup(t->dir);
	c->response_file = true; /* (every LLVM tool reads @file) */
	ol_strvec_push(&c->argv, "run");
	ol_strvec_push(&c->argv, "-thinlto-distributed-indexes");
	ol_strvec_push(&c->argv, "-thinlto-emit-imports");
	ol_strvec_pushf(&c->argv, "-O%s", tt->opt);
	ol_strvec_pushf(&c->argv, "--cg-opt-level=%s", tt->opt);
	ol_strvec_pushf(&c->argv, "-mcpu=%s", tt->cpu);
	if (tt->feature)
		ol_strvec_pushf(&c->argv, "-mattr=%s", tt->feature);
	ol_strvec_push(&c->argv, "--filetype=asm");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, "out");
	llvm_options(l, g, &opts);
	ol_strvec_extend(&c->argv, &opts);
	ol_strvec_extend(&c->argv, &res);
	for (size_t k = 0; k < t->nmods; k++)
		ol_strvec_push(&c->argv, t->mods[k].name);
	g->sched[g->nsteps - 1].explicit_after = true;
	ol_strvec_free(&opts);
	ol_strvec_free(&res);
	return c->cwd && !c->argv.err ? OL_OK : OL_E_NOMEM;
}

/* The cc1 options clang's driver gives an NVPTX ThinLTO backend compile
 * (clang-N -### -x ir -fthinlto-index=...) that matter to what the
 * backend writes, by the releases whose driver gives them (to: the last,
 * 0 for every later one).  The others of each release were checked and
 * are left out -- they configure a compile from source, or they are not
 * what LLVM's in-process backend, whose PTX offlink's must equal, runs
 * with (docs/compat.md, "ThinLTO on NVPTX"; tests/e2e/thinlto_plan.sh
 * fails on an option of an installed release that is neither here nor
 * on its list).  A new release adds its rows here. */
static const struct backend_option {
	unsigned from, to;
	const char *arg;
} nvptx_backend_options[] = {
	/* the one-operand `.file N "dir/file"`, the only form ptxas reads
	 * and the one LLVM's own backend writes: without it cc1 writes
	 * `.file N "dir" "file"` for code compiled with -g, and ptxas stops */
	{ 15, 0, "-fno-dwarf-directory-asm" },
};

static void add_backend_options(struct ol_link *l, struct ol_cmd *c)
{
	for (size_t i = 0; i < sizeof(nvptx_backend_options) / sizeof(nvptx_backend_options[0]); i++) {
		const struct backend_option *o = &nvptx_backend_options[i];

		if (ol_llvm_at_least(l, o->from) && (!o->to || !ol_llvm_at_least(l, o->to + 1)))
			ol_strvec_push(&c->argv, o->arg);
	}
}

/* A thin module's backend: the release's clang -cc1 with the module's
 * index, as LLVM's in-process backend configures it (the level, the
 * vectorizers above -O1, no comments in the assembly). */
static struct ol_cmd *backend(struct ol_link *l, struct ol_group *g, const struct ol_thin_module *m,
			      const struct ol_thin_target *tt)
{
	struct ol_cmd *c = ol_group_add_step(
		l, g, l->clang, ol_arena_printf(&l->arena, "ThinLTO: backend of %s",
						g->images[m->image]->origin));
	struct ol_strvec opts = { 0 };

	if (!c)
		return NULL;
	c->role = strdup(ol_arena_printf(&l->arena, "device link %s (ThinLTO: backend)",
					 ol_group_label(l, g)));
	c->cwd = strdup(g->thin->dir);
	ol_strvec_push(&c->argv, "-cc1");
	ol_strvec_push(&c->argv, "-triple");
	ol_strvec_push(&c->argv, g->triple);
	ol_strvec_push(&c->argv, "-target-cpu");
	ol_strvec_push(&c->argv, tt->cpu);
	if (tt->feature) {
		ol_strvec_push(&c->argv, "-target-feature");
		ol_strvec_push(&c->argv, tt->feature);
	}
	ol_strvec_pushf(&c->argv, "-O%s", tt->opt);
	if (strcmp(tt->opt, "1") > 0) {
		ol_strvec_push(&c->argv, "-vectorize-loops");
		ol_strvec_push(&c->argv, "-vectorize-slp");
	}
	ol_strvec_push(&c->argv, "-fno-verbose-asm");
	add_backend_options(l, c);
	llvm_options(l, g, &opts);
	for (size_t i = 0; i < opts.n; i++) {
		ol_strvec_push(&c->argv, "-mllvm");
		ol_strvec_push(&c->argv, opts.v[i]);
	}
	ol_strvec_free(&opts);
	ol_strvec_pushf(&c->argv, "-fthinlto-index=%s.thinlto.bc", m->name);
	ol_strvec_push(&c->argv, "-x");
	ol_strvec_push(&c->argv, "ir");
	ol_strvec_push(&c->argv, m->name);
	ol_strvec_push(&c->argv, "-S");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_pushf(&c->argv, "%s%s", m->name, tt->suffix);
	c->response_file = true;
	return c->cwd && c->role ? c : NULL;
}

static const size_t first_step[1] = { 0 };

enum ol_err ol_thin_plan(struct ol_link *l, struct ol_group *g, const struct ol_thin_target *tt,
			 struct ol_thin_output **outs, size_t *nouts)
{
	struct ol_thin *t = ol_arena_alloc(&l->arena, sizeof(*t));
	const char **names = ol_arena_array(&l->arena, g->nimages ? g->nimages : 1, sizeof(*names));
	struct ol_thin_output *o;
	enum ol_err rc;

	if (!t || !names)
		return OL_E_NOMEM;
	memset(t, 0, sizeof(*t));
	g->thin = t;
	if (!(t->dir = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.thin", g->stem))) ||
	    (rc = name_modules(l, g, t, names)))
		return OL_E_NOMEM;
	o = ol_arena_array(&l->arena, t->nmods + 1, sizeof(*o));
	if (!o)
		return OL_E_NOMEM;
	*outs = o;
	*nouts = 0;
	if ((rc = thin_link(l, g, t, tt, names)))
		return rc;
	if (t->regular) /* (llvm-lto2 writes task N of -o out to out.N) */
		o[(*nouts)++] = (struct ol_thin_output){
			ol_arena_printf(&l->arena, "%s/out.0", t->dir), g->nsteps - 1 };
	for (size_t k = 0; k < t->nmods; k++) {
		const struct ol_thin_module *m = &t->mods[k];
		struct ol_step_sched *sc;
		const char *out;
		size_t step;

		if (!m->thin)
			continue;
		if (!backend(l, g, m, tt))
			return OL_E_NOMEM;
		step = g->nsteps - 1;
		sc = &g->sched[step];
		*sc = (struct ol_step_sched){ .explicit_after = true, .after = first_step, .nafter = 1,
					      .rank = 1,
					      .weight = (int64_t)g->images[m->image]->entry->image_size };
		out = ol_arena_printf(&l->arena, "%s/%s%s", t->dir, m->name, tt->suffix);
		o[(*nouts)++] = (struct ol_thin_output){ out, step };
		if ((rc = ol_thin_cache_backend(l, g, step, m, out)))
			return rc;
	}
	return OL_OK;
}

enum ol_err ol_thin_prepare_dir(struct ol_link *l, struct ol_group *g, struct ol_diag *d)
{
	(void)l;
	/* (inside the link's own temporary directory, which is removed
	 * whole: nothing to register) */
	if (mkdir(g->thin->dir, 0700) != 0 && errno != EEXIST)
		return ol_diag_errno(d, errno, "cannot make the ThinLTO directory", g->thin->dir);
	return OL_OK;
}

const char *ol_thin_summary(struct ol_link *l, const struct ol_group *g)
{
	const struct ol_thin *t = g->thin;

	return ol_arena_printf(&l->arena, "ThinLTO: %zu module%s compiled apart%s%s", t->nthin,
			       t->nthin == 1 ? "" : "s",
			       t->regular ? ", the regular-LTO code (the device runtime) as one more" : "",
			       l->cache_on ? "; each looked up in the cache after the thin link" : "");
}

void ol_thin_report(struct ol_link *l, const struct ol_group *g)
{
	const struct ol_thin *t = g->thin;

	if (!l->opt.verbose)
		return;
	ol_message("offlink", NULL, "%s: ThinLTO: %zu backend%s ran, %zu from the cache; "
				    "%zu assembler run%s, %zu from the cache",
		   ol_group_label(l, g), t->ran[0], t->ran[0] == 1 ? "" : "s", t->cached[0],
		   t->ran[1], t->ran[1] == 1 ? "" : "s", t->cached[1]);
}
