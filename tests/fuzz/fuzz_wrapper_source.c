/* libFuzzer target: arbitrary strings through the registration source
 * generators (issue 9, item 1).  The input is split at NUL bytes into
 *   shape, output, image file name, container description,
 *   then triple, arch, origin per image, then init, pointer per managed
 *   variable;
 * the shape byte picks the number of images (1-3) and managed variables
 * (0-3), CUDA or HIP, and the entry layout.  Each case is generated,
 * compiled with clang -Wall -Wextra -Werror ($OFFLINK_FUZZ_CLANG, default
 * clang-19) and checked by tests/lib/wrap_oracle.c: exactly the symbols of
 * a harmless build, every string carried byte for byte.  A difference is
 * a crash (abort) so libFuzzer saves the input.  Slow (two compiles per
 * generator and input), so runs are few but each is a full check. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/wrap_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096];

/* Remove what the last case wrote (files, and the image directory). */
static void empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char p[8192];

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (unlink(p) != 0) {
			empty(p);
			rmdir(p);
		}
	}
	closedir(d);
}

static void cleanup(void)
{
	empty(dir);
	rmdir(dir);
}

/* Field i of the NUL-separated input, or fallback. */
static const char *field(char **fields, size_t n, size_t i, const char *fallback)
{
	return i < n ? fields[i] : fallback;
}

/* A file name from arbitrary bytes: no '/', not "", "." or "..", short. */
static void file_name(const char *s, char *out, size_t len)
{
	size_t k = 0;

	for (; *s && k + 1 < len && k < 200; s++)
		out[k++] = *s == '/' ? '_' : *s;
	out[k] = '\0';
	if (!k || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, len, "img");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *clang = getenv("OFFLINK_FUZZ_CLANG");
	char *copy = malloc(size + 1), *fields[32], name[256], why[2048];
	size_t nf = 0, at = 4;
	struct wo_input in = { 0 };
	unsigned shape;

	if (!copy)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/offlink-fuzz-wrap-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *p = copy; nf < 32 && p <= copy + size; p += strlen(p) + 1)
		fields[nf++] = p;
	shape = nf && fields[0][0] ? (unsigned char)fields[0][0] : 0;
	in.nimages = 1 + shape % WO_MAX_IMAGES;
	in.nmanaged = (shape / 4) % (WO_MAX_MANAGED + 1);
	in.hip = (shape >> 4) & 1;
	in.new_entries = (shape >> 5) & 1;
	in.output = field(fields, nf, 1, "a.out");
	file_name(field(fields, nf, 2, "img"), name, sizeof(name));
	in.image_name = name;
	in.contents = field(fields, nf, 3, "");
	for (size_t i = 0; i < in.nimages; i++) {
		in.triple[i] = field(fields, nf, at++, "x86_64-pc-linux-gnu");
		in.arch[i] = field(fields, nf, at++, "");
		in.origin[i] = field(fields, nf, at++, "k.o");
	}
	for (size_t i = 0; i < in.nmanaged; i++) {
		in.init[i] = field(fields, nf, at++, "v.managed");
		in.pointer[i] = field(fields, nf, at++, "v");
	}
	if (wo_check(&in, dir, clang && *clang ? clang : "clang-19", why, sizeof(why))) {
		fprintf(stderr, "wrapper source check failed: %s\n", why);
		abort();
	}
	empty(dir);
	free(copy);
	return 0;
}
