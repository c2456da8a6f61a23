/* Registration planning (src/register/): the wrappers that register the
 * linked images with the runtimes, one per offload kind, in the order the
 * link's LLVM release registers them; the CUDA fatbinary or HIP bundle
 * they carry; the check of every offload entry against the images.  The
 * generators of their text are wrap/'s; this room decides what goes in
 * and runs the steps. */
#ifndef OFFLINK_REGISTER_REGISTER_H
#define OFFLINK_REGISTER_REGISTER_H

#include "link/link.h"

/* Bundle (CUDA fatbinary, HIP bundle), emit and compile the wrappers
 * (wrapper_build.c). */
enum ol_err ol_plan_wrappers(struct ol_link *l);
enum ol_err ol_build_wrappers(struct ol_link *l);
/* Put a wrapper's groups in the order the link's LLVM release registers
 * them (image_order.c). */
enum ol_err ol_order_registration(const struct ol_link *l, struct ol_wrapper *w);
/* --emit-fatbin-only: make the one CUDA fatbinary or HIP bundle and
 * write it as the output; no registration, no host link (bundle.c). */
enum ol_err ol_emit_fatbin(struct ol_link *l);
/* Every offload entry of the host tables against the image the runtime
 * loads on each device the program is built for (entry_check.c). */
enum ol_err ol_check_offload_entries(struct ol_link *l);

#endif
