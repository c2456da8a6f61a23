/* The dependency file a linker writes with --dependency-file (GNU ld
 * 2.35 and later, lld 13 and later): every file it read, linker scripts,
 * the libraries they name and the shared libraries it loaded for their
 * DT_NEEDED among them.  Both write one file per line after the
 * "target: \" line; lld escapes it as make does ("\ ", "\#", "$$"), GNU
 * ld writes it as it is. */
#ifndef OFFLINK_CACHE_DEPFILE_H
#define OFFLINK_CACHE_DEPFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/linkline.h"
#include "common/error.h"
#include "common/strvec.h"

/* The files of the first rule of text[0..len), each once, in order of
 * first appearance, appended to out.  OL_E_BAD_FIELD when the text is not
 * such a file. */
enum ol_err ol_depfile_parse(const char *text, size_t len, enum ol_ld_flavor flavor,
			     struct ol_strvec *out);

#endif
