/* The device links' phases (src/devlink/): which device code is linked,
 * grouped how, planned by which target family (src/targets/), run how --
 * and, through devcache/devcache.h, the device-link cache around each
 * group's link.  Beneath the driver, which calls these as phases
 * (docs/design.md, "Rooms" and "The phases"); above the target families,
 * ThinLTO (src/thin/), the device-link cache (src/devcache/) and the
 * planning they share (src/devplan/). */
#ifndef OFFLINK_DEVLINK_DEVLINK_H
#define OFFLINK_DEVLINK_DEVLINK_H

#include "devcache/devcache.h"
#include "format/triple.h"
#include "link/link.h"

/* Decide which archive members' device code is linked (archive_select.c). */
enum ol_err ol_select_archive_members(struct ol_link *l);
/* Which SMs nvcc's relocatable modules are linked for; a module lacking
 * one of the program's is an error (nvcc_archs.c). */
enum ol_err ol_nvcc_archs(struct ol_link *l);
/* One group per (offload kind, triple, target ID) (group.c). */
enum ol_err ol_group_images(struct ol_link *l);
/* Each group's link planned by the backend of its kind or triple
 * (plan_links.c). */
enum ol_err ol_plan_device_links(struct ol_link *l);
/* Each group's link run, in parallel (run.c). */
enum ol_err ol_run_device_links(struct ol_link *l);
/* What the links made, stored in the device-link cache once (ctx: the
 * link; run while the host linker works, or after the links): each
 * group's image, each ThinLTO module's results, then the stores flushed
 * (run.c). */
void ol_cache_store(void *ctx);

#endif
