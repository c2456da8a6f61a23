/* Taking archive members for the device symbols linked device code needs
 * (device_symbols.c), after the host link's own choice of members. */
#ifndef OFFLINK_DEVPLAN_DEVICE_SYMBOLS_H
#define OFFLINK_DEVPLAN_DEVICE_SYMBOLS_H

#include "link/link.h"

/* Read img's global device symbols into img->defined and img->undefined,
 * once (img->symbols_state: 1 read, -1 unreadable). */
void ol_read_device_symbols(struct ol_image *img);

/* The most targets (offload kind, triple, arch) the inputs' device code
 * may have, and so the most device links a link plans: real programs
 * have a few dozen at most; every target is a device link (a process, a
 * file), and targets are compared pairwise and with every image
 * (docs/security.md, "Limits"). */
#define OL_DEVICE_TARGETS_MAX 256

/* Take every archive member image that defines a symbol a taken image of
 * a compatible target needs and no taken image of such a target defines,
 * until nothing changes.  Device code for more than
 * OL_DEVICE_TARGETS_MAX targets is an error naming the image that makes
 * one too many (OL_E_REPORTED). */
enum ol_err ol_resolve_device_symbols(struct ol_link *l);

#endif
