/* One --image=key=value,... argument of offlink-binary, as the packager
 * reads it: split at ',', each piece at its first '=' (a piece without '='
 * is a key with an empty value); repeated keys are joined with ',', except
 * file, which names one binary per value. */
#ifndef OFFLINK_PACKAGER_IMAGE_SPEC_H
#define OFFLINK_PACKAGER_IMAGE_SPEC_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/strvec.h"
#include "extract/offload_scan.h"
#include "format/offload_binary.h"

struct image_spec {
	struct ol_strvec files; /* every file= value, in order */
	struct ol_strvec keys;  /* other keys, first-seen order */
	struct ol_strvec values;/* parallel to keys */
	struct ol_strvec order; /* every distinct key, file too, first-seen
				 * order: what LLVM's hash tables saw */
};

/* Parse the text after "--image=". */
enum ol_err image_spec_parse(const char *text, struct image_spec *s,
			     struct ol_diag *d);
void image_spec_free(struct image_spec *s);
/* Value of key, or NULL. */
const char *image_spec_get(const struct image_spec *s, const char *key);

/* LLVM's extraction match: every key but file must match; kind compares
 * offload kinds; member compares the archive member name; any other key
 * compares strings, a missing key reading as "". */
bool image_spec_matches(const struct image_spec *s, const struct ob_entry *e,
			const struct ol_origin *o);

#endif
