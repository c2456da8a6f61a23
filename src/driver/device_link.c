/* link_devices: one chain of commands per group, run in parallel through
 * the process pool (--wrapper-jobs, default: the number of CPUs).
 *
 * CPU "devices" (x86_64, aarch64, ppc64le, ...) link to a shared object
 * with the host toolchain, -shared -Bsymbolic, against the host libraries
 * of the link, as LLVM does; but never with -march=native: an empty arch
 * means "the triple's baseline", so the image does not depend on the
 * machine that linked it.  Bitcode images (-foffload-lto) are linked with
 * LTO by ld.lld.  GPU targets are in device_link_gpu.c. */
#include "driver/device_link.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/message.h"
#include "common/pieces.h"
#include "common/response_file.h"
#include "driver/llvm_release.h"
#include "format/spirv_container.h"
#include "os/mapfile.h"
#include "os/jobserver.h"
#include "os/outfile.h"
#include "os/scratch.h"
#include "os/pool.h"

static const char *const cpu_arches[] = {
	"x86_64", "i386", "i686", "aarch64", "aarch64_be", "ppc64", "ppc64le",
	"powerpc64", "powerpc64le", "s390x", "systemz", "riscv64",
	"loongarch64", NULL,
};

bool ol_triple_is_cpu(const char *triple)
{
	size_t n = strcspn(triple, "-");

	for (const char *const *a = cpu_arches; *a; a++)
		if (strlen(*a) == n && strncmp(triple, *a, n) == 0)
			return true;
	return false;
}

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
	if (strlen(triple) == n && strncmp(spec, triple, n) == 0)
		return eq + 1;
	return NULL;
}

const char *ol_kind_name(enum ob_offload_kind k)
{
	return ob_offload_kind_name(k);
}

char *ol_group_label(struct ol_link *l, const struct ol_group *g)
{
	return g->arch[0]
		? ol_arena_printf(&l->arena, "%s %s %s", ol_kind_name(g->kind), g->triple, g->arch)
		: ol_arena_printf(&l->arena, "%s %s", ol_kind_name(g->kind), g->triple);
}

/* "<index>.<kind>.<triple>[.<arch>]": the group's index makes the name
 * unique by construction (two triples can read alike once made safe for
 * a file name: nvptx64-nvidia_cuda, nvptx64-nvidia:cuda); the rest is for
 * a reader of --save-temps. */
static const char *make_stem(struct ol_link *l, const struct ol_group *g)
{
	struct ol_buf b = { 0 };
	const char *s = NULL;

	if (!ol_buf_printf(&b, "%zu.%s.", (size_t)(g - l->groups), ol_kind_name(g->kind)) &&
	    !ol_file_name_part(&b, g->triple, OL_NAME_PART_MAX) &&
	    (!g->arch[0] || (!ol_buf_puts(&b, ".") &&
			     !ol_file_name_part(&b, g->arch, OL_NAME_PART_MAX))))
		s = ol_arena_strdup(&l->arena, (char *)b.data);
	ol_buf_free(&b);
	return s;
}

const char *ol_group_origins(struct ol_link *l, const struct ol_group *g)
{
	enum { SHOWN = 3 };
	struct ol_buf b = { 0 };
	const char *s;

	for (size_t i = 0; i < g->nimages && i < SHOWN; i++)
		ol_buf_printf(&b, "%s%s", i ? ", " : "", g->images[i]->origin);
	if (g->nimages > SHOWN)
		ol_buf_printf(&b, " and %zu more", g->nimages - SHOWN);
	s = ol_arena_strdup(&l->arena, b.data ? (char *)b.data : "no image");
	ol_buf_free(&b);
	return s ? s : "?";
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

/* Name every file of g once: its stem, and each image's input file. */
static enum ol_err name_files(struct ol_link *l, struct ol_group *g)
{
	g->stem = make_stem(l, g);
	g->input_paths = ol_arena_array(&l->arena, g->nimages ? g->nimages : 1,
					sizeof(*g->input_paths));
	if (!g->stem || !g->input_paths)
		return OL_E_NOMEM;
	for (size_t i = 0; i < g->nimages; i++) {
		const char *ext = ob_image_kind_ext(g->images[i]->entry->image_kind);

		g->input_paths[i] = ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.%zu.%s", g->stem, i, *ext ? ext : "img"));
		if (!g->input_paths[i])
			return OL_E_NOMEM;
	}
	return OL_OK;
}

struct ol_cmd *ol_group_add_step(struct ol_link *l, struct ol_group *g,
				 const char *program, const char *what)
{
	struct ol_cmd *steps = realloc(g->steps, (g->nsteps + 1) * sizeof(*steps));
	struct ol_cmd *c;

	if (!steps)
		return NULL;
	g->steps = steps;
	c = &g->steps[g->nsteps++];
	memset(c, 0, sizeof(*c));
	c->step = what ? strdup(ol_arena_printf(&l->arena, "device link %s (%s)",
						ol_group_label(l, g), what))
		       : strdup(ol_arena_printf(&l->arena, "device link %s",
						ol_group_label(l, g)));
	ol_strvec_push(&c->argv, program);
	return c;
}

static bool has_device_code(const struct ol_input *in)
{
	if (in->type != INPUT_ARCHIVE)
		return false;
	for (size_t m = 0; m < in->nmembers; m++)
		if (in->members[m].nimages)
			return true;
	return false;
}

/* Shared objects and archives of host code.  An archive that carries
 * device code is left out: its device images are already in the link, and
 * its host objects must not be (under --whole-archive they would collide
 * with their own device versions; LLVM 19 passes them and fails). */
static bool host_library_for_device(const struct ol_input *in)
{
	return in->type == INPUT_SHARED ||
	       (in->type == INPUT_ARCHIVE && !has_device_code(in));
}

/* The host link's libraries, in their order, for a CPU device image that
 * is loaded into the same process. */
static void add_host_libraries(struct ol_link *l, struct ol_cmd *c)
{
	static const char *const toggles[] = {
		[ITEM_WHOLE_ON] = "-Wl,--whole-archive",
		[ITEM_WHOLE_OFF] = "-Wl,--no-whole-archive",
		[ITEM_GROUP_START] = "-Wl,--start-group",
		[ITEM_GROUP_END] = "-Wl,--end-group",
		[ITEM_STATIC] = "-Wl,-Bstatic",
		[ITEM_DYNAMIC] = "-Wl,-Bdynamic",
		[ITEM_AS_NEEDED] = "-Wl,--as-needed",
		[ITEM_NO_AS_NEEDED] = "-Wl,--no-as-needed",
	};
	size_t in = 0;

	if (l->sysroot)
		ol_strvec_pushf(&c->argv, "--sysroot=%s", l->sysroot);
	for (size_t i = 0; i < l->lib_dirs.n; i++)
		ol_strvec_pushf(&c->argv, "-L%s", l->lib_dirs.v[i]);
	/* -Xlinker, not -Wl,: a directory may hold a comma. */
	for (size_t i = 0; i < l->rpaths.n; i++) {
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, "-rpath");
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, l->rpaths.v[i]);
	}
	for (size_t i = 0; i < l->nitems; i++) {
		const struct ol_item *it = &l->items[i];

		if (it->kind == ITEM_LIBRARY || it->kind == ITEM_FILE) {
			const struct ol_input *input = &l->inputs[in++];

			/* -l may name a linker script (libc.so): keep it. */
			if (it->kind == ITEM_LIBRARY && !has_device_code(input))
				ol_strvec_pushf(&c->argv, "-l%s", it->value);
			else if (it->kind == ITEM_FILE && host_library_for_device(input))
				ol_strvec_push(&c->argv, input->path);
		} else if (it->kind < sizeof(toggles) / sizeof(toggles[0]) &&
			   toggles[it->kind]) {
			ol_strvec_push(&c->argv, toggles[it->kind]);
		}
	}
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
		      bool linker_via_driver, enum ol_mllvm mllvm)
{
	struct linker_values lv;
	const char *a;
	bool expand = c->tool == OL_TOOL_NVLINK || ol_triple_is_spirv(triple);

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

enum ol_err ol_need_all_bitcode(struct ol_link *l, const struct ol_group *g)
{
	if (g->all_bitcode)
		return OL_OK;
	ol_link_errorf(l, "device link %s: --embed-bitcode needs bitcode device images "
			  "(-foffload-lto); device code from %s",
		       ol_group_label(l, g), ol_group_origins(l, g));
	return OL_E_UNSUPPORTED;
}

/* The group's images through the compiler driver: one archive, read
 * whole, in image order. */
static void push_inputs_archive(struct ol_link *l, struct ol_group *g, struct ol_cmd *c)
{
	ol_strvec_push(&c->argv, "-Wl,--whole-archive");
	ol_strvec_push(&c->argv, ol_group_inputs_archive(l, g));
	ol_strvec_push(&c->argv, "-Wl,--no-whole-archive");
}

/* --embed-bitcode: the image is the group's bitcode merged by LTO (for
 * runtimes that compile it just in time), not machine code. */
static enum ol_err plan_merged_bitcode(struct ol_link *l, struct ol_group *g)
{
	struct ol_cmd *c;

	if (ol_need_all_bitcode(l, g))
		return OL_E_UNSUPPORTED;
	/* ld.lld 16 cannot emit bitcode (--lto-emit-llvm came with 17) */
	if (!ol_llvm_at_least(l, 17))
		return ol_plan_link_and_optimise(
			l, g, strchr("0123", l->opt.opt_level[0]) ? l->opt.opt_level : "2",
			g->image_path);
	c = ol_group_add_step(l, g, l->clang, "merge bitcode");
	if (!c)
		return OL_E_NOMEM;
	c->response_file = true;
	c->tool = OL_TOOL_CLANG_DRIVER;
	if (ol_llvm_at_least(l, 16)) /* (it came with 16's default config files) */
		ol_strvec_push(&c->argv, "--no-default-config");
	ol_strvec_pushf(&c->argv, "--target=%s", g->triple);
	ol_strvec_push(&c->argv, "-fuse-ld=lld");
	ol_strvec_push(&c->argv, "-flto");
	ol_strvec_push(&c->argv, "-nostdlib");
	ol_strvec_push(&c->argv, "-shared");
	ol_strvec_push(&c->argv, "-Wl,--lto-emit-llvm");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	push_inputs_archive(l, g, c);
	return c->argv.err;
}

/* "-Xlinker -mllvm -Xlinker <opt>": an LLVM option for lld's LTO. */
static void linker_mllvm(struct ol_cmd *c, const char *opt)
{
	ol_strvec_push(&c->argv, "-Xlinker");
	ol_strvec_push(&c->argv, "-mllvm");
	ol_strvec_push(&c->argv, "-Xlinker");
	ol_strvec_push(&c->argv, opt);
}

static enum ol_err plan_cpu(struct ol_link *l, struct ol_group *g)
{
	struct ol_cmd *c;

	if (l->opt.embed_bitcode)
		return plan_merged_bitcode(l, g);
	c = ol_group_add_step(l, g, l->clang, NULL);
	if (!c)
		return OL_E_NOMEM;
	/* The host line's libraries are repeated here: a link with 100k
	 * arguments goes through a response file. */
	c->response_file = true;
	c->tool = OL_TOOL_CLANG_DRIVER;
	if (ol_llvm_at_least(l, 16)) /* (it came with 16's default config files) */
		ol_strvec_push(&c->argv, "--no-default-config");
	ol_strvec_pushf(&c->argv, "--target=%s", g->triple);
	if (g->arch[0])
		ol_strvec_pushf(&c->argv, "-march=%s", g->arch);
	ol_strvec_pushf(&c->argv, "-O%s", l->opt.opt_level);
	/* OpenMP device code calls the OpenMP runtime: link it whatever the
	 * host line holds (a -r link has no -lomp, and `ld -r` could not take
	 * it; LLVM 19's -r links of CPU targets fail for that reason). */
	if (g->kind == OB_OFK_OPENMP)
		ol_strvec_push(&c->argv, "-fopenmp");
	if (g->any_bitcode) {
		ol_strvec_push(&c->argv, "-flto");
		ol_strvec_push(&c->argv, "-fuse-ld=lld");
		/* -Xlinker: an LLVM option's value may hold a comma. */
		for (size_t i = 0; i < l->opt.mllvm.n; i++)
			linker_mllvm(c, l->opt.mllvm.v[i]);
		for (size_t i = 0; i < l->opt.offload_opt.n; i++)
			linker_mllvm(c, l->opt.offload_opt.v[i]);
	}
	if (l->opt.device_debug)
		ol_strvec_push(&c->argv, "-g");
	ol_strvec_push(&c->argv, "-shared");
	ol_strvec_push(&c->argv, "-Wl,-Bsymbolic");
	/* LLVM 16 added --no-undefined to CPU device links; 15's (`ld
	 * -shared`) leaves undefined symbols to the loader, and its device
	 * code relies on it: a threadprivate variable used in a task gets a
	 * TLS wrapper in the device object that names the host's variable
	 * (docs/compat.md, "CPU device link"). */
	if (ol_llvm_at_least(l, 16))
		ol_strvec_push(&c->argv, "-Wl,--no-undefined");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	push_inputs_archive(l, g, c);
	add_host_libraries(l, c);
	/* -r: the line is a pre-link's and lacks what the final link will
	 * have; device code calling libm, or C++ device code (operator new,
	 * exceptions: __cxa_begin_catch, __gxx_personality_v0), would not
	 * link, and -lm or -lstdc++ on the line would make `ld -r` copy the
	 * archives' members into the output.  The math and C++ runtimes that
	 * clang++'s final link gives are linked into CPU device code here,
	 * each only if used (the image is a shared object: DT_NEEDED, no
	 * copy). */
	if (l->opt.relocatable) {
		ol_strvec_push(&c->argv, "-Wl,--as-needed");
		ol_strvec_push(&c->argv, "-lstdc++");
		ol_strvec_push(&c->argv, "-lm");
		ol_strvec_push(&c->argv, "-Wl,--no-as-needed");
	}
	/* -mllvm pairs reach lld when it runs LTO; a link of objects has no
	 * code generation to give them to (and GNU ld rejects -mllvm). */
	ol_add_user_args(l, c, g->triple, true, g->any_bitcode ? MLLVM_PASS : MLLVM_DROP);
	return c->argv.err;
}

/* -r -lm: say what ld -r will do with it (the user's line is left as
 * it is: it is the host linker's). */
static void warn_relocatable_libm(struct ol_link *l)
{
	bool cpu = false;

	for (size_t i = 0; i < l->ngroups && !cpu; i++)
		cpu = ol_triple_is_cpu(l->groups[i].triple);
	for (size_t i = 0; cpu && i < l->nitems; i++)
		if (l->items[i].kind == ITEM_LIBRARY && strcmp(l->items[i].value, "m") == 0) {
			ol_link_warnf(l, "-r with -lm: the host linker copies libm.a's members into %s, "
					 "where they fail the final link; offlink links libm into CPU "
					 "device code itself, so -lm can go",
				      l->output);
			return;
		}
}

enum ol_err ol_plan_device_links(struct ol_link *l)
{
	if (l->opt.relocatable)
		warn_relocatable_libm(l);
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];
		enum ol_err rc;

		if (g->image_path) /* --override-image: linked already */
			continue;
		if (name_files(l, g))
			return OL_E_NOMEM;
		g->image_path = strdup(ol_link_temp_path(l, ol_arena_printf(
			&l->arena, "%s.img", ol_group_stem(l, g))));
		if (!g->image_path)
			return OL_E_NOMEM;
		if (ol_triple_is_cpu(g->triple))
			rc = plan_cpu(l, g);
		else if (ol_triple_is_spirv(g->triple))
			rc = ol_plan_spirv(l, g);
		else
			rc = ol_plan_gpu(l, g);
		if (rc == OL_E_UNSUPPORTED)
			continue; /* reported; the others are still planned */
		if (rc)
			return rc;
	}
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}

/* A group's inputs, written by the pool just before its first step: one
 * archive of all its images, or each image to its own file, straight from
 * the inputs' mappings. */
struct group_inputs {
	struct ol_link *l;
	struct ol_group *g;
};

static enum ol_err write_inputs(struct ol_job *j, void *ctx, struct ol_diag *d)
{
	struct group_inputs *gi = ctx;
	struct ol_group *g = gi->g;
	struct ol_scratch_member *m;
	enum ol_err rc = OL_OK;

	if (g->cache == CACHE_HIT) {
		j->done = j->nsteps; /* the image is there: nothing to run */
		return OL_OK;
	}
	ol_cache_link_started(gi->l, g);
	if (!g->inputs_archive) {
		for (size_t i = 0; i < g->nimages && !rc; i++)
			rc = ol_scratch_write(ol_group_input_path(gi->l, g, i), g->images[i]->entry->image,
					      (size_t)g->images[i]->entry->image_size, d);
		return rc;
	}
	m = calloc(g->nimages ? g->nimages : 1, sizeof(*m));
	if (!m)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < g->nimages; i++)
		m[i] = (struct ol_scratch_member){ g->images[i]->entry->image,
						   (size_t)g->images[i]->entry->image_size };
	rc = ol_scratch_archive(g->inputs_archive, m, g->nimages, d);
	free(m);
	return rc;
}

/* A linked SPIR-V module goes into the ELF container Intel's runtime
 * reads (format/spirv_container.h), written from the module's mapping. */
static enum ol_err containerize(struct ol_group *g, struct ol_diag *d)
{
	struct ol_map m = { 0 };
	struct ol_pieces p = { 0 };
	enum ol_err rc;

	if ((rc = ol_map_file_fd(g->module_path, &m, d)))
		return rc;
	rc = ol_spirv_container_encode(m.data, m.len, &p, d);
	if (!rc) {
		ol_pieces_attach_file(&p, m.data, m.len, ol_map_fd(&m));
		rc = ol_write_pieces_atomic(g->image_path, &p, d);
	}
	if (rc && !d->file[0])
		ol_diag_locate(d, g->module_path, NULL, 0);
	ol_pieces_free(&p);
	ol_unmap(&m);
	return rc;
}

/* After the last step: the image made from what the link wrote, then
 * stored in the cache. */
static enum ol_err finish_image(struct ol_job *j, void *ctx, struct ol_diag *d)
{
	struct group_inputs *gi = ctx;
	enum ol_err rc;

	if (gi->g->module_path && (rc = containerize(gi->g, d))) {
		ol_diag_prefix(d, "%s (SPIR-V container)", j->steps[j->nsteps - 1].step);
		return rc;
	}
	ol_cache_linked(gi->l, gi->g);
	return OL_OK;
}

/* A group whose link failed under flags meant for another linker than
 * the one clang runs: once more, without them. */
static void retry_plain(struct ol_link *l, struct ol_job *jobs, struct group_inputs *gi)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_job *j = &jobs[i];

		/* (j->done: the step that failed, when a step failed, not the
		 * writing of its inputs: j->status holds its wait status) */
		if (!j->failed || !j->status || !ol_cache_retry_plain(l, &l->groups[i], j->done))
			continue;
		j->failed = 0;
		j->done = 0;
		ol_diag_clear(&j->diag);
		for (; j->done < j->nsteps && !j->failed; j->done++) {
			int status;

			if (ol_run(&j->steps[j->done], &l->run, &status, &j->diag))
				j->failed = 1;
		}
		if (!j->failed && finish_image(j, &gi[i], &j->diag))
			j->failed = 1;
	}
}

enum ol_err ol_run_device_links(struct ol_link *l)
{
	struct ol_job *jobs = calloc(l->ngroups ? l->ngroups : 1, sizeof(*jobs));
	struct group_inputs *gi = calloc(l->ngroups ? l->ngroups : 1, sizeof(*gi));
	struct ol_jobserver js;
	enum ol_jobserver_state jst = OL_JOBSERVER_NONE;
	bool use_js = false, failed = false;
	enum ol_err rc = OL_OK;
	size_t njobs = l->ngroups;

	if (!jobs || !gi) {
		free(jobs);
		free(gi);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < l->ngroups; i++) {
		gi[i] = (struct group_inputs){ l, &l->groups[i] };
		jobs[i].steps = l->groups[i].steps;
		jobs[i].nsteps = l->groups[i].nsteps;
		jobs[i].prepare = l->opt.dry_run ? NULL : write_inputs;
		jobs[i].complete = l->opt.dry_run ? NULL : finish_image;
		jobs[i].ctx = &gi[i];
		jobs[i].prepare_cost = l->groups[i].inputs_archive ? 1 : l->groups[i].nimages;
	}

	/* Under make -j (or --wrapper-jobs=jobserver), make's slots decide;
	 * a number given with --wrapper-jobs wins. */
	if (l->opt.jobs_mode != JOBS_GIVEN && !l->opt.dry_run)
		jst = ol_jobserver_open(&js, getenv("MAKEFLAGS"));
	if (jst == OL_JOBSERVER_REFUSED)
		ol_link_warnf(l, "MAKEFLAGS names a jobserver that offlink does not use (%s); "
				 "device links run %u at a time", js.what, l->opt.jobs);
	if (jst == OL_JOBSERVER_OK) {
		use_js = true;
		if (l->opt.verbose)
			ol_message("offlink", NULL, "device links share make's job slots (jobserver %s)",
				   js.what);
	} else if (l->opt.jobs_mode == JOBS_JOBSERVER && l->opt.verbose) {
		ol_message("offlink", NULL, "--wrapper-jobs=jobserver: no jobserver in MAKEFLAGS; "
					    "%u device links at a time", l->opt.jobs);
	}
	ol_pool_run(jobs, njobs, use_js ? (unsigned)njobs : l->opt.jobs, &l->run, use_js ? &js : NULL);
	if (use_js)
		ol_jobserver_close(&js);
	retry_plain(l, jobs, gi);
	for (size_t i = 0; i < l->ngroups; i++)
		failed |= jobs[i].failed != 0;
	if (failed) {
		for (size_t i = 0; i < l->ngroups; i++) {
			char msg[2048];

			if (!jobs[i].failed)
				continue;
			ol_diag_format(&jobs[i].diag, msg, sizeof(msg));
			ol_link_errorf(l, "%s (device code from %s)", msg,
				       ol_group_origins(l, &l->groups[i]));
		}
		rc = OL_E_TOOL_FAILED;
	}
	free(jobs);
	free(gi);
	return rc;
}
