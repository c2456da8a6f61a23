/* The CPU backend: "devices" that are the host's own kind of processor
 * (x86_64, aarch64, ppc64le, ...) link to a shared object with the host
 * toolchain, -shared -Bsymbolic, against the host libraries of the link,
 * as LLVM does; but never with -march=native: an empty arch means "the
 * triple's baseline", so the image does not depend on the machine that
 * linked it.  Bitcode images (-foffload-lto) are linked with LTO by
 * ld.lld.  One step, through the release's clang; for LLVM 15, the host
 * linker run directly, as its wrapper does. */
#include "targets/backend.h"

#include <string.h>

#include "link/llvm_release.h"

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
	c = ol_clang_step(l, g, "merge bitcode");
	if (!c)
		return OL_E_NOMEM;
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

/* GNU ld's emulation for a CPU triple, as LLVM 15's wrapper names it
 * (its getLDMOption); NULL for one it did not know. */
static const char *ld_emulation(const char *triple)
{
	static const struct { const char *arch, *emulation; } table[] = {
		{ "x86_64", "elf_x86_64" }, { "i386", "elf_i386" }, { "i686", "elf_i386" },
		{ "aarch64", "aarch64linux" }, { "aarch64_be", "aarch64linuxb" },
		{ "ppc64", "elf64ppc" }, { "ppc64le", "elf64lppc" },
	};
	size_t n = strcspn(triple, "-");

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strlen(table[i].arch) == n && strncmp(triple, table[i].arch, n) == 0)
			return table[i].emulation;
	return NULL;
}

/* host_args[*i]'s option among LLVM 15's: -l, -L, -rpath, -dynamic-linker
 * (each rendered with its value apart, as its option table does),
 * --as-needed, --no-as-needed; advances *i past a separate value. */
static void ld15_host_arg(struct ol_link *l, struct ol_cmd *c, size_t *i)
{
	static const char *const valued[][2] = {
		{ "-l", "-l" }, { "-L", "-L" }, { "-rpath", "-rpath" }, { "--rpath", "-rpath" },
		{ "-dynamic-linker", "-dynamic-linker" }, { "--dynamic-linker", "-dynamic-linker" },
	};
	const char *a = l->host_args.v[*i];

	if (!strcmp(a, "--as-needed") || !strcmp(a, "--no-as-needed")) {
		ol_strvec_push(&c->argv, a);
		return;
	}
	for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
		size_t n = strlen(valued[k][0]);
		const char *v = NULL;

		if (strncmp(a, valued[k][0], n) != 0)
			continue;
		if (!a[n] && *i + 1 < l->host_args.n)
			v = l->host_args.v[++*i];
		else if (a[n] == '=' && n > 2)
			v = a + n + 1;
		else if (a[n] && n == 2)
			v = a + n;
		if (v) {
			ol_strvec_push(&c->argv, valued[k][1]);
			ol_strvec_push(&c->argv, v);
			return;
		}
	}
}

/* LLVM 15 links a CPU image with the host linker itself, not a clang
 * driver: `ld -m <emulation> -shared`, the host line's -l, -L, -rpath,
 * -dynamic-linker and as-needed toggles in order, -Bsymbolic, the
 * images, the -Xoffload-linker arguments; no start files, no
 * --no-undefined.  The same here: the release's image, and a link that
 * does not wait 80-100 ms for clang to start. */
static enum ol_err plan_cpu_ld15(struct ol_link *l, struct ol_group *g, const char *emulation)
{
	struct ol_cmd *c = ol_group_add_step(l, g, l->opt.linker_path, NULL);

	if (!c)
		return OL_E_NOMEM;
	c->tool = OL_TOOL_LINKER;
	ol_strvec_push(&c->argv, "-m");
	ol_strvec_push(&c->argv, emulation);
	ol_strvec_push(&c->argv, "-shared");
	for (size_t i = 0; i < l->host_args.n; i++)
		if ((long)i != l->output_arg)
			ld15_host_arg(l, c, &i);
	ol_strvec_push(&c->argv, "-Bsymbolic");
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->image_path);
	for (size_t i = 0; i < g->nimages; i++)
		ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	ol_add_user_args(l, c, g->triple, false, MLLVM_DROP, false);
	return c->argv.err;
}

static enum ol_err plan_cpu(struct ol_link *l, struct ol_group *g)
{
	struct ol_cmd *c;
	const char *emulation = ld_emulation(g->triple);

	if (l->opt.embed_bitcode)
		return plan_merged_bitcode(l, g);
	/* (15 itself: bitcode went through its in-process LTO; -r links keep
	 * the driver's -fopenmp, which the line's lack of -lomp needs) */
	if (!ol_llvm_at_least(l, 16) && emulation && !g->any_bitcode && !l->opt.relocatable &&
	    l->opt.linker_path)
		return plan_cpu_ld15(l, g, emulation);
	c = ol_clang_step(l, g, NULL);
	if (!c)
		return OL_E_NOMEM;
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
	ol_add_user_args(l, c, g->triple, true, g->any_bitcode ? MLLVM_PASS : MLLVM_DROP, false);
	return c->argv.err;
}

const struct ol_backend ol_backend_cpu = {
	.name = "CPU",
	.claims = ol_triple_is_cpu,
	.plan = plan_cpu,
};
