/* The driver's own phases; main() runs them with the other rooms'
 * (devlink/devlink.h, register/register.h, link/) in the order
 * docs/design.md's phase list gives. */
#ifndef OFFLINK_DRIVER_PHASES_H
#define OFFLINK_DRIVER_PHASES_H

#include "link/link.h"

/* Find the files the host link reads and the device images in them. */
enum ol_err ol_scan_inputs(struct ol_link *l);
/* -r with OpenMP GPU code: add the release's device runtime, device-only. */
enum ol_err ol_add_relocatable_runtime(struct ol_link *l);
/* nvcc's device code that needs CUDA's device runtime (dynamic
 * parallelism): add libcudadevrt.a, as nvcc's link does (cuda_devrt.c). */
enum ol_err ol_add_cuda_device_runtime(struct ol_link *l);
/* The inputs offlink may add to the command line's: the two above. */
#define OL_IMPLICIT_INPUTS 2
/* Add an input offlink names (a device runtime): mapped, scanned, its
 * archive members taken for the device symbols linked code needs; *added
 * is it, or NULL when the file is missing (an error reported). */
enum ol_err ol_add_implicit_input(struct ol_link *l, const char *path, struct ol_input **added);
/* Run the host linker with the wrapper objects; rename the output. */
enum ol_err ol_run_host_linker(struct ol_link *l);
/* -r: make the entries section private and drop the linked-in device code. */
enum ol_err ol_finish_relocatable(struct ol_link *l);
/* --dry-run / --wrapper-verbose: print the groups and their images. */
void ol_print_plan(struct ol_link *l);

#endif
