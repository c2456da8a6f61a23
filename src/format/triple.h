/* What offloading asks of a target triple: which family of devices it
 * names, and the architecture spellings it meets more than one way.  AMD's GPUs are "amdgcn" up to LLVM 23; LLVM 24 names each
 * processor's version in the triple -- "amdgpu9.0a-amd-amdhsa" for
 * gfx90a, "amdgpu10.30" for gfx1030, "amdgpu9" for gfx9-generic -- and a
 * plain "amdgpu-amd-amdhsa" names them all (its --device-compiler= keys).
 * Plain computation on strings. */
#ifndef OFFLINK_FORMAT_TRIPLE_H
#define OFFLINK_FORMAT_TRIPLE_H

#include <stdbool.h>
#include <stddef.h>

/* A triple whose "device" is a CPU, linked as a shared object (x86_64,
 * aarch64, ppc64le, ...). */
bool ol_triple_is_cpu(const char *triple);
/* SPIR-V (spirv64-intel, spirv64-unknown-unknown, ...). */
bool ol_triple_is_spirv(const char *triple);
/* NVIDIA's (nvptx64-nvidia-cuda, ...). */
bool ol_triple_is_nvptx(const char *triple);

/* The length of the architecture at the start of s ("amdgcn", "amdgpu",
 * "amdgpu<major>[.<minor and stepping>]"), when it names AMD's GPUs and
 * is followed by '-' or the end; else 0. */
size_t ol_amdgpu_arch_len(const char *s);

/* Whether triple's architecture is AMD's GPUs, in either spelling. */
bool ol_triple_is_amdgpu(const char *triple);

/* Whether a triple given as a scope (the key of --device-compiler=KEY=V,
 * n bytes) covers triple: the same triple, or two AMD GPU triples that
 * agree after the architecture, where the scope's is unversioned
 * ("amdgcn" or "amdgpu") or the same as triple's. */
bool ol_triple_scope_covers(const char *scope, size_t n, const char *triple);

/* triple with an AMD GPU architecture written "amdgcn", as LLVM 24 still
 * names HIP bundle entries ("hip-amdgcn-amd-amdhsa--gfx90a"), into out
 * (len bytes); other triples as they are.  False when out is too small. */
bool ol_triple_as_amdgcn(const char *triple, char *out, size_t len);

#endif
