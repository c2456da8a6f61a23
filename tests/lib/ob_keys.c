/* ob_keys FILE: the string keys of every offload binary in FILE (a dumped
 * .llvm.offloading section), one line per image, in the order they are
 * stored ("triple arch"), for tests that compare offlink's bytes with
 * LLVM's (tests/e2e/offloading_strings.sh). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/offload_binary.h"

int main(int argc, char **argv)
{
	struct ob_walk w;
	struct ob_binary b;
	struct ol_diag d;
	bool have = true;
	unsigned char *buf;
	long n;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: ob_keys FILE\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	if (n <= 0 || !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 1;
	fclose(f);
	ob_walk_init(&w, buf, (size_t)n);
	ol_diag_clear(&d);
	while (ob_walk_next(&w, &b, &have, &d) == OL_OK && have) {
		for (size_t e = 0; e < b.nentries; e++) {
			for (size_t s = 0; s < b.entries[e].nstrings; s++)
				printf("%s%s", s ? " " : "", b.entries[e].strings[s].key);
			printf("\n");
		}
		ob_binary_free(&b);
	}
	free(buf);
	return d.code ? 1 : 0;
}
