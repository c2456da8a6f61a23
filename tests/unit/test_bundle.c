/* Unit tests of the bundler formats: bundle IDs as LLVM 19 parses and
 * standardises them, the compatibility rules, binary and text round trips,
 * and compressed bundles in every version and method (zlib v1 and v3 are
 * not written by any LLVM on these machines, so round trips check them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "common/pieces.h"
#include "format/bundle.h"
#include "format/bundle_id.h"
#include "format/bundle_seq.h"
#include "format/ccob.h"

static struct ol_bundle_id id(const char *s)
{
	struct ol_bundle_id out;
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_bundle_id_parse(s, strlen(s), &out, &d))
		fail_msg("cannot parse %s: %s", s, d.detail);
	return out;
}

static void ids_are_standardised_like_llvm(void **state)
{
	static const char *const cases[][2] = {
		{ "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-" },
		{ "host-x86_64-unknown-linux", "host-x86_64-unknown-linux--" },
		{ "openmp-nvptx64-nvidia-cuda-sm_90", "openmp-nvptx64-nvidia-cuda--sm_90" },
		{ "openmp-nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda--" },
		{ "hipv4-amdgcn-amd-amdhsa-gfx90a:sramecc+:xnack-",
		  "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" },
		{ "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+" },
		{ "host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu-" },
		{ "openmp-nvptx64-nvidia-cuda-sm_90a", "openmp-nvptx64-nvidia-cuda--sm_90a" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(id(cases[i][0]).text, cases[i][1]);
	assert_string_equal(id("host-x86_64-unknown-linux-gnu-").env, "gnu");
}

static void bad_ids_are_rejected(void **state)
{
	struct ol_bundle_id out;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_bundle_id_parse("cuda-nvptx64-nvidia-cuda", 24, &out, &d), OL_E_BAD_TARGET);
	assert_non_null(strstr(d.detail, "unknown offloading kind 'cuda'"));
	assert_int_equal(ol_bundle_id_parse("openmp-foo-bar-baz", 18, &out, &d), OL_E_BAD_TARGET);
	assert_non_null(strstr(d.detail, "unknown target triple 'foo-bar-baz-'"));
	assert_int_equal(ol_bundle_id_parse("nodash", 6, &out, &d), OL_E_BAD_TARGET);
}

static void compatibility_rules(void **state)
{
	struct ol_bundle_id any = id("hip-amdgcn-amd-amdhsa-gfx90a");
	struct ol_bundle_id plus = id("hip-amdgcn-amd-amdhsa-gfx90a:xnack+");
	struct ol_bundle_id v4 = id("hipv4-amdgcn-amd-amdhsa-gfx90a");
	struct ol_bundle_id omp = id("openmp-amdgcn-amd-amdhsa-gfx90a");
	struct ol_bundle_id other = id("hip-amdgcn-amd-amdhsa-gfx908");
	struct ol_bundle_id h3 = id("host-x86_64-unknown-linux"), h4 = id("host-x86_64-unknown-linux-gnu");
	struct ol_bundle_id hpc = id("host-x86_64-pc-linux-gnu");

	(void)state;
	assert_true(ol_bundle_id_compatible(&any, &plus, false));  /* any serves + */
	assert_false(ol_bundle_id_compatible(&plus, &any, false)); /* + does not serve any */
	assert_true(ol_bundle_id_compatible(&v4, &any, false));    /* hip ~ hipv4 */
	assert_false(ol_bundle_id_compatible(&omp, &any, false));
	assert_true(ol_bundle_id_compatible(&omp, &any, true));    /* -hip-openmp-compatible */
	assert_false(ol_bundle_id_compatible(&other, &any, false));
	assert_false(ol_bundle_id_compatible(&h3, &h4, false));     /* env "" vs gnu */
	assert_false(ol_bundle_id_compatible(&h4, &hpc, false));    /* unknown vs pc */
	assert_true(ol_bundle_id_compatible(&h4, &h4, false));
}

static void binary_and_text_round_trip(void **state)
{
	struct ol_bundle_entry in[] = {
		{ "host-x86_64-unknown-linux-gnu-", 30, (const uint8_t *)"HOST\n", 5 },
		{ "openmp-nvptx64-nvidia-cuda--sm_90", 33, (const uint8_t *)"", 0 },
		{ "hip-amdgcn-amd-amdhsa--gfx90a", 29, (const uint8_t *)"no newline", 10 },
	};
	static const char *const comments[] = { "//", ";", "#" };
	struct ol_buf out = { 0 };
	struct ol_bundle b;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	for (uint64_t align = 1; align <= 4096; align *= 8) {
		struct ol_pieces pc = { 0 };

		out.len = 0;
		assert_int_equal(ol_bundle_encode_binary(in, 3, align, &pc, &d), OL_OK);
		assert_int_equal(ol_pieces_flatten(&pc, &out), OL_OK);
		ol_pieces_free(&pc);
		assert_int_equal(ol_bundle_decode_binary(out.data, out.len, &b, &d), OL_OK);
		assert_int_equal(b.n, 3);
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(b.entries[i].size, in[i].size);
			assert_memory_equal(b.entries[i].data, in[i].data, in[i].size);
			assert_int_equal((b.entries[i].data - out.data) % align, 0);
		}
		ol_bundle_free(&b);
	}
	for (size_t c = 0; c < 3; c++) {
		struct ol_pieces pc = { 0 };

		out.len = 0;
		assert_int_equal(ol_bundle_encode_text(in, 3, comments[c], &pc), OL_OK);
		assert_int_equal(ol_pieces_flatten(&pc, &out), OL_OK);
		ol_pieces_free(&pc);
		assert_int_equal(ol_bundle_decode_text(out.data, out.len, comments[c], &b, &d), OL_OK);
		assert_int_equal(b.n, 3);
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(b.entries[i].id_len, in[i].id_len);
			assert_memory_equal(b.entries[i].id, in[i].id, in[i].id_len);
			assert_int_equal(b.entries[i].size, in[i].size); /* exact, newline or not */
			assert_memory_equal(b.entries[i].data, in[i].data, in[i].size);
		}
		ol_bundle_free(&b);
	}
	/* Plain text without markers: no entries, not an error. */
	assert_int_equal(ol_bundle_decode_text((const uint8_t *)"int x;\n", 7, "//", &b, &d), OL_OK);
	assert_int_equal(b.n, 0);
	ol_buf_free(&out);
}

/* Version 1 is read only (LLVM 18 wrote it): build one by hand. */
static void build_v1(const uint8_t *p, size_t len, enum ol_compression m, struct ol_buf *out)
{
	struct ol_ccob_info info;
	struct ol_buf v2 = { 0 };
	struct ol_diag d;

	ol_diag_clear(&d);
	assert_int_equal(ol_ccob_encode(p, len, 2, m, 6, &v2, &info, &d), OL_OK);
	ol_buf_append(out, "CCOB", 4);
	ol_buf_le16(out, 1);
	ol_buf_le16(out, (uint16_t)m);
	ol_buf_le32(out, (uint32_t)len);
	ol_buf_append(out, v2.data + 16, 8);           /* hash */
	ol_buf_append(out, v2.data + 24, v2.len - 24); /* stream */
	ol_buf_free(&v2);
}

static void ccob_every_version_and_method(void **state)
{
	static const enum ol_compression methods[] = { OL_COMP_ZLIB, OL_COMP_ZSTD };
	uint8_t data[20000];
	struct ol_ccob_info info, back;
	struct ol_diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 % 61);
	ol_diag_clear(&d);
	for (size_t m = 0; m < 2; m++) {
		for (unsigned v = 1; v <= 3; v++) {
			struct ol_buf z = { 0 }, out = { 0 };

			if (v == 1)
				build_v1(data, sizeof(data), methods[m], &z);
			else
				assert_int_equal(ol_ccob_encode(data, sizeof(data), v, methods[m], 3,
								&z, &info, &d), OL_OK);
			assert_int_equal(ol_ccob_decode(z.data, z.len, &out, &back, &d), OL_OK);
			assert_int_equal(back.version, v);
			assert_int_equal(back.method, methods[m]);
			assert_int_equal(out.len, sizeof(data));
			assert_memory_equal(out.data, data, sizeof(data));
			assert_memory_equal(back.hash, back.computed, 8);
			ol_buf_free(&z);
			ol_buf_free(&out);
		}
	}
}

/* Bundles back to back: a binary one, every version and method of a
 * compressed one (v1 delimited by its stream), with and without padding
 * between them; then junk after one. */
static void bundles_back_to_back(void **state)
{
	static const enum ol_compression methods[] = { OL_COMP_ZLIB, OL_COMP_ZSTD };
	struct ol_bundle_entry in[] = {
		{ "host-x86_64-unknown-linux-gnu-", 30, (const uint8_t *)"", 0 },
		{ "hip-amdgcn-amd-amdhsa--gfx90a", 29, (const uint8_t *)"CODE", 4 },
	};
	struct ol_buf plain = { 0 }, seq = { 0 };
	struct ol_pieces pc = { 0 };
	struct ol_span *v;
	size_t n, want[8], nwant = 0;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_bundle_encode_binary(in, 2, 4096, &pc, &d), OL_OK);
	assert_int_equal(ol_pieces_flatten(&pc, &plain), OL_OK);
	ol_pieces_free(&pc);
	for (size_t k = 0; k < 7; k++) {
		struct ol_ccob_info info;
		size_t at;

		if (k % 2) /* padding to 4096, as the linker aligns sections */
			ol_buf_zeros(&seq, (4096 - seq.len % 4096) % 4096);
		at = seq.len;
		if (k == 0)
			ol_buf_append(&seq, plain.data, plain.len);
		else if (k <= 2)
			build_v1(plain.data, plain.len, methods[k - 1], &seq);
		else
			assert_int_equal(ol_ccob_encode(plain.data, plain.len, 2 + (k - 3) / 2,
							methods[(k - 3) % 2], 3, &seq, &info, &d), OL_OK);
		want[nwant++] = at;
	}
	ol_buf_zeros(&seq, 100);
	assert_int_equal(ol_bundle_spans(seq.data, seq.len, &v, &n, &d), OL_OK);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++) {
		struct ol_buf out = { 0 };
		struct ol_ccob_info info;

		assert_int_equal(v[i].offset, want[i]);
		assert_int_equal(ol_is_ccob(seq.data + v[i].offset, v[i].size), i > 0);
		if (i > 0) {
			assert_int_equal(ol_ccob_decode(seq.data + v[i].offset, v[i].size, &out, &info,
							&d), OL_OK);
			assert_int_equal(out.len, plain.len);
			assert_memory_equal(out.data, plain.data, plain.len);
		} else {
			assert_int_equal(v[i].size, plain.len);
		}
		ol_buf_free(&out);
	}
	free(v);
	/* one byte of junk in the padding after bundle 2 */
	seq.data[want[3] - 1] = 'J';
	assert_int_not_equal(ol_bundle_spans(seq.data, seq.len, &v, &n, &d), OL_OK);
	assert_true(d.has_offset);
	assert_int_equal(d.offset, want[3] - 1);
	assert_null(v);
	/* no bundle at all: none, no error */
	assert_int_equal(ol_bundle_spans((const uint8_t *)"ELF", 3, &v, &n, &d), OL_OK);
	assert_int_equal(n, 0);
	ol_buf_free(&plain);
	ol_buf_free(&seq);
}

static void ccob_hash_text_like_llvm(void **state)
{
	static const uint8_t stored[8] = { 0xff, 0x2f, 0x54, 0xad, 0xb0, 0x08, 0x9f, 0x97 };
	static const uint8_t small[8] = { 0xd4, 0xdd, 0xc1, 0x98, 0xfd, 0x08, 0xb2, 0x04 };
	char s[32];

	(void)state;
	ol_ccob_hash_text(stored, s, sizeof(s));
	assert_string_equal(s, "0x979f08b0ad542fff");
	ol_ccob_hash_text(small, s, sizeof(s));
	assert_string_equal(s, "0x4b208fd98c1ddd4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_standardised_like_llvm),
		cmocka_unit_test(bad_ids_are_rejected),
		cmocka_unit_test(compatibility_rules),
		cmocka_unit_test(binary_and_text_round_trip),
		cmocka_unit_test(ccob_every_version_and_method),
		cmocka_unit_test(ccob_hash_text_like_llvm),
		cmocka_unit_test(bundles_back_to_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
