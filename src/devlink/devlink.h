/* Device-link planning (src/devlink/): which device code is linked,
 * grouped how, by which backend's steps, run how, and the device-link
 * cache around each group's link.  Beneath the driver, which calls these
 * as phases (docs/design.md, "Rooms" and "The phases"); above the link's
 * state (link/), the cache's keys (cache/) and the formats. */
#ifndef OFFLINK_DEVLINK_DEVLINK_H
#define OFFLINK_DEVLINK_DEVLINK_H

#include "link/link.h"

/* True for triples whose "device" is a CPU linked as a shared object
 * (cpu.c); for SPIR-V triples (spirv64-intel, ...; spirv.c); for NVPTX
 * (nvptx64-nvidia-cuda, ...; nvptx.c). */
bool ol_triple_is_cpu(const char *triple);
bool ol_triple_is_spirv(const char *triple);
bool ol_triple_is_nvptx(const char *triple);

/* Decide which archive members' device code is linked (archive_select.c). */
enum ol_err ol_select_archive_members(struct ol_link *l);
/* Which SMs nvcc's relocatable modules are linked for; a module lacking
 * one of the program's is an error (nvcc_archs.c). */
enum ol_err ol_nvcc_archs(struct ol_link *l);
/* One group per (offload kind, triple, target ID) (group.c). */
enum ol_err ol_group_images(struct ol_link *l);
/* Each group's link planned by the backend of its triple (backends.c). */
enum ol_err ol_plan_device_links(struct ol_link *l);
/* Each group's link run, in parallel (run.c). */
enum ol_err ol_run_device_links(struct ol_link *l);

/* The device-link cache (cache.h): open the stores the options and the
 * environment name; look every group up (its image written on a hit, its
 * linkers given a dependency file on a miss); store what the links made
 * (ctx: the link; run while the host linker works, or after the links);
 * --cache-stats and --cache-clear. */
enum ol_err ol_open_cache(struct ol_link *l);
/* As the link starts: what opening its stores will need, begun in the
 * background (a remote's libcurl). */
void ol_cache_preload(struct ol_link *l);
enum ol_err ol_lookup_device_cache(struct ol_link *l);
void ol_cache_store(void *ctx);
enum ol_err ol_cache_command(struct ol_link *l);

#endif
