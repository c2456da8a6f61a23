/* format/cuda_fatbin.c: NVIDIA fat binaries built by hand (the real ones,
 * from nvcc and fatbinary, are read in tests/cli/inspect_containers.sh):
 * plain, zstd and LZ entries, several fat binaries back to back, and
 * every bound the decoder checks; and extract/nvcc_rdc.c's offload binary
 * of an nvcc module with more entries than any nvcc writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/le.h"
#include "format/compress.h"
#include "extract/nvcc_rdc.h"
#include "format/cuda_fatbin.h"
#include "format/ptx_symbols.h"

/* Append one entry: kind, SM, flags, the payload as stored (padded to 8),
 * its stored and uncompressed sizes. */
static void entry(struct ol_buf *b, unsigned kind, unsigned sm, uint64_t flags,
		  const void *data, size_t stored, uint64_t size)
{
	size_t padded = (stored + 7) & ~(size_t)7;

	ol_buf_le16(b, (uint16_t)kind);
	ol_buf_le16(b, 0x0101);
	ol_buf_le32(b, 64);
	ol_buf_le64(b, padded);
	ol_buf_le32(b, (flags & (OL_FATBIN_FLAG_ZSTD | OL_FATBIN_FLAG_LZ)) ? (uint32_t)stored : 0);
	ol_buf_le32(b, 0);
	ol_buf_le16(b, 8);
	ol_buf_le16(b, 1);
	ol_buf_le32(b, sm);
	ol_buf_le32(b, 0);
	ol_buf_le32(b, 0);
	ol_buf_le64(b, flags);
	ol_buf_le64(b, 0);
	ol_buf_le64(b, (flags & (OL_FATBIN_FLAG_ZSTD | OL_FATBIN_FLAG_LZ)) ? size : 0);
	ol_buf_append(b, data, stored);
	ol_buf_zeros(b, padded - stored);
}

/* A fat binary of the entries in body. */
static void wrap(struct ol_buf *out, const struct ol_buf *body)
{
	ol_buf_le32(out, OL_FATBIN_MAGIC);
	ol_buf_le16(out, 1);
	ol_buf_le16(out, 16);
	ol_buf_le64(out, body->len);
	ol_buf_append(out, body->data, body->len);
}

/* The offload binary of an nvcc module (extract/nvcc_rdc.h) whose fat
 * binary holds the entries in body (kept in fb). */
static enum ol_err module_binary(const struct ol_buf *body, struct ol_buf *fb, struct ob_binary *b)
{
	struct ol_nvcc_module m = { .id = "m_test" };
	struct ol_diag d;

	wrap(fb, body);
	m.fatbin = fb->data;
	m.fatbin_size = fb->len;
	ol_diag_clear(&d);
	return ol_nvcc_binary(&m, b, &d);
}

static const char cubin[] = "\177ELF a cubin of some length, for sm_90 and sm_80";
static const char ptx[] = ".version 9.0\n.target sm_90\n";

static void three_compressions(void **state)
{
	/* LZ: "ABCD", then 8 bytes from 4 back, then "XY" */
	static const uint8_t lz[] = { 0x44, 'A', 'B', 'C', 'D', 4, 0, 0x20, 'X', 'Y' };
	struct ol_buf body = { 0 }, fb = { 0 }, z = { 0 };
	struct ol_fatbin f;
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_compress(OL_COMP_ZSTD, 3, 0, (const uint8_t *)ptx, sizeof(ptx) - 1, &z, &d),
			 OL_OK);
	entry(&body, OL_FATBIN_ELF, 90, 0x11, cubin, sizeof(cubin) - 1, 0);
	entry(&body, OL_FATBIN_PTX, 90, 0x11 | OL_FATBIN_FLAG_ZSTD, z.data, z.len, sizeof(ptx) - 1);
	entry(&body, OL_FATBIN_ELF, 80, 0x11 | OL_FATBIN_FLAG_LZ, lz, sizeof(lz), 14);
	wrap(&fb, &body);
	assert_int_equal(ol_fatbin_decode(fb.data, fb.len, &f, &d), OL_OK);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.size, fb.len);
	for (size_t i = 0; i < 3; i++) {
		struct ol_buf out = { 0 };
		const uint8_t *p;
		size_t n;

		assert_int_equal(ol_fatbin_entry_code(&f.v[i], &out, &p, &n, &d), OL_OK);
		if (i == 0) {
			assert_int_equal(n, sizeof(cubin) - 1);
			assert_memory_equal(p, cubin, n);
			assert_null(ol_fatbin_compression(&f.v[i]));
		} else if (i == 1) {
			assert_int_equal(n, sizeof(ptx) - 1);
			assert_memory_equal(p, ptx, n);
			assert_string_equal(ol_fatbin_compression(&f.v[i]), "zstd");
		} else {
			assert_int_equal(n, 14);
			assert_memory_equal(p, "ABCDABCDABCDXY", 14);
			assert_int_equal(f.v[i].arch, 80);
			assert_string_equal(ol_fatbin_compression(&f.v[i]), "lz");
		}
		ol_buf_free(&out);
	}
	ol_fatbin_free(&f);
	ol_buf_free(&body);
	ol_buf_free(&fb);
	ol_buf_free(&z);
}

static void back_to_back_and_bounds(void **state)
{
	struct ol_buf body = { 0 }, fb = { 0 }, two = { 0 };
	struct ol_fatbin f;
	struct ol_diag d;
	struct ol_span *offs;
	size_t n;

	(void)state;
	ol_diag_clear(&d);
	entry(&body, OL_FATBIN_ELF, 90, 0x11, cubin, sizeof(cubin) - 1, 0);
	wrap(&fb, &body);
	ol_buf_append(&two, fb.data, fb.len);
	ol_buf_zeros(&two, 24);
	ol_buf_append(&two, fb.data, fb.len);
	assert_int_equal(ol_fatbin_spans(two.data, two.len, &offs, &n, &d), OL_OK);
	assert_int_equal(n, 2);
	assert_int_equal(offs[0].offset, 0);
	assert_int_equal(offs[1].offset, fb.len + 24);
	free(offs);
	two.data[fb.len + 3] = 'J';
	assert_int_not_equal(ol_fatbin_spans(two.data, two.len, &offs, &n, &d), OL_OK);
	assert_int_equal(d.offset, fb.len + 3);
	/* each field out of bounds */
	for (size_t cut = 0; cut < fb.len; cut++) {
		ol_diag_clear(&d);
		if (ol_fatbin_decode(fb.data, cut, &f, &d) == OL_OK)
			fail_msg("a fat binary cut to %zu bytes decoded", cut);
	}
	ol_put_le64(fb.data + 8, 1u << 30);   /* size past the end */
	assert_int_equal(ol_fatbin_decode(fb.data, fb.len, &f, &d), OL_E_OUT_OF_BOUNDS);
	ol_put_le64(fb.data + 8, body.len);
	ol_put_le32(fb.data + 16 + 4, 8);     /* header smaller than 64 */
	assert_int_equal(ol_fatbin_decode(fb.data, fb.len, &f, &d), OL_E_OUT_OF_BOUNDS);
	ol_put_le32(fb.data + 16 + 4, 64);
	ol_put_le64(fb.data + 16 + 40, 0x11 | OL_FATBIN_FLAG_ZSTD); /* compressed, size 0 */
	assert_int_not_equal(ol_fatbin_decode(fb.data, fb.len, &f, &d), OL_OK);
	ol_put_le64(fb.data + 16 + 40, 0x11);
	ol_put_le16(fb.data + 4, 2);          /* version */
	assert_int_equal(ol_fatbin_decode(fb.data, fb.len, &f, &d), OL_E_BAD_VERSION);
	ol_buf_free(&body);
	ol_buf_free(&fb);
	ol_buf_free(&two);
}

static void lz_bounds(void **state)
{
	static const uint8_t far[] = { 0x04, 'A', 'B', 'C', 'D', 9, 0 };   /* offset 9 of 4 */
	static const uint8_t cut[] = { 0x4f, 'A', 'B', 'C', 'D', 1, 0 };   /* length ends early */
	static const uint8_t zero[] = { 0x40, 'A', 'B', 'C', 'D', 0, 0 };  /* offset 0 */
	struct ol_buf out = { 0 };
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_int_equal(ol_fatbin_unlz(far, sizeof(far), 12, &out, &d), OL_E_DECOMPRESS);
	assert_int_equal(ol_fatbin_unlz(cut, sizeof(cut), 40, &out, &d), OL_E_DECOMPRESS);
	assert_int_equal(ol_fatbin_unlz(zero, sizeof(zero), 8, &out, &d), OL_E_DECOMPRESS);
	/* more than declared */
	assert_int_equal(ol_fatbin_unlz((const uint8_t *)"\x40" "ABCD", 5, 3, &out, &d),
			 OL_E_DECOMPRESS);
	assert_int_equal(out.len, 0);
	ol_buf_free(&out);
}

/* Issue 39, item 4: finding which PTX entries of an nvcc module to keep
 * was a scan of every entry for each PTX entry: 100,000 entries took 13 s
 * (200 s under ASan).  Here 300,000 PTX entries for compute_90, 300,000
 * cubins for sm_90 and a PTX for compute_80: three images come out, one
 * cubin per SM and one PTX per virtual architecture (issue 38: PTX beside
 * a cubin of its SM is kept, for newer GPUs; and every later step is
 * linear in a module's images only if they are few).  The alarm only
 * catches a hang -- the quadratic scan needs minutes here, the linear one
 * well under a second (a few under ASan) -- it asserts no time. */
static void nvcc_ptx_entries_are_linear(void **state)
{
	enum { N = 300000 };
	struct ol_buf body = { 0 }, fb = { 0 };
	struct ob_binary b;

	(void)state;
	for (size_t i = 0; i < N; i++)
		entry(&body, OL_FATBIN_PTX, 90, 0x11, ptx, sizeof(ptx) - 1, 0);
	for (size_t i = 0; i < N; i++)
		entry(&body, OL_FATBIN_ELF, 90, 0x11, cubin, sizeof(cubin) - 1, 0);
	entry(&body, OL_FATBIN_PTX, 80, 0x11, ptx, sizeof(ptx) - 1, 0);
	alarm(60);
	assert_int_equal(module_binary(&body, &fb, &b), OL_OK);
	alarm(0);
	assert_int_equal(b.nentries, 3);
	assert_int_equal(b.entries[0].image_kind, OB_IMG_PTX);
	assert_string_equal(ob_entry_get(&b.entries[0], "arch"), "compute_90");
	assert_int_equal(b.entries[1].image_kind, OB_IMG_CUBIN);
	assert_string_equal(ob_entry_get(&b.entries[1], "arch"), "sm_90");
	assert_int_equal(b.entries[2].image_kind, OB_IMG_PTX);
	assert_string_equal(ob_entry_get(&b.entries[2], "arch"), "compute_80");
	ob_binary_free(&b);
	ol_buf_free(&body);
	ol_buf_free(&fb);
}

/* Issue 44, item 8: nvcc 13 marks code for one SM exactly (-arch=sm_90a,
 * compute_90a PTX) with flag 0x100000 and for a family (sm_100f) with
 * 0x200000, the SM number alone; the module's images keep the suffix, and
 * sm_90 beside sm_90a is two targets, each kept. */
static void arch_suffixes(void **state)
{
	struct ol_buf body = { 0 }, fb = { 0 };
	struct ob_binary b;

	(void)state;
	entry(&body, OL_FATBIN_ELF, 90, 0x100011, cubin, sizeof(cubin) - 1, 0);
	entry(&body, OL_FATBIN_ELF, 90, 0x11, cubin, sizeof(cubin) - 1, 0);
	entry(&body, OL_FATBIN_PTX, 90, 0x100011, ptx, sizeof(ptx) - 1, 0);
	entry(&body, OL_FATBIN_ELF, 100, 0x1200011, cubin, sizeof(cubin) - 1, 0);
	entry(&body, OL_FATBIN_ELF, 90, 0x100011, cubin, sizeof(cubin) - 1, 0);
	assert_int_equal(module_binary(&body, &fb, &b), OL_OK);
	assert_int_equal(b.nentries, 4);
	assert_string_equal(ob_entry_get(&b.entries[0], "arch"), "sm_90a");
	assert_string_equal(ob_entry_get(&b.entries[1], "arch"), "sm_90");
	assert_string_equal(ob_entry_get(&b.entries[2], "arch"), "compute_90a");
	assert_string_equal(ob_entry_get(&b.entries[3], "arch"), "sm_100f");
	ob_binary_free(&b);
	ol_buf_free(&body);
	ol_buf_free(&fb);
}

static enum ol_err ptx_symbol(void *ctx, const struct ol_ptx_symbol *s, struct ol_diag *d)
{
	(void)d;
	ol_buf_printf(ctx, "%s%s%s %.*s\n", s->defined ? "D" : "U", s->weak ? "W" : "",
		      s->function ? "F" : "V", (int)s->len, s->name);
	return OL_OK;
}

/* The PTX symbol reader (format/ptx_symbols.h) on what nvcc writes: line
 * directives without ';' (a word on them is no name), comments, a string,
 * return parameters before a function's name, an initializer in brackets,
 * a body, a .section of debug data, dynamic shared memory (no symbol); and
 * text that ends inside a bracket or a comment. */
static void ptx_symbols(void **state)
{
	static const char text[] =
		"//\n// Generated by NVIDIA NVVM Compiler\n//\n"
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".file 1 \"/tmp/x.cu\"\n"
		"/* .visible .func hidden_in_a_comment; */\n"
		".extern .func  (.param .b32 func_retval0) nv_twice\n(\n\t.param .b32 nv_twice_param_0\n)\n;\n"
		".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
		".visible .global .align 4 .b8 coef[16] = {0, 0, 128, 63};\n"
		".visible .global .attribute(.managed) .align 4 .u32 count = 7;\n"
		".extern .global .align 4 .u32 other;\n"
		".extern .shared .align 16 .b8 smem[];\n"
		".weak .entry _Z4fillIiEvPT_(\n\t.param .u64 p\n)\n.maxntid 256, 1, 1\n{\n"
		"\tcall.uni (retval0), nv_twice, (param0);\n\t{ .reg .b32 t; }\n\tret;\n}\n"
		".func internal(){ ret; }\n"
		".section .debug_abbrev\n{\n.b8 17\n.b8 1\n}\n"
		".visible .func  (.param .b32 func_retval0) cl_plus(\n\t.param .b32 x\n)\n{\n\tret;\n}\n";
	struct ol_buf out = { 0 };
	struct ol_diag d;

	(void)state;
	ol_diag_clear(&d);
	assert_true(ol_is_ptx((const uint8_t *)text, sizeof(text) - 1));
	assert_false(ol_is_ptx((const uint8_t *)"\177ELF", 4));
	assert_int_equal(ol_ptx_for_each_symbol((const uint8_t *)text, sizeof(text) - 1, ptx_symbol,
						&out, &d), OL_OK);
	ol_buf_zeros(&out, 1);
	assert_string_equal((char *)out.data, "UF nv_twice\nDV coef\nDV count\nUV other\n"
					      "DWF _Z4fillIiEvPT_\nDF cl_plus\n");
	ol_buf_free(&out);
	assert_int_equal(ol_ptx_for_each_symbol((const uint8_t *)".visible .entry k() {", 21,
						ptx_symbol, &out, &d), OL_E_TRUNCATED);
	ol_diag_clear(&d);
	assert_int_equal(ol_ptx_for_each_symbol((const uint8_t *)"/* .visible", 11, ptx_symbol,
						&out, &d), OL_E_TRUNCATED);
	assert_int_equal(out.len, 0);
	ol_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_compressions),
		cmocka_unit_test(back_to_back_and_bounds),
		cmocka_unit_test(lz_bounds),
		cmocka_unit_test(nvcc_ptx_entries_are_linear),
		cmocka_unit_test(ptx_symbols),
		cmocka_unit_test(arch_suffixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
