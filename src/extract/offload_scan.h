/* Finding offload binaries wherever they live: a raw offload binary file,
 * the offload sections of an ELF file, or the members of a static archive
 * (recursively), each reported with where it came from. */
#ifndef OFFLINK_EXTRACT_OFFLOAD_SCAN_H
#define OFFLINK_EXTRACT_OFFLOAD_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "extract/archive_reader.h"
#include "format/offload_binary.h"

enum ol_input_kind {
	OL_INPUT_OTHER,
	OL_INPUT_OFFLOAD_BINARY,
	OL_INPUT_ELF,
	OL_INPUT_ARCHIVE,
	OL_INPUT_BITCODE,
};

/* What p[0..len) is, from its magic bytes. */
enum ol_input_kind ol_input_kind_of(const uint8_t *p, size_t len);

struct ol_origin {
	const char *file;
	const char *member;   /* archive member, or NULL */
	const char *section;  /* ELF section, or NULL for a raw file */
	uint64_t offset;      /* of the binary inside file or member */
	bool final;           /* in an allocated section: an image already
			       * linked and registered (an executable, a -r
			       * pre-linked object), not link input */
};

/* Called for each binary; it may take ownership of *b by copying the
 * struct and zeroing it (the scanner frees what is left). */
typedef enum ol_err (*ol_binary_cb)(void *ctx, const struct ol_origin *o,
				    struct ob_binary *b, struct ol_diag *d);

enum {
	/* Anything that is not ELF, an archive or an offload binary is an
	 * error (offlink-binary); otherwise it is skipped (the wrapper). */
	OL_SCAN_STRICT = 1,
	/* With OL_SCAN_STRICT: a raw fat binary, bundle or compressed bundle
	 * -- a file, an archive member: bundled bitcode, a device archive's
	 * members -- is no error either; extract/containers.h reads it
	 * (offlink-binary --list, --extract). */
	OL_SCAN_CONTAINERS = 2,
};

/* Scan p[0..len) of file (member: the archive member it is, or NULL).
 * The member files of a thin archive stay mapped in keep (binaries point
 * into them); with keep NULL a thin archive's members are scanned but not
 * kept. */
enum ol_err ol_scan_offload(const char *file, const char *member, uint8_t *p,
			    size_t len, unsigned flags, ol_binary_cb cb,
			    void *ctx, struct ol_ar_keep *keep, struct ol_diag *d);

/* Scan only the offload sections of an ELF image that is already open by
 * the caller's means: helper shared with the wrapper's input scanner. */
enum ol_err ol_scan_elf(const char *file, const char *member, uint8_t *p,
			size_t len, ol_binary_cb cb, void *ctx,
			struct ol_diag *d);

/* Decode every binary of one offload section or raw file. */
enum ol_err ol_scan_binaries(const struct ol_origin *where, const uint8_t *p,
			     size_t len, ol_binary_cb cb, void *ctx,
			     struct ol_diag *d);

#endif
