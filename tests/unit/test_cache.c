/* Unit tests of cache/: dependency files, clang -### jobs, entries and
 * their checks, manifests, remote URLs, travelling paths, and the device
 * linker's command line as key ingredients (each kind of input changes
 * the key; what the cache cannot name refuses it). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/clang_jobs.h"
#include "common/nonstring.h"
#include "cache/depfile.h"
#include "cache/entry.h"
#include "cache/environment.h"
#include "cache/filedigest.h"
#include "cache/key.h"
#include "cache/facts.h"
#include "cache/ldtrace.h"
#include "cache/linkline.h"
#include "cache/local.h"
#include "cache/manifest.h"
#include "cache/pathform.h"
#include "cache/probe_memo.h"
#include "cache/program.h"
#include "cache/remote.h"
#include "cache/toolargs.h"
#include <xxhash.h>

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
	uint8_t s1[16] OL_NONSTRING = "0123456789abcdef", s2[16] OL_NONSTRING = "0123456789abcdeX";
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

/* Forget what this run digested: a change made between two keys must
 * be seen, not hidden by the per-run memory. */
static void forget_files(void)
{
	ol_fdigest_free(&files);
	ol_fdigest_init(&files, NULL);
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
	ol_key_free(&k);
	forget_files();
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
	ol_key_free(k); /* (k->uncacheable stays for the caller) */
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
	forget_files();
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

/* ---- where linkers and clang looked (issue 25, items 1 and 12) ---- */

static void ldtrace_found_and_absent(void **state)
{
	static const char text[] =
		"GNU ld (GNU Binutils for Debian) 2.40\nusing internal linker script:\n"
		"attempt to open lib1/libd v.a failed\nattempt to open lib2/libdv.a succeeded\n"
		"opened script file lib2/s.ld\ncannot find script file inc.ld\n"
		"found libneed.so at lib2/libneed.so\n  attempt to open x failed (indented: not ld's)\n";
	struct ol_strvec found = { 0 }, absent = { 0 };

	(void)state;
	assert_int_equal(ol_ldtrace_parse(text, strlen(text), &found, &absent), OL_OK);
	assert_int_equal(absent.n, 2);
	assert_string_equal(absent.v[0], "lib1/libd v.a");
	assert_string_equal(absent.v[1], "inc.ld");
	assert_int_equal(found.n, 2);
	assert_string_equal(found.v[0], "lib2/libdv.a");
	assert_string_equal(found.v[1], "lib2/s.ld");
	ol_strvec_free(&found);
	ol_strvec_free(&absent);
	/* an attempt that does not read whole (a path holding a newline) and
	 * a record with no attempt at all (translated) are not trusted */
	assert_int_equal(ol_ldtrace_parse("attempt to open a\nb failed\n", 28, &found, &absent),
			 OL_E_BAD_FIELD);
	ol_strvec_free(&found);
	ol_strvec_free(&absent);
	assert_int_equal(ol_ldtrace_parse("tentative d'ouverture de x\n", 28, &found, &absent),
			 OL_E_BAD_FIELD);
	ol_strvec_free(&found);
	ol_strvec_free(&absent);
}

static void lld_script_places_listed(void **state)
{
	static const char script[] = "/* libncurses */ INPUT(libncurses.so.6 -ltinfo)\n"
				     "GROUP ( /abs/libc.so.6 AS_NEEDED ( =/lib/ld.so ) , -l:x.a )\n"
				     "INCLUDE inc.ld\n";
	struct ol_strvec dirs = { 0 }, places = { 0 };
	char why[160];

	(void)state;
	ol_strvec_push(&dirs, "L1");
	ol_strvec_push(&dirs, "=/usr/lib");
	assert_true(ol_lld_script_places("dir/libncurses.so", (const uint8_t *)script, strlen(script),
					 &dirs, "/sys", &places, why, sizeof(why)));
	/* the script's directory, the working directory, then each -L */
	assert_true(ol_strvec_contains(&places, "dir/libncurses.so.6"));
	assert_true(ol_strvec_contains(&places, "libncurses.so.6"));
	assert_true(ol_strvec_contains(&places, "L1/libncurses.so.6"));
	assert_true(ol_strvec_contains(&places, "/sys/usr/lib/libncurses.so.6"));
	/* -ltinfo: .so and .a in each directory */
	assert_true(ol_strvec_contains(&places, "L1/libtinfo.so"));
	assert_true(ol_strvec_contains(&places, "L1/libtinfo.a"));
	assert_true(ol_strvec_contains(&places, "/sys/usr/lib/libtinfo.a"));
	assert_true(ol_strvec_contains(&places, "L1/x.a"));
	/* absolute: itself and under the sysroot; "=": under the sysroot */
	assert_true(ol_strvec_contains(&places, "/abs/libc.so.6"));
	assert_true(ol_strvec_contains(&places, "/sys/lib/ld.so"));
	assert_true(ol_strvec_contains(&places, "L1/inc.ld"));
	ol_strvec_free(&places);
	/* SEARCH_DIR: not listable */
	assert_false(ol_lld_script_places("s.ld", (const uint8_t *)"SEARCH_DIR(x) INPUT(-lq)", 24,
					  &dirs, NULL, &places, why, sizeof(why)));
	assert_non_null(strstr(why, "SEARCH_DIR"));
	ol_strvec_free(&places);
	/* not a script: nothing */
	assert_true(ol_lld_script_places("a.a", (const uint8_t *)"!<arch>\nINPUT(-lq)", 18, &dirs,
					 NULL, &places, why, sizeof(why)));
	assert_int_equal(places.n, 0);
	ol_strvec_free(&dirs);
}

static void pathform_round_trip(void **state)
{
	struct ol_pathform f = { .tmp = "/tmp/offlink-AB", .cwd = "/home/a/proj" };
	char *t, *b;

	(void)state;
	t = ol_pathform_to(&f, "-L/home/a/proj/lib");
	assert_string_equal(t, "-L<CWD>/lib");
	b = ol_pathform_from(&(struct ol_pathform){ .tmp = "/tmp/offlink-CD", .cwd = "/b" }, t);
	assert_string_equal(b, "-L/b/lib");
	free(t);
	free(b);
	t = ol_pathform_to(&f, "/tmp/offlink-AB/0.img:/home/a/projX:/home/a/proj");
	assert_string_equal(t, "<TMP>/0.img:/home/a/projX:<CWD>");
	free(t);
	assert_true(ol_pathform_ambiguous("-L<CWD>/x"));
	assert_false(ol_pathform_ambiguous("-L<cwd>/x"));
}

static void probe_memo_round_trip(void **state)
{
	struct ol_probe_memo m = { 0 }, back;
	struct ol_buf b = { 0 };

	(void)state;
	for (int i = 0; i < 6; i++) {
		struct ol_facts f = { 0 };
		struct ol_strvec argv = { 0 };
		char rec[32];
		int n = snprintf(rec, sizeof(rec), "S/p%d%cdir", i % 5, 0);

		ol_buf_append(&f.data, rec, (size_t)n + 1);
		f.n = 1;
		ol_strvec_pushf(&argv, "/usr/bin/ld");
		ol_strvec_pushf(&argv, "-o%d", i);
		ol_probe_memo_add(&m, &f, &argv);
	}
	/* p0 came again (i = 5): replaced, newest last; at most four */
	assert_int_equal(m.n, OL_PROBE_MEMO_MAX);
	assert_string_equal(m.v[m.n - 1].argv.v[1], "-o5");
	assert_true(ol_probe_memo_encode(&m, &b));
	assert_true(ol_probe_memo_decode(b.data, b.len, &back));
	assert_int_equal(back.n, m.n);
	assert_string_equal(back.v[0].argv.v[1], m.v[0].argv.v[1]);
	ol_probe_memo_free(&back);
	/* truncated, or one byte of junk at the end: not a memo */
	assert_false(ol_probe_memo_decode(b.data, b.len - 1, &back));
	ol_buf_append(&b, "x", 1);
	assert_false(ol_probe_memo_decode(b.data, b.len, &back));
	ol_buf_free(&b);
	ol_probe_memo_free(&m);
}

static void facts_hold_until_changed(void **state)
{
	char root[] = "/tmp/offlink-facts-XXXXXX", path[128], log[512];
	struct ol_fdigest fd_memo;
	struct ol_facts f;
	struct ol_pathform form = { .tmp = NULL, .cwd = NULL };
	const char *why = NULL;
	size_t n = 0;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(root));
	ol_fdigest_init(&fd_memo, NULL);
	snprintf(path, sizeof(path), "%s/etc-os-release", root);
	fp = fopen(path, "w");
	fputs("ID=debian\n", fp);
	fclose(fp);
	/* O the file, D the directory, S a path missing, E a variable */
	n += (size_t)snprintf(log + n, sizeof(log) - n, "O%s", path) + 1;
	n += (size_t)snprintf(log + n, sizeof(log) - n, "D%s", root) + 1;
	n += (size_t)snprintf(log + n, sizeof(log) - n, "S%s/bin/ld", root) + 1;
	n += (size_t)snprintf(log + n, sizeof(log) - n, "EOFFLINK_TEST_FACT") + 1;
	unsetenv("OFFLINK_TEST_FACT");
	assert_true(ol_facts_from_log((const uint8_t *)log, n, &form, &fd_memo, &f, 0));
	assert_int_equal(f.n, 4);
	assert_true(ol_facts_hold(&f, &form, &fd_memo, &why));
	setenv("OFFLINK_TEST_FACT", "1", 1);
	assert_false(ol_facts_hold(&f, &form, &fd_memo, &why));
	assert_string_equal(why, "OFFLINK_TEST_FACT");
	unsetenv("OFFLINK_TEST_FACT");
	/* a file appearing where the program looked and found nothing */
	snprintf(path, sizeof(path), "%s/bin", root);
	mkdir(path, 0700);
	assert_false(ol_facts_hold(&f, &form, &fd_memo, &why)); /* the listing changed */
	ol_facts_free(&f);
	ol_fdigest_free(&fd_memo);
	/* changed after the probe began: refused */
	ol_fdigest_init(&fd_memo, NULL);
	assert_false(ol_facts_from_log((const uint8_t *)log, n, &form, &fd_memo, &f, 1.0));
	ol_fdigest_free(&fd_memo);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* A large program is digested from a mapping (filedigest.c), a small one
 * by reading it: both are the XXH3-128 of the whole content, as the key
 * format defines it, so a key does not depend on which way was taken. */
static void program_digest_is_xxh3_of_content(void **state)
{
	static const size_t sizes[] = { 1000, (1u << 20) - 1, 1u << 20, (3u << 20) + 7 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		uint8_t *p = malloc(n), out[OL_DIGEST_SIZE], want[OL_DIGEST_SIZE] = { 0 };
		XXH128_canonical_t c;
		struct ol_diag d;
		char name[32];
		size_t index;
		FILE *fp;

		assert_non_null(p);
		for (size_t j = 0; j < n; j++)
			p[j] = (uint8_t)(j * 131 + i);
		snprintf(name, sizeof(name), "prog%zu", i);
		assert_non_null(fp = fopen(name, "wb"));
		assert_int_equal(fwrite(p, 1, n, fp), n);
		fclose(fp);
		XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
		memcpy(want, c.digest, sizeof(c.digest));
		ol_diag_clear(&d);
		assert_int_equal(ol_fdigest_program(&files, name, out, &index, &d), OL_OK);
		assert_memory_equal(out, want, OL_DIGEST_SIZE);
		free(p);
	}
}

/* The key of the program at path, in a fresh key. */
static void program_key(const char *path, uint8_t out[OL_DIGEST_SIZE], bool *opaque)
{
	struct ol_key k = { 0 };

	forget_files();
	k.files = &files;
	ol_key_init(&k, "test");
	ol_key_program(&k, "program", path);
	assert_string_equal(k.uncacheable, "");
	*opaque = k.opaque;
	ol_key_final(&k, out);
	ol_key_free(&k);
}

/* A script's key holds the environment (but what is left out), its
 * interpreter and the files its text names; a dynamic program's does not
 * hold the environment. */
static void script_keys_environment(void **state)
{
	uint8_t a[OL_DIGEST_SIZE], b[OL_DIGEST_SIZE];
	bool opaque;
	FILE *fp;

	(void)state;
	assert_non_null(fp = fopen("tool", "w"));
	fprintf(fp, "#!/bin/sh\nexec %s/real \"$@\" $TOOL_FLAGS\n", dir);
	fclose(fp);
	assert_non_null(fp = fopen("real", "w"));
	fprintf(fp, "one\n");
	fclose(fp);
	assert_int_equal(chmod("tool", 0755), 0);
	setenv("TOOL_FLAGS", "-x", 1);
	program_key("tool", a, &opaque);
	assert_false(opaque);
	program_key("tool", b, &opaque);
	assert_memory_equal(a, b, OL_DIGEST_SIZE);
	setenv("TOOL_FLAGS", "-y", 1);
	program_key("tool", b, &opaque);
	assert_memory_not_equal(a, b, OL_DIGEST_SIZE);
	setenv("TOOL_FLAGS", "-x", 1);
	/* what is left out, and what the user leaves out */
	setenv("MAKEFLAGS", "-j3 --jobserver-auth=3,4", 1);
	setenv("OLDPWD", "/elsewhere", 1);
	setenv("OFFLINK_CACHE_ENV_IGNORE", "MINE_* ,JOB", 1);
	setenv("MINE_ONE", "1", 1);
	setenv("JOB", "7", 1);
	program_key("tool", b, &opaque);
	assert_memory_equal(a, b, OL_DIGEST_SIZE);
	unsetenv("OFFLINK_CACHE_ENV_IGNORE");
	program_key("tool", b, &opaque);
	assert_memory_not_equal(a, b, OL_DIGEST_SIZE);
	unsetenv("MINE_ONE");
	unsetenv("JOB");
	program_key("tool", b, &opaque);
	assert_memory_equal(a, b, OL_DIGEST_SIZE);
	/* the file the script names, changed */
	assert_non_null(fp = fopen("real", "w"));
	fprintf(fp, "two\n");
	fclose(fp);
	program_key("tool", b, &opaque);
	assert_memory_not_equal(a, b, OL_DIGEST_SIZE);
	/* a dynamic program: the environment is not its */
	program_key("/bin/true", a, &opaque);
	assert_false(opaque);
	setenv("TOOL_FLAGS", "-z", 1);
	program_key("/bin/true", b, &opaque);
	assert_memory_equal(a, b, OL_DIGEST_SIZE);
	unsetenv("TOOL_FLAGS");
	unsetenv("MAKEFLAGS");
	assert_true(ol_env_ignored("SSH_AUTH_SOCK"));
	assert_true(ol_env_ignored("OFFLINK_CACHE_DIR"));
	assert_false(ol_env_ignored("NIX_LDFLAGS"));
	assert_false(ol_env_ignored("SSH"));
}

/* An executable script at name: "#!/bin/sh", then body (dir for %s). */
static void put_script(const char *name, const char *body)
{
	FILE *fp;

	assert_non_null(fp = fopen(name, "w"));
	fprintf(fp, "#!/bin/sh\n");
	fprintf(fp, body, dir, dir);
	fclose(fp);
	assert_int_equal(chmod(name, 0755), 0);
}

/* Issue 39, item 5: a script naming itself, or two naming each other,
 * are keyed, each once -- not refused as scripts more than 4 deep -- and
 * still by content; a chain of distinct scripts deeper than 4 is. */
static void scripts_naming_each_other(void **state)
{
	uint8_t a[OL_DIGEST_SIZE], b[OL_DIGEST_SIZE];
	struct ol_key k = { 0 };
	char name[16], body[64];
	bool opaque;

	(void)state;
	put_script("self", "# installed as %s/self\nexec /bin/true \"$@\"\n");
	program_key("self", a, &opaque);
	put_script("self", "# installed as %s/self\nexec /bin/false \"$@\"\n");
	program_key("self", b, &opaque);
	assert_memory_not_equal(a, b, OL_DIGEST_SIZE);
	put_script("ping", "exec %s/pong \"$@\"\n");
	put_script("pong", "# run by %s/ping\nexec /bin/true\n");
	program_key("ping", a, &opaque);
	put_script("pong", "# run by %s/ping\nexec /bin/false\n");
	program_key("ping", b, &opaque);
	assert_memory_not_equal(a, b, OL_DIGEST_SIZE);
	/* s0 runs s1 ... runs s6: six deep */
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		snprintf(body, sizeof(body), i < 6 ? "exec %%s/s%d\n" : "exec /bin/true\n", i + 1);
		put_script(name, body);
	}
	forget_files();
	k.files = &files;
	ol_key_init(&k, "test");
	ol_key_program(&k, "program", "s0");
	assert_string_equal(k.uncacheable, "scripts that run scripts more than 4 deep");
	ol_key_free(&k);
}

/* The names in dir, not counting . and .. */
static int count_entries(const char *path)
{
	DIR *dp = opendir(path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dp);
	return n;
}

/* Write n bytes of pattern seed to name; their XXH3-128 in want. */
static void pattern_file(const char *name, size_t n, unsigned seed, uint8_t want[OL_DIGEST_SIZE])
{
	uint8_t *p = malloc(n);
	XXH128_canonical_t c;
	FILE *fp;

	assert_non_null(p);
	for (size_t j = 0; j < n; j++)
		p[j] = (uint8_t)(j * 131 + seed);
	assert_non_null(fp = fopen(name, "wb"));
	assert_int_equal(fwrite(p, 1, n, fp), n);
	fclose(fp);
	XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
	memset(want, 0, OL_DIGEST_SIZE);
	memcpy(want, c.digest, sizeof(c.digest));
	free(p);
}

/* A program digested ahead in a thread gives what reading it gives; one
 * changed after the thread read it is digested again, never believed. */
static void program_digested_ahead(void **state)
{
	uint8_t out[OL_DIGEST_SIZE], want[OL_DIGEST_SIZE];
	struct ol_diag d;
	char real[PATH_MAX];
	size_t index;

	(void)state;
	pattern_file("big", (2u << 20) + 3, 7, want);
	assert_non_null(realpath("big", real));
	ol_fdigest_prefetch(&files, real);
	assert_int_equal(files.nahead, 1); /* a thread began */
	ol_diag_clear(&d);
	assert_int_equal(ol_fdigest_program(&files, real, out, &index, &d), OL_OK);
	assert_memory_equal(out, want, OL_DIGEST_SIZE);

	/* changed between the thread's read and the key */
	forget_files();
	ol_fdigest_prefetch(&files, real);
	assert_int_equal(files.nahead, 1);
	usleep(20000);
	pattern_file("big", (2u << 20) + 3, 8, want);
	ol_diag_clear(&d);
	assert_int_equal(ol_fdigest_program(&files, real, out, &index, &d), OL_OK);
	assert_memory_equal(out, want, OL_DIGEST_SIZE);

	/* begun and never used: freed with the rest */
	forget_files();
	ol_fdigest_prefetch(&files, real);
}

/* Digests to remember are written when flushed (beside the host link),
 * and then believed by the next run. */
static void memo_written_at_flush(void **state)
{
	/* a file changed more than a few seconds ago: the memo keeps no
	 * record of a file that may still be being written (filedigest.c) */
	static const char *const olds[] = { "/usr/include/stdio.h", "/etc/os-release", "/bin/sh" };
	uint8_t a[OL_DIGEST_SIZE], b[OL_DIGEST_SIZE];
	char memo[PATH_MAX + 8], cwd[PATH_MAX], real[PATH_MAX] = "";
	struct ol_fdigest m;
	struct ol_diag d;
	struct stat st;
	size_t index;

	(void)state;
	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]) && !real[0]; i++)
		if (realpath(olds[i], real) && (stat(real, &st) != 0 ||
						time(NULL) - st.st_ctim.tv_sec < 10))
			real[0] = '\0';
	assert_true(real[0]);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(memo, sizeof(memo), "%s/memo", cwd);
	ol_fdigest_init(&m, memo);
	ol_diag_clear(&d);
	assert_int_equal(ol_fdigest_file_at(&m, real, a, &index, &d), OL_OK);
	assert_int_equal(count_entries(memo), 0);
	ol_fdigest_flush(&m);
	assert_int_equal(count_entries(memo), 1);
	ol_fdigest_free(&m);
	/* the next run believes the record: it reads nothing */
	ol_fdigest_init(&m, memo);
	ol_diag_clear(&d);
	assert_int_equal(ol_fdigest_file_at(&m, real, b, &index, &d), OL_OK);
	assert_memory_equal(a, b, OL_DIGEST_SIZE);
	assert_int_equal(m.bytes_read, 0);
	/* (a record read is not written again) */
	ol_fdigest_free(&m);
	assert_int_equal(count_entries(memo), 1);
}

/* Counts are kept in memory and added to the shard's file when flushed
 * (beside the host link), one write per shard, nothing lost at close. */
static void counts_written_at_flush(void **state)
{
	uint64_t c[OL_STAT__COUNT];
	struct ol_local_usage u;
	uint8_t key[32] = { 0x3a };
	struct ol_local s;
	struct ol_diag d;
	struct stat st;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_local_open(&s, "store", 0, false, NULL, &d), OL_OK);
	ol_local_count(&s, key, OL_STAT_MISS);
	ol_local_count(&s, key, OL_STAT_MISS);
	ol_local_count(&s, key, OL_STAT_LOCAL_HIT);
	assert_int_not_equal(stat("store/3/stats", &st), 0);
	ol_local_flush_counts(&s);
	assert_int_equal(stat("store/3/stats", &st), 0);
	ol_local_stats(&s, c, &u);
	assert_int_equal(c[OL_STAT_MISS], 2);
	assert_int_equal(c[OL_STAT_LOCAL_HIT], 1);
	ol_local_count(&s, key, OL_STAT_MISS);
	ol_local_close(&s);
	ol_diag_clear(&d);
	assert_int_equal(ol_local_open(&s, "store", 0, false, NULL, &d), OL_OK);
	ol_local_stats(&s, c, &u);
	assert_int_equal(c[OL_STAT_MISS], 3);
	ol_local_close(&s);
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
		cmocka_unit_test(ldtrace_found_and_absent),
		cmocka_unit_test(lld_script_places_listed),
		cmocka_unit_test(pathform_round_trip),
		cmocka_unit_test(probe_memo_round_trip),
		cmocka_unit_test(facts_hold_until_changed),
		cmocka_unit_test_setup_teardown(key_changes_with_each_input, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(key_refuses_what_it_cannot_name, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(nvlink_and_ptxas_tables, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(spirv_link_table, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(program_digest_is_xxh3_of_content, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(program_digested_ahead, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(memo_written_at_flush, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(counts_written_at_flush, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(script_keys_environment, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(scripts_naming_each_other, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
