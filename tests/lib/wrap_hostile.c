/* wrap_hostile CLANG DIR: the registration source generators against the
 * strings a hostile input can carry (tests/lib/wrap_oracle.h): the
 * injection the hostile tester found (a triple that closes the comment
 * and opens a constructor), a BSD archive member name doing the same, an
 * output path through a directory named "d*", every byte value 1-255 in
 * every field, trigraphs and line splices, reserved symbol names, long
 * strings.  Prints one line per case; exits 1 if any fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wrap_oracle.h"

static char all_bytes[256];   /* 1..255 */
static char name_bytes[256];  /* 1..255 without '/' */
static char line_bytes[256];  /* 2..255 without newline: one line of assembly */
static char long_text[20001];

static void init_strings(void)
{
	size_t k = 0, m = 0;

	for (int c = 1; c < 256; c++) {
		all_bytes[c - 1] = (char)c;
		if (c != '/')
			name_bytes[k++] = (char)c;
		if (c != 1 && c != '\n')
			line_bytes[m++] = (char)c;
	}
	memset(long_text, 'A', sizeof(long_text) - 1);
	for (size_t i = 0; i + 2 < sizeof(long_text) - 1; i += 97)
		memcpy(long_text + i, "*/", 2);
}

static const char injection[] =
	"nvptx64-*/\n#ifndef X\n#define X\nextern int puts(const char *);\n"
	"__attribute__((constructor)) static void x(void) { puts(\"injected\"); }\n"
	"#endif\n/*-cuda";

static struct wo_input base(void)
{
	struct wo_input in = { 0 };

	in.output = "a.out";
	in.triple[0] = "x86_64-pc-linux-gnu";
	in.arch[0] = "";
	in.origin[0] = "k.o";
	in.nimages = 1;
	in.image_name = "openmp.x86_64.img";
	in.contents = "Fatbinary of: sm_90";
	in.init[0] = "v.managed";
	in.pointer[0] = "v";
	in.nmanaged = 1;
	return in;
}

static int run_case(const char *name, const struct wo_input *in, const char *clang,
		    const char *top, int *n)
{
	char dir[4096], why[2048];
	int rc;

	snprintf(dir, sizeof(dir), "%s/case%d", top, (*n)++);
	if (mkdir(dir, 0755) != 0) {
		printf("FAIL %s: cannot create %s\n", name, dir);
		return 1;
	}
	rc = wo_check(in, dir, clang, why, sizeof(why));
	printf("%s %s%s%s\n", rc ? "FAIL" : "ok  ", name, rc ? ": " : "", rc ? why : "");
	return rc;
}

int main(int argc, char **argv)
{
	const char *clang, *top;
	struct wo_input in;
	int failed = 0, n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: wrap_hostile CLANG DIR\n");
		return 2;
	}
	clang = argv[1];
	top = argv[2];
	init_strings();
	for (int layout = 0; layout < 2; layout++) {
		for (int hip = 0; hip < 2; hip++) {
			const char *sfx = layout ? (hip ? " (hip, 56-byte)" : " (cuda, 56-byte)")
						 : (hip ? " (hip, 32-byte)" : " (cuda, 32-byte)");
			char name[256];

#define CASE(label)                                                             \
	do {                                                                    \
		in.hip = hip;                                                   \
		in.new_entries = layout;                                        \
		snprintf(name, sizeof(name), "%s%s", label, sfx);               \
		failed |= run_case(name, &in, clang, top, &n);                  \
	} while (0)

			in = base();
			CASE("plain strings");
			in = base();
			in.triple[0] = injection;
			CASE("the tester's triple: a constructor after a closed comment");
			in = base();
			in.arch[0] = "sm_90*/ #error injected /*";
			CASE("an arch that closes the comment");
			in = base();
			in.origin[0] = "lib.a(#1/*/\n#error injected\n/*)";
			CASE("BSD member name that closes the comment");
			in = base();
			in.output = "d*/x";
			in.image_name = "d*";
			CASE("output and image path through a directory named d*");
			in = base();
			in.output = all_bytes;
			in.triple[0] = all_bytes;
			in.arch[0] = all_bytes;
			in.origin[0] = all_bytes;
			in.image_name = name_bytes;
			in.contents = all_bytes;
			in.init[0] = all_bytes + 1; /* no leading byte 1 */
			in.pointer[0] = name_bytes + 1;
			CASE("every byte value in every field");
			in = base();
			in.triple[0] = "x\?\?/";
			in.arch[0] = "a\\";
			in.origin[0] = "\?\?=define X\\";
			in.output = "out\\\n#error spliced";
			in.contents = "c \?\?/";
			CASE("trigraphs and line splices");
			in = base();
			in.nimages = 3;
			in.triple[1] = "x86_64-pc-linux-gnu";
			in.arch[1] = "znver4";
			in.origin[1] = long_text;
			in.triple[2] = long_text;
			in.arch[2] = "";
			in.origin[2] = "b.o";
			in.init[1] = "__tgt_register_lib";
			in.pointer[1] = "atexit";
			in.init[2] = "w.managed";
			in.pointer[2] = "w";
			in.nmanaged = 3;
			CASE("three images, long strings, managed names of runtime functions");
			in = base();
			in.init[0] = ".";
			in.pointer[0] = "$$";
			in.init[1] = "$";
			in.pointer[1] = "a\"b\\c";
			in.init[2] = line_bytes;
			in.pointer[2] = line_bytes + 1;
			in.nmanaged = 3;
			CASE("managed names an assembler could misread: ., $, $$, quotes, every byte");
			in = base();
			in.init[0] = "*";
			in.init[1] = "v.managed";
			in.pointer[1] = "v";
			in.nmanaged = 2;
			CASE("two managed variables naming one pointer (fuzz_wrapper_source)");
			in = base();
			in.init[0] = ".L__offlink_cuda_next";
			CASE("managed variable named like offlink's own label (refused)");
			in = base();
			in.init[0] = "__offlink_cuda_handle";
			CASE("managed variable named like offlink's own symbol (refused)");
			in = base();
			in.pointer[0] = "\001v";
			CASE("managed pointer with a leading byte 1 (refused)");
#undef CASE
		}
	}
	return failed;
}
