#include "os/jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static bool valid_fd(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

bool ol_jobserver_open(struct ol_jobserver *js, const char *makeflags)
{
	char auth[4096];
	int r, w;

	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
	if (!auth_value(makeflags, auth, sizeof(auth)))
		return false;
	if (strncmp(auth, "fifo:", 5) == 0) {
		/* make 4.4: a named fifo anyone may open; our own descriptions */
		js->rfd = open(auth + 5, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		js->wfd = open(auth + 5, O_WRONLY | O_CLOEXEC);
		js->close_r = js->close_w = true;
		snprintf(js->what, sizeof(js->what), "fifo %.60s", auth + 5);
	} else if (sscanf(auth, "%d,%d", &r, &w) == 2 && valid_fd(r) && valid_fd(w)) {
		/* make 4.3: an inherited pipe (only '+' recipes get it open).  A
		 * fresh description of its read end can be non-blocking
		 * without changing make's. */
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", r);
		js->rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		js->wfd = w;
		js->close_r = true;
		snprintf(js->what, sizeof(js->what), "pipe %d,%d", r, w);
	}
	if (js->rfd < 0 || js->wfd < 0) {
		ol_jobserver_close(js);
		return false;
	}
	active = js;
	return true;
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
