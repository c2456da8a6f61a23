/* The check behind tests/cli/wrapper_hostile.sh and fuzz_wrapper_source:
 * strings as a hostile input could carry them (triples, archs, archive
 * origins, the output path, the image's file name, managed variable
 * names) go through the registration source generators (OpenMP, SYCL,
 * CUDA and HIP; C and x86_64 assembly); the source is
 * compiled with clang -Wall -Wextra -Werror; and the object must define
 * and reference exactly the symbols of the same source generated from
 * harmless strings (with the managed names in place of the harmless
 * ones), and carry each string byte for byte where it belongs (the
 * offload binary's triple and arch, the embedded image). */
#ifndef OFFLINK_TESTS_WRAP_ORACLE_H
#define OFFLINK_TESTS_WRAP_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

#define WO_MAX_IMAGES 3
#define WO_MAX_MANAGED 3

struct wo_input {
	const char *output;
	const char *triple[WO_MAX_IMAGES];
	const char *arch[WO_MAX_IMAGES];
	const char *origin[WO_MAX_IMAGES];
	size_t nimages;                        /* 1..WO_MAX_IMAGES */
	const char *image_name;                /* a file name: no '/', not "." or ".." */
	const char *contents;                  /* the CUDA/HIP container's description */
	const char *init[WO_MAX_MANAGED];      /* managed variables */
	const char *pointer[WO_MAX_MANAGED];
	size_t nmanaged;
	bool hip, new_entries;
};

/* Run the check in the (existing, empty) directory dir with the given
 * clang.  Returns 0 if everything holds; otherwise 1 with why filled. */
int wo_check(const struct wo_input *in, const char *dir, const char *clang,
	     char *why, size_t whylen);

#endif
