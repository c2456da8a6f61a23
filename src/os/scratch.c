#include "os/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "os/cleanup.h"

static enum ol_err create(const char *path, int *fd, struct ol_diag *d)
{
	*fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (*fd < 0)
		return ol_diag_errno(d, errno, "cannot create", path);
	return OL_OK;
}

/* Write every iovec, resuming after short writes. */
static enum ol_err write_all(int fd, struct iovec *v, int n, const char *path,
			     struct ol_diag *d)
{
	while (n > 0) {
		ssize_t w = writev(fd, v, n > IOV_MAX ? IOV_MAX : n);

		if (w < 0) {
			const char *from;

			if (errno == EINTR)
				continue;
			/* the kernel could not read a mapped input: it shrank */
			if (errno == EFAULT && (from = ol_cleanup_mapped_file(v->iov_base)))
				return ol_diag_set(d, OL_E_IO, NULL, "%s: the file shrank while offlink "
						   "read it (changed during the link?)", from);
			return ol_diag_errno(d, errno, "cannot write", path);
		}
		while (n > 0 && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return OL_OK;
}

static enum ol_err finish(int fd, enum ol_err rc, const char *path, struct ol_diag *d)
{
	if (close(fd) < 0 && !rc)
		rc = ol_diag_errno(d, errno, "cannot write", path);
	if (rc)
		unlink(path);
	return rc;
}

enum ol_err ol_scratch_write(const char *path, const void *buf, size_t len,
			     struct ol_diag *d)
{
	struct iovec v = { (void *)(uintptr_t)buf, len };
	int fd;

	if (create(path, &fd, d))
		return d->code;
	return finish(fd, write_all(fd, &v, len ? 1 : 0, path, d), path, d);
}

/* The 60-byte member header: name, mtime 0, uid 0, gid 0, mode 644. */
static void member_header(char h[61], size_t index, size_t len)
{
	char name[17];

	snprintf(name, sizeof(name), "%zu.o/", index);
	snprintf(h, 61, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", len);
}

enum ol_err ol_scratch_archive(const char *path, const struct ol_scratch_member *m,
			       size_t n, struct ol_diag *d)
{
	static const char magic[] = "!<arch>\n", pad[] = "\n";
	char (*headers)[61] = calloc(n ? n : 1, sizeof(*headers));
	struct iovec *v = calloc(1 + 3 * n, sizeof(*v));
	enum ol_err rc;
	int fd, nv = 0;

	if (!headers || !v || n > (INT_MAX - 1) / 3) {
		free(headers);
		free(v);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	v[nv++] = (struct iovec){ (void *)magic, 8 };
	for (size_t i = 0; i < n; i++) {
		if (m[i].len > 9999999999u) { /* the size field's ten digits */
			free(headers);
			free(v);
			return ol_diag_set(d, OL_E_OVERFLOW, "archive member size",
					   "%s: member %zu is %zu bytes", path, i, m[i].len);
		}
		member_header(headers[i], i, m[i].len);
		v[nv++] = (struct iovec){ headers[i], 60 };
		if (m[i].len)
			v[nv++] = (struct iovec){ (void *)(uintptr_t)m[i].data, m[i].len };
		if (m[i].len & 1)
			v[nv++] = (struct iovec){ (void *)pad, 1 };
	}
	rc = create(path, &fd, d);
	if (!rc)
		rc = finish(fd, write_all(fd, v, nv, path, d), path, d);
	free(headers);
	free(v);
	return rc;
}
