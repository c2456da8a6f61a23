#include "os/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/cleanup.h"

static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* "<dir>/.<base>.offlink-XXXXXX": hidden, beside the destination. */
static char *temp_template(const char *dest)
{
	const char *slash = strrchr(dest, '/');
	int dirlen = slash ? (int)(slash - dest + 1) : 0;
	const char *base = slash ? slash + 1 : dest;
	char *t = NULL;

	if (asprintf(&t, "%.*s.%s.offlink-XXXXXX", dirlen, dest, base) < 0)
		return NULL;
	return t;
}

static bool is_special(const char *dest)
{
	struct stat st;

	return stat(dest, &st) == 0 && !S_ISREG(st.st_mode);
}

static enum ol_err out_init(struct ol_outfile *o, const char *dest,
			    struct ol_diag *d)
{
	o->fd = -1;
	o->tmp = NULL;
	o->dest = strdup(dest);
	if (!o->dest)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

enum ol_err ol_out_open(struct ol_outfile *o, const char *dest,
			struct ol_diag *d)
{
	if (out_init(o, dest, d))
		return d->code;
	if (is_special(dest)) {
		o->fd = open(dest, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			goto fail_errno;
		return OL_OK;
	}
	o->tmp = temp_template(dest);
	if (!o->tmp)
		goto fail_nomem;
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0)
		goto fail_errno;
	if (ol_cleanup_add_file(o->tmp)) {
		unlink(o->tmp);
		goto fail_nomem;
	}
	return OL_OK;
fail_errno:
	ol_diag_errno(d, errno, "cannot create output", dest);
	ol_out_abort(o);
	return d->code;
fail_nomem:
	ol_out_abort(o);
	return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
}

enum ol_err ol_out_reserve(struct ol_outfile *o, const char *dest,
			   struct ol_diag *d)
{
	/* Create the unique name, then remove the file so the subprocess
	 * creates it with its own modes; the name stays registered. */
	if (ol_out_open(o, dest, d))
		return d->code;
	if (o->tmp) {
		close(o->fd);
		o->fd = -1;
		unlink(o->tmp);
	}
	return OL_OK;
}

enum ol_err ol_out_write(struct ol_outfile *o, const void *buf, size_t len,
			 struct ol_diag *d)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ol_diag_errno(d, errno, "cannot write", o->dest);
		p += n;
		len -= (size_t)n;
	}
	return OL_OK;
}

enum ol_err ol_out_commit(struct ol_outfile *o, bool executable,
			  struct ol_diag *d)
{
	mode_t mode = (executable ? 0777 : 0666) & ~current_umask();

	if (o->fd >= 0) {
		if (o->tmp && fchmod(o->fd, mode) < 0)
			goto fail;
		if (close(o->fd) < 0) {
			o->fd = -1;
			goto fail;
		}
		o->fd = -1;
	}
	if (o->tmp) {
		if (rename(o->tmp, o->dest) < 0)
			goto fail;
		ol_cleanup_forget(o->tmp);
	}
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
	return OL_OK;
fail:
	ol_diag_errno(d, errno, "cannot write output", o->dest);
	ol_out_abort(o);
	return d->code;
}

void ol_out_abort(struct ol_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		ol_cleanup_forget(o->tmp);
	}
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
}

const char *ol_out_path(const struct ol_outfile *o)
{
	return o->tmp ? o->tmp : o->dest;
}

enum ol_err ol_write_file_atomic(const char *dest, const void *buf, size_t len,
				 struct ol_diag *d)
{
	struct ol_outfile o;

	if (ol_out_open(&o, dest, d))
		return d->code;
	if (ol_out_write(&o, buf, len, d)) {
		ol_out_abort(&o);
		return d->code;
	}
	return ol_out_commit(&o, false, d);
}
