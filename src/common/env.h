/* Switches read from the environment, parsed one way by every tool.
 *
 * A boolean is 1/0, true/false, yes/no or on/off in any case; unset or
 * empty is the default.  A number is decimal digits only, in range.
 * Anything else is an OL_E_USAGE error naming the variable (offlink
 * exits 2 for it, as for a bad option): OFFLINK_DRY_RUN=no must never
 * mean yes, nor OFFLINK_LLVM=19abc a release. */
#ifndef OFFLINK_COMMON_ENV_H
#define OFFLINK_COMMON_ENV_H

#include <stdbool.h>

#include "common/diag.h"

/* *out := the boolean value of s; false if s is not one. */
bool ol_parse_bool(const char *s, bool *out);
/* *out := s as a decimal number in [min, max]; false if it is not one
 * (a sign, a space, another character, or out of range). */
bool ol_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* *out := $name as a boolean, dflt when unset or empty. */
enum ol_err ol_env_bool(const char *name, bool dflt, bool *out, struct ol_diag *d);

#endif
