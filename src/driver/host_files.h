/* The files the host linker writes that name its output (host_files.c):
 * redirected into the link's temporary directory, then written where the
 * user asked, naming the user's output as LLVM's link does. */
#ifndef OFFLINK_DRIVER_HOST_FILES_H
#define OFFLINK_DRIVER_HOST_FILES_H

#include <stdbool.h>

#include "link/link.h"

/* Find --dependency-file, -Map and -M on the host line; note where the
 * linker writes each instead. */
enum ol_err ol_plan_host_files(struct ol_link *l);
/* What the host linker gets instead of host_args[i], or NULL. */
const char *ol_host_file_arg(const struct ol_link *l, size_t i);
/* Write the redirected files to their places (to_stdout false: after a
 * successful link, before the output is renamed into place) or to
 * standard output (to_stdout: -M, -Map=-; whatever the link wrote). */
enum ol_err ol_deliver_host_files(struct ol_link *l, bool to_stdout);

#endif
