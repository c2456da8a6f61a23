#include "format/ccob.h"

#include <inttypes.h>
#include <md5.h>
#include <stdio.h>
#include <string.h>

#include "common/le.h"

bool ol_is_ccob(const uint8_t *p, size_t len)
{
	return len >= 4 && memcmp(p, "CCOB", 4) == 0;
}

static void truncated_md5(const uint8_t *p, size_t len, uint8_t out[8])
{
	uint8_t digest[MD5_DIGEST_LENGTH];
	MD5_CTX ctx;

	MD5Init(&ctx);
	MD5Update(&ctx, p, len);
	MD5Final(digest, &ctx);
	memcpy(out, digest, 8);
}

void ol_ccob_hash_text(const uint8_t hash[8], char *out, size_t len)
{
	/* LLVM prints format_hex(v, 16): "0x" and at least 14 digits. */
	snprintf(out, len, "0x%014" PRIx64, ol_le64(hash));
}

static size_t header_size(unsigned version)
{
	return version == 1 ? 20 : version == 2 ? 24 : 32;
}

/* The uncompressed size the header declares, against what its compressed
 * bytes may inflate to (format/compress.h): refused before anything is
 * inflated. */
static enum ol_err check_ratio(const struct ol_ccob_info *info, struct ol_diag *d)
{
	if (info->uncompressed_size <= ol_inflate_max(info->compressed_size))
		return OL_OK;
	return ol_diag_at(d, OL_E_BAD_FIELD, info->version == 3 ? 16 : info->version == 2 ? 12 : 8,
			  "UncompressedSize", "%llu bytes from %llu compressed: more than %u times "
			  "as much, plus %u bytes", (unsigned long long)info->uncompressed_size,
			  (unsigned long long)info->compressed_size, OL_INFLATE_RATIO,
			  OL_INFLATE_SLACK);
}

/* exact: the bundle is all of p[0..len) (decoding); else it begins
 * there and may be followed by more (its extent). */
static enum ol_err read_header(const uint8_t *p, size_t len, bool exact,
			       struct ol_ccob_info *info, struct ol_diag *d)
{
	size_t hs;

	if (len < 8)
		return ol_diag_at(d, OL_E_TRUNCATED, 0, "Version", "%zu bytes", len);
	info->version = ol_le16(p + 4);
	info->method = (enum ol_compression)ol_le16(p + 6);
	if (info->version < 1 || info->version > 3)
		return ol_diag_at(d, OL_E_BAD_VERSION, 4, "Version",
				  "compressed bundle version %u; offlink reads 1 to 3",
				  info->version);
	if (info->method != OL_COMP_ZLIB && info->method != OL_COMP_ZSTD)
		return ol_diag_at(d, OL_E_BAD_FIELD, 6, "Method",
				  "unknown compression method %u", (unsigned)info->method);
	hs = header_size(info->version);
	if (len < hs)
		return ol_diag_at(d, OL_E_TRUNCATED, 8, "header",
				  "%zu bytes, a version %u header has %zu", len,
				  info->version, hs);
	if (info->version == 1) {
		info->uncompressed_size = ol_le32(p + 8);
		memcpy(info->hash, p + 12, 8);
		info->total_size = 0;
	} else if (info->version == 2) {
		info->total_size = ol_le32(p + 8);
		info->uncompressed_size = ol_le32(p + 12);
		memcpy(info->hash, p + 16, 8);
	} else {
		info->total_size = ol_le64(p + 8);
		info->uncompressed_size = ol_le64(p + 16);
		memcpy(info->hash, p + 24, 8);
	}
	if (info->version >= 2 && (info->total_size < hs || info->total_size > len ||
				   (exact && info->total_size != len)))
		return ol_diag_at(d, OL_E_BAD_FIELD, 8, "TotalFileSize",
				  "declares %llu bytes, the bundle has %zu",
				  (unsigned long long)info->total_size, len);
	info->compressed_size = (info->version >= 2 ? (size_t)info->total_size : len) - hs;
	/* (version 1 says no size: all of len while its extent is looked
	 * for, checked again on the stream's own length) */
	return check_ratio(info, d);
}

enum ol_err ol_ccob_header(const uint8_t *p, size_t len, struct ol_ccob_info *info,
			   struct ol_diag *d)
{
	memset(info, 0, sizeof(*info));
	if (!ol_is_ccob(p, len))
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "Magic", "not a compressed bundle");
	return read_header(p, len, true, info, d);
}

enum ol_err ol_ccob_decode(const uint8_t *p, size_t len, struct ol_buf *out,
			   struct ol_ccob_info *info, struct ol_diag *d)
{
	size_t base = out->len, hs;

	memset(info, 0, sizeof(*info));
	if (!ol_is_ccob(p, len))
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "Magic", "not a compressed bundle");
	if (read_header(p, len, true, info, d))
		return d->code;
	hs = header_size(info->version);
	if (ol_decompress(info->method, p + hs, len - hs, info->uncompressed_size, out, d)) {
		d->has_offset = true;
		d->offset = hs;
		d->field = "compressed data";
		return d->code;
	}
	truncated_md5(out->data + base, out->len - base, info->computed);
	if (memcmp(info->hash, info->computed, 8) != 0) {
		char want[32], got[32];

		ol_ccob_hash_text(info->hash, want, sizeof(want));
		ol_ccob_hash_text(info->computed, got, sizeof(got));
		return ol_diag_at(d, OL_E_DECOMPRESS, info->version == 3 ? 24 : info->version == 2 ? 16 : 12,
				  "Hash", "stored %s, the data hashes to %s", want, got);
	}
	return OL_OK;
}

enum ol_err ol_ccob_extent(const uint8_t *p, size_t len, uint64_t *extent, struct ol_diag *d)
{
	struct ol_ccob_info info = { 0 };
	size_t hs, used;

	if (!ol_is_ccob(p, len))
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "Magic", "not a compressed bundle");
	if (read_header(p, len, false, &info, d))
		return d->code;
	if (info.version >= 2) {
		*extent = info.total_size;
		return OL_OK;
	}
	hs = header_size(1);
	if (ol_compressed_length(info.method, p + hs, len - hs, info.uncompressed_size, &used, d)) {
		d->has_offset = true;
		d->offset = hs;
		d->field = "compressed data";
		return d->code;
	}
	*extent = hs + used;
	info.compressed_size = used;
	return check_ratio(&info, d);
}

enum ol_err ol_ccob_encode(const uint8_t *p, size_t len, unsigned version,
			   enum ol_compression method, int level,
			   struct ol_buf *out, struct ol_ccob_info *info,
			   struct ol_diag *d)
{
	size_t base = out->len, hs = header_size(version);
	enum ol_err rc = OL_OK;

	memset(info, 0, sizeof(*info));
	if (version != 2 && version != 3)
		return ol_diag_set(d, OL_E_BAD_VERSION, NULL,
				   "offlink writes compressed bundle versions 2 and 3");
	if (version == 2 && len > UINT32_MAX)
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				   "version 2 holds at most 4 GiB; use version 3");
	truncated_md5(p, len, info->hash);
	if (ol_buf_zeros(out, hs))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (ol_compress(method, level, 1, p, len, out, d))
		return d->code;
	info->version = version;
	info->method = method;
	info->uncompressed_size = len;
	info->total_size = out->len - base;
	info->compressed_size = info->total_size - hs;
	if (version == 2 && info->total_size > UINT32_MAX)
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "compressed size over 4 GiB");
	memcpy(out->data + base, "CCOB", 4);
	ol_put_le16(out->data + base + 4, (uint16_t)version);
	ol_put_le16(out->data + base + 6, (uint16_t)method);
	if (version == 2) {
		ol_put_le32(out->data + base + 8, (uint32_t)info->total_size);
		ol_put_le32(out->data + base + 12, (uint32_t)len);
		memcpy(out->data + base + 16, info->hash, 8);
	} else {
		ol_put_le64(out->data + base + 8, info->total_size);
		ol_put_le64(out->data + base + 16, len);
		memcpy(out->data + base + 24, info->hash, 8);
	}
	return rc;
}
