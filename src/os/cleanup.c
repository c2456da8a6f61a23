#include "os/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/escape.h"
#include "os/jobserver.h"

struct tracked {
	char *path;
	bool dir;
};

/* See the header: the signal handler needs these, so they are global. */
static struct tracked *paths;
static size_t npaths, cap_paths;
static pid_t *children;
static size_t nchildren, cap_children;
static bool installed;
/* The link's watchdog (os/guard.h), told of every path added and
 * forgotten, or -1. */
static int watchdog = -1;

/* Mapped inputs, for the SIGBUS handler: where each lies and the message
 * to write if it faults, made beforehand (the handler cannot format). */
struct watched {
	const char *p;
	size_t n;
	char *msg;
	size_t msglen;
	char *path;
};
static struct watched *maps;
static size_t nmaps, cap_maps;

/* The signals that stop a link: the handler forwards each to every
 * running tool, removes the temporaries and dies of the same signal. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void ol_cleanup_block_signals(sigset_t *old)
{
	block(old);
}

void ol_cleanup_restore_signals(const sigset_t *old)
{
	unblock(old);
}

/* Empty a (flat) directory with async-signal-safe calls only: openat,
 * the getdents64 system call, unlinkat.  Subprocesses may have written
 * files offlink never registered. */
static void empty_dir_fast(const char *path)
{
	char buf[4096];
	long n;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (int removed = 1; removed;) {
		removed = 0;
		lseek(fd, 0, SEEK_SET); /* reread: removal moves entries */
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *e = (struct dirent64 *)(buf + off);

				off += e->d_reclen;
				if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
					continue;
				if (unlinkat(fd, e->d_name, 0) == 0 ||
				    unlinkat(fd, e->d_name, AT_REMOVEDIR) == 0)
					removed = 1;
			}
		}
	}
	close(fd);
}

/* Async-signal-safe part: unlink/rmdir only, newest first. */
static void remove_tracked_fast(void)
{
	for (size_t i = npaths; i-- > 0;) {
		if (paths[i].dir) {
			empty_dir_fast(paths[i].path);
			rmdir(paths[i].path);
		} else {
			unlink(paths[i].path);
		}
	}
}

/* ---- stopping a tool's whole process tree, from the signal handler ---- */

/* "/proc/<pid>/task" without snprintf, which is not async-signal-safe. */
static void task_dir(char *out, size_t len, pid_t pid)
{
	char digits[24];
	size_t nd = 0, k = 0;
	const char *a = "/proc/", *b = "/task";

	do {
		digits[nd++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid > 0 && nd < sizeof(digits));
	for (; *a && k + 1 < len; a++)
		out[k++] = *a;
	while (nd > 0 && k + 1 < len)
		out[k++] = digits[--nd];
	for (; *b && k + 1 < len; b++)
		out[k++] = *b;
	out[k] = '\0';
}

/* "<tid>/children", relative to the task directory. */
static const char *child_list_name(const char *tid, char *out, size_t len)
{
	size_t k = 0;

	for (; *tid && k + 1 < len; tid++)
		out[k++] = *tid;
	for (const char *s = "/children"; *s && k + 1 < len; s++)
		out[k++] = *s;
	out[k] = '\0';
	return out;
}

/* Append the children of pid (every thread's /proc children list) to
 * tree[*n..cap).  Only async-signal-safe calls: open, getdents64, read. */
static void add_children(pid_t pid, pid_t *tree, size_t *n, size_t cap)
{
	char path[64], buf[4096];
	long len;
	int dir;

	task_dir(path, sizeof(path), pid);
	if ((dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	while ((len = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < len;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			char name[300], list[4096];
			ssize_t got;
			int fd;

			off += e->d_reclen;
			if (e->d_name[0] < '0' || e->d_name[0] > '9')
				continue;
			if ((fd = openat(dir, child_list_name(e->d_name, name, sizeof(name)),
					 O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			got = read(fd, list, sizeof(list) - 1);
			close(fd);
			for (ssize_t i = 0; i < got && *n < cap;) {
				pid_t c = 0;

				while (i < got && (list[i] < '0' || list[i] > '9'))
					i++;
				while (i < got && list[i] >= '0' && list[i] <= '9')
					c = c * 10 + (list[i++] - '0');
				if (c > 0)
					tree[(*n)++] = c;
			}
		}
	}
	close(dir);
}

/* Send sig to every tracked child and all their descendants: collect the
 * tree first (a killed parent's children move to init and out of sight),
 * then signal it. */
static void signal_trees(int sig)
{
	static pid_t tree[4096];
	size_t n = 0;

	for (size_t i = 0; i < nchildren && n < sizeof(tree) / sizeof(tree[0]); i++)
		tree[n++] = children[i];
	for (size_t i = 0; i < n; i++)
		add_children(tree[i], tree, &n, sizeof(tree) / sizeof(tree[0]));
	for (size_t i = 0; i < n; i++)
		kill(tree[i], sig);
}

static void on_signal(int sig)
{
	ol_jobserver_give_all_from_signal();
	/* Children share offlink's process group (spawn.c): a signal sent to
	 * the group has reached them already; one sent to offlink alone is
	 * passed on here, to each tool and what it started (clang's linker).
	 * Should offlink die without running this (SIGKILL), the tools'
	 * parent-death signal stops them. */
	signal_trees(sig);
	remove_tracked_fast();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A read of a mapped input faulted: the file shrank under the mapping.
 * Anything else is a real fault: the default action. */
/* A thread reading a mapping it can give up on (a program digested
 * ahead of its key, cache/filedigest.c) is sent back to its sigsetjmp
 * instead: its caller reads the file again, watched as above. */
static _Thread_local sigjmp_buf *fault_escape;

void ol_cleanup_escape_faults(sigjmp_buf *env)
{
	fault_escape = env;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *a = si->si_addr;

	(void)uc;
	if (fault_escape)
		siglongjmp(*fault_escape, 1);
	for (size_t i = 0; i < nmaps; i++) {
		if (a >= maps[i].p && (size_t)(a - maps[i].p) < maps[i].n) {
			(void)!write(STDERR_FILENO, maps[i].msg, maps[i].msglen);
			ol_jobserver_give_all_from_signal();
			signal_trees(SIGTERM);
			remove_tracked_fast();
			_exit(1);
		}
	}
	signal(sig, SIG_DFL); /* returning faults again, now fatally */
}

enum ol_err ol_cleanup_watch_mapping(const void *p, size_t n, const char *path)
{
	struct ol_buf msg = { 0 };
	sigset_t old;
	char *copy = NULL;
	enum ol_err rc = OL_OK;

	if (ol_buf_puts(&msg, "offlink: error: ") || ol_escape_terminal(&msg, path, strlen(path)) ||
	    ol_buf_puts(&msg, ": the file shrank while offlink read it (changed during the link?)\n")) {
		ol_buf_free(&msg);
		return OL_E_NOMEM;
	}
	block(&old);
	if (nmaps == cap_maps) {
		size_t cap = cap_maps ? cap_maps * 2 : 64;
		struct watched *m = realloc(maps, cap * sizeof(*m));

		if (m) {
			maps = m;
			cap_maps = cap;
		}
	}
	if (nmaps < cap_maps && (copy = strdup(path))) {
		maps[nmaps++] = (struct watched){ p, n, (char *)msg.data, msg.len, copy };
		msg.data = NULL;
	} else {
		rc = OL_E_NOMEM;
	}
	unblock(&old);
	ol_buf_free(&msg);
	return rc;
}

void ol_cleanup_forget_mapping(const void *p)
{
	sigset_t old;

	block(&old);
	for (size_t i = nmaps; i-- > 0;) {
		if (maps[i].p == p) {
			free(maps[i].msg);
			free(maps[i].path);
			maps[i] = maps[--nmaps];
			break;
		}
	}
	unblock(&old);
}

const char *ol_cleanup_mapped_file(const void *p)
{
	const char *a = p;

	for (size_t i = 0; i < nmaps; i++)
		if (a >= maps[i].p && (size_t)(a - maps[i].p) < maps[i].n)
			return maps[i].path;
	return NULL;
}

enum ol_err ol_cleanup_init(void)
{
	const int *sigs = stop_signals;
	struct sigaction sa, bus;

	if (installed)
		return OL_OK;
	memset(&bus, 0, sizeof(bus));
	bus.sa_sigaction = on_sigbus;
	bus.sa_flags = SA_SIGINFO;
	sigemptyset(&bus.sa_mask);
	sigaction(SIGBUS, &bus, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++) {
		struct sigaction old;

		/* Respect an inherited "ignore" (nohup). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&sa.sa_mask, sigs[i]);
	}
	for (size_t i = 0; i < NSTOP; i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	installed = true;
	return OL_OK;
}

/* One message to the watchdog: the type byte ('f' a file, 'D' a
 * directory, '-' forget), then the path and its NUL.  Signals are blocked
 * (the callers hold them).  A watchdog that is gone is not written to
 * again; nothing else depends on it. */
static void tell_watchdog(char type, const char *path)
{
	size_t n = strlen(path) + 1;
	const char *parts[2] = { &type, path };
	size_t lens[2] = { 1, n };

	for (int k = 0; k < 2 && watchdog >= 0; k++) {
		const char *p = parts[k];
		size_t left = lens[k];

		while (left > 0) {
			ssize_t w = send(watchdog, p, left, MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(watchdog);
				watchdog = -1;
				break;
			}
			p += w;
			left -= (size_t)w;
		}
	}
}

void ol_cleanup_attach_watchdog(int fd)
{
	sigset_t old;

	block(&old);
	watchdog = fd;
	for (size_t i = 0; i < npaths; i++)
		tell_watchdog(paths[i].dir ? 'D' : 'f', paths[i].path);
	unblock(&old);
}

void ol_cleanup_watchdog_done(void)
{
	sigset_t old;

	block(&old);
	if (watchdog >= 0) {
		(void)!send(watchdog, "d", 1, MSG_NOSIGNAL);
		close(watchdog);
	}
	watchdog = -1;
	unblock(&old);
}

static enum ol_err add(const char *path, bool dir)
{
	sigset_t old;
	char *copy = strdup(path);
	enum ol_err rc = OL_OK;

	if (!copy)
		return OL_E_NOMEM;
	block(&old);
	if (npaths == cap_paths) {
		size_t cap = cap_paths ? cap_paths * 2 : 32;
		struct tracked *p = realloc(paths, cap * sizeof(*p));

		if (!p) {
			rc = OL_E_NOMEM;
			goto out;
		}
		paths = p;
		cap_paths = cap;
	}
	paths[npaths++] = (struct tracked){ copy, dir };
	tell_watchdog(dir ? 'D' : 'f', copy);
	copy = NULL;
out:
	unblock(&old);
	free(copy);
	return rc;
}

enum ol_err ol_cleanup_add_file(const char *path)
{
	return add(path, false);
}

enum ol_err ol_cleanup_add_dir(const char *path)
{
	return add(path, true);
}

void ol_cleanup_forget(const char *path)
{
	sigset_t old;

	block(&old);
	for (size_t i = npaths; i-- > 0;) {
		if (strcmp(paths[i].path, path) == 0) {
			tell_watchdog('-', paths[i].path);
			free(paths[i].path);
			memmove(&paths[i], &paths[i + 1],
				(npaths - i - 1) * sizeof(*paths));
			npaths--;
			break;
		}
	}
	unblock(&old);
}

/* Fill the trailing "XXXXXX" of t with random letters and digits. */
static void randomize(char *t)
{
	static const char alnum[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	size_t n = strlen(t);
	unsigned char r[6];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		for (size_t i = 0; i < sizeof(r); i++) /* no entropy yet: EEXIST retries */
			r[i] = (unsigned char)((unsigned)getpid() * 31u + counter++ * 7u + i);
	for (size_t i = 0; i < 6; i++)
		t[n - 6 + i] = alnum[r[i] % (sizeof(alnum) - 1)];
}

int ol_cleanup_create(char *t, bool dir)
{
	if (strlen(t) < 6 || strcmp(t + strlen(t) - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	for (int tries = 0; tries < 100; tries++) {
		int fd, err;

		randomize(t);
		if (dir ? ol_cleanup_add_dir(t) : ol_cleanup_add_file(t)) {
			errno = ENOMEM;
			return -1;
		}
		fd = dir ? mkdir(t, 0700) : open(t, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		err = errno;
		ol_cleanup_forget(t);
		errno = err;
		if (err != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

enum ol_err ol_cleanup_add_child(pid_t pid)
{
	sigset_t old;
	enum ol_err rc = OL_OK;

	block(&old);
	if (nchildren == cap_children) {
		size_t cap = cap_children ? cap_children * 2 : 16;
		pid_t *p = realloc(children, cap * sizeof(*p));

		if (p) {
			children = p;
			cap_children = cap;
		}
	}
	if (nchildren < cap_children)
		children[nchildren++] = pid;
	else
		rc = OL_E_NOMEM;
	unblock(&old);
	return rc;
}

void ol_cleanup_forget_child(pid_t pid)
{
	sigset_t old;

	block(&old);
	for (size_t i = 0; i < nchildren; i++) {
		if (children[i] == pid) {
			children[i] = children[--nchildren];
			break;
		}
	}
	unblock(&old);
}

/* Remove name (under parent) and, for a directory, everything in it: one
 * unlinkat per file, no stat (nftw would lstat each one first). */
static void remove_tree_at(int parent, const char *name)
{
	int fd;
	DIR *dir;
	struct dirent *e;

	if (unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
		return;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	/* Entries removed while the directory is read may make readdir miss
	 * others: read it again while it is not empty. */
	for (int pass = 0; pass < 8; pass++) {
		rewinddir(dir);
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				remove_tree_at(dirfd(dir), e->d_name);
		if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
			break;
	}
	closedir(dir);
}

void ol_remove_tree(const char *path)
{
	remove_tree_at(AT_FDCWD, path);
}

void ol_cleanup_run(void)
{
	sigset_t old;

	block(&old);
	for (size_t i = npaths; i-- > 0;) {
		if (paths[i].dir)
			remove_tree_at(AT_FDCWD, paths[i].path);
		else
			unlink(paths[i].path);
		free(paths[i].path);
	}
	npaths = 0;
	unblock(&old);
}
