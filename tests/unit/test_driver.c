/* Unit tests of the driver's pure logic: command-line parsing (what is
 * consumed, what reaches the host linker and in which order), target IDs
 * and grouping, the string map, the generated OpenMP and CUDA/HIP
 * sources, and where CUDA tools are looked for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strmap.h"
#include "targets/backend.h"
#include "devlink/devlink.h"
#include "thin/thinlto.h"
#include "link/tools.h"
#include "driver/options.h"
#include "format/target_id.h"
#include "wrap/asm_code.h"
#include "wrap/wrapper.h"

static void parse(struct ol_link *l, int argc, char **argv, enum ol_err want)
{
	struct ol_diag d;

	memset(l, 0, sizeof(*l));
	ol_diag_clear(&d);
	assert_int_equal(ol_parse_command_line(l, argc, argv, &d), want);
}

static void joined(const struct ol_strvec *v, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < v->n; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? " " : "", v->v[i]);
}

static void free_link(struct ol_link *l)
{
	ol_strvec_free(&l->host_args);
	ol_strvec_free(&l->lib_dirs);
	ol_strvec_free(&l->rpaths);
	ol_strvec_free(&l->opt.device_linker);
	ol_strvec_free(&l->opt.mllvm);
	free(l->opt.linker_path);
	free(l->opt.opt_level);
	free(l->items);
	ol_arena_free(&l->arena);
}

static void wrapper_options_are_consumed_the_rest_kept_in_order(void **state)
{
	char *argv[] = { "offlink", "--linker-path=/usr/bin/ld", "--hash-style=gnu",
			 "-m", "elf_x86_64", "-dynamic-linker", "/lib64/ld.so",
			 "--wrapper-verbose", "-o", "prog", "crt1.o",
			 "--device-linker=-defsym=a=b", "-zfoo", "-z", "now",
			 "-mllvm", "-x", "a.o", "-L/l", "-lm", "-compress",
			 "--opt-level=O3", "--", "--whatever=1=2", "--save-temps", "--dry-run" };
	struct ol_link l;
	char line[1024];

	(void)state;
	parse(&l, sizeof(argv) / sizeof(argv[0]), argv, OL_OK);
	joined(&l.host_args, line, sizeof(line));
	/* After clang 16's "--" the arguments are the linker's, even one a
	 * linker shares with the wrapper (lld's --save-temps); only options
	 * no linker has stay the wrapper's; "--" itself is not passed on. */
	assert_string_equal(line, "--hash-style=gnu -m elf_x86_64 -dynamic-linker /lib64/ld.so "
				  "-o prog crt1.o -zfoo -z now a.o -L/l -lm --whatever=1=2 --save-temps");
	assert_false(l.opt.save_temps);
	assert_true(l.opt.dry_run);
	assert_string_equal(l.opt.linker_path, "/usr/bin/ld");
	assert_true(l.opt.verbose);
	assert_true(l.opt.compress);
	assert_string_equal(l.opt.opt_level, "3");
	assert_string_equal(l.opt.device_linker.v[0], "-defsym=a=b");
	assert_string_equal(l.opt.mllvm.v[0], "-x");
	assert_string_equal(l.output, "prog");
	assert_int_equal(l.output_arg, 6);     /* "prog" */
	assert_int_equal(l.wrappers_at, 7);    /* right after it */
	/* Values of separate-argument options are not inputs. */
	for (size_t i = 0; i < l.nitems; i++)
		if (l.items[i].kind == ITEM_FILE)
			assert_true(strcmp(l.items[i].value, "crt1.o") == 0 ||
				    strcmp(l.items[i].value, "a.o") == 0);
	free_link(&l);
}

static void output_spellings(void **state)
{
	char *a1[] = { "offlink", "-oprog1", "x.o" };
	char *a2[] = { "offlink", "x.o", "--output=dir/prog2" };
	char *a3[] = { "offlink", "x.o" };
	struct ol_link l;

	(void)state;
	parse(&l, 3, a1, OL_OK);
	assert_string_equal(l.output, "prog1");
	assert_int_equal(l.output_prefix, 2);
	free_link(&l);
	parse(&l, 3, a2, OL_OK);
	assert_string_equal(l.output, "dir/prog2");
	assert_int_equal(l.output_prefix, strlen("--output="));
	free_link(&l);
	/* No -o: a.out, made explicit so it can go through a temporary. */
	parse(&l, 2, a3, OL_OK);
	assert_string_equal(l.output, "a.out");
	assert_string_equal(l.host_args.v[0], "-o");
	assert_string_equal(l.host_args.v[1], "a.out");
	free_link(&l);
}

/* clang 16 puts --sysroot= and -r after "--", among the linker's
 * arguments: offlink still searches libraries under the sysroot and does
 * a relocatable link, and the linker still gets both. */
static void clang16_sysroot_and_r(void **state)
{
	char *argv[] = { "offlink", "--linker-path=/usr/bin/ld", "--", "--sysroot=/s",
			 "-o", "x.o", "-r", "a.o" };
	struct ol_link l;
	char line[256];

	(void)state;
	parse(&l, sizeof(argv) / sizeof(argv[0]), argv, OL_OK);
	joined(&l.host_args, line, sizeof(line));
	assert_string_equal(line, "--sysroot=/s -o x.o -r a.o");
	assert_string_equal(l.sysroot, "/s");
	assert_true(l.opt.relocatable);
	assert_string_equal(l.output, "x.o");
	free(l.sysroot);
	free_link(&l);
}

static void link_items_and_toggles(void **state)
{
	char *argv[] = { "offlink", "--start-group", "-lfoo", "-l", ":libbar.a",
			 "--end-group", "-Bstatic", "--whole-archive", "k.a",
			 "--no-whole-archive", "-u", "sym", "--undefined=sym2",
			 "-undefined=sym3", "-rpath", "/r", "--sysroot=/s", "-r" };
	static const enum ol_item_kind want[] = {
		ITEM_GROUP_START, ITEM_LIBRARY, ITEM_LIBRARY, ITEM_GROUP_END,
		ITEM_STATIC, ITEM_WHOLE_ON, ITEM_FILE, ITEM_WHOLE_OFF,
		ITEM_UNDEFINED, ITEM_UNDEFINED, ITEM_UNDEFINED,
	};
	struct ol_link l;

	(void)state;
	parse(&l, sizeof(argv) / sizeof(argv[0]), argv, OL_OK);
	assert_int_equal(l.nitems, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.nitems; i++)
		assert_int_equal(l.items[i].kind, want[i]);
	assert_string_equal(l.items[2].value, ":libbar.a");
	assert_string_equal(l.items[10].value, "sym3");
	assert_string_equal(l.rpaths.v[0], "/r");
	assert_string_equal(l.sysroot, "/s");
	assert_true(l.opt.relocatable);
	free(l.sysroot);
	free_link(&l);
}

static void bad_options_are_usage_errors(void **state)
{
	char *a1[] = { "offlink", "--wrapper-jobs=0" };
	char *a2[] = { "offlink", "--opt-level=O9" };
	char *a3[] = { "offlink", "-o" };
	struct ol_link l;

	(void)state;
	parse(&l, 2, a1, OL_E_USAGE);
	free_link(&l);
	parse(&l, 2, a2, OL_E_USAGE);
	free_link(&l);
	parse(&l, 2, a3, OL_E_USAGE);
	free_link(&l);
}

static void scoped_device_arguments(void **state)
{
	(void)state;
	assert_string_equal(ol_scoped_arg("-lm", "x86_64-pc-linux-gnu"), "-lm");
	assert_string_equal(ol_scoped_arg("--defsym=a=1", "x86_64-pc-linux-gnu"),
			    "--defsym=a=1");
	assert_string_equal(ol_scoped_arg("nvptx64-nvidia-cuda=--foo", "nvptx64-nvidia-cuda"),
			    "--foo");
	assert_null(ol_scoped_arg("nvptx64-nvidia-cuda=--foo", "x86_64-pc-linux-gnu"));
	assert_true(ol_triple_is_cpu("x86_64-pc-linux-gnu"));
	assert_true(ol_triple_is_cpu("aarch64-unknown-linux-gnu"));
	assert_false(ol_triple_is_cpu("nvptx64-nvidia-cuda"));
	assert_false(ol_triple_is_cpu("amdgcn-amd-amdhsa"));
}

static struct ol_target_id tid(const char *s)
{
	struct ol_target_id t;
	struct ol_diag d;

	ol_diag_clear(&d);
	assert_int_equal(ol_target_id_parse(s, &t, &d), OL_OK);
	return t;
}

static void target_ids(void **state)
{
	struct ol_target_id any = tid("gfx90a"), on = tid("gfx90a:xnack+");
	struct ol_target_id off = tid("gfx90a:xnack-"), both = tid("gfx90a:xnack+:sramecc-");
	struct ol_target_id t;
	struct ol_diag d;
	char s[128];

	(void)state;
	assert_true(ol_target_id_serves(&any, &on));   /* "any" code runs with xnack on */
	assert_false(ol_target_id_serves(&on, &any));  /* xnack+ code needs xnack on */
	assert_false(ol_target_id_serves(&on, &off));
	assert_true(ol_target_id_serves(&on, &both));
	assert_false(ol_target_id_serves(&both, &on));
	assert_false(ol_target_id_serves(&any, &(struct ol_target_id){ "gfx908", 0, {{ "", 0 }} }));
	assert_true(ol_target_id_conflict(&any, &on));
	assert_false(ol_target_id_conflict(&on, &off));
	ol_target_id_format(&both, s, sizeof(s));
	assert_string_equal(s, "gfx90a:sramecc-:xnack+");
	ol_diag_clear(&d);
	assert_int_equal(ol_target_id_parse("gfx90a:xnack", &t, &d), OL_E_BAD_TARGET);
	assert_int_equal(ol_target_id_parse("gfx90a:xnack+:xnack-", &t, &d), OL_E_BAD_TARGET);
	assert_int_equal(ol_target_id_parse("", &t, &d), OL_OK);
}

static void strmap_put_get_grow(void **state)
{
	struct ol_strmap m = { 0 };
	char names[5000][12];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(names[i], sizeof(names[i]), "sym%d", i);
		*ol_strmap_put(&m, names[i], strlen(names[i])) = (uintptr_t)i + 1;
	}
	assert_int_equal(m.n, 5000);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(*ol_strmap_get(&m, names[i], strlen(names[i])), i + 1);
	assert_null(ol_strmap_get(&m, "sym5000", 7));
	assert_null(ol_strmap_get(&m, "sym1", 3)); /* a prefix is another key */
	ol_strmap_free(&m);
}

static void openmp_source_has_the_tables(void **state)
{
	struct wrap_image imgs[] = {
		{ "nvptx64-nvidia-cuda", "sm_90", "/tmp/a \"b\".img", 1000, 1, "x.o", 0, NULL },
		{ "x86_64-pc-linux-gnu", "", "/tmp/c.img", 24, 1, "y.o, lib.a(z.o)", 0, NULL },
	};
	struct wrap_openmp w = { "prog", imgs, 2, "omp_offloading_entries", false, WRAP_OMP_LINK, 1 };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const char *s;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(wrap_openmp_source(&w, &out, &d), OL_OK);
	s = (const char *)out.data;
	assert_non_null(strstr(s, "__start_omp_offloading_entries[]"));
	assert_non_null(strstr(s, ".pushsection .llvm.offloading,\\\"a\\\",%0x6fff4c0b"));
	/* The path's quotes are escaped for the assembler (octal, by
	 * ol_escape), then the escape's backslash for C. */
	assert_non_null(strstr(s, ".incbin \\\"/tmp/a \\\\042b\\\\042.img\\\""));
	assert_non_null(strstr(s, "constructor(101)"));
	assert_non_null(strstr(s, "__tgt_register_lib(&__offlink_omp_descriptor)"));
	assert_non_null(strstr(s, "atexit(__offlink_omp_unregister)"));
	assert_non_null(strstr(s, "\t2, __offlink_omp_images"));
	assert_non_null(strstr(s, "from y.o, lib.a(z.o)"));
	ol_buf_free(&out);
}

static void cuda_sources_register_everything(void **state)
{
	struct wrap_managed m[] = { { "mv.managed", "mv" } };
	struct wrap_cuda_hip cuda = { false, "prog", "/t/cuda.fatbin", "Fatbinary of: sm_90",
				      false, m, 1, NULL, 0 };
	struct wrap_cuda_hip hip = { true, "prog", "/t/hip.hipfb", "Bundle", true, NULL, 0, NULL, 0 };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const char *s;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(wrap_cuda_hip_source(&cuda, &out, &d), OL_OK);
	s = (const char *)out.data;
	assert_non_null(strstr(s, ".nv_fatbin"));
	assert_non_null(strstr(s, "section(\".nvFatBinSegment\")"));
	assert_non_null(strstr(s, "0x466243b1, 1, __offlink_cuda_fatbin, 0"));
	assert_non_null(strstr(s, "__start_cuda_offloading_entries"));
	assert_non_null(strstr(s, "__cudaRegisterFunction(h, e->addr, e->name, e->name, -1"));
	assert_non_null(strstr(s, "__cudaRegisterVar(h, e->addr, e->name, e->name, ext, e->size, constant, 0)"));
	/* LLVM 19 entries: the managed pointer comes from the table. */
	assert_non_null(strstr(s, "__asm__(\"mv.managed\")"));
	assert_non_null(strstr(s, "if (ext || !__offlink_cuda_managed_pointer(e->addr))"));
	assert_non_null(strstr(s, "__cudaRegisterFatBinaryEnd(__offlink_cuda_handle)"));
	assert_non_null(strstr(s, "atexit(__offlink_cuda_unregister)"));
	ol_buf_free(&out);

	assert_int_equal(wrap_cuda_hip_source(&hip, &out, &d), OL_OK);
	s = (const char *)out.data;
	assert_non_null(strstr(s, ".hip_fatbin"));
	assert_non_null(strstr(s, "0x48495046, 1, __offlink_hip_fatbin, 0"));
	/* LLVM 20+ entries: one section for every kind, Kind 3 or 4 is HIP,
	 * and the managed pointer is AuxAddr. */
	assert_non_null(strstr(s, "__start_llvm_offload_entries"));
	assert_non_null(strstr(s, "(e->Kind == 3 || e->Kind == 4)"));
	assert_non_null(strstr(s, "__hipRegisterManagedVar(h, (void **)e->AuxAddr"));
	assert_non_null(strstr(s, "__hipRegisterSurface"));
	assert_non_null(strstr(s, "__hipRegisterTexture"));
	assert_null(strstr(s, "RegisterFatBinaryEnd"));
	ol_buf_free(&out);
}

/* The generated comments of S hold numbers and fixed words, never one of
 * the N module IDs (which come from the input). */
static void assert_no_id_in_comments(const char *s, const char *const *ids, size_t n)
{
	for (const char *c = strstr(s, "/*"); c; c = strstr(c + 2, "/*")) {
		const char *e = strstr(c, "*/");

		assert_non_null(e);
		for (size_t k = 0; k < n; k++) {
			const char *id = strstr(c, ids[k]);

			assert_true(!id || id > e);
		}
	}
}

/* nvcc's relocatable modules: a registration function per module, the
 * handshake, a version 2 wrapper; an ID that is no identifier refused. */
static void cuda_sources_register_nvcc_modules(void **state)
{
	static const char *const ids[] = { "_31f2b892_4_a_cu_0416e7e7", "_2347_b_cu" };
	static const char *const bad[] = { "_x(); int y", "" };
	struct wrap_cuda_hip cuda = { false, "prog", "/t/cuda.fatbin", "Fatbinary of: sm_90",
				      true, NULL, 0, ids, 2 };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const char *s, *callbacks, *end;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(wrap_cuda_hip_source(&cuda, &out, &d), OL_OK);
	s = (const char *)out.data;
	assert_non_null(strstr(s, "void __cudaRegisterLinkedBinary_31f2b892_4_a_cu_0416e7e7(void (*callback)(void **)"));
	assert_non_null(strstr(s, "void __cudaRegisterLinkedBinary_2347_b_cu(void (*callback)(void **)"));
	assert_non_null(strstr(s, "extern const struct __offlink_fatbin_wrapper __fatbinwrap_2347_b_cu;"));
	assert_non_null(strstr(s, "__offlink_nvcc_prelinked[1] = __fatbinwrap_2347_b_cu.data;"));
	assert_non_null(strstr(s, "0x466243b1, 2, __offlink_cuda_fatbin, (void *)__offlink_nvcc_prelinked"));
	assert_non_null(strstr(s, "if (++__offlink_nvcc_arrived == 3)"));
	assert_non_null(strstr(s, "= \"def _2347_b_cu\";"));
	/* the callbacks after clang's entries, before the end */
	callbacks = strstr(s, "__offlink_nvcc_callback[i](__offlink_cuda_handle)");
	end = strstr(s, "__cudaRegisterFatBinaryEnd(__offlink_cuda_handle)");
	assert_non_null(callbacks);
	assert_non_null(end);
	assert_true(callbacks < end);
	assert_no_id_in_comments(s, ids, 2);
	ol_buf_free(&out);
	for (size_t i = 0; i < 2; i++) {
		cuda.nvcc_modules = &bad[i];
		cuda.nnvcc = 1;
		assert_int_equal(wrap_cuda_hip_source(&cuda, &out, &d), OL_E_BAD_FIELD);
		ol_buf_free(&out);
	}
}

/* The same modules in the assembly form, for each host it writes: a
 * global __cudaRegisterLinkedBinary<ID> per module, the module's wrapper
 * by name, its "def <ID>", a version 2 wrapper, the constructor counted
 * as one arrival; an ID that is no identifier refused before any
 * assembly is written. */
static void cuda_asm_registers_nvcc_modules(void **state)
{
	static const char *const ids[] = { "_31f2b892_4_a_cu_0416e7e7", "_2347_b_cu" };
	static const char *const bad[] = { "_x\n\t.globl evil", "a\"b", "_x */ y", "" };
	const struct asm_arch *arches[] = { &asm_x86_64, &asm_aarch64 };
	struct wrap_cuda_hip cuda = { false, "prog", "/t/cuda.fatbin", "Fatbinary of: sm_90",
				      true, NULL, 0, ids, 2 };
	struct ol_buf out = { 0 };
	struct ol_diag d;

	(void)state;
	for (size_t a = 0; a < 2; a++) {
		const char *s;

		ol_diag_clear(&d);
		assert_int_equal(wrap_cuda_hip_asm(&cuda, arches[a], &out, &d), OL_OK);
		s = (const char *)out.data;
		assert_non_null(strstr(s, "\t.globl __cudaRegisterLinkedBinary_31f2b892_4_a_cu_0416e7e7\n"));
		assert_non_null(strstr(s, "\t.globl __cudaRegisterLinkedBinary_2347_b_cu\n"));
		assert_non_null(strstr(s, "__fatbinwrap_2347_b_cu"));
		assert_non_null(strstr(s, "\t.asciz \"def _2347_b_cu\"\n"));
		assert_non_null(strstr(s, "\t.long 0x466243b1, 2\n\t.quad __offlink_cuda_fatbin, __offlink_nvcc_prelinked\n"));
		assert_non_null(strstr(s, "__offlink_nvcc_count"));
		assert_no_id_in_comments(s, ids, 2);
		ol_buf_free(&out);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			cuda.nvcc_modules = &bad[i];
			cuda.nnvcc = 1;
			assert_int_equal(wrap_cuda_hip_asm(&cuda, arches[a], &out, &d), OL_E_BAD_FIELD);
			assert_int_equal(out.len, 0);
			ol_buf_free(&out);
		}
		cuda.nvcc_modules = ids;
		cuda.nnvcc = 2;
	}
}

static void cuda_tools_are_searched_in_order(void **state)
{
	struct ol_link l;
	char dir[] = "/tmp/offlink-unit-XXXXXX", bin[64], tool[96], searched[512];
	char *found;
	FILE *f;

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(tool, sizeof(tool), "%s/offlink-unit-tool", bin);
	assert_int_equal(mkdir(bin, 0755), 0);
	f = fopen(tool, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(tool, 0755), 0);

	/* --cuda-path first, before $CUDA_PATH. */
	l.opt.cuda_path = dir;
	setenv("CUDA_PATH", "/nonexistent/cuda", 1);
	found = ol_find_cuda_tool(&l, "offlink-unit-tool", searched, sizeof(searched));
	assert_non_null(found);
	assert_string_equal(found, tool);
	free(found);
	/* $CUDA_PATH when --cuda-path has nothing. */
	l.opt.cuda_path = "/nonexistent/given";
	setenv("CUDA_PATH", dir, 1);
	found = ol_find_cuda_tool(&l, "offlink-unit-tool", searched, sizeof(searched));
	assert_non_null(found);
	free(found);
	/* Missing: the message lists every place. */
	setenv("CUDA_PATH", "/nonexistent/env", 1);
	assert_null(ol_find_cuda_tool(&l, "offlink-no-such-tool", searched, sizeof(searched)));
	assert_string_equal(searched, "--cuda-path /nonexistent/given, $CUDA_PATH /nonexistent/env, "
				      "/usr/local/cuda/bin, PATH");
	unsetenv("CUDA_PATH");
	l.opt.cuda_path = NULL;
	assert_null(ol_find_cuda_tool(&l, "offlink-no-such-tool", searched, sizeof(searched)));
	assert_string_equal(searched, "--cuda-path (not given), $CUDA_PATH (unset), "
				      "/usr/local/cuda/bin, PATH");
	unlink(tool);
	rmdir(bin);
	rmdir(dir);
	ol_arena_free(&l.arena);
}

/* Issue 44, item 4: a ThinLTO group's module names.  The same bytes
 * again get "<hex>.<k>.bc" from k = 2, as before (the names reach the
 * indexes, and so the cache's keys); other bytes their own digest.
 * 20,000 copies are named by one map lookup each: the search this
 * replaced compared every name tried with every name so far. */
static void thin_module_names_count_copies(void **state)
{
	static const char mod[] = "BC\xc0\xde one module", other[] = "BC\xc0\xde another";
	struct ol_arena a = { 0 };
	struct ol_strmap copies = { 0 }, seen = { 0 };
	const char *first, *n;
	char want[64];

	(void)state;
	first = ol_thin_module_name(&a, &copies, mod, sizeof(mod));
	assert_non_null(first);
	assert_int_equal(strlen(first), 32 + 3);
	assert_string_equal(first + 32, ".bc");
	assert_non_null(ol_strmap_put(&seen, first, strlen(first)));
	for (unsigned k = 2; k <= 20000; k++) {
		uintptr_t *v;

		n = ol_thin_module_name(&a, &copies, mod, sizeof(mod));
		snprintf(want, sizeof(want), "%.32s.%u.bc", first, k);
		assert_string_equal(n, want);
		v = ol_strmap_put(&seen, n, strlen(n));
		assert_non_null(v);
		assert_int_equal(*v, 0); /* never a name given before */
		*v = 1;
	}
	n = ol_thin_module_name(&a, &copies, other, sizeof(other));
	assert_string_equal(n + 32, ".bc");
	assert_true(strncmp(n, first, 32) != 0);
	assert_int_equal(copies.n, 2);
	ol_strmap_free(&seen);
	ol_strmap_free(&copies);
	ol_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wrapper_options_are_consumed_the_rest_kept_in_order),
		cmocka_unit_test(output_spellings),
		cmocka_unit_test(link_items_and_toggles),
		cmocka_unit_test(clang16_sysroot_and_r),
		cmocka_unit_test(bad_options_are_usage_errors),
		cmocka_unit_test(scoped_device_arguments),
		cmocka_unit_test(target_ids),
		cmocka_unit_test(strmap_put_get_grow),
		cmocka_unit_test(openmp_source_has_the_tables),
		cmocka_unit_test(cuda_sources_register_everything),
		cmocka_unit_test(cuda_sources_register_nvcc_modules),
		cmocka_unit_test(cuda_asm_registers_nvcc_modules),
		cmocka_unit_test(cuda_tools_are_searched_in_order),
		cmocka_unit_test(thin_module_names_count_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
