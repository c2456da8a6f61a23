/* Every device image in the containers other than offload binaries
 * (offload_scan.h reads those): NVIDIA fat binaries (.nv_fatbin in a CUDA
 * program or an nvcc object, __nv_relfatbin in an nvcc -rdc object, an
 * offload binary's fatbinary image), clang-offload-bundler bundles (plain
 * and compressed, one or several back to back: .hip_fatbin; the
 * __CLANG_OFFLOAD_BUNDLE__<id> sections of an old-driver object), and a
 * SPIR-V module inside LLVM 22's Intel container.  Each image is reported
 * with the path of containers it sits in, outermost first, so that a
 * listing shows nested containers as the tree they are. */
#ifndef OFFLINK_EXTRACT_CONTAINERS_H
#define OFFLINK_EXTRACT_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ol_contained {
	const char *file, *member;  /* where: the input, the archive member or NULL */
	const char *path;           /* "section .nv_fatbin > fat binary 0 > entry 1" */
	const char *format;         /* cubin, ptx, ltoir, elf, bitcode, spirv, object, empty */
	const char *producer;       /* cuda, hip, openmp, or "" */
	const char *triple, *arch;
	const uint8_t *data;        /* the image, decompressed, valid during the callback */
	size_t size;
	const char *compression;    /* how it was stored: NULL, "zstd", "lz", "ccob v2 zstd" */
	size_t stored;              /* its bytes as stored */
	bool linked;                /* in an allocated section: a linked program's */
};

typedef enum ol_err (*ol_contained_cb)(void *ctx, const struct ol_contained *c,
				       struct ol_diag *d);

/* The images of p[0..len) that are not in offload binaries: p is an ELF
 * file (its sections are read), an archive (each member), or a raw fat
 * binary, bundle or compressed bundle.  Nothing else is an error. */
enum ol_err ol_scan_containers(const char *file, const char *member, uint8_t *p, size_t len,
			       ol_contained_cb cb, void *ctx, struct ol_diag *d);

/* The images inside one image's bytes (an offload binary's fatbinary or
 * SPIR-V container, say): *found false and nothing reported when they are
 * no container offlink reads.  path is the image's own. */
enum ol_err ol_scan_nested(const char *file, const char *member, const char *path, bool linked,
			   const uint8_t *p, size_t len, ol_contained_cb cb, void *ctx, bool *found,
			   struct ol_diag *d);

/* True when p starts as a container ol_scan_containers reads raw. */
bool ol_is_raw_container(const uint8_t *p, size_t len);

#endif
