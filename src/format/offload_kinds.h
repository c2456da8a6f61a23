/* The two enumerations stored in every offload binary entry: what the image
 * is (ImageKind) and which programming model produced it (OffloadKind),
 * with the names and file extensions LLVM's tools use for them. */
#ifndef OFFLINK_FORMAT_OFFLOAD_KINDS_H
#define OFFLINK_FORMAT_OFFLOAD_KINDS_H

#include <stddef.h>
#include <stdint.h>

enum ob_image_kind {
	OB_IMG_NONE = 0,
	OB_IMG_OBJECT = 1,
	OB_IMG_BITCODE = 2,
	OB_IMG_CUBIN = 3,
	OB_IMG_FATBINARY = 4,
	OB_IMG_PTX = 5,
	OB_IMG_SPIRV = 6, /* newer LLVM only */
};

/* offlink's own view of the producer.  The stored value differs between
 * LLVM versions (HIP is 3 up to LLVM 20 and 4 from LLVM 21, when the field
 * became a bitmask and SYCL took 8), so decoding maps both. */
enum ob_offload_kind {
	OB_OFK_NONE = 0,
	OB_OFK_OPENMP,
	OB_OFK_CUDA,
	OB_OFK_HIP,
	OB_OFK_SYCL,
};

/* Map a stored OffloadKind value to offlink's view (unknown -> NONE). */
enum ob_offload_kind ob_offload_kind_from_raw(uint16_t raw);
/* The value LLVM release llvm_major stores for kind (0: the newest
 * numbering): HIP is 3 up to LLVM 20 and 4 from 21; SYCL is unknown
 * before 21 (16 and 19 store 0 for it) and 8 from 21. */
uint16_t ob_offload_kind_to_raw(enum ob_offload_kind kind, unsigned llvm_major);
/* Parse the packager's kind= value ("openmp", "cuda", "hip", "sycl");
 * anything else is NONE, as LLVM does. */
enum ob_offload_kind ob_offload_kind_parse(const char *name);
/* "openmp", "cuda", "hip", "sycl" or "none" (llvm-objdump's producer). */
const char *ob_offload_kind_name(enum ob_offload_kind kind);

/* Image kind implied by a file name and its first bytes, as release's
 * packager decides it (0: the newest): bitcode magic wins, then the
 * extension (.spv is SPIR-V from LLVM 23, no kind before). */
enum ob_image_kind ob_image_kind_for_file(const char *path, const uint8_t *head, size_t len,
					  unsigned release);
/* Short name for listings: elf, bitcode, cubin, fatbinary, ptx, spirv, none
 * (unknown values give "unknown"). */
const char *ob_image_kind_name(uint16_t kind);
/* Extension of extracted files: o, bc, cubin, fatbin, s, spv, "" (none). */
const char *ob_image_kind_ext(uint16_t kind);

#endif
