/* Unit tests of common/: error table, diagnostics, string vectors,
 * response-file tokenising, arena and buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/diag.h"
#include "common/env.h"
#include "common/error.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/response_file.h"
#include "common/strvec.h"

static void every_error_has_a_message(void **state)
{
	(void)state;
	for (int e = 0; e < OL_E__COUNT; e++)
		assert_string_not_equal(ol_strerror((enum ol_err)e), "unknown error");
	assert_string_equal(ol_strerror(OL_E__COUNT), "unknown error");
}

static void diag_names_file_member_offset_field(void **state)
{
	struct ol_diag d;
	char msg[512];

	(void)state;
	ol_diag_clear(&d);
	ol_diag_at(&d, OL_E_OUT_OF_BOUNDS, 0x30, "NumStrings", "%d entries", 7);
	ol_diag_locate(&d, "lib.a", "k.o", 0x100);
	ol_diag_prefix(&d, "in section %s", ".llvm.offloading");
	ol_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg,
		"lib.a(k.o): offset 0x130: field 'NumStrings': offset or size outside the container: "
		"in section .llvm.offloading: 7 entries");
	/* A deeper layer's location wins over a later, outer one. */
	ol_diag_locate(&d, "other", "x.o", 0);
	ol_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "lib.a(k.o)"));
}

static void diag_long_detail_is_cut_not_overflowed(void **state)
{
	struct ol_diag d;
	char big[2000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ol_diag_clear(&d);
	ol_diag_set(&d, OL_E_IO, NULL, "%s", big);
	ol_diag_prefix(&d, "%s", big);
	assert_int_equal(strlen(d.detail), sizeof(d.detail) - 1);
}

static void strvec_push_insert_contains(void **state)
{
	struct ol_strvec v = { 0 };

	(void)state;
	ol_strvec_push(&v, "b");
	ol_strvec_pushf(&v, "-%s=%d", "x", 3);
	ol_strvec_insert(&v, 0, "a");
	ol_strvec_pushn(&v, "cdef", 2);
	assert_int_equal(v.n, 4);
	assert_string_equal(v.v[0], "a");
	assert_string_equal(v.v[1], "b");
	assert_string_equal(v.v[2], "-x=3");
	assert_string_equal(v.v[3], "cd");
	assert_null(v.v[4]);
	assert_true(ol_strvec_contains(&v, "-x=3"));
	assert_false(ol_strvec_contains(&v, "z"));
	ol_strvec_free(&v);
}

static void tokenize_like_gnu(void **state)
{
	const char text[] = "a 'b c' \"d \\\"e\" f\\ g '' \n\th\\\\i";
	struct ol_strvec v = { 0 };

	(void)state;
	assert_int_equal(ol_tokenize_gnu(text, strlen(text), &v), OL_OK);
	assert_int_equal(v.n, 6);
	assert_string_equal(v.v[0], "a");
	assert_string_equal(v.v[1], "b c");
	assert_string_equal(v.v[2], "d \"e");
	assert_string_equal(v.v[3], "f g");
	assert_string_equal(v.v[4], "");
	assert_string_equal(v.v[5], "h\\i");
	ol_strvec_free(&v);
}

static void response_file_missing_is_kept(void **state)
{
	char *argv[] = { "tool", "@/nonexistent/rsp", "x" };
	struct ol_strvec v = { 0 };
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_expand_args(3, argv, 1, &v, &d), OL_OK);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.v[0], "@/nonexistent/rsp");
	ol_strvec_free(&v);
}

/* A directory, a file that includes itself, and nesting up to LLVM's
 * 100 levels (issue 9, item 10). */
static void response_file_errors_and_depth(void **state)
{
	char dir[] = "/tmp/offlink-rsp-XXXXXX", path[512], arg[600];
	char *argv[2] = { "tool", arg };
	struct ol_strvec v = { 0 };
	struct ol_diag d;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ol_diag_clear(&d);
	snprintf(arg, sizeof(arg), "@%s", dir);
	assert_int_equal(ol_expand_args(2, argv, 1, &v, &d), OL_E_IO);
	assert_non_null(strstr(d.detail, "Is a directory"));
	ol_strvec_free(&v);

	snprintf(path, sizeof(path), "%s/self", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "a @%s b\n", path);
	fclose(f);
	snprintf(arg, sizeof(arg), "@%s", path);
	ol_diag_clear(&d);
	assert_int_equal(ol_expand_args(2, argv, 1, &v, &d), OL_E_USAGE);
	assert_non_null(strstr(d.detail, "recursive expansion"));
	ol_strvec_free(&v);
	unlink(path);

	/* r0 holds "@r1", ..., r99 holds "last": 100 levels expand. */
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/r%d", dir, i);
		assert_non_null(f = fopen(path, "w"));
		if (i < 99)
			fprintf(f, "@%s/r%d\n", dir, i + 1);
		else
			fprintf(f, "last\n");
		fclose(f);
	}
	snprintf(arg, sizeof(arg), "@%s/r0", dir);
	ol_diag_clear(&d);
	assert_int_equal(ol_expand_args(2, argv, 1, &v, &d), OL_OK);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.v[0], "last");
	ol_strvec_free(&v);
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/r%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static void arena_is_aligned_and_zeroed(void **state)
{
	struct ol_arena a = { 0 };

	(void)state;
	for (int i = 1; i < 200; i++) {
		unsigned char *p = ol_arena_alloc(&a, (size_t)i * 37);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (int j = 0; j < i * 37; j++)
			assert_int_equal(p[j], 0);
		memset(p, 0xff, (size_t)i * 37);
	}
	assert_string_equal(ol_arena_printf(&a, "%s-%d", "x", 5), "x-5");
	assert_null(ol_arena_strdup(&a, NULL));
	assert_null(ol_arena_array(&a, SIZE_MAX / 2, 4));
	ol_arena_free(&a);
}

static void buf_appends(void **state)
{
	struct ol_buf b = { 0 };

	(void)state;
	ol_buf_le16(&b, 0x0102);
	ol_buf_le32(&b, 0x03040506);
	ol_buf_le64(&b, 0x0708090a0b0c0d0eULL);
	ol_buf_zeros(&b, 2);
	ol_buf_printf(&b, "%d", 42);
	assert_int_equal(b.len, 2 + 4 + 8 + 2 + 2);
	assert_memory_equal(b.data, "\x02\x01\x06\x05\x04\x03\x0e\x0d\x0c\x0b\x0a\x09\x08\x07\0\0" "42", 18);
	assert_int_equal(b.data[b.len], 0);
	ol_buf_free(&b);
}

static void grow_doubles_and_keeps_on_failure(void **state)
{
	int *v = NULL, *p;
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		p = ol_grow(v, n, &cap, sizeof(*v), 4);
		assert_non_null(p);
		v = p;
		v[n++] = i;
		assert_true(cap >= n);
	}
	assert_int_equal(cap, 128); /* 4, 8, ..., 128 */
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i);
	/* Room left: the same array back. */
	assert_ptr_equal(ol_grow(v, 100, &cap, sizeof(*v), 4), v);
	/* A size that overflows fails and leaves the array and cap alone. */
	n = cap;
	assert_null(ol_grow(v, n, &cap, SIZE_MAX / 64, 4));
	assert_int_equal(cap, 128);
	assert_int_equal(v[99], 99);
	free(v);
}

/* Booleans in any case; anything else is not one; numbers strictly. */
static void env_values_parse_strictly(void **state)
{
	static const char *const yes[] = { "1", "true", "TRUE", "Yes", "on", "ON" };
	static const char *const no[] = { "0", "false", "False", "NO", "off", "oFF" };
	static const char *const neither[] = { "", "2", "-1", "yes ", " on", "y", "n", "enabled",
					       "truee", "0x1", "01" };
	unsigned long n = 7;
	bool b;

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_true(ol_parse_bool(yes[i], &b));
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_true(ol_parse_bool(no[i], &b));
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++)
		assert_false(ol_parse_bool(neither[i], &b));
	assert_true(ol_parse_uint("19", 1, 999, &n));
	assert_int_equal(n, 19);
	assert_true(ol_parse_uint("999", 1, 999, &n));
	assert_false(ol_parse_uint("1000", 1, 999, &n));
	assert_false(ol_parse_uint("0", 1, 999, &n));
	assert_false(ol_parse_uint("19abc", 1, 999, &n));
	assert_false(ol_parse_uint("-19", 1, 999, &n));
	assert_false(ol_parse_uint(" 19", 1, 999, &n));
	assert_false(ol_parse_uint("", 0, 999, &n));
	assert_false(ol_parse_uint("99999999999999999999", 0, ULONG_MAX, &n));
	assert_true(ol_parse_uint("18446744073709551615", 0, ULONG_MAX, &n));
	assert_true(n == ULONG_MAX);
	assert_false(ol_parse_uint("18446744073709551616", 0, ULONG_MAX, &n));
	assert_false(ol_parse_uint("7", 0, 5, &n));
	assert_true(ol_parse_uint("5", 0, 5, &n));
}

/* ol_json_string(s) as a string (malloc'd). */
static char *json_of(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	ol_json_string(f, s);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Issue 39, item 6: every byte value alone, and the UTF-8 forms that
 * matter, give JSON that is valid UTF-8 with every control escaped. */
static void json_is_utf8_with_controls_escaped(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "a\nb\tc\x1b[31m", "\"a\\nb\\tc\\u001b[31m\"" },
		{ "del\x7f", "\"del\\u007f\"" },
		{ "\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"" },         /* é kept */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },           /* U+1F600 kept */
		{ "\xc2\xa0", "\"\xc2\xa0\"" },                           /* U+00A0 kept */
		{ "\xc2\x85", "\"\\u0085\"" },                            /* C1 as UTF-8 */
		{ "\x9b" "2J", "\"\\u009b2J\"" },                          /* raw C1 CSI */
		{ "\xff\xfe", "\"\\u00ff\\u00fe\"" },                     /* not UTF-8 */
		{ "\xc3", "\"\\u00c3\"" },                                 /* cut short */
		{ "\xc0\xaf", "\"\\u00c0\\u00af\"" },                     /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },         /* a surrogate */
		{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"" }, /* past U+10FFFF */
	};
	char one[2] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = json_of(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
	/* Any single byte: plain ASCII out, printable, never raw. */
	for (int b = 1; b < 256; b++) {
		char *got;

		one[0] = (char)b;
		got = json_of(one);
		for (const char *p = got; *p; p++)
			assert_true((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
		if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\')
			assert_int_equal(strlen(got), 3);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(env_values_parse_strictly),
		cmocka_unit_test(every_error_has_a_message),
		cmocka_unit_test(diag_names_file_member_offset_field),
		cmocka_unit_test(diag_long_detail_is_cut_not_overflowed),
		cmocka_unit_test(strvec_push_insert_contains),
		cmocka_unit_test(tokenize_like_gnu),
		cmocka_unit_test(response_file_errors_and_depth),
		cmocka_unit_test(response_file_missing_is_kept),
		cmocka_unit_test(arena_is_aligned_and_zeroed),
		cmocka_unit_test(buf_appends),
		cmocka_unit_test(grow_doubles_and_keeps_on_failure),
		cmocka_unit_test(json_is_utf8_with_controls_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
