/* libFuzzer target: the device-link cache's parsers of outside text and
 * bytes: a linker's dependency file (GNU ld's and lld's forms), clang's
 * -### output, a manifest and an entry read back from a store someone
 * else can write, a remote's URL, GNU ld's --verbose record, facts and
 * clang's remembered answers from a store, and a linker script lld read.
 * The first byte picks the parser (modulo 10). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/clang_jobs.h"
#include "cache/depfile.h"
#include "cache/entry.h"
#include "cache/facts.h"
#include "cache/ldtrace.h"
#include "cache/manifest.h"
#include "cache/probe_memo.h"
#include "cache/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_strvec v = { 0 };
	struct ol_clang_jobs jobs;
	struct ol_remote r;
	struct ol_diag d;
	const uint8_t *value;
	size_t vlen;
	uint8_t key[32] = { 0 }, secret_bytes[16] = { 1 };
	struct ol_secret secret = { secret_bytes, sizeof(secret_bytes) };
	char *text;

	if (size < 1)
		return 0;
	switch (data[0] % 10) {
	case 0:
	case 1:
		ol_depfile_parse((const char *)data + 1, size - 1,
				 data[0] % 6 ? OL_LD_LLD : OL_LD_GNU, &v);
		ol_strvec_free(&v);
		break;
	case 2:
		ol_clang_jobs_parse((const char *)data + 1, size - 1, &jobs);
		ol_clang_jobs_free(&jobs);
		break;
	case 3:
		ol_manifest_decode(data + 1, size - 1, &v);
		ol_strvec_free(&v);
		break;
	case 4:
		if (size > 33)
			memcpy(key, data + 1, 32);
		ol_entry_check(data + 1, size - 1, OL_ENTRY_IMAGE, key, &secret, &value, &vlen);
		ol_entry_check(data + 1, size - 1, OL_ENTRY_MANIFEST, key, NULL, &value, &vlen);
		break;
	case 6: { /* GNU ld's --verbose record */
		struct ol_strvec found = { 0 };

		ol_ldtrace_parse((const char *)data + 1, size - 1, &found, &v);
		ol_strvec_free(&found);
		ol_strvec_free(&v);
		break;
	}
	case 7: { /* facts read back from a store */
		struct ol_facts f;

		if (ol_facts_parse(data + 1, size - 1, &f))
			ol_facts_free(&f);
		break;
	}
	case 8: { /* clang's remembered answers, from a store */
		struct ol_probe_memo m;
		struct ol_buf b = { 0 };

		if (ol_probe_memo_decode(data + 1, size - 1, &m)) {
			ol_probe_memo_encode(&m, &b);
			ol_buf_free(&b);
			ol_probe_memo_free(&m);
		}
		break;
	}
	case 9: { /* a linker script lld read */
		struct ol_strvec dirs = { 0 };
		char why[160];

		ol_strvec_push(&dirs, "L");
		ol_strvec_push(&dirs, "=/s");
		ol_lld_script_places("d/s.ld", data + 1, size - 1, &dirs, "/root", &v, why, sizeof(why));
		ol_strvec_free(&v);
		ol_strvec_free(&dirs);
		break;
	}
	default:
		if (!(text = malloc(size)))
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		ol_diag_clear(&d);
		ol_remote_parse(text, 1, 4096, &r, &d);
		ol_remote_free(&r);
		free(text);
		break;
	}
	return 0;
}
