/* Parsing the clang-linker-wrapper command line into struct ol_link. */
#ifndef OFFLINK_DRIVER_OPTIONS_H
#define OFFLINK_DRIVER_OPTIONS_H

#include "link/link.h"

/* Fill l from argv (response files expanded).  OL_E_USAGE for a bad
 * command line. */
enum ol_err ol_parse_command_line(struct ol_link *l, int argc, char **argv,
				  struct ol_diag *d);

#endif
