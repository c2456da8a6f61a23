/* The programs a link runs, found once (tools.c). */
#ifndef OFFLINK_LINK_TOOLS_H
#define OFFLINK_LINK_TOOLS_H

#include "link/link.h"

/* Locate clang for the groups' links and the registration code. */
enum ol_err ol_find_tools(struct ol_link *l);

/* The clang offlink runs (found once, kept in l->clang), or NULL. */
const char *ol_clang(struct ol_link *l);

/* The directory of the clang offlink runs, symlinks resolved: LLVM's
 * helpers (ld.lld, clang-nvlink-wrapper) are there.  In l's arena. */
const char *ol_clang_dir(struct ol_link *l);

/* <clang's directory>/../lib/<file> if it exists: where LLVM installs its
 * runtime libraries (libomptarget.devicertl.a).  In l's arena. */
char *ol_clang_library(struct ol_link *l, const char *file);

/* A CUDA tool (ptxas, nvlink, fatbinary) from --cuda-path, $CUDA_PATH,
 * /usr/local/cuda, then PATH, or NULL; where it was looked for goes into
 * searched, for the error message. */
char *ol_find_cuda_tool(struct ol_link *l, const char *name, char *searched, size_t len);

/* A CUDA library (libcudadevrt.a) in lib64 or targets/<machine>-linux/lib
 * of the CUDA ol_find_cuda_tool finds its tools in, symlinks resolved,
 * or NULL.  In l's arena. */
const char *ol_find_cuda_library(struct ol_link *l, const char *name);

#endif
