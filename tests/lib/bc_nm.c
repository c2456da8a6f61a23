/* bc_nm [-s] FILE: print the global symbols of a bitcode file's symbol
 * table as "<U|w|W|C|T> name", one per line, for comparison with
 * llvm-nm-19; -s adds " [section]" to a symbol that names its section
 * (read from the table's Uncommon records). */
#include <stdio.h>
#include <stdlib.h>

#include "format/bitcode_symtab.h"

static enum ol_err print_symbol(void *ctx, const struct bc_symbol *s,
				struct ol_diag *d)
{
	const int *sections = ctx;
	char kind;

	(void)d;
	if (!s->global || s->format_specific)
		return OL_OK;
	if (s->undefined)
		kind = s->weak ? 'w' : 'U';
	else
		kind = s->weak ? 'W' : s->common ? 'C' : 'T';
	printf("%c %.*s", kind, (int)s->len, s->name);
	if (*sections && s->section && s->section_len)
		printf(" [%.*s]", (int)s->section_len, s->section);
	printf("\n");
	return OL_OK;
}

int main(int argc, char **argv)
{
	struct ol_diag d;
	unsigned char *p;
	int sections = argc == 3 && argv[1][0] == '-' && argv[1][1] == 's';
	long n;
	FILE *f;

	if (sections) {
		argv++;
		argc--;
	}
	if (argc != 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	ol_diag_clear(&d);
	if (bc_for_each_symbol(p, (size_t)n, print_symbol, &sections, &d)) {
		char msg[1024];

		ol_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "bc_nm: %s: %s\n", argv[1], msg);
		return 1;
	}
	free(p);
	return 0;
}
