/* Helpers shared by the CPU and GPU device-link planners. */
#ifndef OFFLINK_DRIVER_DEVICE_LINK_H
#define OFFLINK_DRIVER_DEVICE_LINK_H

#include "driver/phases.h"

/* True for triples whose "device" is a CPU linked as a shared object. */
bool ol_triple_is_cpu(const char *triple);
/* The argument of a --device-linker/--device-compiler value for triple:
 * the value itself when unscoped, the part after "<triple>=" when scoped
 * to this triple, NULL when scoped to another. */
const char *ol_scoped_arg(const char *spec, const char *triple);
/* "openmp", "cuda", "hip", ... */
const char *ol_kind_name(enum ob_offload_kind k);
/* "openmp nvptx64-nvidia-cuda sm_90": the group in messages. */
char *ol_group_label(struct ol_link *l, const struct ol_group *g);
/* Where g's device code comes from, for messages: "a.o, lib.a(k.o)" or
 * "a.o, b.o, c.o and 7 more". */
const char *ol_group_origins(struct ol_link *l, const struct ol_group *g);
/* "2.openmp.nvptx64-nvidia-cuda.sm_90": the group in file names (set
 * when its link is planned). */
const char *ol_group_stem(struct ol_link *l, const struct ol_group *g);
/* Where image i of g is written for the device linker. */
const char *ol_group_input_path(struct ol_link *l, const struct ol_group *g, size_t i);
/* The group's images as one archive, for linkers that read it whole
 * (--whole-archive): one file per group instead of one per image.  Once
 * asked for, the images are written only there. */
const char *ol_group_inputs_archive(struct ol_link *l, struct ol_group *g);
/* Append a command running program to g's chain; what names the step. */
struct ol_cmd *ol_group_add_step(struct ol_link *l, struct ol_group *g,
				 const char *program, const char *what);
/* How a linker takes the "-mllvm <opt>" pairs clang 22 passes as
 * --device-linker values (its -mllvm): as they are (ld.lld, lld under
 * LTO), or not at all (a link without code generation, nvlink: the NVPTX
 * LTO step takes them instead, see ol_linker_mllvm). */
enum ol_mllvm { MLLVM_PASS, MLLVM_DROP };

/* --device-linker and (when the link goes through a compiler driver)
 * --device-compiler arguments that apply to triple. */
void ol_add_user_args(struct ol_link *l, struct ol_cmd *c, const char *triple,
		      bool linker_via_driver, enum ol_mllvm mllvm);
/* The options of the "-mllvm <opt>" pairs among the --device-linker values
 * for triple, appended to out. */
void ol_linker_mllvm(struct ol_link *l, const char *triple, struct ol_strvec *out);
/* --embed-bitcode: the image is the group's bitcode merged by LTO, so
 * every image must be bitcode; otherwise an error naming where the
 * device code came from (OL_E_UNSUPPORTED). */
enum ol_err ol_need_all_bitcode(struct ol_link *l, const struct ol_group *g);
/* The group's bitcode merged and optimised by the release's llvm-link and
 * opt, into out: the program's own bitcode linked whole, then only what it
 * needs of libraries' bitcode (the device runtime), internalized, then
 * opt -passes=lto<O opt_level>.  LLVM 16's in-process LTO, for releases
 * whose linkers cannot do it (device_link_gpu.c). */
enum ol_err ol_plan_link_and_optimise(struct ol_link *l, struct ol_group *g,
				      const char *opt_level, const char *out);
/* True for SPIR-V triples (spirv64-intel, ...). */
bool ol_triple_is_spirv(const char *triple);
/* Plan the link of a SPIR-V group (device_link_spirv.c); OL_E_UNSUPPORTED
 * (already reported) where the release or the offload kind has none. */
enum ol_err ol_plan_spirv(struct ol_link *l, struct ol_group *g);
/* Plan the link of a GPU group (device_link_gpu.c); OL_E_UNSUPPORTED
 * (already reported) for targets offlink cannot link. */
enum ol_err ol_plan_gpu(struct ol_link *l, struct ol_group *g);

#endif
