/* Unit tests of cache/: dependency files, clang -### jobs, entries and
 * their checks, manifests, remote URLs, travelling paths, and the device
 * linker's command line as key ingredients (each kind of input changes
 * the key; what the cache cannot name refuses it). */
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

#include "cache/clang_jobs.h"
#include "cache/depfile.h"
#include "cache/entry.h"
#include "cache/filedigest.h"
#include "cache/key.h"
#include "cache/linkline.h"
#include "cache/manifest.h"
#include "cache/remote.h"
#include "cache/toolargs.h"

static void depfile_gnu_one_per_line(void **state)
{
	static const char text[] = "out.so: \\\n  k.o \\\n  sp ace/libd$v.a \\\n  k.o \\\n"
				   "  /lib/libc.so\n\nk.o:\n\nsp ace/libd$v.a:\n";
	struct ol_strvec v = { 0 };

	(void)state;
	assert_int_equal(ol_depfile_parse(text, strlen(text), OL_LD_GNU, &v), OL_OK);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.v[0], "k.o");
	assert_string_equal(v.v[1], "sp ace/libd$v.a");
	assert_string_equal(v.v[2], "/lib/libc.so");
	ol_strvec_free(&v);
}

static void depfile_lld_make_escapes(void **state)
{
	static const char text[] = "out.so: \\\n k.o \\\n sp\\ ace/libd$$v\\#x.a\n\nk.o:\n";
	struct ol_strvec v = { 0 };

	(void)state;
	assert_int_equal(ol_depfile_parse(text, strlen(text), OL_LD_LLD, &v), OL_OK);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.v[1], "sp ace/libd$v#x.a");
	ol_strvec_free(&v);
	assert_int_equal(ol_depfile_parse("no rule here", 12, OL_LD_LLD, &v), OL_E_BAD_FIELD);
	ol_strvec_free(&v);
	assert_int_equal(ol_depfile_parse("out.so:\n", 8, OL_LD_GNU, &v), OL_OK);
	assert_int_equal(v.n, 0);
}

static void clang_jobs_quoted(void **state)
{
	static const char text[] = "clang version 19\nTarget: x\n (in-process)\n"
				   " \"/usr/bin/ld\" \"-o\" \"a b\\$c\\\".so\" \"--defsym=x\\\\y=1\"\n";
	struct ol_clang_jobs j;

	(void)state;
	assert_int_equal(ol_clang_jobs_parse(text, strlen(text), &j), OL_OK);
	assert_int_equal(j.n, 1);
	assert_int_equal(j.job[0].n, 4);
	assert_string_equal(j.job[0].v[2], "a b$c\".so");
	assert_string_equal(j.job[0].v[3], "--defsym=x\\y=1");
	ol_clang_jobs_free(&j);
	assert_int_equal(ol_clang_jobs_parse(" \"unterminated\n", 15, &j), OL_E_BAD_FIELD);
	ol_clang_jobs_free(&j);
}

static void entry_checks_key_type_and_mac(void **state)
{
	uint8_t key[32], other[32], e[OL_ENTRY_HEADER + 5];
	uint8_t s1[16] = "0123456789abcdef", s2[16] = "0123456789abcdeX";
	struct ol_secret none = { 0 }, a = { s1, 16 }, b = { s2, 16 };
	const uint8_t *v;
	size_t n;

	(void)state;
	memset(key, 7, sizeof(key));
	memset(other, 8, sizeof(other));
	ol_entry_header(e, OL_ENTRY_IMAGE, key, "hello", 5, &none);
	memcpy(e + OL_ENTRY_HEADER, "hello", 5);
	assert_true(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &none, &v, &n));
	assert_int_equal(n, 5);
	assert_memory_equal(v, "hello", 5);
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_MANIFEST, key, &none, &v, &n));
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, other, &none, &v, &n));
	assert_false(ol_entry_check(e, sizeof(e) - 1, OL_ENTRY_IMAGE, key, &none, &v, &n));
	/* a plain entry is no use where a secret is required */
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &a, &v, &n));
	ol_entry_header(e, OL_ENTRY_IMAGE, key, "hello", 5, &a);
	assert_true(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &a, &v, &n));
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &b, &v, &n));
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &none, &v, &n));
	e[OL_ENTRY_HEADER] ^= 1;
	assert_false(ol_entry_check(e, sizeof(e), OL_ENTRY_IMAGE, key, &a, &v, &n));
}

static void manifest_round_trip(void **state)
{
	char *files[] = { "lib/libdev.a", "/lib/x86_64-linux-gnu/libc.so.6" };
	struct ol_buf b = { 0 };
	struct ol_strvec v = { 0 };

	(void)state;
	assert_true(ol_manifest_encode(files, 2, &b));
	assert_true(ol_manifest_decode(b.data, b.len, &v));
	assert_int_equal(v.n, 2);
	assert_string_equal(v.v[1], files[1]);
	ol_strvec_free(&v);
	assert_false(ol_manifest_decode(b.data, b.len - 1, &v)); /* unterminated */
	ol_strvec_free(&v);
	assert_false(ol_manifest_decode((const uint8_t *)"OLMANIF1\0", 9, &v)); /* empty path */
	ol_strvec_free(&v);
	ol_buf_free(&b);
}

/* Whether any of the secret parts appears in text. */
static bool shows(const char *text, const char *const *secrets)
{
	for (; *secrets; secrets++)
		if (strstr(text, *secrets))
			return true;
	return false;
}

static void remote_urls(void **state)
{
	struct ol_remote r;
	struct ol_diag d;
	char msg[1024];
	static const char *const creds[] = { "pw", "s3cr", "et/x", "tail", "tok3n", NULL };

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_remote_parse("redis://:pw%40x@h:7000/2|read-only|connect-timeout=50", 1,
					 4096, &r, &d), OL_OK);
	assert_ptr_equal(r.be, &ol_remote_redis);
	assert_string_equal(r.shown, "redis://h:7000/2");
	assert_string_equal(r.password, "pw@x");
	assert_string_equal(r.host, "h");
	assert_int_equal(r.port, 7000);
	assert_string_equal(r.path, "/2");
	assert_true(r.read_only);
	assert_int_equal(r.connect_ms, 50);
	assert_int_equal(r.max_value, 4096);
	ol_remote_free(&r);
	assert_int_equal(ol_remote_parse("http://u:p@cache.example/x/", 1, 4096, &r, &d), OL_OK);
	assert_ptr_equal(r.be, &ol_remote_http);
	assert_string_equal(r.shown, "http://cache.example/x/");
	assert_int_equal(r.port, 80);
	ol_remote_free(&r);
	/* issue 25, item 11: a password holding '/' or '@', a token given as
	 * the user name, an IPv6 host */
	assert_int_equal(ol_remote_parse("redis://:s3cr%2Fet%2Fx@h:6379/1", 1, 4096, &r, &d), OL_OK);
	assert_string_equal(r.password, "s3cr/et/x");
	assert_false(shows(r.shown, creds));
	ol_remote_free(&r);
	/* (a '/' not escaped ends the host part: whatever comes of it, no
	 * part of the password is shown) */
	ol_diag_clear(&d);
	if (ol_remote_parse("redis://:s3cr/et/x@h:6379/1", 1, 4096, &r, &d) == OL_OK)
		assert_false(shows(r.shown, creds));
	else
		assert_false(shows((ol_diag_format(&d, msg, sizeof(msg)), msg), creds));
	ol_remote_free(&r);
	assert_int_equal(ol_remote_parse("redis://u:pw%40tail@h/", 1, 4096, &r, &d), OL_OK);
	assert_string_equal(r.password, "pw@tail");
	assert_string_equal(r.shown, "redis://h");
	ol_remote_free(&r);
	assert_int_equal(ol_remote_parse("http://tok3n@cache.example:8080/c/", 1, 4096, &r, &d), OL_OK);
	assert_string_equal(r.shown, "http://cache.example:8080/c/");
	ol_remote_free(&r);
	assert_int_equal(ol_remote_parse("http://[::1]:8080/c/", 1, 4096, &r, &d), OL_OK);
	assert_string_equal(r.shown, "http://[::1]:8080/c/");
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 8080);
	ol_remote_free(&r);
	assert_int_equal(ol_remote_parse("redis://[::1]/", 1, 4096, &r, &d), OL_OK);
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 6379);
	ol_remote_free(&r);
	/* what cannot be used says so without showing the URL's secrets */
	ol_diag_clear(&d);
	assert_int_equal(ol_remote_parse("ftp://tok3n:pw@h/", 2, 4096, &r, &d), OL_E_USAGE);
	ol_diag_format(&d, msg, sizeof(msg));
	assert_false(shows(msg, creds));
	ol_remote_free(&r);
	ol_diag_clear(&d);
	assert_int_equal(ol_remote_parse("redis://:s3cr/et/x@h|sometimes", 1, 4096, &r, &d), OL_E_USAGE);
	ol_diag_format(&d, msg, sizeof(msg));
	assert_false(shows(msg, creds));
	ol_remote_free(&r);
	ol_diag_clear(&d);
	assert_int_equal(ol_remote_parse("redis://:pw@h:99999", 3, 4096, &r, &d), OL_E_USAGE);
	ol_diag_format(&d, msg, sizeof(msg));
	assert_false(shows(msg, creds));
	ol_remote_free(&r);
}

/* ---- keys ---- */

static char dir[64];
static struct ol_fdigest files;

static int setup_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/offlink-test-cache.XXXXXX");
	if (!mkdtemp(dir) || chdir(dir) != 0)
		return -1;
	ol_fdigest_init(&files, NULL);
	return 0;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	ol_fdigest_free(&files);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The key of a linker line (argv with the linker first), or "" when the
 * line is refused; why in *why. */
static void line_key(char **argv, size_t argc, uint8_t out[32], char *why, size_t len)
{
	struct ol_key k;

	memset(&k, 0, sizeof(k));
	k.files = &files;
	k.tmpdir = "/tmp/offlink-XXXX";
	ol_key_init(&k, "test");
	ol_key_linker_args(&k, OL_LD_LLD, argv, argc);
	ol_key_final(&k, out);
	snprintf(why, len, "%s", k.uncacheable);
	/* the per-run memory would hide a change made between two keys */
	ol_fdigest_free(&files);
	ol_fdigest_init(&files, NULL);
}

static void key_changes_with_each_input(void **state)
{
	char *argv[] = { "ld.lld", "-shared", "-Lone", "-Ltwo", "-ldev", "@rsp", "--version-script",
			 "v.map", "s.lds", "-o", "/tmp/offlink-XXXX/out.img", NULL };
	uint8_t k0[32], k1[32];
	char why[320];

	(void)state;
	mkdir("one", 0755);
	mkdir("two", 0755);
	put("two/libdev.a", "!<arch>\nA");
	put("rsp", "--defsym=a=1");
	put("v.map", "V { global: *; };");
	put("s.lds", "INPUT(x.o)");
	line_key(argv, 11, k0, why, sizeof(why));
	assert_string_equal(why, "");
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_equal(k0, k1, 32); /* nothing changed: the same key */
	put("two/libdev.a", "!<arch>\nB"); /* the library, in place */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	put("two/libdev.a", "!<arch>\nA");
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_equal(k0, k1, 32);
	put("one/libdev.so", "ELF"); /* found earlier in the search */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	unlink("one/libdev.so");
	put("rsp", "--defsym=a=2"); /* @file content */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	put("rsp", "--defsym=a=1");
	put("v.map", "V { local: *; };"); /* a file an option names */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	put("v.map", "V { global: *; };");
	put("s.lds", "INPUT(y.o)"); /* a script given as an input */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	put("s.lds", "INPUT(x.o)");
	argv[1] = "-pie"; /* an argument */
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_not_equal(k0, k1, 32);
	argv[1] = "-shared";
	line_key(argv, 11, k1, why, sizeof(why));
	assert_memory_equal(k0, k1, 32);
}

static void key_refuses_what_it_cannot_name(void **state)
{
	static const char *const refused[] = { "-Map=out.map", "--trace", "-plugin=x.so",
					       "--reproduce=r.tar", "--frobnicate", "-v" };
	char *argv[] = { "ld.lld", "-shared", NULL, "-o", "/tmp/offlink-XXXX/out.img", NULL };
	uint8_t k[32];
	char why[320];

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		argv[2] = (char *)refused[i];
		line_key(argv, 5, k, why, sizeof(why));
		assert_non_null(strstr(why, "option"));
	}
	argv[2] = "-Bsymbolic";
	argv[4] = "/elsewhere/out.img"; /* writes outside the link's directory */
	line_key(argv, 5, k, why, sizeof(why));
	assert_non_null(strstr(why, "writes"));
}

static void key_paths_travel(void **state)
{
	struct ol_key k = { .tmpdir = "/tmp/offlink-AB", .base_dir = "/home", .cwd = "/home/a/p/build" };
	struct ol_buf b = { 0 };

	(void)state;
	assert_string_equal(ol_key_path_form(&k, "/tmp/offlink-AB/1.img", &b), "<TMP>/1.img");
	assert_string_equal(ol_key_path_form(&k, "/home/a/p/lib/x.a", &b), "../lib/x.a");
	assert_string_equal(ol_key_path_form(&k, "/home/a/p/build", &b), ".");
	assert_string_equal(ol_key_path_form(&k, "/home/a/p/build/o/k.o", &b), "o/k.o");
	assert_string_equal(ol_key_path_form(&k, "/usr/lib/libc.so", &b), "/usr/lib/libc.so");
	assert_string_equal(ol_key_path_form(&k, "/homer/x", &b), "/homer/x");
	k.cwd = "/home/b/p/build"; /* another checkout: the same forms */
	assert_string_equal(ol_key_path_form(&k, "/home/b/p/lib/x.a", &b), "../lib/x.a");
	ol_buf_free(&b);
}

/* k := the key of argv read by a tool's table (k->uncacheable says
 * whether it could be named); out: its digest. */
static void tool_key(struct ol_key *k, void (*table)(struct ol_key *, char *const *, size_t),
		     char **argv, uint8_t out[32])
{
	size_t n = 0;

	while (argv[n])
		n++;
	memset(k, 0, sizeof(*k));
	k->files = &files;
	k->tmpdir = "/tmp/offlink-XXXX";
	ol_key_init(k, "t");
	table(k, argv, n);
	ol_key_final(k, out);
}

static void nvlink_and_ptxas_tables(void **state)
{
	char *nv[] = { "nvlink", "-arch=sm_90", "-o", "/tmp/offlink-XXXX/i", "-Lnvl", "-ldev", NULL };
	char *px[] = { "ptxas", "-m64", "-O3", "--gpu-name", "sm_90", "-v", NULL };
	struct ol_key k;
	uint8_t a[32], b[32];

	(void)state;
	mkdir("nvl", 0755);
	put("nvl/libdev.a", "1");
	tool_key(&k, ol_key_nvlink_args, nv, a);
	assert_string_equal(k.uncacheable, "");
	ol_fdigest_free(&files);
	ol_fdigest_init(&files, NULL);
	put("nvl/libdev.a", "2");
	tool_key(&k, ol_key_nvlink_args, nv, b);
	assert_memory_not_equal(a, b, 32);
	tool_key(&k, ol_key_ptxas_args, px, a);
	assert_non_null(strstr(k.uncacheable, "'-v'"));
}

/* spirv-link as clang runs it: its options keyed, one that prints
 * instead of linking, or an output outside the link's directory, not. */
static void spirv_link_table(void **state)
{
	char *plain[] = { "spirv-link", "/tmp/offlink-XXXX/0.o", "--allow-partial-linkage", "-o",
			  "/tmp/offlink-XXXX/0.spv", NULL };
	char *env[] = { "spirv-link", "/tmp/offlink-XXXX/0.o", "--allow-partial-linkage",
			"--target-env", "opencl2.2", "-o", "/tmp/offlink-XXXX/0.spv", NULL };
	char *version[] = { "spirv-link", "--version", NULL };
	char *stdout_[] = { "spirv-link", "/tmp/offlink-XXXX/0.o", "-o", "-", NULL };
	char *unknown[] = { "spirv-link", "/tmp/offlink-XXXX/0.o", "--no-such", NULL };
	struct ol_key k;
	uint8_t a[32], b[32];

	(void)state;
	tool_key(&k, ol_key_spirv_link_args, plain, a);
	assert_string_equal(k.uncacheable, "");
	tool_key(&k, ol_key_spirv_link_args, env, b);
	assert_string_equal(k.uncacheable, "");
	assert_memory_not_equal(a, b, 32);
	tool_key(&k, ol_key_spirv_link_args, version, a);
	assert_non_null(strstr(k.uncacheable, "'--version' prints or writes more"));
	tool_key(&k, ol_key_spirv_link_args, stdout_, a);
	assert_non_null(strstr(k.uncacheable, "spirv-link writes"));
	tool_key(&k, ol_key_spirv_link_args, unknown, a);
	assert_non_null(strstr(k.uncacheable, "'--no-such'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(depfile_gnu_one_per_line),
		cmocka_unit_test(depfile_lld_make_escapes),
		cmocka_unit_test(clang_jobs_quoted),
		cmocka_unit_test(entry_checks_key_type_and_mac),
		cmocka_unit_test(manifest_round_trip),
		cmocka_unit_test(remote_urls),
		cmocka_unit_test(key_paths_travel),
		cmocka_unit_test_setup_teardown(key_changes_with_each_input, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(key_refuses_what_it_cannot_name, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(nvlink_and_ptxas_tables, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(spirv_link_table, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
