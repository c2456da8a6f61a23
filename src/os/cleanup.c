#include "os/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tracked {
	char *path;
	bool dir;
};

/* See the header: the signal handler needs these, so they are global. */
static struct tracked *paths;
static size_t npaths, cap_paths;
static pid_t children[256];
static size_t nchildren;
static bool installed;

static void block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
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

static void on_signal(int sig)
{
	/* Each child leads its own process group (spawn.c), so this stops
	 * the tools it started too, such as clang's own linker. */
	for (size_t i = 0; i < nchildren; i++)
		kill(-children[i], SIGTERM);
	remove_tracked_fast();
	signal(sig, SIG_DFL);
	raise(sig);
}

enum ol_err ol_cleanup_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	if (installed)
		return OL_OK;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* Respect an inherited "ignore" (nohup). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&sa.sa_mask, sigs[i]);
	}
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	installed = true;
	return OL_OK;
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
			free(paths[i].path);
			memmove(&paths[i], &paths[i + 1],
				(npaths - i - 1) * sizeof(*paths));
			npaths--;
			break;
		}
	}
	unblock(&old);
}

void ol_cleanup_add_child(pid_t pid)
{
	sigset_t old;

	block(&old);
	if (nchildren < sizeof(children) / sizeof(children[0]))
		children[nchildren++] = pid;
	unblock(&old);
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

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void ol_cleanup_run(void)
{
	sigset_t old;

	block(&old);
	for (size_t i = npaths; i-- > 0;) {
		if (paths[i].dir)
			nftw(paths[i].path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		else
			unlink(paths[i].path);
		free(paths[i].path);
	}
	npaths = 0;
	unblock(&old);
}
