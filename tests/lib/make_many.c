/* make_many bundle N OUT [dup]: a binary offload bundle of N one-byte
 * entries with distinct IDs (with "dup", the last repeats the first), for
 * the checks that must stay linear in what an input declares (issue 9,
 * item 7: 160k entries took 90 s through a pairwise duplicate check). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void le64(FILE *f, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		fputc((int)(v >> (8 * i)) & 0xff, f);
}

static int id_of(char *out, size_t len, size_t i)
{
	return snprintf(out, len, "openmp-x86_64-unknown-linux-gnu-cpu%zu", i);
}

int main(int argc, char **argv)
{
	size_t n, header = 24 + 8, data;
	char id[64];
	bool dup;
	FILE *f;

	if (argc < 4 || strcmp(argv[1], "bundle") != 0) {
		fprintf(stderr, "usage: make_many bundle N OUT [dup]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	dup = argc > 4 && strcmp(argv[4], "dup") == 0;
	for (size_t i = 0; i < n; i++)
		header += 24 + (size_t)id_of(id, sizeof(id), dup && i + 1 == n ? 0 : i);
	if (!(f = fopen(argv[3], "wb")))
		return 1;
	fputs("__CLANG_OFFLOAD_BUNDLE__", f);
	le64(f, n);
	data = header;
	for (size_t i = 0; i < n; i++) {
		int len = id_of(id, sizeof(id), dup && i + 1 == n ? 0 : i);

		le64(f, data++);
		le64(f, 1);
		le64(f, (uint64_t)len);
		fwrite(id, 1, (size_t)len, f);
	}
	for (size_t i = 0; i < n; i++)
		fputc('x', f);
	return fclose(f) == 0 ? 0 : 1;
}
