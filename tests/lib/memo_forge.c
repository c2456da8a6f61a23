/* memo_forge DIR PATH CONTENT: write into DIR the record the device-link
 * cache's digest memo would keep for PATH as it is now, claiming the
 * digest of the file CONTENT instead of PATH's own: what another user
 * who can write DIR could plant (tests/e2e/cache_store_hostile.sh shows
 * that such a record is never believed). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/filedigest.h"
#include "os/digest.h"

int main(int argc, char **argv)
{
	struct ol_digest h;
	uint8_t d[OL_DIGEST_SIZE], buf[65536], rec[8 + OL_DIGEST_SIZE];
	char name[2 * OL_DIGEST_SIZE + 1], *out;
	struct stat st;
	ssize_t n;
	int fd;

	if (argc != 4 || stat(argv[2], &st) != 0 || (fd = open(argv[3], O_RDONLY)) < 0) {
		fprintf(stderr, "usage: memo_forge DIR PATH CONTENT\n");
		return 2;
	}
	ol_digest_init(&h);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ol_digest_add(&h, buf, (size_t)n);
	close(fd);
	ol_digest_final(&h, d);
	ol_fdigest_memo_name(argv[2], &st, name);
	memcpy(rec, "OLFDGST1", 8);
	memcpy(rec + 8, d, OL_DIGEST_SIZE);
	if (asprintf(&out, "%s/%s", argv[1], name) < 0)
		return 1;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec) || close(fd) != 0) {
		perror(out);
		free(out);
		return 1;
	}
	puts(out);
	free(out);
	return 0;
}
