/* The header comments of a generated registration, C or assembly alike
 * (GNU as reads C comments on x86_64 and aarch64): what was linked, for a
 * reader of --save-temps or --print-wrapped-module.  The one place where
 * text from outside -- the output path, triples, archs, input paths,
 * archive member names, a container's description -- enters a comment,
 * and every byte of it goes through ol_escape (common/escape.h), which
 * can neither end the comment nor start a line. */
#ifndef OFFLINK_WRAP_COMMENT_H
#define OFFLINK_WRAP_COMMENT_H

#include "common/buf.h"
#include "wrap/wrapper.h"

/* "<triple> <arch>" (or the triple alone), escaped. */
enum ol_err wrap_image_name(const struct wrap_image *img, struct ol_buf *out);

/* The OpenMP header comment; form: NULL for C, else the assembly's
 * architecture ("x86_64"). */
enum ol_err wrap_openmp_comment(const struct wrap_openmp *w, const char *form,
				struct ol_buf *out);

/* The SYCL header comment. */
enum ol_err wrap_sycl_comment(const struct wrap_sycl *w, const char *form, struct ol_buf *out);

/* The CUDA/HIP header comment, for the entries in section sect. */
enum ol_err wrap_cuda_hip_comment(const struct wrap_cuda_hip *w, const char *sect,
				  const char *form, struct ol_buf *out);

#endif
