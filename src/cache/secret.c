#include "cache/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET_MIN 16
#define SECRET_MAX 4096

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* "g-w,o-rw": what chmod must take away for mode to be safe. */
static void fix_mode(unsigned mode, bool file, char *out, size_t len)
{
	char g[4] = "", o[4] = "";

	if (mode & S_IWGRP)
		strcat(g, "w");
	if (file && (mode & S_IROTH))
		strcat(o, "r");
	if (mode & S_IWOTH)
		strcat(o, "w");
	snprintf(out, len, "%s%s%s%s%s", *g ? "g-" : "", g, *g && *o ? "," : "", *o ? "o-" : "", o);
}

static enum ol_err check_file(const char *path, const struct stat *st, struct ol_diag *d)
{
	unsigned mode = (unsigned)(st->st_mode & 07777);
	char fix[16];

	if (!S_ISREG(st->st_mode))
		return ol_diag_set(d, OL_E_IO, NULL, "cache secret %s: not a regular file", path);
	if (!owner_ok(st))
		return ol_diag_set(d, OL_E_IO, NULL,
				   "cache secret %s: owned by uid %lu, neither you nor root, who can "
				   "replace it and sign device code into your links; use a secret "
				   "you own (chown %lu %s)",
				   path, (unsigned long)st->st_uid, (unsigned long)geteuid(), path);
	if (mode & (S_IWGRP | S_IWOTH | S_IROTH)) {
		fix_mode(mode, true, fix, sizeof(fix));
		return ol_diag_set(d, OL_E_IO, NULL,
				   "cache secret %s: %s (mode %04o); anyone who can write it can sign "
				   "device code into your links and anyone who can read it can forge "
				   "entries: chmod %s %s",
				   path,
				   mode & S_IWOTH ? "writable by everyone"
				   : mode & S_IWGRP ? "writable by its group"
				   : "readable by everyone",
				   mode, fix, path);
	}
	return OL_OK;
}

/* Each directory from the file's up to /: the user's or root's, and
 * writable by nobody else unless root's with the sticky bit. */
static enum ol_err check_dirs(const char *secret, const char *real, struct ol_diag *d)
{
	char dir[PATH_MAX], fix[16];

	snprintf(dir, sizeof(dir), "%s", real);
	for (;;) {
		char *slash = strrchr(dir, '/');
		struct stat st;
		unsigned mode;

		if (!slash)
			return OL_OK;
		slash[slash == dir ? 1 : 0] = '\0';
		if (stat(dir, &st) != 0)
			return ol_diag_errno(d, errno, "cannot check the directory of the cache secret", dir);
		mode = (unsigned)(st.st_mode & 07777);
		if (!owner_ok(&st))
			return ol_diag_set(d, OL_E_IO, NULL,
					   "cache secret %s: its directory %s is owned by uid %lu, who can "
					   "replace the secret; keep the secret in a directory of your own",
					   secret, dir, (unsigned long)st.st_uid);
		if ((mode & (S_IWGRP | S_IWOTH)) && !(st.st_uid == 0 && (mode & S_ISVTX))) {
			fix_mode(mode, false, fix, sizeof(fix));
			return ol_diag_set(d, OL_E_IO, NULL,
					   "cache secret %s: its directory %s is writable by %s (mode %04o), "
					   "who can replace the secret; keep the secret in a directory only "
					   "you can write, or chmod %s %s",
					   secret, dir, mode & S_IWOTH ? "everyone" : "its group", mode, fix,
					   dir);
		}
		if (strcmp(dir, "/") == 0)
			return OL_OK;
	}
}

enum ol_err ol_secret_read(struct ol_secret *s, const char *path, struct ol_diag *d)
{
	char real[PATH_MAX];
	struct stat st;
	enum ol_err rc;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot open the cache secret (OFFLINK_CACHE_SECRET_FILE)",
				     path);
	if (fstat(fd, &st) != 0) {
		rc = ol_diag_errno(d, errno, "cannot stat the cache secret", path);
		goto out;
	}
	if ((rc = check_file(path, &st, d)))
		goto out;
	if (!realpath(path, real)) {
		rc = ol_diag_errno(d, errno, "cannot resolve the cache secret's path", path);
		goto out;
	}
	if ((rc = check_dirs(path, real, d)))
		goto out;
	if (st.st_size < SECRET_MIN || st.st_size > SECRET_MAX) {
		rc = ol_diag_set(d, OL_E_IO, NULL, "cache secret %s: %lld bytes; expected %d to %d",
				 path, (long long)st.st_size, SECRET_MIN, SECRET_MAX);
		goto out;
	}
	s->bytes = malloc((size_t)st.st_size);
	n = s->bytes ? pread(fd, s->bytes, (size_t)st.st_size, 0) : -1;
	if (n != st.st_size) {
		rc = ol_diag_errno(d, s->bytes ? errno : ENOMEM, "cannot read the cache secret", path);
		ol_secret_free(s);
		goto out;
	}
	s->len = (size_t)n;
out:
	close(fd);
	return rc;
}

void ol_secret_free(struct ol_secret *s)
{
	if (s->bytes) {
		memset(s->bytes, 0, s->len);
		free(s->bytes);
	}
	memset(s, 0, sizeof(*s));
}
