#include "os/guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig; /* only to end sigsuspend */
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Append the children of pid (every thread's list in /proc) to
 * tree[*n..cap). */
static void add_children(pid_t pid, pid_t *tree, size_t *n, size_t cap)
{
	char path[48], list[4096];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char name[400];
		ssize_t got;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(name, sizeof(name), "%s/%s/children", path, e->d_name);
		if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		got = read(fd, list, sizeof(list) - 1);
		close(fd);
		for (ssize_t i = 0; i < got && *n < cap;) {
			long c = 0;

			while (i < got && (list[i] < '0' || list[i] > '9'))
				i++;
			while (i < got && list[i] >= '0' && list[i] <= '9')
				c = c * 10 + (list[i++] - '0');
			if (c > 0)
				tree[(*n)++] = (pid_t)c;
		}
	}
	closedir(d);
}

/* Every process below the guard: the tool, what it started, and what
 * detached from it (the guard reaps those: it is their subreaper).
 * Collected whole before any is signalled. */
static void signal_tree(int sig)
{
	static pid_t tree[4096];
	size_t n = 0;

	add_children(getpid(), tree, &n, sizeof(tree) / sizeof(tree[0]));
	for (size_t i = 0; i < n; i++)
		add_children(tree[i], tree, &n, sizeof(tree) / sizeof(tree[0]));
	for (size_t i = 0; i < n; i++)
		kill(tree[i], sig);
}

/* Reap what has ended (the tool's status into *status); true when no
 * child is left. */
static bool reap(pid_t tool, int *status, bool *tool_done)
{
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == tool) {
			*status = st;
			*tool_done = true;
		}
	}
	return p < 0 && errno == ECHILD;
}

/* Asked to stop: the signal to the whole tree, SIGKILL to what is left
 * after the grace, then everything reaped. */
static void stop_tree(pid_t tool, int *status, bool *tool_done, int sig)
{
	long deadline = now_ms() + OL_GUARD_GRACE_MS;

	signal_tree(sig);
	while (now_ms() < deadline) {
		if (reap(tool, status, tool_done))
			return; /* no child left */
		sleep_ms(10);
	}
	signal_tree(SIGKILL);
	while (!reap(tool, status, tool_done))
		sleep_ms(5);
}

static void __attribute__((noreturn)) end_as(int status)
{
	if (WIFSIGNALED(status)) {
		sigset_t none;

		signal(WTERMSIG(status), SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		raise(WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void ol_guard_exec(pid_t parent, int fd, char **argv)
{
	struct sigaction sa, child, saved[NSTOP];
	sigset_t block, old;
	pid_t tool, guard = getpid(), group = getpgrp();
	int status = 0, err;
	bool tool_done = false;

	/* Stop signals and SIGCHLD blocked but in sigsuspend: none is lost
	 * between a check and the wait. */
	sigemptyset(&block);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&block, stop_signals[i]);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &saved[i]);
	memset(&child, 0, sizeof(child));
	child.sa_handler = on_child;
	sigaction(SIGCHLD, &child, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGKILL); /* offlink is gone already */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* The tool stays in offlink's process group (job control and the
	 * caller's signals reach it); the guard leaves it, so that a SIGKILL
	 * to the group does not take the guard before it has stopped what the
	 * tool left behind. */
	setpgid(0, 0);
	tool = fork();
	if (tool == 0) {
		/* The tool: as offlink would have started it. */
		setpgid(0, group);
		for (size_t i = 0; i < NSTOP; i++)
			sigaction(stop_signals[i], &saved[i], NULL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != guard)
			_exit(128 + SIGKILL);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		/* a preload meant for the tool (os/spawn.c), not for the guard */
		if (getenv("OFFLINK_GUARD_LD_PRELOAD")) {
			setenv("LD_PRELOAD", getenv("OFFLINK_GUARD_LD_PRELOAD"), 1);
			unsetenv("OFFLINK_GUARD_LD_PRELOAD");
		}
		execvp(argv[0], argv);
		err = errno;
		(void)!write(fd, &err, sizeof(err));
		_exit(127);
	}
	if (tool < 0) {
		err = errno;
		(void)!write(fd, &err, sizeof(err));
		_exit(127);
	}
	close(fd); /* offlink reads EOF once the tool has exec'd */
	while (!tool_done) {
		sigset_t wait_mask = old;

		if (stop_sig) {
			stop_tree(tool, &status, &tool_done, stop_sig);
			break;
		}
		reap(tool, &status, &tool_done);
		if (tool_done)
			break;
		for (size_t i = 0; i < NSTOP; i++)
			sigdelset(&wait_mask, stop_signals[i]);
		sigdelset(&wait_mask, SIGCHLD);
		sigsuspend(&wait_mask);
	}
	/* A tool that was killed, or offlink gone: what the tool started
	 * (a child ignoring SIGTERM, a daemon that detached) goes too.  A tool
	 * that ended on its own may leave a server running. */
	if (!stop_sig && (WIFSIGNALED(status) || getppid() != parent)) {
		bool unused = true;

		stop_tree(tool, &status, &unused, SIGTERM);
	}
	end_as(status);
}

/* ---- the watchdog ---- */

/* Remove name under parent, and everything in it, never following a
 * link.  True when it is gone. */
static bool remove_tree(int parent, const char *name)
{
	DIR *d;
	struct dirent *e;
	int fd;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return true;
	if ((fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return false;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			remove_tree(dirfd(d), e->d_name);
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

/* What offlink told the watchdog it made (os/cleanup.c): paths, in the
 * order made; a forgotten one removed from the list. */
struct watched {
	char **path;
	bool *dir;
	size_t n, cap;
};

static void watched_add(struct watched *w, const char *path, bool dir)
{
	char *copy = strdup(path);

	if (!copy)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		char **p = realloc(w->path, cap * sizeof(*p));
		bool *d = p ? realloc(w->dir, cap * sizeof(*d)) : NULL;

		if (p)
			w->path = p;
		if (!p || !d) {
			free(copy);
			return;
		}
		w->dir = d;
		w->cap = cap;
	}
	w->path[w->n] = copy;
	w->dir[w->n++] = dir;
}

static void watched_forget(struct watched *w, const char *path)
{
	for (size_t i = w->n; i-- > 0;) {
		if (strcmp(w->path[i], path) == 0) {
			free(w->path[i]);
			memmove(&w->path[i], &w->path[i + 1], (w->n - i - 1) * sizeof(*w->path));
			memmove(&w->dir[i], &w->dir[i + 1], (w->n - i - 1) * sizeof(*w->dir));
			w->n--;
			return;
		}
	}
}

/* Read messages until 'd' (true: offlink finished) or the end of the
 * stream (false: offlink is gone without a word). */
static bool read_messages(int fd, struct watched *w)
{
	static char buf[1 << 16];
	char msg[8192];
	size_t len = 0;
	bool too_long = false;
	ssize_t n;

	for (;;) {
		while ((n = read(fd, buf, sizeof(buf))) < 0 && errno == EINTR)
			;
		if (n <= 0)
			return false;
		for (ssize_t i = 0; i < n; i++) {
			if (len == 0 && buf[i] == 'd')
				return true;
			if (buf[i] != '\0') {
				if (len < sizeof(msg) - 1)
					msg[len++] = buf[i];
				else
					too_long = true;
				continue;
			}
			msg[len] = '\0';
			if (!too_long && len > 1 && msg[0] == '-')
				watched_forget(w, msg + 1);
			else if (!too_long && len > 1 && (msg[0] == 'f' || msg[0] == 'D'))
				watched_add(w, msg + 1, msg[0] == 'D');
			len = 0;
			too_long = false;
		}
	}
}

/* Remove what is listed, newest first; true when all of it is gone.  A
 * directory a tool still writes in may not empty at the first try; once
 * gone, nothing can appear in it again. */
static bool remove_watched(struct watched *w)
{
	bool all = true;

	for (size_t i = w->n; i-- > 0;) {
		if (w->dir[i])
			all &= remove_tree(AT_FDCWD, w->path[i]);
		else
			all &= unlink(w->path[i]) == 0 || errno == ENOENT;
	}
	return all;
}

void ol_guard_watch(int fd)
{
	struct watched w = { 0 };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* Not offlink's child (its waits are for its tools), and in a
	 * session of its own: a signal to offlink's group does not reach it.
	 * Its working directory is offlink's: relative paths mean the same. */
	if (fork() != 0)
		_exit(0);
	setsid();
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	if (read_messages(fd, &w))
		_exit(0);
	/* offlink ended without finishing: its temporaries are left.  Tools
	 * may still be writing while their guards stop them. */
	for (long waited = 0; waited <= 3 * OL_GUARD_GRACE_MS; waited += 100) {
		if (remove_watched(&w))
			_exit(0);
		sleep_ms(100);
	}
	_exit(1);
}
