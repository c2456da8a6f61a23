/* What every backend's planning uses: the group's files, a step added
 * to its chain, the --device-linker and --device-compiler values that
 * apply to its triple. */
#include "devplan/plan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/response_file.h"
#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"
#include "format/triple.h"
#include "link/llvm_release.h"
#include "link/tools.h"
#include "os/mapfile.h"

/* "--device-linker=<triple>=<arg>" applies to that triple only; a prefix
 * that is not a triple (no '-', or a dash-led option) is part of the
 * argument, so "--device-linker=-Wl,--defsym=a=1" is kept whole (LLVM 19
 * splits it at the first '=' and drops it). */
const char *ol_scoped_arg(const char *spec, const char *triple)
{
	const char *eq = strchr(spec, '=');
	size_t n;

	if (!eq || spec[0] == '-' || !memchr(spec, '-', (size_t)(eq - spec)))
		return spec;
	n = (size_t)(eq - spec);
	/* (LLVM 24 scopes AMD's arguments by "amdgpu-amd-amdhsa", and each
	 * group's triple names its processor: format/triple.h) */
	return ol_triple_scope_covers(spec, n, triple) ? eq + 1 : NULL;
}

const char *ol_group_stem(struct ol_link *l, const struct ol_group *g)
{
	(void)l;
	return g->stem;
}

const char *ol_group_input_path(struct ol_link *l, const struct ol_group *g, size_t i)
{
	(void)l;
	return g->input_paths[i];
}

const char *ol_group_inputs_archive(struct ol_link *l, struct ol_group *g)
{
	if (!g->inputs_archive)
		g->inputs_archive = ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.inputs.a", g->stem));
	return g->inputs_archive;
}

struct ol_cmd *ol_group_add_step(struct ol_link *l, struct ol_group *g,
				 const char *program, const char *what)
{
	/* (grown geometrically: an nvcc module may bring 100,000 PTX entries,
	 * a ptxas step each) */
	struct ol_cmd *steps = ol_grow(g->steps, g->nsteps, &g->capsteps, sizeof(*steps), 4);
	struct ol_step_sched *sched;
	struct ol_cmd *c;

	if (!steps)
		return NULL;
	g->steps = steps;
	if (!(sched = ol_grow(g->sched, g->nsteps, &g->capsched, sizeof(*sched), 4)))
		return NULL;
	g->sched = sched;
	memset(&g->sched[g->nsteps], 0, sizeof(*sched));
	c = &g->steps[g->nsteps++];
	memset(c, 0, sizeof(*c));
	c->step = what ? strdup(ol_arena_printf(&l->arena, "device link %s (%s)",
						ol_group_label(l, g), what))
		       : strdup(ol_arena_printf(&l->arena, "device link %s",
						ol_group_label(l, g)));
	ol_strvec_push(&c->argv, program);
	return c;
}

/* The --device-linker values for triple, in order, each with its role:
 * an argument of its own, or the "-mllvm" and the option of a pair. */
enum role { PLAIN, MLLVM_FLAG, MLLVM_OPTION };

struct linker_values {
	const char **v;
	enum role *role;
	size_t n;
};

static void linker_values(struct ol_link *l, const char *triple, struct linker_values *lv)
{
	size_t cap = l->opt.device_linker.n ? l->opt.device_linker.n : 1;
	const char *a;

	lv->v = ol_arena_array(&l->arena, cap, sizeof(*lv->v));
	lv->role = ol_arena_array(&l->arena, cap, sizeof(*lv->role));
	lv->n = 0;
	for (size_t i = 0; lv->v && lv->role && i < l->opt.device_linker.n; i++) {
		if (!(a = ol_scoped_arg(l->opt.device_linker.v[i], triple)))
			continue;
		lv->role[lv->n] = lv->n && lv->role[lv->n - 1] == MLLVM_FLAG ? MLLVM_OPTION
				: strcmp(a, "-mllvm") == 0 ? MLLVM_FLAG : PLAIN;
		lv->v[lv->n++] = a;
	}
}

void ol_linker_mllvm(struct ol_link *l, const char *triple, struct ol_strvec *out)
{
	struct linker_values lv;

	linker_values(l, triple, &lv);
	for (size_t i = 0; i < lv.n; i++)
		if (lv.role[i] == MLLVM_OPTION)
			ol_strvec_push(out, lv.v[i]);
}

/* lib<name>.a or lib<name>.so in one of dirs[0..n), else (nvlink's own
 * search) in CUDA's library directories, or NULL. */
static const char *library_in(struct ol_link *l, const char *const *dirs, size_t n,
			      const char *name)
{
	static const char *const ext[] = { ".a", ".so" };

	for (size_t i = 0; i < n; i++)
		for (size_t e = 0; e < 2; e++) {
			const char *path = ol_arena_printf(&l->arena, "%s/lib%s%s", dirs[i], name, ext[e]);

			if (path && access(path, R_OK) == 0)
				return path;
		}
	return ol_find_cuda_library(l, ol_arena_printf(&l->arena, "lib%s.a", name));
}

/* Where the device linker of triple looks for -l: the -L directories
 * among its values, then those of LIBRARY_PATH (nvlink's search), then
 * <LLVM>/lib (clang-nvlink-wrapper's); into *dirs (arena), their number. */
static size_t library_dirs(struct ol_link *l, const struct linker_values *lv, const char ***dirs)
{
	const char *env = getenv("LIBRARY_PATH");
	size_t nd = 0, ne = 1;

	for (const char *e = env; e && *e; e++)
		ne += *e == ':';
	*dirs = ol_arena_array(&l->arena, lv->n + ne + 1, sizeof(**dirs));
	if (!*dirs)
		return 0;
	for (size_t i = 0; i < lv->n; i++) {
		if (lv->role[i] != PLAIN)
			continue;
		if (!strcmp(lv->v[i], "-L") && i + 1 < lv->n)
			(*dirs)[nd++] = lv->v[++i];
		else if (!strncmp(lv->v[i], "-L", 2))
			(*dirs)[nd++] = lv->v[i] + 2;
	}
	while (env && *env) {
		size_t n = strcspn(env, ":");

		if (n)
			(*dirs)[nd++] = ol_arena_printf(&l->arena, "%.*s", (int)n, env);
		env += n + (env[n] == ':');
	}
	if (l->llvm.bin) {
		size_t n = strlen(l->llvm.bin);

		/* (<LLVM>/bin -> <LLVM>/lib, named as a reader expects) */
		(*dirs)[nd++] = n > 4 && !strcmp(l->llvm.bin + n - 4, "/bin")
			? ol_arena_printf(&l->arena, "%.*s/lib", (int)(n - 4), l->llvm.bin)
			: ol_arena_printf(&l->arena, "%s/../lib", l->llvm.bin);
	}
	return nd;
}

/* The library name of argv[*i] ("-lname", or "-l" and the next), or NULL. */
static const char *library_arg(char *const *argv, size_t n, size_t *i)
{
	if (!strcmp(argv[*i], "-l") && *i + 1 < n)
		return argv[++*i];
	if (!strncmp(argv[*i], "-l", 2) && argv[*i][2] && argv[*i][2] != ':')
		return argv[*i] + 2;
	return NULL;
}

/* What clang makes for NVPTX and nvlink's own -l search passes over:
 * LLVM bitcode, or a device ELF object (EM_CUDA, 190).  (nvcc's -lib
 * members are host objects with the device code inside.) */
static bool is_clangs(const uint8_t *p, size_t n)
{
	return bc_is_bitcode(p, n) || (ol_is_elf(p, n) && (p[18] | p[19] << 8) == 190);
}

static enum ol_err member_is_clangs(void *ctx, const struct ol_ar_member *m, struct ol_diag *d)
{
	(void)d;
	if (is_clangs(m->data, m->size))
		*(bool *)ctx = true;
	return OL_OK;
}

/* Whether path is clang's device code, or an archive holding some.  (A
 * file that cannot be read is left to the linker, which names it.) */
static bool holds_clangs(const char *path)
{
	struct ol_map m;
	struct ol_diag d = { 0 };
	bool found = false;

	if (ol_map_file(path, &m, &d))
		return false;
	if (is_clangs(m.data, m.len))
		found = true;
	else if (ol_is_archive(m.data, m.len))
		(void)ol_archive_for_each(path, m.data, m.len, member_is_clangs, &found, NULL, &d);
	ol_unmap(&m);
	ol_diag_clear(&d);
	return found;
}

enum ol_err ol_find_device_libraries(struct ol_link *l, const struct ol_group *g,
				     struct ol_device_libs *out)
{
	struct linker_values lv;
	const char **dirs;
	size_t nd;
	enum ol_err rc = OL_OK;

	memset(out, 0, sizeof(*out));
	linker_values(l, g->triple, &lv);
	if (!lv.v)
		return OL_E_NOMEM;
	out->name = ol_arena_array(&l->arena, lv.n + 1, sizeof(*out->name));
	out->path = ol_arena_array(&l->arena, lv.n + 1, sizeof(*out->path));
	if (!out->name || !out->path)
		return OL_E_NOMEM;
	nd = library_dirs(l, &lv, &dirs);
	for (size_t i = 0; i < lv.n; i++) {
		const char *name = lv.role[i] == PLAIN ? library_arg((char *const *)lv.v, lv.n, &i) : NULL;
		const char *path = name ? library_in(l, dirs, nd, name) : NULL;
		struct ol_buf where = { 0 };

		if (path) {
			out->name[out->n] = name;
			out->path[out->n++] = path;
			out->clangs = out->clangs || holds_clangs(path);
		}
		if (!name || path)
			continue;
		for (size_t k = 0; k < nd; k++)
			ol_buf_printf(&where, "%s%s", k ? ", " : "", dirs[k]);
		ol_link_errorf(l, "device link %s: unable to find library -l%s (looked in %s%s; "
				  "give its directory with -Xoffload-linker -L<dir>, or compile and "
				  "link with -nogpulib)",
			       ol_group_label(l, g), ol_link_quote(l, name),
			       where.data ? (char *)where.data : "no directory",
			       strcmp(name, "ompdevice") == 0
				       ? ": clang 23 and later link OpenMP's GPU device runtime by that name"
				       : "");
		ol_buf_free(&where);
		rc = OL_E_UNSUPPORTED;
	}
	return rc;
}

void ol_name_device_libraries(const struct ol_device_libs *libs, struct ol_cmd *c)
{
	for (size_t i = 1; i < c->argv.n; i++) {
		size_t at = i, k;
		const char *name = library_arg(c->argv.v, c->argv.n, &i);

		for (k = 0; name && k < libs->n && strcmp(libs->name[k], name); k++)
			;
		if (!name || k == libs->n)
			continue;
		/* ("-l" "name": the pair becomes the path) */
		if (i != at) {
			free(c->argv.v[at]);
			memmove(&c->argv.v[at], &c->argv.v[at + 1], (c->argv.n - at) * sizeof(char *));
			c->argv.n--;
			i = at;
		}
		free(c->argv.v[i]);
		if (!(c->argv.v[i] = strdup(libs->path[k])))
			c->argv.err = OL_E_NOMEM;
	}
}

/* A device linker argument for a tool that reads no @file (nvlink,
 * spirv-link): "@file" becomes the arguments the file holds, read as
 * GNU tools and LLVM's read them, so that the tool gets what it would
 * under LLVM's own wrapper (whose clang-nvlink-wrapper reads @files). */
static void push_linker_arg(struct ol_link *l, struct ol_cmd *c, const char *a, bool expand,
			    bool via_driver)
{
	struct ol_strvec args = { 0 };
	struct ol_diag d;
	char *argv[1] = { (char *)a };

	ol_diag_clear(&d);
	if (!expand || a[0] != '@') {
		if (via_driver)
			ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, a);
		return;
	}
	if (ol_expand_args(1, argv, 0, &args, &d)) {
		ol_diag_prefix(&d, "%s: the device linker argument %s", c->step, ol_link_quote(l, a));
		ol_link_error(l, &d);
	}
	for (size_t i = 0; i < args.n; i++) {
		if (via_driver)
			ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, args.v[i]);
	}
	ol_strvec_free(&args);
}

void ol_add_user_args(struct ol_link *l, struct ol_cmd *c, const char *triple,
		      bool linker_via_driver, enum ol_mllvm mllvm, bool expand)
{
	struct linker_values lv;
	const char *a;

	linker_values(l, triple, &lv);
	for (size_t i = 0; i < lv.n; i++) {
		if (mllvm == MLLVM_DROP && lv.role[i] != PLAIN)
			continue;
		push_linker_arg(l, c, lv.v[i], expand, linker_via_driver);
	}
	for (size_t i = 0; linker_via_driver && i < l->opt.device_compiler.n; i++)
		if ((a = ol_scoped_arg(l->opt.device_compiler.v[i], triple)))
			ol_strvec_push(&c->argv, a);
}

struct ol_cmd *ol_clang_step(struct ol_link *l, struct ol_group *g, const char *what)
{
	struct ol_cmd *c = ol_group_add_step(l, g, l->clang, what);

	if (!c)
		return NULL;
	c->response_file = true;
	c->tool = OL_TOOL_CLANG_DRIVER;
	if (ol_llvm_at_least(l, 16)) /* (it came with 16's default config files) */
		ol_strvec_push(&c->argv, "--no-default-config");
	ol_strvec_pushf(&c->argv, "--target=%s", g->triple);
	return c;
}

enum ol_err ol_refuse_embed_bitcode(struct ol_link *l, const struct ol_group *g, const char *family)
{
	if (!l->opt.embed_bitcode)
		return OL_OK;
	ol_link_errorf(l, "device link %s: --embed-bitcode does not apply to %s, whose image is "
			  "already what the runtime compiles (device code from %s)",
		       ol_group_label(l, g), family, ol_group_origins(l, g));
	return OL_E_UNSUPPORTED;
}

enum ol_err ol_need_all_bitcode(struct ol_link *l, const struct ol_group *g)
{
	/* (the image is one module: ThinLTO's are compiled apart, and clang
	 * refuses -fopenmp-target-jit with -foffload-lto=thin) */
	if (g->all_bitcode && g->any_thin) {
		ol_link_errorf(l, "device link %s: --embed-bitcode needs bitcode of regular LTO "
				  "(-foffload-lto), not ThinLTO modules; device code from %s",
			       ol_group_label(l, g), ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (g->all_bitcode)
		return OL_OK;
	ol_link_errorf(l, "device link %s: --embed-bitcode needs bitcode device images "
			  "(-foffload-lto); device code from %s",
		       ol_group_label(l, g), ol_group_origins(l, g));
	return OL_E_UNSUPPORTED;
}
