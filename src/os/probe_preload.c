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
 * and, for each program clang starts (posix_spawn, or exec after a fork:
 * an exec of the process itself, as a wrapper script's, goes on being
 * recorded), C, the count of
 * its arguments in decimal and NUL, then each argument and NUL: a real
 * link recorded so says what clang runs without a -### of its own.  A
 * program clang starts gets neither this library nor its variables; it
 * gets OFFLINK_PROBE_CHILD_ENV ("NAME=value", e.g. LC_ALL=C for GNU ld,
 * whose messages offlink reads) set in its environment instead, which
 * clang itself never sees.
 * A path relative to a directory descriptor is written from that
 * directory's /proc/self/fd name.  libc only: this library is loaded
 * into programs that are not offlink's. */
#include <dirent.h>
#include <dlfcn.h>
#include <spawn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

extern char **environ;

static int log_fd = -2;          /* -2: not opened yet; -1: no log */
static pid_t loaded_by;          /* the process this image was loaded into */

__attribute__((constructor)) static void loaded(void)
{
	loaded_by = getpid();
}

/* An exec in the process itself (a wrapper script's `exec clang`) goes
 * on recording in the new image: only a child's exec, after a fork, is
 * a program started. */
static bool in_child(void)
{
	return getpid() != loaded_by;
}
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

/* ---- the programs clang starts ---- */

static void record_command(char *const argv[])
{
	size_t n = 16, argc = 0, at;
	char *buf;

	if (busy || log_file() < 0 || !argv)
		return;
	busy = 1;
	for (; argv[argc]; argc++)
		n += strlen(argv[argc]) + 1;
	if ((buf = malloc(n))) {
		at = (size_t)snprintf(buf, n, "C%zu", argc) + 1;
		for (size_t i = 0; i < argc; i++) {
			size_t k = strlen(argv[i]) + 1;

			memcpy(buf + at, argv[i], k);
			at += k;
		}
		(void)!syscall(SYS_write, log_fd, buf, at);
		free(buf);
	}
	busy = 0;
}

/* This library's own path (to take it out of a child's LD_PRELOAD). */
static const char *self_path(void)
{
	Dl_info info;

	/* (the address of a variable of this library: a data pointer) */
	return dladdr(&log_fd, &info) && info.dli_fname ? info.dli_fname : "";
}

static bool starts(const char *e, const char *name)
{
	size_t n = strlen(name);

	return strncmp(e, name, n) == 0;
}

/* envp for a program clang starts: without OFFLINK_PROBE_*, without this
 * library in LD_PRELOAD, with OFFLINK_PROBE_CHILD_ENV set.  NULL when out
 * of memory (the program then gets envp as it is). */
static char **child_env(char *const envp[])
{
	const char *add = NULL, *self = self_path();
	size_t n = 0, k = 0, addlen = 0;
	char **out;

	for (; envp && envp[n]; n++)
		if (starts(envp[n], "OFFLINK_PROBE_CHILD_ENV="))
			add = envp[n] + 24;
	if (add && strchr(add, '='))
		addlen = (size_t)(strchr(add, '=') - add) + 1;
	if (!(out = calloc(n + 2, sizeof(*out))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *e = envp[i];

		if (starts(e, "OFFLINK_PROBE_") || (addlen && strncmp(e, add, addlen) == 0))
			continue;
		if (starts(e, "LD_PRELOAD=") && *self) {
			/* the others' preloads stay */
			size_t len = strlen(e) + 1, sl = strlen(self);
			char *copy = malloc(len), *w;
			const char *r = e + 11;

			if (!copy)
				continue;
			w = copy + 11;
			memcpy(copy, e, 11);
			while (*r) {
				size_t seg = strcspn(r, ": ");

				if (!(seg == sl && strncmp(r, self, sl) == 0)) {
					if (w > copy + 11)
						*w++ = ':';
					memcpy(w, r, seg);
					w += seg;
				}
				r += seg;
				while (*r == ':' || *r == ' ')
					r++;
			}
			*w = '\0';
			out[k++] = copy; /* (leaks in the child's image only) */
			continue;
		}
		out[k++] = (char *)e;
	}
	if (addlen)
		out[k++] = (char *)add;
	return out;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	REAL(posix_spawn);
	char **env = child_env(envp);
	int rc;

	record_command(argv);
	rc = real_posix_spawn(pid, path, fa, attr, argv, env ? env : envp);
	free(env);
	return rc;
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	REAL(posix_spawnp);
	char **env = child_env(envp);
	int rc;

	record_command(argv);
	rc = real_posix_spawnp(pid, file, fa, attr, argv, env ? env : envp);
	free(env);
	return rc;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve);
	char **env;

	if (!in_child())
		return real_execve(path, argv, envp);
	env = child_env(envp);
	record_command(argv);
	return real_execve(path, argv, env ? env : envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe);
	char **env;

	if (!in_child())
		return real_execvpe(file, argv, envp);
	env = child_env(envp);
	record_command(argv);
	return real_execvpe(file, argv, env ? env : envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
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

/* The open family's third argument, which is there only when a file may
 * be made. */
#define MODE_ARG(flags, mode)                                  \
	do {                                                   \
		va_list ap_;                                   \
                                                               \
		(mode) = 0;                                    \
		if ((flags) & (O_CREAT | O_TMPFILE)) {         \
			va_start(ap_, flags);                  \
			(mode) = (mode_t)va_arg(ap_, int);     \
			va_end(ap_);                           \
		}                                              \
	} while (0)

static char open_op(int flags)
{
	return (flags & O_DIRECTORY) ? 'S' : 'O';
}

EXPORT int open(const char *path, int flags, ...)
{
	REAL(open);
	mode_t mode;

	MODE_ARG(flags, mode);
	record(open_op(flags), AT_FDCWD, path);
	return real_open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	REAL(open64);
	mode_t mode;

	MODE_ARG(flags, mode);
	record(open_op(flags), AT_FDCWD, path);
	return real_open64(path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	REAL(openat);
	mode_t mode;

	MODE_ARG(flags, mode);
	record(open_op(flags), dirfd, path);
	return real_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	REAL(openat64);
	mode_t mode;

	MODE_ARG(flags, mode);
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
