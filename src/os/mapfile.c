#include "os/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/cleanup.h"

/* Largest device or pipe input read into memory. */
#define READ_LIMIT ((size_t)1 << 30)

/* A character device or a pipe: read to its end. */
static enum ol_err read_stream(int fd, const char *path, struct ol_map *m,
			       struct ol_diag *d)
{
	size_t cap = 0;
	ssize_t n;

	m->heap = true;
	for (;;) {
		if (m->len == cap) {
			uint8_t *p = cap >= READ_LIMIT ? NULL
						       : realloc(m->data, cap ? cap * 2 : 65536);

			if (!p) {
				ol_unmap(m);
				return cap >= READ_LIMIT
					? ol_diag_errno(d, EFBIG, "cannot read", path)
					: ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			}
			m->data = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = read(fd, m->data + m->len, cap - m->len);
		if (n == 0 && m->len == 0)
			ol_unmap(m); /* empty: data NULL, as for an empty file */
		if (n == 0)
			return OL_OK;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			ol_unmap(m);
			return ol_diag_errno(d, err, "cannot read", path);
		}
		m->len += (size_t)n;
	}
}

static enum ol_err map_file(const char *path, struct ol_map *m, bool keep, struct ol_diag *d)
{
	struct stat st;
	enum ol_err rc;
	void *p;
	int fd;

	m->data = NULL;
	m->len = 0;
	m->heap = false;
	m->kept_fd = 0;
	m->have_st = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot open", path);
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return ol_diag_errno(d, err, "cannot stat", path);
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		rc = read_stream(fd, path, m, d);
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ol_diag_errno(d, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
				     "cannot map", path);
	}
	m->st = st;
	m->have_st = true;
	if (st.st_size == 0) {
		close(fd);
		return OL_OK;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		close(fd);
		return ol_diag_errno(d, err, "cannot map", path);
	}
	if (keep)
		m->kept_fd = fd + 1;
	else
		close(fd);
	m->data = p;
	m->len = (size_t)st.st_size;
	/* a file that shrinks under the mapping: an error naming it */
	ol_cleanup_watch_mapping(p, m->len, path);
	return OL_OK;
}

enum ol_err ol_map_file(const char *path, struct ol_map *m, struct ol_diag *d)
{
	return map_file(path, m, false, d);
}

enum ol_err ol_map_file_fd(const char *path, struct ol_map *m, struct ol_diag *d)
{
	return map_file(path, m, true, d);
}

void ol_unmap(struct ol_map *m)
{
	if (m->heap)
		free(m->data);
	else if (m->data) {
		ol_cleanup_forget_mapping(m->data);
		munmap(m->data, m->len);
	}
	if (m->kept_fd > 0)
		close(m->kept_fd - 1);
	m->data = NULL;
	m->len = 0;
	m->heap = false;
	m->kept_fd = 0;
	m->have_st = false;
}
