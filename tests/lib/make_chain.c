/* make_chain N DIR: a link whose device-symbol resolution walks N archive
 * members, for bench/run.sh's "10k-image device-symbol resolution" row.
 *
 * DIR/main.o is a host object whose x86_64 device image needs chain_0;
 * DIR/chain.a holds N members, member i a host object whose device image
 * defines chain_i and needs chain_(i+1) (the last needs nothing).  No
 * host symbol pulls any member: each is taken because the device code
 * taken so far needs it, one after another.  The device images are
 * minimal ELF relocatables written here, each in an offload binary in a
 * .llvm.offloading section. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "format/offload_binary.h"

static void le(struct ol_buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));

		ol_buf_append(b, &c, 1);
	}
}

/* An ELF64 relocatable: sections null, .text, .symtab, .strtab,
 * .shstrtab, and (host objects) a payload section. */
static void elf(struct ol_buf *out, const char *def, const char *undef, const char *payload_name,
		uint32_t payload_type, const struct ol_buf *payload)
{
	struct ol_buf str = { 0 }, sym = { 0 }, shstr = { 0 };
	uint64_t n_def = 0, n_undef = 0, off, text_off, sym_off, str_off, sh_off, pay_off = 0;
	int nsec = payload ? 6 : 5;

	ol_buf_append(&str, "", 1);
	ol_buf_append(&shstr, "\0.text\0.symtab\0.strtab\0.shstrtab\0", 34);
	if (payload)
		ol_buf_append(&shstr, payload_name, strlen(payload_name) + 1);
	/* symbol 0, then the globals */
	for (int i = 0; i < 24; i++)
		ol_buf_append(&sym, "", 1);
	if (def) {
		n_def = str.len;
		ol_buf_append(&str, def, strlen(def) + 1);
		le(&sym, n_def, 4);
		le(&sym, 0x12, 1); /* GLOBAL FUNC */
		le(&sym, 0, 1);
		le(&sym, 1, 2);    /* .text */
		le(&sym, 0, 8);
		le(&sym, 0, 8);
	}
	if (undef) {
		n_undef = str.len;
		ol_buf_append(&str, undef, strlen(undef) + 1);
		le(&sym, n_undef, 4);
		le(&sym, 0x10, 1); /* GLOBAL NOTYPE */
		le(&sym, 0, 1);
		le(&sym, 0, 2);    /* undefined */
		le(&sym, 0, 8);
		le(&sym, 0, 8);
	}
	/* layout: header, .text (empty), symtab, strtab, shstrtab, payload, shdrs */
	text_off = 64;
	sym_off = text_off;
	str_off = sym_off + sym.len;
	off = str_off + str.len;
	uint64_t shstr_off = off;
	off += shstr.len;
	if (payload) {
		off = (off + 7) & ~(uint64_t)7;
		pay_off = off;
		off += payload->len;
	}
	sh_off = (off + 7) & ~(uint64_t)7;
	/* ELF header */
	ol_buf_append(out, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
	le(out, 1, 2);    /* ET_REL */
	le(out, 62, 2);   /* EM_X86_64 */
	le(out, 1, 4);
	le(out, 0, 8);
	le(out, 0, 8);
	le(out, sh_off, 8);
	le(out, 0, 4);
	le(out, 64, 2);
	le(out, 0, 2);
	le(out, 0, 2);
	le(out, 64, 2);
	le(out, (uint64_t)nsec, 2);
	le(out, 4, 2);    /* .shstrtab */
	ol_buf_append(out, sym.data, sym.len);
	ol_buf_append(out, str.data, str.len);
	ol_buf_append(out, shstr.data, shstr.len);
	if (payload) {
		ol_buf_zeros(out, (size_t)(pay_off - (shstr_off + shstr.len)));
		ol_buf_append(out, payload->data, payload->len);
	}
	ol_buf_zeros(out, (size_t)(sh_off - out->len));
	/* section headers: name, type, flags, addr, offset, size, link, info, align, entsize */
	struct { uint32_t name, type; uint64_t flags, offset, size; uint32_t link, info; uint64_t align, entsize; } sh[6] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 1, 1, 6, text_off, 0, 0, 0, 16, 0 },
		{ 7, 2, 0, sym_off, sym.len, 3, 1, 8, 24 },
		{ 15, 3, 0, str_off, str.len, 0, 0, 1, 0 },
		{ 23, 3, 0, shstr_off, shstr.len, 0, 0, 1, 0 },
		{ 33, payload_type, 0x80000000u /* SHF_EXCLUDE */, pay_off, payload ? payload->len : 0, 0, 0, 8, 0 },
	};
	for (int i = 0; i < nsec; i++) {
		le(out, sh[i].name, 4);
		le(out, sh[i].type, 4);
		le(out, sh[i].flags, 8);
		le(out, 0, 8);
		le(out, sh[i].offset, 8);
		le(out, sh[i].size, 8);
		le(out, sh[i].link, 4);
		le(out, sh[i].info, 4);
		le(out, sh[i].align, 8);
		le(out, sh[i].entsize, 8);
	}
	ol_buf_free(&str);
	ol_buf_free(&sym);
	ol_buf_free(&shstr);
}

/* A host object carrying one x86_64 OpenMP device image. */
static void host_object(struct ol_buf *out, const char *def, const char *undef)
{
	struct ol_buf dev = { 0 }, bin = { 0 };
	struct ob_kv kv[] = { { "arch", "" }, { "triple", "x86_64-pc-linux-gnu" } };
	struct ob_image_desc d;
	struct ol_diag diag;

	elf(&dev, def, undef, NULL, 0, NULL);
	d = (struct ob_image_desc){ OB_IMG_OBJECT, 1, 0, kv, 2, dev.data, dev.len };
	ol_diag_clear(&diag);
	if (ob_encode(&d, 1, NULL, &bin, &diag)) {
		fprintf(stderr, "make_chain: cannot encode\n");
		exit(1);
	}
	elf(out, NULL, NULL, ".llvm.offloading", 0x6fff4c0b, &bin);
	ol_buf_free(&dev);
	ol_buf_free(&bin);
}

int main(int argc, char **argv)
{
	char path[4096], def[48], undef[48];
	struct ol_buf o = { 0 };
	size_t n;
	FILE *f;

	if (argc != 3 || (n = strtoul(argv[1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: make_chain N DIR\n");
		return 2;
	}
	host_object(&o, NULL, "chain_0");
	snprintf(path, sizeof(path), "%s/main.o", argv[2]);
	if (!(f = fopen(path, "wb")) || fwrite(o.data, 1, o.len, f) != o.len || fclose(f))
		return perror(path), 1;
	snprintf(path, sizeof(path), "%s/chain.a", argv[2]);
	if (!(f = fopen(path, "wb")))
		return perror(path), 1;
	fputs("!<arch>\n", f);
	for (size_t i = 0; i < n; i++) {
		char name[32];

		o.len = 0;
		snprintf(def, sizeof(def), "chain_%zu", i);
		snprintf(undef, sizeof(undef), "chain_%zu", i + 1);
		host_object(&o, def, i + 1 < n ? undef : NULL);
		snprintf(name, sizeof(name), "m%zu.o/", i);
		fprintf(f, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", o.len);
		fwrite(o.data, 1, o.len, f);
		if (o.len & 1)
			fputc('\n', f);
	}
	ol_buf_free(&o);
	return fclose(f) ? 1 : 0;
}
