/* elf_poke FILE section-offset SECTION VALUE
 * elf_poke FILE rela-offset SECTION VALUE [INDEX]
 * elf_poke FILE rela-addend SECTION VALUE [INDEX]
 *
 * Edit one field of a little-endian ELF64 object in place, as a hostile
 * input would: the file offset of a section, or the r_offset or r_addend
 * of the INDEXth (default the first) RELA entry that applies to a
 * section.  Written with plain byte offsets
 * (not libelf), so it can write values libelf would refuse. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"


static uint8_t *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 64 || fseek(f, 0, SEEK_SET) ||
	    !(p = malloc((size_t)len)) || fread(p, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "elf_poke: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

int main(int argc, char **argv)
{
	uint8_t *p, *sh;
	size_t n, shoff, shnum, shentsize, strtab, target = 0;
	uint64_t value;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: elf_poke FILE section-offset|rela-offset|rela-addend "
				"SECTION VALUE [INDEX]\n");
		return 2;
	}
	p = load(argv[1], &n);
	value = strtoull(argv[4], NULL, 0);
	shoff = ol_le_n(p + 0x28, 8);
	shentsize = ol_le_n(p + 0x3a, 2);
	shnum = ol_le_n(p + 0x3c, 2);
	if (shentsize != 64 || shoff > n || shnum > (n - shoff) / 64) {
		fprintf(stderr, "elf_poke: %s: not an ELF64 object this tool can edit\n", argv[1]);
		return 2;
	}
	sh = p + shoff;
	strtab = ol_le_n(sh + 64 * ol_le_n(p + 0x3e, 2) + 0x18, 8);
	for (size_t i = 1; i < shnum; i++)
		if (strcmp((char *)p + strtab + ol_le_n(sh + 64 * i, 4), argv[3]) == 0)
			target = i;
	if (!target) {
		fprintf(stderr, "elf_poke: %s: no section %s\n", argv[1], argv[3]);
		return 2;
	}
	if (strcmp(argv[2], "section-offset") == 0) {
		ol_put_le_n(sh + 64 * target + 0x18, 8, value);
	} else {
		size_t i;

		for (i = 1; i < shnum; i++)
			if (ol_le_n(sh + 64 * i + 4, 4) == 4 /* SHT_RELA */ &&
			    ol_le_n(sh + 64 * i + 0x2c, 4) == target)
				break;
		if (i == shnum) {
			fprintf(stderr, "elf_poke: %s: no relocations for %s\n", argv[1], argv[3]);
			return 2;
		}
		size_t at = ol_le_n(sh + 64 * i + 0x18, 8) + 24 * (argc == 6 ? strtoull(argv[5], NULL, 0) : 0) +
			    (strcmp(argv[2], "rela-addend") == 0 ? 16 : 0);

		if (at > n || 8 > n - at) {
			fprintf(stderr, "elf_poke: %s: no such relocation\n", argv[1]);
			return 2;
		}
		ol_put_le_n(p + at, 8, value);
	}
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "elf_poke: cannot write %s\n", argv[1]);
		return 2;
	}
	free(p);
	return 0;
}
