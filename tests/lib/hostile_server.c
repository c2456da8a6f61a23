/* hostile_server MODE PORTFILE: a server on 127.0.0.1 (a port of its
 * own, written to PORTFILE) that answers every connection's first request
 * as a misbehaving cache server would, for the remote cache's bounds
 * (tests/e2e/cache_remote_bounds.sh):
 *   redis-dribble  a bulk reply of 200 bytes, one byte every 0.5 s
 *   redis-huge     a bulk reply that declares 40 GiB, then zeros, fast
 *   http-huge      HTTP 200 with Content-Length: 40 GiB, then zeros, fast
 * No real Redis or nginx does this: it stands for a broken or hostile one.
 * Each connection is served by a child of its own; the server runs until
 * it is killed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void serve(int c, const char *mode)
{
	static char zeros[65536];
	char req[4096];
	ssize_t n = read(c, req, sizeof(req));

	if (n <= 0)
		return;
	if (strcmp(mode, "redis-dribble") == 0) {
		if (write(c, "$200\r\n", 6) != 6)
			return;
		for (int i = 0; i < 240; i++) {
			nanosleep(&(struct timespec){ .tv_nsec = 500000000 }, NULL);
			if (write(c, "x", 1) != 1)
				return;
		}
		return;
	}
	if (strcmp(mode, "redis-huge") == 0) {
		const char *h = "$42949672960\r\n";

		if (write(c, h, strlen(h)) != (ssize_t)strlen(h))
			return;
	} else if (strcmp(mode, "http-huge") == 0) {
		const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 42949672960\r\n\r\n";

		if (write(c, h, strlen(h)) != (ssize_t)strlen(h))
			return;
	} else {
		return;
	}
	while (write(c, zeros, sizeof(zeros)) > 0)
		;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s, one = 1;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: hostile_server MODE PORTFILE\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN); /* children reaped by the kernel */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0) {
		perror("hostile_server");
		return 1;
	}
	if (!(f = fopen(argv[2], "w")) || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() == 0) {
			close(s);
			serve(c, argv[1]);
			_exit(0);
		}
		close(c);
	}
}
