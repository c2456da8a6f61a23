/* The Redis backend (hiredis): an entry is the string value of
 * "offlink:<key>".  The database is the URL's path (/2), the password
 * and user its credentials (AUTH).  Eviction is the server's business
 * (maxmemory-policy allkeys-lru is what a cache wants). */
#include "cache/remote.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static struct timeval ms_tv(long ms)
{
	return (struct timeval){ .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
}

/* Run argv; NULL (and d set) when the server cannot be reached or says
 * it is an error. */
static redisReply *command(struct ol_remote *r, int argc, const char **argv, const size_t *len,
			   struct ol_diag *d)
{
	redisContext *c = r->conn;
	redisReply *reply = redisCommandArgv(c, argc, argv, len);

	if (!reply) {
		if (c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
			ol_diag_set(d, OL_E_IO, NULL, "no answer within %ld ms", r->op_ms);
		else
			ol_diag_set(d, OL_E_IO, NULL, "%s", c->errstr[0] ? c->errstr : "no reply");
		return NULL;
	}
	if (reply->type == REDIS_REPLY_ERROR) {
		ol_diag_set(d, OL_E_IO, NULL, "%.200s", reply->str ? reply->str : "error");
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
	if (redisSetTimeout(c, ms_tv(r->op_ms)) != REDIS_OK) {
		ol_diag_set(d, OL_E_IO, NULL, "cannot set a timeout");
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
		if (reply->len > r->max_value || ol_buf_append(out, reply->str, reply->len))
			res = OL_REMOTE_ABSENT; /* too large for this link: a miss */
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
