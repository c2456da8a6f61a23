/* The names an ELF file's dynamic section carries: DT_SONAME, and the
 * DT_NEEDED, DT_RPATH and DT_RUNPATH strings a linker copied into it.
 * The cache reads them twice: of a shared object on a device link's
 * line (without an SONAME, the linker writes the path it was given into
 * the image's DT_NEEDED, so that path must enter the key as it is), and
 * of a linked image before it is stored (no path the key held in its
 * travelling form may reach it). */
#ifndef OFFLINK_CACHE_DYNAMIC_NAMES_H
#define OFFLINK_CACHE_DYNAMIC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strvec.h"

struct ol_dynamic_names {
	bool shared;            /* ET_DYN */
	bool has_soname;
	struct ol_strvec needed; /* DT_NEEDED, in order */
	struct ol_strvec paths;  /* each directory of DT_RPATH and DT_RUNPATH */
};

/* Read p[0..n); false for what is not an ELF file (or cannot be read as
 * one).  out is filled as far as it could be read. */
bool ol_dynamic_names(const uint8_t *p, size_t n, struct ol_dynamic_names *out);
void ol_dynamic_names_free(struct ol_dynamic_names *d);

/* Whether the file at path is a shared object without an SONAME (its path,
 * as given, is what a linker records for it). */
bool ol_shared_without_soname(const char *path);

#endif
