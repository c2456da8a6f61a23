#include "format/compress.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

uint64_t ol_inflate_max(uint64_t stored)
{
	return stored > (UINT64_MAX - OL_INFLATE_SLACK) / OL_INFLATE_RATIO
		       ? UINT64_MAX : stored * OL_INFLATE_RATIO + OL_INFLATE_SLACK;
}

enum ol_compression ol_compression_sniff(const uint8_t *p, size_t len)
{
	if (len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return OL_COMP_ZSTD;
	return OL_COMP_ZLIB;
}

const char *ol_compression_name(enum ol_compression m)
{
	return m == OL_COMP_ZSTD ? "zstd" : "zlib";
}

int ol_compression_default_level(enum ol_compression m)
{
	return m == OL_COMP_ZSTD ? 3 : 6;
}

void ol_compression_level_range(enum ol_compression m, int *lo, int *hi)
{
	if (m == OL_COMP_ZSTD) {
		*lo = -5;
		*hi = 22;
	} else {
		*lo = 0;
		*hi = 9;
	}
}

static enum ol_err zstd_compress(int level, int ldm, const uint8_t *src,
				 size_t len, struct ol_buf *out,
				 struct ol_diag *d)
{
	size_t bound = ZSTD_compressBound(len), n;
	ZSTD_CCtx *cctx;

	if (ol_buf_reserve(out, bound))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	cctx = ZSTD_createCCtx();
	if (!cctx)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (ldm)
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1);
	n = ZSTD_compress2(cctx, out->data + out->len, bound, src, len);
	ZSTD_freeCCtx(cctx);
	if (ZSTD_isError(n))
		return ol_diag_set(d, OL_E_COMPRESS, NULL, "zstd: %s",
				   ZSTD_getErrorName(n));
	out->len += n;
	return OL_OK;
}

static enum ol_err zlib_compress(int level, const uint8_t *src, size_t len,
				 struct ol_buf *out, struct ol_diag *d)
{
	uLongf n;
	int rc;

	if (len > ULONG_MAX / 2)
		return ol_diag_set(d, OL_E_COMPRESS, NULL, "input too large");
	n = compressBound((uLong)len);
	if (ol_buf_reserve(out, n))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	rc = compress2(out->data + out->len, &n, src, (uLong)len, level);
	if (rc != Z_OK)
		return ol_diag_set(d, OL_E_COMPRESS, NULL, "zlib error %d", rc);
	out->len += n;
	return OL_OK;
}

enum ol_err ol_compress(enum ol_compression m, int level, int ldm,
			const uint8_t *src, size_t len, struct ol_buf *out,
			struct ol_diag *d)
{
	if (m == OL_COMP_ZSTD)
		return zstd_compress(level, ldm, src, len, out, d);
	return zlib_compress(level, src, len, out, d);
}

/* Room for the next piece of output: at most what is still expected, and
 * at most 1 MiB at a time so bogus sizes cost nothing up front. */
static size_t next_chunk(uint64_t remaining)
{
	return remaining < (1u << 20) ? (size_t)remaining : (1u << 20);
}

/* A stream that ended must have held exactly the declared size. */
static enum ol_err check_size(uint64_t produced, uint64_t expect, struct ol_diag *d)
{
	if (produced != expect)
		return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
				   "stream holds %llu bytes, %llu declared",
				   (unsigned long long)produced,
				   (unsigned long long)expect);
	return OL_OK;
}

static enum ol_err zstd_decompress(const uint8_t *src, size_t len,
				   uint64_t expect, struct ol_buf *out,
				   struct ol_diag *d)
{
	ZSTD_inBuffer in = { src, len, 0 };
	uint64_t produced = 0;
	size_t rc = 1;
	ZSTD_DCtx *dctx = ZSTD_createDCtx();

	if (!dctx)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	while (in.pos < in.size) {
		size_t room = next_chunk(expect - produced);
		ZSTD_outBuffer ob;

		/* Probe with one spare byte so overlong streams are caught. */
		if (ol_buf_reserve(out, room + 1)) {
			ZSTD_freeDCtx(dctx);
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
		ob = (ZSTD_outBuffer){ out->data + out->len, room + 1, 0 };
		rc = ZSTD_decompressStream(dctx, &ob, &in);
		if (ZSTD_isError(rc)) {
			ZSTD_freeDCtx(dctx);
			return ol_diag_set(d, OL_E_DECOMPRESS, NULL, "zstd: %s",
					   ZSTD_getErrorName(rc));
		}
		out->len += ob.pos;
		produced += ob.pos;
		if (produced > expect) {
			ZSTD_freeDCtx(dctx);
			return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
					   "stream holds more than the declared %llu bytes",
					   (unsigned long long)expect);
		}
		if (ob.pos == 0 && in.pos < in.size && rc != 0 && room == 0)
			break;
	}
	ZSTD_freeDCtx(dctx);
	if (rc != 0)
		return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
				   "zstd stream is truncated");
	return check_size(produced, expect, d);
}

static enum ol_err zlib_decompress(const uint8_t *src, size_t len,
				   uint64_t expect, struct ol_buf *out,
				   struct ol_diag *d)
{
	z_stream zs;
	uint64_t produced = 0;
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	zs.next_in = (Bytef *)(uintptr_t)src;
	while (rc != Z_STREAM_END) {
		size_t room = next_chunk(expect - produced) + 1;
		size_t avail_in_before;

		if (ol_buf_reserve(out, room)) {
			inflateEnd(&zs);
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
		/* zlib counts in uInt; feed at most 1 GiB of input at once. */
		avail_in_before = len - (size_t)(zs.next_in - src);
		zs.avail_in = (uInt)(avail_in_before > (1u << 30) ? (1u << 30)
								   : avail_in_before);
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt)room;
		rc = inflate(&zs, Z_NO_FLUSH);
		out->len += room - zs.avail_out;
		produced += room - zs.avail_out;
		if (produced > expect) {
			inflateEnd(&zs);
			return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
					   "stream holds more than the declared %llu bytes",
					   (unsigned long long)expect);
		}
		if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
			inflateEnd(&zs);
			return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
					   "zlib stream is truncated");
		}
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			inflateEnd(&zs);
			return ol_diag_set(d, OL_E_DECOMPRESS, NULL, "zlib: %s",
					   zs.msg ? zs.msg : "data error");
		}
	}
	inflateEnd(&zs);
	if ((size_t)(zs.next_in - src) != len)
		return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
				   "%zu bytes after the end of the zlib stream",
				   len - (size_t)(zs.next_in - src));
	return check_size(produced, expect, d);
}

enum ol_err ol_decompress(enum ol_compression m, const uint8_t *src,
			  size_t len, uint64_t expect, struct ol_buf *out,
			  struct ol_diag *d)
{
	if (m == OL_COMP_ZSTD)
		return zstd_decompress(src, len, expect, out, d);
	return zlib_decompress(src, len, expect, out, d);
}

/* zlib: inflate into a scratch buffer until the stream's end, and no
 * further than the expect bytes it says it holds (a small stream that
 * inflates without end is not read to its end). */
static enum ol_err zlib_length(const uint8_t *src, size_t len, uint64_t expect, size_t *used,
			       struct ol_diag *d)
{
	z_stream zs = { 0 };
	uint8_t scratch[16384];
	int rc = Z_OK;

	if (inflateInit(&zs) != Z_OK)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	zs.next_in = (Bytef *)(uintptr_t)src;
	while (rc == Z_OK) {
		size_t chunk = len - (size_t)((const uint8_t *)zs.next_in - src);

		zs.avail_in = chunk > UINT32_MAX ? UINT32_MAX : (uInt)chunk;
		zs.next_out = scratch;
		zs.avail_out = sizeof(scratch);
		rc = inflate(&zs, Z_NO_FLUSH);
		if (rc == Z_BUF_ERROR && zs.avail_in == 0)
			break; /* the input ended first */
		if (zs.total_out > expect)
			break; /* more than it says: its end is not looked for */
	}
	*used = (size_t)((const uint8_t *)zs.next_in - src);
	inflateEnd(&zs);
	if (rc == Z_STREAM_END)
		return OL_OK;
	if (zs.total_out > expect)
		return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
				   "the zlib stream holds more than the %llu bytes declared",
				   (unsigned long long)expect);
	return ol_diag_set(d, OL_E_DECOMPRESS, NULL,
			   "the zlib stream does not end within its %zu bytes", len);
}

enum ol_err ol_compressed_length(enum ol_compression m, const uint8_t *src, size_t len,
				 uint64_t expect, size_t *used, struct ol_diag *d)
{
	size_t n;

	if (m == OL_COMP_ZLIB)
		return zlib_length(src, len, expect, used, d);
	n = ZSTD_findFrameCompressedSize(src, len);
	if (ZSTD_isError(n))
		return ol_diag_set(d, OL_E_DECOMPRESS, NULL, "zstd: %s", ZSTD_getErrorName(n));
	*used = n;
	return OL_OK;
}
