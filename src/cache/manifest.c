#include "cache/manifest.h"

#include <string.h>

static const char magic[] = "OLMANIF1";
#define MAGIC_LEN (sizeof(magic) - 1)

bool ol_manifest_encode(char *const *files, size_t n, struct ol_buf *out)
{
	bool ok = ol_buf_append(out, magic, MAGIC_LEN) == OL_OK;

	for (size_t i = 0; i < n && ok; i++)
		ok = *files[i] && ol_buf_append(out, files[i], strlen(files[i]) + 1) == OL_OK;
	return ok;
}

bool ol_manifest_decode(const uint8_t *p, size_t len, struct ol_strvec *files)
{
	const char *s, *end;

	if (len < MAGIC_LEN || memcmp(p, magic, MAGIC_LEN) != 0 ||
	    (len > MAGIC_LEN && p[len - 1] != '\0'))
		return false;
	for (s = (const char *)p + MAGIC_LEN, end = (const char *)p + len; s < end;
	     s += strlen(s) + 1)
		if (!*s || ol_strvec_push(files, s))
			return false;
	return true;
}
