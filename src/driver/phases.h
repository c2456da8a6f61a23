/* The phases of a link, in the order main() runs them (main.c). */
#ifndef OFFLINK_DRIVER_PHASES_H
#define OFFLINK_DRIVER_PHASES_H

#include "driver/link.h"

/* Find the files the host link reads and the device images in them. */
enum ol_err ol_scan_inputs(struct ol_link *l);
/* -r with OpenMP GPU code: add the release's device runtime, device-only. */
enum ol_err ol_add_relocatable_runtime(struct ol_link *l);
/* Decide which archive members' device code is linked. */
enum ol_err ol_select_archive_members(struct ol_link *l);
/* One group per (offload kind, triple, target ID). */
enum ol_err ol_group_images(struct ol_link *l);
/* Locate clang and the other tools the groups need. */
enum ol_err ol_find_tools(struct ol_link *l);

/* The clang offlink runs (found once, kept in l->clang), or NULL. */
const char *ol_clang(struct ol_link *l);

/* The directory of the clang offlink runs, symlinks resolved: LLVM's
 * helpers (ld.lld, clang-nvlink-wrapper) are there.  In l's arena. */
const char *ol_clang_dir(struct ol_link *l);

/* <clang's directory>/../lib/<file> if it exists: where LLVM installs its
 * runtime libraries (libomptarget.devicertl.a).  In l's arena. */
char *ol_clang_library(struct ol_link *l, const char *file);

/* A CUDA tool (ptxas, nvlink, fatbinary) from --cuda-path, $CUDA_PATH,
 * /usr/local/cuda, then PATH, or NULL; where it was looked for goes into
 * searched, for the error message. */
char *ol_find_cuda_tool(struct ol_link *l, const char *name, char *searched, size_t len);
/* The device-link cache (device_cache.c): open the stores the options
 * and the environment name; look every group up (its image written on a
 * hit, its linkers given a dependency file on a miss); note when a
 * group's link starts; store a linked group's image; --cache-stats and
 * --cache-clear. */
enum ol_err ol_open_cache(struct ol_link *l);
enum ol_err ol_lookup_device_cache(struct ol_link *l);
/* The device-link cache around the links (device_cache.c): a group's
 * link starts (what clang looks at from now on is what it decides on);
 * it has made its image; a group whose link failed under flags meant
 * for another linker is to run again without them (true: they were taken
 * out); ask clang what it runs where that is still to learn, and store
 * what the links made (ctx: the link; run while the host linker works,
 * or after the links). */
void ol_cache_link_started(struct ol_link *l, struct ol_group *g);
void ol_cache_linked(struct ol_link *l, struct ol_group *g);
bool ol_cache_retry_plain(struct ol_link *l, struct ol_group *g, size_t failed_step);
void ol_cache_store(void *ctx);
void ol_probe_cmd_forget(struct ol_group *g);
enum ol_err ol_cache_command(struct ol_link *l);
/* Build, then run in parallel, each group's device link. */
enum ol_err ol_plan_device_links(struct ol_link *l);
enum ol_err ol_run_device_links(struct ol_link *l);
/* Every offload entry of the host tables against the image the runtime
 * loads on each device the program is built for (entry_check.c). */
enum ol_err ol_check_offload_entries(struct ol_link *l);
/* Bundle (CUDA fatbinary, HIP bundle), emit and compile the wrappers. */
enum ol_err ol_plan_wrappers(struct ol_link *l);
/* Put a wrapper's groups in the order the link's LLVM release registers
 * them (image_order.c). */
enum ol_err ol_order_registration(const struct ol_link *l, struct ol_wrapper *w);
enum ol_err ol_build_wrappers(struct ol_link *l);
/* Run the host linker with the wrapper objects; rename the output. */
enum ol_err ol_run_host_linker(struct ol_link *l);
/* -r: make the entries section private and drop the linked-in device code. */
enum ol_err ol_finish_relocatable(struct ol_link *l);
/* --dry-run / --wrapper-verbose: print the groups and their images. */
void ol_print_plan(struct ol_link *l);

#endif
