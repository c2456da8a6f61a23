/* What every device link's planning shares (src/devplan/): a group's
 * files and steps, the --device-linker and --device-compiler values that
 * apply to its triple, its device libraries (steps.c); the release's
 * llvm-link and opt where a family's linker does no LTO (lto.c); the GPU
 * flags of a group (gpu_flags.c).  Below the target families
 * (src/targets/), ThinLTO (src/thin/) and the device-link cache. */
#ifndef OFFLINK_DEVPLAN_PLAN_H
#define OFFLINK_DEVPLAN_PLAN_H

#include "link/link.h"

/* The argument of a --device-linker/--device-compiler value for triple:
 * the value itself when unscoped, the part after "<triple>=" when scoped
 * to this triple, NULL when scoped to another. */
const char *ol_scoped_arg(const char *spec, const char *triple);
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
 * --device-compiler arguments that apply to triple; expand: the tool reads
 * no @file (nvlink, spirv-link), so an "@file" value becomes the arguments
 * the file holds, read as GNU tools and LLVM's read them. */
void ol_add_user_args(struct ol_link *l, struct ol_cmd *c, const char *triple,
		      bool linker_via_driver, enum ol_mllvm mllvm, bool expand);
/* The options of the "-mllvm <opt>" pairs among the --device-linker values
 * for triple, appended to out. */
void ol_linker_mllvm(struct ol_link *l, const char *triple, struct ol_strvec *out);

/* The libraries (-l<name>) among the --device-linker values for g's
 * triple, each found where the device linker looks: lib<name>.a or
 * lib<name>.so in the -L directories among those values, then
 * LIBRARY_PATH's (as nvlink searches), then <LLVM>/lib (as
 * clang-nvlink-wrapper searches).  clangs: one holds clang's device code
 * -- LLVM bitcode (clang 23's -lompdevice) or NVPTX objects, which
 * nvlink's own -l search passes over ("Skipping incompatible") and
 * bitcode it cannot link at all, so LLVM's LTO driver must take what the
 * link needs from it; nvcc's libraries (-lib -rdc: host objects) hold
 * none, and nvlink links them itself. */
struct ol_device_libs {
	const char **name, **path; /* (arena) */
	size_t n;
	bool clangs;
};

/* Fill out; a library not found is an error naming it and where it was
 * looked for (OL_E_UNSUPPORTED, reported): nvlink would ignore it,
 * leaving only the references it cannot resolve; LLVM's link says which
 * library is missing (from 23 clang names OpenMP's GPU device runtime
 * -lompdevice). */
enum ol_err ol_find_device_libraries(struct ol_link *l, const struct ol_group *g,
				     struct ol_device_libs *out);

/* In c's arguments, each -l<name> (or "-l" "<name>") of libs replaced by
 * the file it names, so the linker reads what the cache keyed. */
void ol_name_device_libraries(const struct ol_device_libs *libs, struct ol_cmd *c);
/* A step running the release's clang driver for g's triple
 * (--no-default-config --target=<triple>), through a response file (the
 * host line's libraries are repeated in a CPU device link: a link with
 * 100k arguments needs one); what as for ol_group_add_step. */
struct ol_cmd *ol_clang_step(struct ol_link *l, struct ol_group *g, const char *what);

/* --embed-bitcode for a family whose image is already what the runtime
 * compiles (SPIR-V, SYCL): an error naming the family and where the
 * device code came from (OL_E_UNSUPPORTED); OL_OK without the option. */
enum ol_err ol_refuse_embed_bitcode(struct ol_link *l, const struct ol_group *g, const char *family);
/* --embed-bitcode: the image is the group's bitcode merged by LTO, so
 * every image must be bitcode; otherwise an error naming where the
 * device code came from (OL_E_UNSUPPORTED). */
enum ol_err ol_need_all_bitcode(struct ol_link *l, const struct ol_group *g);

/* ---- lto.c ---- */

/* found: the tool's path (taken), or NULL: under --dry-run its bare name,
 * else an error naming where it was searched (OL_E_UNSUPPORTED). */
enum ol_err ol_need_tool(struct ol_link *l, const struct ol_group *g, char *found,
			 const char *name, const char *searched, const char **out);
/* A step running the release's tool name ($env wins), or NULL: reported
 * (ol_need_tool); what names the step. */
struct ol_cmd *ol_tool_step(struct ol_link *l, struct ol_group *g, const char *name,
			    const char *env, const char *what);
/* The group's bitcode merged and optimised by the release's llvm-link and
 * opt, into out: the program's own bitcode linked whole, then only what it
 * needs of libraries' bitcode (the device runtime), internalized, then
 * opt -passes=lto<O opt_level>.  LLVM 16's in-process LTO, for releases
 * whose linkers cannot do it. */
enum ol_err ol_plan_link_and_optimise(struct ol_link *l, struct ol_group *g,
				      const char *opt_level, const char *out);

/* ---- gpu_flags.c ---- */

/* How a GPU group is compiled: the level, debug information, LTO
 * partitions.  From offlink's own options (--opt-level, --device-debug;
 * LLVM up to 19) and from --device-compiler values (LLVM 22 passes -O2,
 * -g, -flto-partitions=8 so): offlink links GPU code without a compiler
 * driver, so each value is read for what it means to the link. */
struct gpu_flags {
	const char *opt;          /* "0".."3" */
	bool opt_given;           /* by --opt-level or --device-compiler=-O */
	bool debug;
	const char *partitions;   /* -flto-partitions=N, or NULL */
};
void ol_gpu_flags(struct ol_link *l, const struct ol_group *g, struct gpu_flags *f);
/* The LTO options both LTO drivers take, after their plugin-option
 * prefix ("--plugin-opt=" for clang-nvlink-wrapper, "-plugin-opt=" for
 * ld.lld): the level, the partitions, -mllvm options, and --offload-opt
 * options. */
void ol_lto_options(const struct ol_link *l, const struct gpu_flags *f, struct ol_cmd *c,
		    const char *plugin_opt);

#endif
