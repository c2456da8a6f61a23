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

/* What reading one input may still cost, shared by every container and
 * nesting level of it (docs/security.md, "Limits").  Containers nest
 * (a bundle entry may be a bundle, 8 deep at most), and an entry may
 * point at bytes another entry holds too: what an input holds bounds
 * what is read of it --
 *   - the entries of one container (a bundle's entries, an offload
 *     binary's images, an ELF file's container sections) take at most
 *     that container's bytes, so that entries sharing their bytes are not
 *     read, opened or written again and again (a 4 KiB bundle nested 8
 *     deep, each level's 8 entries at the same inner bundle, was 16
 *     million images);
 *   - everything inflated for the input, nesting included, is at most
 *     OL_INFLATE_RATIO times its size plus OL_INFLATE_SLACK
 *     (format/compress.h: as one compressed entry may inflate), so that
 *     compressed containers in compressed containers cannot multiply. */
struct ol_scan_budget {
	uint64_t inflate;   /* bytes the input may still inflate */
};

/* The budget of an input of len bytes. */
void ol_scan_budget_init(struct ol_scan_budget *b, size_t len);

/* The images of p[0..len) that are not in offload binaries: p is an ELF
 * file (its sections are read), an archive (each member), or a raw fat
 * binary, bundle or compressed bundle.  Nothing else is an error.
 * budget: the input's (NULL: one of p[0..len)'s own). */
enum ol_err ol_scan_containers(const char *file, const char *member, uint8_t *p, size_t len,
			       struct ol_scan_budget *budget, ol_contained_cb cb, void *ctx,
			       struct ol_diag *d);

/* The images inside one image's bytes (an offload binary's fatbinary or
 * SPIR-V container, say): *found false and nothing reported when they are
 * no container offlink reads.  path is the image's own.  *room: the bytes
 * the images of the enclosing container may still take (its size at
 * first), reduced by len, an error when it has less (NULL: not counted);
 * budget: the input's, as for ol_scan_containers. */
enum ol_err ol_scan_nested(const char *file, const char *member, const char *path, bool linked,
			   const uint8_t *p, size_t len, struct ol_scan_budget *budget,
			   uint64_t *room, ol_contained_cb cb, void *ctx, bool *found,
			   struct ol_diag *d);

/* True when p starts as a container ol_scan_containers reads raw. */
bool ol_is_raw_container(const uint8_t *p, size_t len);

#endif
