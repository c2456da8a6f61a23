/* The Redis backend (hiredis): an entry is the string value of
 * "offlink:<key>".  The database is the URL's path (/2), the password
 * and user its credentials (AUTH).  Eviction is the server's business
 * (maxmemory-policy allkeys-lru is what a cache wants).
 *
 * hiredis connects, formats each command and parses each reply; the
 * bytes in between are moved here, on a non-blocking socket, so that one
 * command has one deadline (hiredis's own timeout is per read: a server
 * that dribbles a byte every half second would hold the link forever),
 * and so that a reply is judged by its header before its body is read
 * (a reply declaring 40 GiB is refused, not buffered). */
#include "cache/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct timeval ms_tv(long ms)
{
	return (struct timeval){ .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Wait until fd is ready for events or the deadline passes. */
static bool wait_for(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = events };
		int n;

		if (left <= 0)
			return false;
		n = poll(&p, 1, (int)left + 1);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
}

static bool send_all(struct ol_remote *r, int fd, const char *p, size_t n, double deadline,
		     struct ol_diag *d)
{
	while (n) {
		ssize_t w;

		if (!wait_for(fd, POLLOUT, deadline)) {
			ol_diag_set(d, OL_E_IO, NULL, "no answer within %ld ms", r->op_ms);
			return false;
		}
		w = write(fd, p, n);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0) {
			ol_diag_set(d, OL_E_IO, NULL, "cannot send: %s", strerror(w < 0 ? errno : EPIPE));
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* The reply's first line, once it has come: a bulk string ("$<n>") or
 * an array ("*<n>") longer than the remote takes is refused here. */
struct header {
	char line[64];
	size_t n;
	bool done;
};

static bool judge(struct ol_remote *r, struct header *h, const char *p, size_t n,
		  struct ol_diag *d)
{
	for (size_t i = 0; i < n && !h->done; i++) {
		if (h->n + 1 >= sizeof(h->line)) {
			h->done = true; /* a long status or error line: bounded below */
			break;
		}
		h->line[h->n++] = p[i];
		if (p[i] == '\n') {
			h->done = true;
			h->line[h->n] = '\0';
			if ((h->line[0] == '$' || h->line[0] == '*') && h->line[1] != '-' &&
			    strtoull(h->line + 1, NULL, 10) > (unsigned long long)r->max_value) {
				ol_diag_set(d, OL_E_IO, NULL,
					    "the server announced a reply of %llu bytes, more than the "
					    "largest entry this cache keeps (%zu); not read",
					    strtoull(h->line + 1, NULL, 10), r->max_value);
				return false;
			}
		}
	}
	return true;
}

/* Send argv and read its reply, all within one operation timeout. */
static redisReply *roundtrip(struct ol_remote *r, int argc, const char **argv, const size_t *len,
			     struct ol_diag *d)
{
	redisContext *c = r->conn;
	double deadline = now_ms() + (double)r->op_ms;
	redisReader *reader = NULL;
	struct header h = { .n = 0 };
	size_t total = 0;
	void *reply = NULL;
	char *cmd = NULL, buf[65536];
	int n = redisFormatCommandArgv(&cmd, argc, argv, len);

	if (n < 0 || !(reader = redisReaderCreate())) {
		ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto out;
	}
	if (!send_all(r, c->fd, cmd, (size_t)n, deadline, d))
		goto out;
	while (!reply) {
		ssize_t got;

		if (!wait_for(c->fd, POLLIN, deadline)) {
			ol_diag_set(d, OL_E_IO, NULL, "no answer within %ld ms", r->op_ms);
			goto out;
		}
		got = read(c->fd, buf, sizeof(buf));
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			ol_diag_set(d, OL_E_IO, NULL, "the server closed the connection");
			goto out;
		}
		total += (size_t)got;
		if (!judge(r, &h, buf, (size_t)got, d))
			goto out;
		if (total > r->max_value + 64) {
			ol_diag_set(d, OL_E_IO, NULL, "a reply longer than the largest entry (%zu bytes)",
				    r->max_value);
			goto out;
		}
		if (redisReaderFeed(reader, buf, (size_t)got) != REDIS_OK ||
		    redisReaderGetReply(reader, &reply) != REDIS_OK) {
			ol_diag_set(d, OL_E_IO, NULL, "a reply that is not Redis's protocol");
			reply = NULL;
			goto out;
		}
	}
out:
	if (reader)
		redisReaderFree(reader);
	free(cmd);
	return reply;
}

/* Run argv; NULL (and d set) when the server cannot be reached, does not
 * answer in time, or says it is an error. */
static redisReply *command(struct ol_remote *r, int argc, const char **argv, const size_t *len,
			   struct ol_diag *d)
{
	redisReply *reply = roundtrip(r, argc, argv, len, d);

	if (!reply)
		return NULL;
	if (reply->type == REDIS_REPLY_ERROR) {
		char msg[201];
		size_t k = reply->len < 200 ? reply->len : 200;

		/* (the server's words: printable bytes only) */
		for (size_t i = 0; i < k; i++)
			msg[i] = reply->str[i] >= 0x20 && reply->str[i] < 0x7f ? reply->str[i] : '?';
		msg[k] = '\0';
		ol_diag_set(d, OL_E_IO, NULL, "%s", msg);
		freeReplyObject(reply);
		return NULL;
	}
	return reply;
}

static bool ok_command(struct ol_remote *r, int argc, const char **argv, struct ol_diag *d)
{
	size_t len[3];
	redisReply *reply;

	for (int i = 0; i < argc; i++)
		len[i] = strlen(argv[i]);
	if (!(reply = command(r, argc, argv, len, d)))
		return false;
	freeReplyObject(reply);
	return true;
}

static bool connect_once(struct ol_remote *r, struct ol_diag *d)
{
	redisContext *c;
	const char *db;
	int fl;

	if (r->conn)
		return true;
	c = redisConnectWithTimeout(r->host, r->port, ms_tv(r->connect_ms));
	if (!c || c->err) {
		ol_diag_set(d, OL_E_IO, NULL, "cannot connect: %s", c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		return false;
	}
	r->conn = c;
	if ((fl = fcntl(c->fd, F_GETFL)) < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		ol_diag_set(d, OL_E_IO, NULL, "cannot use the connection: %s", strerror(errno));
		return false;
	}
	if (r->password) {
		const char *auth[3] = { "AUTH", r->user && *r->user ? r->user : r->password,
					r->password };

		if (!ok_command(r, r->user && *r->user ? 3 : 2, auth, d))
			return false;
	}
	db = r->path[0] == '/' ? r->path + 1 : r->path;
	if (*db && strcmp(db, "0") != 0) {
		const char *select[2] = { "SELECT", db };

		if (!ok_command(r, 2, select, d))
			return false;
	}
	return true;
}

static void key_name(const char *key, char out[80])
{
	snprintf(out, 80, "offlink:%s", key);
}

static enum ol_remote_result redis_get(struct ol_remote *r, const char *key, struct ol_buf *out,
				       struct ol_diag *d)
{
	char name[80];
	const char *argv[2] = { "GET", name };
	size_t len[2];
	redisReply *reply;
	enum ol_remote_result res = OL_REMOTE_ABSENT;

	if (!connect_once(r, d))
		return OL_REMOTE_FAILED;
	key_name(key, name);
	len[0] = 3;
	len[1] = strlen(name);
	if (!(reply = command(r, 2, argv, len, d)))
		return OL_REMOTE_FAILED;
	if (reply->type == REDIS_REPLY_STRING) {
		if (ol_buf_append(out, reply->str, reply->len))
			res = OL_REMOTE_ABSENT; /* out of memory: a miss */
		else
			res = OL_REMOTE_FOUND;
	} else if (reply->type != REDIS_REPLY_NIL) {
		ol_diag_set(d, OL_E_IO, NULL, "GET answered with a reply of type %d", reply->type);
		res = OL_REMOTE_FAILED;
	}
	freeReplyObject(reply);
	return res;
}

static enum ol_remote_result redis_put(struct ol_remote *r, const char *key, const void *p,
				       size_t n, struct ol_diag *d)
{
	char name[80];
	const char *argv[3] = { "SET", name, p };
	size_t len[3];
	redisReply *reply;

	if (!connect_once(r, d))
		return OL_REMOTE_FAILED;
	key_name(key, name);
	len[0] = 3;
	len[1] = strlen(name);
	len[2] = n;
	if (!(reply = command(r, 3, argv, len, d)))
		return OL_REMOTE_FAILED;
	freeReplyObject(reply);
	return OL_REMOTE_FOUND;
}

static void redis_close(struct ol_remote *r)
{
	redisFree(r->conn);
	r->conn = NULL;
}

const struct ol_remote_backend ol_remote_redis = {
	.scheme = "redis",
	.default_port = 6379,
	.get = redis_get,
	.put = redis_put,
	.close = redis_close,
};
