#include "os/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum ol_err ol_map_file(const char *path, struct ol_map *m, struct ol_diag *d)
{
	struct stat st;
	void *p;
	int fd;

	m->data = NULL;
	m->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot open", path);
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return ol_diag_errno(d, err, "cannot stat", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ol_diag_errno(d, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
				     "cannot map", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return OL_OK;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return ol_diag_errno(d, errno, "cannot map", path);
	m->data = p;
	m->len = (size_t)st.st_size;
	return OL_OK;
}

void ol_unmap(struct ol_map *m)
{
	if (m->data)
		munmap(m->data, m->len);
	m->data = NULL;
	m->len = 0;
}
