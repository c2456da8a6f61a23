#include "format/offload_kinds.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum ob_offload_kind ob_offload_kind_from_raw(uint16_t raw)
{
	switch (raw) {
	case 1: return OB_OFK_OPENMP;
	case 2: return OB_OFK_CUDA;
	case 3: /* LLVM <= 20 */
	case 4: /* LLVM >= 21 bitmask value */
		return OB_OFK_HIP;
	case 8: return OB_OFK_SYCL;
	default: return OB_OFK_NONE;
	}
}

uint16_t ob_offload_kind_to_raw(enum ob_offload_kind kind, unsigned llvm_major)
{
	bool bitmask = llvm_major == 0 || llvm_major >= 21;

	switch (kind) {
	case OB_OFK_OPENMP: return 1;
	case OB_OFK_CUDA: return 2;
	case OB_OFK_HIP: return bitmask ? 4 : 3;
	case OB_OFK_SYCL: return bitmask ? 8 : 0;
	default: return 0;
	}
}

enum ob_offload_kind ob_offload_kind_parse(const char *name)
{
	static const struct { const char *name; enum ob_offload_kind kind; } t[] = {
		{ "openmp", OB_OFK_OPENMP }, { "cuda", OB_OFK_CUDA },
		{ "hip", OB_OFK_HIP }, { "sycl", OB_OFK_SYCL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].kind;
	return OB_OFK_NONE;
}

const char *ob_offload_kind_name(enum ob_offload_kind kind)
{
	switch (kind) {
	case OB_OFK_OPENMP: return "openmp";
	case OB_OFK_CUDA: return "cuda";
	case OB_OFK_HIP: return "hip";
	case OB_OFK_SYCL: return "sycl";
	default: return "none";
	}
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum ob_image_kind ob_image_kind_for_file(const char *path, const uint8_t *head, size_t len,
					  unsigned release)
{
	static const struct { const char *ext; enum ob_image_kind kind; } t[] = {
		{ ".o", OB_IMG_OBJECT }, { ".bc", OB_IMG_BITCODE },
		{ ".cubin", OB_IMG_CUBIN }, { ".fatbin", OB_IMG_FATBINARY },
		{ ".s", OB_IMG_PTX }, { ".spv", OB_IMG_SPIRV },
	};

	if (len >= 4 && head[0] == 'B' && head[1] == 'C' && head[2] == 0xc0 &&
	    head[3] == 0xde)
		return OB_IMG_BITCODE;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (has_suffix(path, t[i].ext))
			return t[i].kind == OB_IMG_SPIRV && release && release < 23 ? OB_IMG_NONE
										     : t[i].kind;
	return OB_IMG_NONE;
}

static const char *const image_names[] = {
	"none", "elf", "bitcode", "cubin", "fatbinary", "ptx", "spirv",
};
static const char *const image_exts[] = {
	"", "o", "bc", "cubin", "fatbin", "s", "spv",
};

const char *ob_image_kind_name(uint16_t kind)
{
	return kind < sizeof(image_names) / sizeof(image_names[0])
		       ? image_names[kind] : "unknown";
}

const char *ob_image_kind_ext(uint16_t kind)
{
	return kind < sizeof(image_exts) / sizeof(image_exts[0])
		       ? image_exts[kind] : "";
}
