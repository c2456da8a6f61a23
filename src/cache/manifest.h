/* A manifest: the files a device link read on its own (its linkers'
 * dependency files), stored under the group's key so that a later lookup
 * knows which files to digest.  The value is the magic "OLMANIF1" and
 * each path, NUL-terminated, in the form cache/key.h gives it. */
#ifndef OFFLINK_CACHE_MANIFEST_H
#define OFFLINK_CACHE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/strvec.h"

/* out := the manifest of files[0..n). */
bool ol_manifest_encode(char *const *files, size_t n, struct ol_buf *out);
/* The paths of the manifest p[0..len), appended to files; false for
 * anything that is not a manifest (no magic, an empty or unterminated
 * path). */
bool ol_manifest_decode(const uint8_t *p, size_t len, struct ol_strvec *files);

#endif
