/* @file arguments: replaced by the arguments the file holds, tokenised as
 * GNU tools do (whitespace separates; quotes group; backslash escapes,
 * inside quotes too), recursively, up to 100 levels and never a file
 * within itself.  A @file that does not exist stays as it is, as GCC and
 * LLVM leave it; one that exists but cannot be read (a directory, no
 * permission) is an error. */
#ifndef OFFLINK_COMMON_RESPONSE_FILE_H
#define OFFLINK_COMMON_RESPONSE_FILE_H

#include "common/diag.h"
#include "common/strvec.h"

/* Append argv[first..argc) to out with every @file expanded. */
enum ol_err ol_expand_args(int argc, char **argv, int first,
			   struct ol_strvec *out, struct ol_diag *d);

/* Split text into arguments (GNU rules) and append them to out. */
enum ol_err ol_tokenize_gnu(const char *text, size_t len,
			    struct ol_strvec *out);

#endif
