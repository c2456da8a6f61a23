/* Unit tests of format/: the SPIR-V container (its layout as LLVM 22's
 * wrapper writes it, read back, damage named), the string table layout, the version 1 writer
 * against a byte dump of LLVM 19's packager output, round trips of
 * versions 1-3 (random images from a fixed, printed seed), the section
 * walk, decoder checks on fields, and the version 2 and 3 writers against
 * LLVM 23's and 24's bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "format/llvm_maps.h"
#include "format/offload_binary.h"
#include "common/pieces.h"
#include "format/spirv_container.h"
#include "format/strtab.h"

static unsigned seed = 20261121;

static unsigned next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

/* The table LLVM 19's packager wrote for the keys and values of
 * triple=t,arch=a,feature=f,zeta=z,alpha=al (see docs/format.md). */
static void strtab_matches_llvm(void **state)
{
	static const char *in[] = { "feature", "f", "arch", "a", "zeta", "z",
				    "triple", "t", "alpha", "al", "", "arch" };
	static const char want[] = "\0z\0t\0al\0arch\0f\0feature\0triple\0zeta\0alpha";
	struct ob_strtab_str s[12];
	struct ol_buf out = { 0 };

	(void)state;
	for (int i = 0; i < 12; i++)
		s[i] = (struct ob_strtab_str){ in[i], strlen(in[i]), 0 };
	assert_int_equal(ob_strtab_build(s, 12, &out), OL_OK);
	assert_int_equal(out.len, sizeof(want));
	assert_memory_equal(out.data, want, sizeof(want));
	assert_int_equal(s[3].offset, 39);  /* "a" shares the tail of "alpha" */
	assert_int_equal(s[1].offset, 13);
	assert_int_equal(s[10].offset, 0);  /* "" is always offset 0 */
	assert_int_equal(s[11].offset, s[2].offset); /* duplicates share */
	ol_buf_free(&out);
}

/* docs/format.md's annotated 160-byte binary (LLVM 19 packager output). */
static const uint8_t llvm_one_image[160] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0, 0, 0, 0xa0, 0, 0, 0, 0, 0, 0, 0,
	0x20, 0, 0, 0, 0, 0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0,
	0x01, 0, 0x01, 0, 0, 0, 0, 0, 0x48, 0, 0, 0, 0, 0, 0, 0,
	0x02, 0, 0, 0, 0, 0, 0, 0, 0x98, 0, 0, 0, 0, 0, 0, 0,
	0x05, 0, 0, 0, 0, 0, 0, 0, 0x82, 0, 0, 0, 0, 0, 0, 0,
	0x87, 0, 0, 0, 0, 0, 0, 0, 0x8e, 0, 0, 0, 0, 0, 0, 0,
	0x69, 0, 0, 0, 0, 0, 0, 0, 0x00, 'x', '8', '6', '_', '6', '4', '-',
	'u', 'n', 'k', 'n', 'o', 'w', 'n', '-', 'l', 'i', 'n', 'u', 'x', '-', 'g', 'n',
	'u', 0, 'a', 'r', 'c', 'h', 0, 'n', 'a', 't', 'i', 'v', 'e', 0, 't', 'r',
	'i', 'p', 'l', 'e', 0, 0, 0, 0, 'H', 'E', 'L', 'L', 'O', 0, 0, 0,
};

static void v1_writer_matches_llvm_bytes(void **state)
{
	struct ob_kv kv[] = { { "arch", "native" },
			      { "triple", "x86_64-unknown-linux-gnu" } };
	struct ob_image_desc img = { 1, 1, 0, kv, 2, (const uint8_t *)"HELLO", 5 };
	struct ol_buf out = { 0 }, head = { 0 };
	struct ol_diag d;
	uint64_t image_offset, pad;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ob_encode(&img, 1, NULL, &out, &d), OL_OK);
	assert_int_equal(out.len, sizeof(llvm_one_image));
	assert_memory_equal(out.data, llvm_one_image, sizeof(llvm_one_image));
	/* The head alone is the same prefix, for embedding by reference. */
	assert_int_equal(ob_encode_head(&img, 1, &head, &image_offset, &pad), OL_OK);
	assert_int_equal(image_offset, 152);
	assert_int_equal(pad, 3);
	assert_memory_equal(head.data, llvm_one_image, 152);
	ol_buf_free(&out);
	ol_buf_free(&head);
}

/* For versions 2 and 3 (LLVM 23's and 24's registrations) too, the head
 * is what the whole encoding holds before the image, and the pad what
 * follows it. */
static void head_is_the_encoding_prefix(void **state)
{
	struct ob_kv kv[] = { { "triple", "x86_64-pc-linux-gnu" }, { "arch", "" } };
	struct ob_image_desc img = { 1, 1, 0, kv, 2, (const uint8_t *)"IMAGE-13BYTES", 13 };
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	for (unsigned v = 1; v <= 3; v++) {
		struct ob_encode_opts o = { .version = v };
		struct ol_buf out = { 0 }, head = { 0 };
		uint64_t image_offset, pad;

		assert_int_equal(ob_encode(&img, 1, &o, &out, &d), OL_OK);
		assert_int_equal(ob_encode_head(&img, v, &head, &image_offset, &pad), OL_OK);
		assert_int_equal(head.len, image_offset);
		assert_int_equal(image_offset % 8, 0);
		assert_int_equal(out.len, image_offset + 13 + pad);
		assert_int_equal(out.len % 8, 0);
		assert_memory_equal(out.data, head.data, head.len);
		assert_memory_equal(out.data + image_offset, "IMAGE-13BYTES", 13);
		assert_int_equal(out.data[4], v);
		ol_buf_free(&out);
		ol_buf_free(&head);
	}
	assert_int_equal(ob_release_version(22), 1);
	assert_int_equal(ob_release_version(23), 2);
	assert_int_equal(ob_release_version(24), 3);
}

/* llvm-offload-binary-23 and -24 (Debian's 23.1.4 and 24 snapshot) on
 *   --image=file=a.img,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp,
 *           zebra=1,apple=2,mango=3
 *   --image=file=b.img,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
 * (a.img "ABCDEFGHIJKLM", b.img "xyz"): one version 2 (version 3)
 * binary, two entries, the string keys in the order of a DenseMap hashed
 * with xxh3 -- what the packager reproduces from these two pieces
 * (cli.packager_releases compares it with the tools themselves, in the
 * sid root; here the same bytes run under the sanitizers). */
static const uint8_t llvm23_two_images[] = {
	0x10, 0xff, 0x10, 0xad, 0x02, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x70, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x1f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x24, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x66, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x2a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x49, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x19, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x43, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x68, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x1f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x5d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x2a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x31, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x6d, 0x61, 0x6e, 0x67, 0x6f, 0x00, 0x61,
	0x72, 0x63, 0x68, 0x00, 0x61, 0x70, 0x70, 0x6c, 0x65, 0x00, 0x74, 0x72,
	0x69, 0x70, 0x6c, 0x65, 0x00, 0x61, 0x6d, 0x64, 0x67, 0x63, 0x6e, 0x2d,
	0x61, 0x6d, 0x64, 0x2d, 0x61, 0x6d, 0x64, 0x68, 0x73, 0x61, 0x00, 0x7a,
	0x65, 0x62, 0x72, 0x61, 0x00, 0x6e, 0x76, 0x70, 0x74, 0x78, 0x36, 0x34,
	0x2d, 0x6e, 0x76, 0x69, 0x64, 0x69, 0x61, 0x2d, 0x63, 0x75, 0x64, 0x61,
	0x00, 0x67, 0x66, 0x78, 0x39, 0x30, 0x61, 0x00, 0x33, 0x00, 0x32, 0x00,
	0x31, 0x00, 0x73, 0x6d, 0x5f, 0x39, 0x30, 0x00, 0x41, 0x42, 0x43, 0x44,
	0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x78, 0x79, 0x7a,
};
static const uint8_t llvm24_two_images[] = {
	0x10, 0xff, 0x10, 0xad, 0x03, 0x00, 0x00, 0x00, 0x88, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x78, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x85, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x27, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x72, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x2c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x32, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x51, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x21, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6c, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x4b, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x70, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x27, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x65, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x32, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x39, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x6d, 0x61, 0x6e, 0x67, 0x6f, 0x00, 0x61, 0x72, 0x63, 0x68, 0x00,
	0x61, 0x70, 0x70, 0x6c, 0x65, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65,
	0x00, 0x61, 0x6d, 0x64, 0x67, 0x63, 0x6e, 0x2d, 0x61, 0x6d, 0x64, 0x2d,
	0x61, 0x6d, 0x64, 0x68, 0x73, 0x61, 0x00, 0x7a, 0x65, 0x62, 0x72, 0x61,
	0x00, 0x6e, 0x76, 0x70, 0x74, 0x78, 0x36, 0x34, 0x2d, 0x6e, 0x76, 0x69,
	0x64, 0x69, 0x61, 0x2d, 0x63, 0x75, 0x64, 0x61, 0x00, 0x67, 0x66, 0x78,
	0x39, 0x30, 0x61, 0x00, 0x33, 0x00, 0x32, 0x00, 0x31, 0x00, 0x73, 0x6d,
	0x5f, 0x39, 0x30, 0x00, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
	0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x78, 0x79, 0x7a,
};

static void v2_v3_writer_matches_llvm_bytes(void **state)
{
	/* (every key of every --image, in command-line order, into one map) */
	static const char *const keys[] = { "file", "triple", "arch", "kind", "zebra", "apple", "mango" };
	static const char *const values[2][7] = {
		{ NULL, "nvptx64-nvidia-cuda", "sm_90", NULL, "1", "2", "3" },
		{ NULL, "amdgcn-amd-amdhsa", "gfx90a", NULL, NULL, NULL, NULL },
	};
	static const struct {
		unsigned release, version;
		const uint8_t *bytes;
		size_t len;
	} want[] = { { 23, 2, llvm23_two_images, sizeof(llvm23_two_images) },
		     { 24, 3, llvm24_two_images, sizeof(llvm24_two_images) } };
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	for (size_t r = 0; r < 2; r++) {
		struct ob_kv kv[2][7];
		struct ob_image_desc img[2] = {
			/* (image kind 0: ".img" names none; OpenMP 1, HIP 4 from 22) */
			{ 0, 1, 0, kv[0], 0, (const uint8_t *)"ABCDEFGHIJKLM", 13 },
			{ 0, 4, 0, kv[1], 0, (const uint8_t *)"xyz", 3 },
		};
		struct ob_encode_opts o = { .version = want[r].version };
		struct ol_buf out = { 0 };
		size_t order[7];

		assert_int_equal(ol_llvm_densemap_order(keys, 7, want[r].release, order), OL_OK);
		for (size_t i = 0; i < 2; i++)
			for (size_t k = 0; k < 7; k++)
				if (values[i][order[k]])
					kv[i][img[i].nstrings++] = (struct ob_kv){ keys[order[k]],
										  values[i][order[k]] };
		assert_int_equal(ob_encode(img, 2, &o, &out, &d), OL_OK);
		assert_int_equal(out.len, want[r].len);
		assert_memory_equal(out.data, want[r].bytes, want[r].len);
		ol_buf_free(&out);
	}
}

static void decode_llvm_bytes(void **state)
{
	struct ob_binary b;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ob_decode(llvm_one_image, sizeof(llvm_one_image), &b, &d), OL_OK);
	assert_int_equal(b.version, 1);
	assert_int_equal(b.nentries, 1);
	assert_int_equal(b.entries[0].image_kind, OB_IMG_OBJECT);
	assert_int_equal(b.entries[0].offload_kind, OB_OFK_OPENMP);
	assert_string_equal(ob_entry_get(&b.entries[0], "arch"), "native");
	assert_string_equal(ob_entry_get(&b.entries[0], "triple"), "x86_64-unknown-linux-gnu");
	assert_null(ob_entry_get(&b.entries[0], "feature"));
	assert_int_equal(b.entries[0].image_size, 5);
	assert_memory_equal(b.entries[0].image, "HELLO", 5);
	ob_binary_free(&b);
}

struct sample {
	uint8_t *image[4];
	size_t size[4];
	struct ob_kv kv[4][3];
	struct ob_image_desc desc[4];
};

static void make_sample(struct sample *s)
{
	static const char *arch[] = { "sm_90", "gfx90a:xnack+", "", "native" };

	for (int i = 0; i < 4; i++) {
		s->size[i] = next_rand() % 5000;
		s->image[i] = malloc(s->size[i] + 1);
		for (size_t j = 0; j < s->size[i]; j++)
			s->image[i][j] = (uint8_t)(next_rand() % 7);
		s->kv[i][0] = (struct ob_kv){ "arch", arch[i] };
		s->kv[i][1] = (struct ob_kv){ "triple", i & 1 ? "amdgcn-amd-amdhsa" : "nvptx64-nvidia-cuda" };
		s->kv[i][2] = (struct ob_kv){ "feature", i == 2 ? "+ptx85" : "" };
		s->desc[i] = (struct ob_image_desc){ (uint16_t)(i + 1), (uint16_t)(i % 3 + 1), 0,
						     s->kv[i], 3, s->image[i], s->size[i] };
	}
}

static void check_roundtrip(const struct sample *s, const uint8_t *p, size_t len,
			    unsigned version)
{
	struct ob_walk w;
	struct ob_binary b;
	struct ol_diag d;
	bool have;
	int seen = 0;

	ol_diag_clear(&d);
	ob_walk_init(&w, p, len);
	while (ob_walk_next(&w, &b, &have, &d) == OL_OK && have) {
		assert_int_equal(b.version, version);
		for (size_t e = 0; e < b.nentries; e++, seen++) {
			const struct ob_entry *en = &b.entries[e];

			assert_int_equal(en->image_kind, s->desc[seen].image_kind);
			assert_int_equal(en->offload_kind_raw, s->desc[seen].offload_kind_raw);
			assert_int_equal(en->image_size, s->size[seen]);
			if (s->size[seen])
				assert_memory_equal(en->image, s->image[seen], s->size[seen]);
			for (int k = 0; k < 3; k++)
				assert_string_equal(ob_entry_get(en, s->kv[seen][k].key),
						    s->kv[seen][k].value);
		}
		ob_binary_free(&b);
	}
	assert_int_equal(d.code, OL_OK);
	assert_int_equal(seen, 4);
}

static void roundtrip_all_versions(void **state)
{
	static const struct ob_encode_opts opts[] = {
		{ 1, false, OL_COMP_ZLIB, 0 }, { 2, false, OL_COMP_ZLIB, 0 },
		{ 3, false, OL_COMP_ZLIB, 0 }, { 3, true, OL_COMP_ZSTD, 3 },
		{ 3, true, OL_COMP_ZLIB, 6 }, { 3, true, OL_COMP_ZSTD, 19 },
	};

	(void)state;
	printf("seed %u\n", seed);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct sample s;
		struct ol_buf out = { 0 };
		struct ol_diag d;

		ol_diag_clear(&d);
		make_sample(&s);
		assert_int_equal(ob_encode(s.desc, 4, &opts[i], &out, &d), OL_OK);
		check_roundtrip(&s, out.data, out.len, opts[i].version);
		/* Two compressed binaries back to back: Size is unpadded, the
		 * walk realigns to 8. */
		if (opts[i].compress) {
			size_t one = out.len;

			ol_buf_append(&out, out.data, one);
			check_roundtrip(&s, out.data, one, 3);
			assert_int_equal(ol_le64(out.data + 8) % 8 == 0 || one % 8 == 0, 1);
		}
		for (int k = 0; k < 4; k++)
			free(s.image[k]);
		ol_buf_free(&out);
	}
}

static enum ol_err decode_err(const uint8_t *p, size_t len, struct ol_diag *d)
{
	struct ob_binary b;
	enum ol_err rc;

	ol_diag_clear(d);
	rc = ob_decode(p, len, &b, d);
	if (rc == OL_OK)
		ob_binary_free(&b);
	return rc;
}

static void decoder_rejects_bad_fields(void **state)
{
	uint8_t b[160];
	struct ol_diag d;

	(void)state;
	memcpy(b, llvm_one_image, sizeof(b));
	ol_put_le64(b + 24, 48);
	assert_int_equal(decode_err(b, sizeof(b), &d), OL_E_BAD_FIELD);
	assert_string_equal(d.field, "EntrySize");
	assert_int_equal(d.offset, 24);

	memcpy(b, llvm_one_image, sizeof(b));
	ol_put_le64(b + 0x48, 4000); /* first KeyOffset */
	assert_int_equal(decode_err(b, sizeof(b), &d), OL_E_OUT_OF_BOUNDS);
	assert_string_equal(d.field, "KeyOffset");
	assert_int_equal(d.offset, 0x48);

	memcpy(b, llvm_one_image, sizeof(b));
	ol_put_le64(b + 0x38, 152);
	ol_put_le64(b + 0x40, UINT64_MAX - 140); /* 152 + size wraps */
	assert_int_equal(decode_err(b, sizeof(b), &d), OL_E_OUT_OF_BOUNDS);
	assert_string_equal(d.field, "ImageSize");

	memcpy(b, llvm_one_image, sizeof(b));
	assert_int_equal(decode_err(b, 100, &d), OL_E_TRUNCATED);
	assert_string_equal(d.field, "Size");
	assert_int_equal(decode_err(b, 7, &d), OL_E_TRUNCATED);
	assert_string_equal(d.field, "Version");
}

static void walk_reports_trailing_bytes(void **state)
{
	uint8_t b[200];
	struct ob_walk w;
	struct ob_binary bin;
	struct ol_diag d;
	bool have;

	(void)state;
	memcpy(b, llvm_one_image, 160);
	memset(b + 160, 0, 40);
	ol_diag_clear(&d);
	ob_walk_init(&w, b, sizeof(b));
	assert_int_equal(ob_walk_next(&w, &bin, &have, &d), OL_OK);
	assert_true(have);
	ob_binary_free(&bin);
	assert_int_equal(ob_walk_next(&w, &bin, &have, &d), OL_E_TRAILING);
	assert_int_equal(d.offset, 160);
}

/* A version 2 value without a terminating NUL is copied out and still
 * reads as a C string of the declared size. */
static void v2_value_without_nul(void **state)
{
	struct ob_kv kv[] = { { "triple", "abcdef" } };
	struct ob_image_desc img = { 1, 1, 0, kv, 1, (const uint8_t *)"I", 1 };
	struct ol_buf out = { 0 };
	struct ob_encode_opts o = { 2, false, OL_COMP_ZLIB, 0 };
	struct ob_binary b;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ob_encode(&img, 1, &o, &out, &d), OL_OK);
	/* ValueSize 3: "abc" followed by 'd', not NUL. */
	ol_put_le64(out.data + 32 + 40 + 16, 3);
	assert_int_equal(ob_decode(out.data, out.len, &b, &d), OL_OK);
	assert_string_equal(ob_entry_get(&b.entries[0], "triple"), "abc");
	ob_binary_free(&b);
	ol_buf_free(&out);
}

/* A 20-byte module (SPIR-V 1.4, no instructions) in a container: the
 * layout LLVM 22's wrapper writes (docs/format.md, checked byte for byte
 * against it by tests/e2e/omp_spirv.sh), read back. */
static const uint8_t spirv_module[20] = { 0x03, 0x02, 0x23, 0x07, 0x00, 0x04, 0x01, 0x00,
					  0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 };

static void container_of(const uint8_t *m, size_t n, struct ol_buf *out)
{
	struct ol_pieces p = { 0 };
	struct ol_diag d;

	ol_diag_clear(&d);
	assert_int_equal(ol_spirv_container_encode(m, n, &p, &d), OL_OK);
	/* the module is referenced, not copied */
	assert_int_equal(p.n, 3);
	assert_ptr_equal(ol_piece_data(&p, 1), m);
	assert_int_equal(ol_pieces_flatten(&p, out), OL_OK);
	ol_pieces_free(&p);
}

static void spirv_container_layout(void **state)
{
	struct ol_buf b = { 0 };
	struct ol_spirv_container c;
	const char *field;
	uint64_t shoff;

	(void)state;
	container_of(spirv_module, sizeof(spirv_module), &b);
	/* header 0x40, notes 0x70, module, .strtab 1, .shstrtab 0x45, to 8 */
	shoff = (0xb0 + sizeof(spirv_module) + 1 + 0x45 + 7) & ~(uint64_t)7;
	assert_int_equal(b.len, shoff + 5 * 64);
	assert_int_equal(ol_le16(b.data + 16), 3);    /* ET_DYN */
	assert_int_equal(ol_le16(b.data + 18), 205);  /* EM_INTELGT */
	assert_int_equal(ol_le64(b.data + 40), shoff);
	assert_int_equal(ol_le16(b.data + 60), 5);
	assert_int_equal(ol_le16(b.data + 62), 4);
	assert_memory_equal(b.data + 0x4c, "INTELONEOMPOFFLOAD", 19);
	assert_memory_equal(b.data + 0x84, "0\0" "1\0", 5); /* the module's record */
	assert_memory_equal(b.data + 0xb0, spirv_module, sizeof(spirv_module));
	/* section 2 (the module): name 44, PROGBITS, at 0xb0, no alignment */
	assert_int_equal(ol_le32(b.data + shoff + 128), 44);
	assert_int_equal(ol_le32(b.data + shoff + 128 + 4), 1);
	assert_int_equal(ol_le64(b.data + shoff + 128 + 24), 0xb0);
	assert_int_equal(ol_le64(b.data + shoff + 128 + 48), 0);

	assert_null(ol_spirv_container_read(b.data, b.len, &c, &field));
	assert_string_equal(c.version, "1.0");
	assert_int_equal(c.images, 1);
	assert_int_equal(c.nmodules, 1);
	assert_int_equal(c.module_offset, 0xb0);
	assert_int_equal(c.module_size, sizeof(spirv_module));
	assert_int_equal(c.spirv_major, 1);
	assert_int_equal(c.spirv_minor, 4);
	ol_buf_free(&b);
}

static void spirv_container_damage(void **state)
{
	struct ol_buf b = { 0 };
	struct ol_spirv_container c;
	struct ol_pieces p = { 0 };
	struct ol_diag d;
	const char *field, *why;
	uint8_t *copy;

	(void)state;
	/* not a module: refused, nothing written */
	ol_diag_clear(&d);
	assert_int_equal(ol_spirv_container_encode((const uint8_t *)"\x7f" "ELF and more bytes..", 20, &p,
						    &d), OL_E_BAD_MAGIC);
	ol_pieces_free(&p);

	container_of(spirv_module, sizeof(spirv_module), &b);
	copy = malloc(b.len);
	assert_non_null(copy);
	/* section headers past the end */
	memcpy(copy, b.data, b.len);
	ol_put_le64(copy + 40, UINT64_MAX - 8);
	why = ol_spirv_container_read(copy, b.len, &c, &field);
	assert_non_null(why);
	assert_string_equal(field, "section headers");
	/* the module's size past the end (subtraction form: no wrap) */
	memcpy(copy, b.data, b.len);
	ol_put_le64(copy + ol_le64(b.data + 40) + 128 + 32, UINT64_MAX - 0xa0);
	assert_non_null(ol_spirv_container_read(copy, b.len, &c, &field));
	/* a note whose description runs past its section */
	memcpy(copy, b.data, b.len);
	ol_put_le32(copy + 0x44, 0xfffffff0u);
	why = ol_spirv_container_read(copy, b.len, &c, &field);
	assert_non_null(why);
	assert_string_equal(field, ".note.inteloneompoffload");
	/* the module is not SPIR-V */
	memcpy(copy, b.data, b.len);
	copy[0xb0] ^= 0xff;
	why = ol_spirv_container_read(copy, b.len, &c, &field);
	assert_non_null(why);
	assert_non_null(strstr(why, "not SPIR-V"));
	/* cut short: every prefix is refused, none read past its end */
	for (size_t n = 0; n < b.len; n++) {
		uint8_t *cut = malloc(n ? n : 1);

		assert_non_null(cut);
		memcpy(cut, b.data, n);
		assert_non_null(ol_spirv_container_read(cut, n, &c, &field));
		free(cut);
	}
	free(copy);
	ol_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spirv_container_layout),
		cmocka_unit_test(spirv_container_damage),
		cmocka_unit_test(strtab_matches_llvm),
		cmocka_unit_test(v1_writer_matches_llvm_bytes),
		cmocka_unit_test(head_is_the_encoding_prefix),
		cmocka_unit_test(decode_llvm_bytes),
		cmocka_unit_test(roundtrip_all_versions),
		cmocka_unit_test(decoder_rejects_bad_fields),
		cmocka_unit_test(walk_reports_trailing_bytes),
		cmocka_unit_test(v2_value_without_nul),
		cmocka_unit_test(v2_v3_writer_matches_llvm_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
