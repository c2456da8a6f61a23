#include "os/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pieces.h"
#include "os/cleanup.h"
#include "os/mapfile.h"

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
	o->dir = NULL;
	o->token[0] = '\0';
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
	o->fd = ol_cleanup_create(o->tmp, false);
	if (o->fd < 0)
		goto fail_errno;
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
	const char *slash = strrchr(dest, '/');
	int dirlen = slash ? (int)(slash - dest + 1) : 0;

	if (out_init(o, dest, d))
		return d->code;
	if (is_special(dest))
		return OL_OK; /* /dev/null: written directly */
	if (asprintf(&o->dir, "%.*s.offlink-XXXXXX", dirlen, dest) < 0) {
		o->dir = NULL;
		ol_out_abort(o);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (ol_cleanup_create(o->dir, true) < 0) {
		ol_diag_errno(d, errno, "cannot create a directory beside the output", dest);
		free(o->dir);
		o->dir = NULL;
		ol_out_abort(o);
		return d->code;
	}
	snprintf(o->token, sizeof(o->token), "%s/", o->dir + dirlen);
	if (asprintf(&o->tmp, "%s/%s", o->dir, dest + dirlen) < 0) {
		o->tmp = NULL;
		ol_out_abort(o);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	return OL_OK;
}

const char *ol_out_dir_token(const struct ol_outfile *o)
{
	return o->token[0] ? o->token : NULL;
}

/* What the subprocess wrote beside its output in the private directory
 * (a map named after it, lld's <output>.time-trace) goes beside dest, as
 * it would have had it written dest itself; the output itself last. */
static enum ol_err commit_dir(struct ol_outfile *o, struct ol_diag *d)
{
	size_t dirlen = strlen(o->dest) - strlen(o->tmp + strlen(o->dir) + 1);
	DIR *dir = opendir(o->dir);
	struct dirent *e;
	enum ol_err rc = OL_OK;

	if (!dir)
		return ol_diag_errno(d, errno, "cannot write output", o->dest);
	while (!rc && (e = readdir(dir))) {
		char *to = NULL;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, o->tmp + strlen(o->dir) + 1) == 0)
			continue;
		if (asprintf(&to, "%.*s%s", (int)dirlen, o->dest, e->d_name) < 0)
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		else if (renameat(dirfd(dir), e->d_name, AT_FDCWD, to) < 0)
			rc = ol_diag_errno(d, errno, "cannot move the host linker's file into place", to);
		free(to);
	}
	closedir(dir);
	if (!rc && rename(o->tmp, o->dest) < 0)
		rc = ol_diag_errno(d, errno, "cannot write output", o->dest);
	return rc;
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
	if (o->dir) {
		if (commit_dir(o, d)) {
			ol_out_abort(o);
			return d->code;
		}
		rmdir(o->dir);
		ol_cleanup_forget(o->dir);
		free(o->dir);
		o->dir = NULL;
	} else if (o->tmp) {
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
	if (o->dir) {
		ol_remove_tree(o->dir);
		ol_cleanup_forget(o->dir);
		free(o->dir);
		o->dir = NULL;
	} else if (o->tmp) {
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

/* Write piece q (data: where it lies in its input's mapping) at out_off
 * of o.  When its input file is known: where both offsets sit on a block
 * boundary, a reflink (FICLONERANGE: btrfs, XFS; no bytes copied at all);
 * otherwise, for a large piece, through a 1 MiB buffer filled with pread:
 * streaming, memory bounded, no page faults through a mapping.  Not
 * copy_file_range: without reflinks it splices page by page, measured on
 * ext4 at 0.7x the speed of cp for an image behind a header (aligned or
 * not), while the buffer keeps pace with cp.  Whatever pread cannot give
 * is written from the mapping. */
#define COPY_ALIGN 4096
#define COPY_CHUNK (1u << 20)

static enum ol_err write_piece(struct ol_outfile *o, uint64_t out_off, const struct ol_piece *q,
			       const uint8_t *data, struct ol_diag *d)
{
	size_t done = 0;
	char *buf = NULL;

	if (q->fd >= 0 && q->file_off % COPY_ALIGN == 0 && out_off % COPY_ALIGN == 0) {
		struct file_clone_range r = { .src_fd = q->fd, .src_offset = q->file_off,
					      .src_length = q->len, .dest_offset = out_off };

		if (ioctl(o->fd, FICLONERANGE, &r) == 0 &&
		    lseek(o->fd, (off_t)(out_off + q->len), SEEK_SET) >= 0)
			return OL_OK;
	}
	if (q->fd >= 0 && q->len >= COPY_CHUNK)
		buf = malloc(COPY_CHUNK);
	while (buf && done < q->len) {
		size_t want = q->len - done < COPY_CHUNK ? q->len - done : COPY_CHUNK;
		ssize_t n = pread(q->fd, buf, want, (off_t)(q->file_off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (ol_out_write(o, buf, (size_t)n, d)) {
			free(buf);
			return d->code;
		}
		done += (size_t)n;
	}
	free(buf);
	return ol_out_write(o, data + done, q->len - done, d);
}

enum ol_err ol_write_pieces_atomic(const char *dest, const struct ol_pieces *p,
				   struct ol_diag *d)
{
	struct ol_outfile o;
	uint64_t at = 0;

	if (ol_out_open(&o, dest, d))
		return d->code;
	for (size_t i = 0; i < p->n; i++) {
		if (write_piece(&o, at, &p->v[i], ol_piece_data(p, i), d)) {
			ol_out_abort(&o);
			return d->code;
		}
		at += p->v[i].len;
	}
	return ol_out_commit(&o, false, d);
}

enum ol_err ol_write_from_map(const char *dest, const struct ol_map *m, const void *data,
			      size_t len, struct ol_diag *d)
{
	struct ol_pieces p = { 0 };
	enum ol_err rc;

	if (ol_pieces_ref(&p, data, len) || ol_pieces_finish(&p)) {
		ol_pieces_free(&p);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (m)
		ol_pieces_attach_file(&p, m->data, m->len, ol_map_fd(m));
	rc = ol_write_pieces_atomic(dest, &p, d);
	ol_pieces_free(&p);
	return rc;
}
