/* offlink-probe.so: preloaded (LD_PRELOAD) into `clang ... -###` when the
 * device-link cache asks which linker command clang would run, it writes
 * down every place clang looks while it decides: each path it stats,
 * tests, opens, lists or resolves, and each environment variable it
 * reads.  What clang decides is a function of its own program, its
 * arguments and what it finds in those places, so the answer can be
 * remembered and reused while every one of them still looks the same
 * (cache/facts.h), instead of running clang again (20 ms a link).  A
 * linker says where it looked (GNU ld's --verbose); clang does not, so it
 * is asked this way.
 *
 * The record goes to the file OFFLINK_PROBE_LOG names: one record per
 * call, an operation byte and a path (or variable name) ending in NUL:
 *   S stat (links followed)   L lstat        A access (R/W/F)
 *   X access for execution    O open/fopen   D opendir
 *   R readlink                P realpath     E getenv
 * A path relative to a directory descriptor is written from that
 * directory's /proc/self/fd name.  libc only: this library is loaded
 * into programs that are not offlink's. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

extern char **environ;

static int log_fd = -2;          /* -2: not opened yet; -1: no log */
static __thread int busy;        /* inside our own code: do not record */

/* The log, opened with the system call itself (open is ours). */
static int log_file(void)
{
	if (log_fd == -2) {
		const char *p = NULL;

		for (char **e = environ; e && *e; e++)
			if (strncmp(*e, "OFFLINK_PROBE_LOG=", 18) == 0)
				p = *e + 18;
		log_fd = p ? (int)syscall(SYS_openat, AT_FDCWD, p,
					  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)
			   : -1;
	}
	return log_fd;
}

static void record(char op, int dirfd, const char *path)
{
	char buf[2 * PATH_MAX + 8], dir[PATH_MAX], link[64];
	size_t n = 0, len;
	ssize_t d;

	if (busy || !path || log_file() < 0)
		return;
	busy = 1;
	buf[n++] = op;
	if (dirfd != AT_FDCWD && path[0] != '/') {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		d = (ssize_t)syscall(SYS_readlinkat, AT_FDCWD, link, dir, sizeof(dir) - 1);
		if (d > 0 && (size_t)d < sizeof(dir) - 1) {
			memcpy(buf + n, dir, (size_t)d);
			n += (size_t)d;
			buf[n++] = '/';
		}
	}
	len = strlen(path);
	if (n + len + 1 > sizeof(buf))
		len = sizeof(buf) - n - 1; /* (cut: the fact will not verify) */
	memcpy(buf + n, path, len);
	n += len;
	buf[n++] = '\0';
	(void)!syscall(SYS_write, log_fd, buf, n);
	busy = 0;
}

/* real_<name>: the next definition of name, the one this hides (the
 * pointer is written through a void * as POSIX's dlsym needs). */
#define REAL(name)                                                         \
	static __typeof__(&name) real_##name;                              \
	if (!real_##name)                                                  \
		*(void **)&real_##name = dlsym(RTLD_NEXT, #name)

/* (a path argument glibc declares nonnull may still be NULL with
 * AT_EMPTY_PATH: asked here, where the compiler assumes nothing) */
static int named(const char *path)
{
	return path && *path;
}

/* ---- the environment ---- */

static char *lookup_env(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

EXPORT char *getenv(const char *name)
{
	record('E', AT_FDCWD, name);
	return lookup_env(name);
}

EXPORT char *secure_getenv(const char *name)
{
	record('E', AT_FDCWD, name);
	return lookup_env(name);
}

/* ---- opening ---- */

static char open_op(int flags)
{
	return (flags & O_DIRECTORY) ? 'S' : 'O';
}

EXPORT int open(const char *path, int flags, ...)
{
	REAL(open);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	record(open_op(flags), AT_FDCWD, path);
	return real_open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	REAL(open64);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	record(open_op(flags), AT_FDCWD, path);
	return real_open64(path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	REAL(openat);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	record(open_op(flags), dirfd, path);
	return real_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	REAL(openat64);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	record(open_op(flags), dirfd, path);
	return real_openat64(dirfd, path, flags, mode);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	REAL(fopen);

	record('O', AT_FDCWD, path);
	return real_fopen(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	REAL(fopen64);

	record('O', AT_FDCWD, path);
	return real_fopen64(path, mode);
}

EXPORT DIR *opendir(const char *path)
{
	REAL(opendir);

	record('D', AT_FDCWD, path);
	return real_opendir(path);
}

/* ---- looking ---- */

EXPORT int stat(const char *path, struct stat *st)
{
	REAL(stat);

	record('S', AT_FDCWD, path);
	return real_stat(path, st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	REAL(stat64);

	record('S', AT_FDCWD, path);
	return real_stat64(path, st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	REAL(lstat);

	record('L', AT_FDCWD, path);
	return real_lstat(path, st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REAL(lstat64);

	record('L', AT_FDCWD, path);
	return real_lstat64(path, st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(fstatat);

	if (!(flags & AT_EMPTY_PATH) || named(path))
		record(flags & AT_SYMLINK_NOFOLLOW ? 'L' : 'S', dirfd, path);
	return real_fstatat(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(fstatat64);

	if (!(flags & AT_EMPTY_PATH) || named(path))
		record(flags & AT_SYMLINK_NOFOLLOW ? 'L' : 'S', dirfd, path);
	return real_fstatat64(dirfd, path, st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	REAL(statx);

	if (!(flags & AT_EMPTY_PATH) || named(path))
		record(flags & AT_SYMLINK_NOFOLLOW ? 'L' : 'S', dirfd, path);
	return real_statx(dirfd, path, flags, mask, st);
}

int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);

/* (programs built against glibc before 2.33 call these; glibc keeps them
 * as compatibility symbols only, which dlsym does not find: the system
 * call does what they do) */
static int old_stat(const char *path, void *st, int flags)
{
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, flags);
}

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	record('S', AT_FDCWD, path);
	return old_stat(path, st, 0);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	record('S', AT_FDCWD, path);
	return old_stat(path, st, 0);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	record('L', AT_FDCWD, path);
	return old_stat(path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	record('L', AT_FDCWD, path);
	return old_stat(path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int access(const char *path, int mode)
{
	REAL(access);

	record(mode & X_OK ? 'X' : 'A', AT_FDCWD, path);
	return real_access(path, mode);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REAL(faccessat);

	record(mode & X_OK ? 'X' : 'A', dirfd, path);
	return real_faccessat(dirfd, path, mode, flags);
}

EXPORT int euidaccess(const char *path, int mode)
{
	REAL(euidaccess);

	record(mode & X_OK ? 'X' : 'A', AT_FDCWD, path);
	return real_euidaccess(path, mode);
}

EXPORT int eaccess(const char *path, int mode)
{
	REAL(eaccess);

	record(mode & X_OK ? 'X' : 'A', AT_FDCWD, path);
	return real_eaccess(path, mode);
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	REAL(readlink);

	record('R', AT_FDCWD, path);
	return real_readlink(path, buf, len);
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	REAL(readlinkat);

	record('R', dirfd, path);
	return real_readlinkat(dirfd, path, buf, len);
}

EXPORT char *realpath(const char *path, char *resolved)
{
	REAL(realpath);

	record('P', AT_FDCWD, path);
	return real_realpath(path, resolved);
}

EXPORT char *canonicalize_file_name(const char *path)
{
	REAL(canonicalize_file_name);

	record('P', AT_FDCWD, path);
	return real_canonicalize_file_name(path);
}
