#include "os/jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The one jobserver a process uses, for the signal handler. */
static struct ol_jobserver *active;

/* The value of --jobserver-auth= (or the older --jobserver-fds=) in
 * makeflags, into out; false if none.  The last one counts. */
static bool auth_value(const char *makeflags, char *out, size_t len)
{
	static const char *const keys[] = { "--jobserver-auth=", "--jobserver-fds=" };
	bool found = false;

	for (size_t k = 0; makeflags && k < 2; k++) {
		for (const char *p = makeflags; (p = strstr(p, keys[k])); p++) {
			size_t n;

			p += strlen(keys[k]);
			n = strcspn(p, " \t");
			if (n >= len)
				continue;
			memcpy(out, p, n);
			out[n] = '\0';
			found = true;
		}
		if (found)
			return true;
	}
	return false;
}

static bool is_fifo_fd(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

static enum ol_jobserver_state refuse(struct ol_jobserver *js, const char *fmt, const char *what,
				      int err)
{
	char why[120];

	snprintf(why, sizeof(why), fmt, what);
	ol_jobserver_close(js);
	if (err)
		snprintf(js->what, sizeof(js->what), "%.100s: %s", why, strerror(err));
	else
		snprintf(js->what, sizeof(js->what), "%s", why);
	return OL_JOBSERVER_REFUSED;
}

/* make 4.4: a named FIFO, opened twice (our own descriptions), neither
 * open blocking: the read end first, so the write end has a reader. */
static enum ol_jobserver_state open_fifo(struct ol_jobserver *js, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return refuse(js, "fifo:%.60s", path, errno);
	if (!S_ISFIFO(st.st_mode))
		return refuse(js, "fifo:%.60s is not a FIFO", path, 0);
	js->rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	js->close_r = true;
	if (js->rfd < 0)
		return refuse(js, "fifo:%.60s cannot be read", path, errno);
	js->wfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	js->close_w = true;
	if (js->wfd < 0)
		return refuse(js, "fifo:%.60s cannot be written", path, errno);
	if (!is_fifo_fd(js->rfd) || !is_fifo_fd(js->wfd))
		return refuse(js, "fifo:%.60s changed into something else", path, 0);
	snprintf(js->what, sizeof(js->what), "fifo %.60s", path);
	return OL_JOBSERVER_OK;
}

/* make 4.3: an inherited pipe (only '+' recipes get it open).  A fresh
 * description of its read end can be non-blocking without changing
 * make's. */
static enum ol_jobserver_state open_pipe(struct ol_jobserver *js, int r, int w, const char *auth)
{
	char path[64];

	if (fcntl(r, F_GETFD) < 0 || fcntl(w, F_GETFD) < 0)
		return OL_JOBSERVER_NONE; /* not passed to this recipe: make's own rule */
	if (!is_fifo_fd(r) || !is_fifo_fd(w))
		return refuse(js, "descriptors %.20s are not a pipe", auth, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r);
	js->rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	js->close_r = true;
	if (js->rfd < 0 || !is_fifo_fd(js->rfd))
		return refuse(js, "descriptor %.20s cannot be read", auth, js->rfd < 0 ? errno : 0);
	js->wfd = w;
	snprintf(js->what, sizeof(js->what), "pipe %d,%d", r, w);
	return OL_JOBSERVER_OK;
}

enum ol_jobserver_state ol_jobserver_open(struct ol_jobserver *js, const char *makeflags)
{
	char auth[4096];
	enum ol_jobserver_state st = OL_JOBSERVER_NONE;
	int r, w;

	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
	if (!auth_value(makeflags, auth, sizeof(auth)))
		return OL_JOBSERVER_NONE;
	if (strncmp(auth, "fifo:", 5) == 0)
		st = open_fifo(js, auth + 5);
	else if (sscanf(auth, "%d,%d", &r, &w) == 2)
		st = open_pipe(js, r, w, auth);
	if (st == OL_JOBSERVER_OK)
		active = js;
	return st;
}

bool ol_jobserver_try_take(struct ol_jobserver *js)
{
	char c;
	ssize_t n;

	if (js->rfd < 0 || js->held == sizeof(js->tokens))
		return false;
	do
		n = read(js->rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return false;
	js->tokens[js->held++] = c;
	return true;
}

void ol_jobserver_give(struct ol_jobserver *js)
{
	ssize_t n;

	if (!js->held)
		return;
	do
		n = write(js->wfd, &js->tokens[js->held - 1], 1);
	while (n < 0 && errno == EINTR);
	js->held--;
}

void ol_jobserver_close(struct ol_jobserver *js)
{
	while (js->held)
		ol_jobserver_give(js);
	if (js->close_r && js->rfd >= 0)
		close(js->rfd);
	if (js->close_w && js->wfd >= 0)
		close(js->wfd);
	js->rfd = js->wfd = -1;
	if (active == js)
		active = NULL;
}

void ol_jobserver_give_all_from_signal(void)
{
	struct ol_jobserver *js = active;

	if (js && js->wfd >= 0 && js->held)
		(void)!write(js->wfd, js->tokens, js->held);
}
