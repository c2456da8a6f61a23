/* Bundle entry IDs of clang-offload-bundler:
 *   <offload kind>-<arch>-<vendor>-<os>[-<env>][-<target ID>]
 * parsed as LLVM 19 parses them (split at the first ':', then the last
 * '-': the last component is a target ID when it names a GPU processor)
 * and written in LLVM's standard form, with a four-field triple and the
 * target ID after one more dash: "host-x86_64-unknown-linux-gnu-",
 * "hip-amdgcn-amd-amdhsa--gfx90a:xnack+". */
#ifndef OFFLINK_FORMAT_BUNDLE_ID_H
#define OFFLINK_FORMAT_BUNDLE_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"

enum { OL_BUNDLE_ID_MAX = 320 }; /* room for every field below */

struct ol_bundle_id {
	char kind[16];      /* host, openmp, hip, hipv4 */
	char arch[32];
	char vendor[32];
	char os[32];
	char env[64];
	char target_id[96]; /* "" or e.g. "gfx90a:xnack+" */
	char text[OL_BUNDLE_ID_MAX]; /* the standard form */
};

/* Parse and validate s; errors read as LLVM's ("invalid target '...',
 * unknown offloading kind '...'" / "unknown target triple '...'"). */
enum ol_err ol_bundle_id_parse(const char *s, size_t len, struct ol_bundle_id *out,
			       struct ol_diag *d);

/* True for kind "host". */
bool ol_bundle_id_is_host(const struct ol_bundle_id *id);

/* Can a code object with ID `code` serve a request for `target`?  Same
 * kind (hip and hipv4 interchangeable; hip and openmp too when
 * hip_openmp), compatible triples (an empty component equals "unknown"),
 * same processor, and every feature the code fixes fixed the same way in
 * the target. */
bool ol_bundle_id_compatible(const struct ol_bundle_id *code,
			     const struct ol_bundle_id *target, bool hip_openmp);

/* True if the last '-' component of a bundle ID names an offload
 * processor: sm_NN[a], gfxNNN, gfxN-...-generic, amdgcnspirv, generic. */
bool ol_is_offload_arch(const char *s, size_t len);

#endif
