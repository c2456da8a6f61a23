/* make_many bundle N OUT [dup]: a binary offload bundle of N one-byte
 * entries with distinct IDs (with "dup", the last repeats the first), for
 * the checks that must stay linear in what an input declares (issue 9,
 * item 7: 160k entries took 90 s through a pairwise duplicate check).
 * make_many fatbin N OUT [SMS]: an NVIDIA fat binary of N PTX entries for
 * sm_90 (with SMS, for sm_1 to sm_SMS in turn), nvcc's __nv_relfatbin as
 * a hostile file would fill it (issue 39, item 4: each PTX entry was
 * checked against every entry for a cubin; and every SM is a device
 * link).
 * make_many ptx N OUT: an offload binary (version 2) of N CUDA PTX
 * images for sm_90, as clang's could hold them: one device link with N
 * ptxas steps (issue 39, item 4: the steps grew one at a time).
 * make_many copies N IMAGE OUT: an offload binary (version 2) of N copies
 * of the bitcode file IMAGE as OpenMP's for nvptx64 sm_90: N alike
 * modules of one ThinLTO link (issue 44, item 4: naming them compared
 * each name tried with every name so far, cubic in the copies). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "format/offload_binary.h"

static void le64(FILE *f, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		fputc((int)(v >> (8 * i)) & 0xff, f);
}

static int id_of(char *out, size_t len, size_t i)
{
	return snprintf(out, len, "openmp-x86_64-unknown-linux-gnu-cpu%zu", i);
}

static void le32(FILE *f, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		fputc((int)(v >> (8 * i)) & 0xff, f);
}

/* The fat binary header (magic, version 1, header size 16, the entries'
 * size), then per entry a 64-byte header (kind 1: PTX; header size;
 * payload size; arch at 28) and its payload, PTX text. */
static int fatbin(size_t n, unsigned sms, const char *out)
{
	static const char ptx[] = ".version 8.0\n.target sm_90\n";
	size_t payload = sizeof(ptx) - 1;
	FILE *f = fopen(out, "wb");

	if (!f)
		return 1;
	le32(f, 0xba55ed50u);
	fputc(1, f), fputc(0, f), fputc(16, f), fputc(0, f);
	le64(f, (uint64_t)n * (64 + payload));
	for (size_t i = 0; i < n; i++) {
		fputc(1, f), fputc(0, f), fputc(1, f), fputc(1, f); /* kind 1, a version */
		le32(f, 64);
		le64(f, payload);
		le32(f, 0), le32(f, 0);         /* compressed size, unused */
		le32(f, 0x00080001u);           /* PTX ISA version */
		le32(f, sms ? 1 + (unsigned)(i % sms) : 90); /* arch */
		le32(f, 0), le32(f, 0);         /* no object name */
		le64(f, 0x11);                  /* flags: 64-bit, host Linux */
		le64(f, 0);
		le64(f, 0);                     /* uncompressed size: not compressed */
		fwrite(ptx, 1, payload, f);
	}
	return fclose(f) == 0 ? 0 : 1;
}

static int ptx_binary(size_t n, const char *out)
{
	static const char ptx[] = ".version 8.0\n.target sm_90\n";
	static const struct ob_kv strings[] = { { "triple", "nvptx64-nvidia-cuda" },
						{ "arch", "sm_90" } };
	struct ob_image_desc *imgs = calloc(n ? n : 1, sizeof(*imgs));
	struct ob_encode_opts opts = { .version = 2 };
	struct ol_buf b = { 0 };
	struct ol_diag d;
	FILE *f;
	int rc = 1;

	if (!imgs)
		return 1;
	for (size_t i = 0; i < n; i++)
		imgs[i] = (struct ob_image_desc){ OB_IMG_PTX, 2, 0, strings, 2,
						  (const uint8_t *)ptx, sizeof(ptx) - 1 };
	ol_diag_clear(&d);
	if (ob_encode(imgs, n, &opts, &b, &d) == OL_OK && (f = fopen(out, "wb"))) {
		rc = fwrite(b.data, 1, b.len, f) != b.len;
		rc |= fclose(f) != 0;
	}
	ol_buf_free(&b);
	free(imgs);
	return rc;
}

static int copies(size_t n, const char *image, const char *out)
{
	static const struct ob_kv strings[] = { { "triple", "nvptx64-nvidia-cuda" },
						{ "arch", "sm_90" } };
	struct ob_image_desc *imgs = calloc(n ? n : 1, sizeof(*imgs));
	struct ob_encode_opts opts = { .version = 2 };
	struct ol_buf b = { 0 }, in = { 0 };
	struct ol_diag d;
	FILE *f = fopen(image, "rb");
	int c, rc = 1;

	while (f && (c = fgetc(f)) != EOF)
		ol_buf_append(&in, &(uint8_t){ (uint8_t)c }, 1);
	if (f)
		fclose(f);
	if (!imgs || !in.len)
		goto out;
	for (size_t i = 0; i < n; i++)
		imgs[i] = (struct ob_image_desc){ OB_IMG_BITCODE, OB_OFK_OPENMP, 0, strings, 2,
						  in.data, in.len };
	ol_diag_clear(&d);
	if (ob_encode(imgs, n, &opts, &b, &d) == OL_OK && (f = fopen(out, "wb"))) {
		rc = fwrite(b.data, 1, b.len, f) != b.len;
		rc |= fclose(f) != 0;
	}
out:
	ol_buf_free(&b);
	ol_buf_free(&in);
	free(imgs);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n, header = 24 + 8, data;
	char id[64];
	bool dup;
	FILE *f;

	if (argc == 5 && strcmp(argv[1], "copies") == 0)
		return copies(strtoul(argv[2], NULL, 10), argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "ptx") == 0)
		return ptx_binary(strtoul(argv[2], NULL, 10), argv[3]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "fatbin") == 0)
		return fatbin(strtoul(argv[2], NULL, 10),
			      argc == 5 ? (unsigned)strtoul(argv[4], NULL, 10) : 0, argv[3]);
	if (argc < 4 || strcmp(argv[1], "bundle") != 0) {
		fprintf(stderr, "usage: make_many bundle N OUT [dup] | make_many fatbin N OUT [SMS] | "
				"make_many ptx N OUT | make_many copies N IMAGE OUT\n");
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
