/* What clang answered to `-###`, remembered with the facts it answered
 * under (cache/facts.h): a link through clang is keyed by the linker
 * command clang runs, and this lets a relink know that command without
 * running clang.  One key (clang, its arguments, the environment) may see
 * several answers on machines set up differently; a memo keeps the last
 * few, each with its facts, and the first whose facts hold is the one.
 *
 * The value: "OLPROBE1", a u32 count, then per answer a u32 length and
 * the facts, a u32 count and that many NUL-terminated arguments (paths in
 * the link's temporary directory written from "<TMP>"). */
#ifndef OFFLINK_CACHE_PROBE_MEMO_H
#define OFFLINK_CACHE_PROBE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/facts.h"
#include "common/buf.h"
#include "common/strvec.h"

#define OL_PROBE_MEMO_MAX 4

struct ol_probe_answer {
	struct ol_facts facts;
	struct ol_strvec argv; /* the one command clang runs */
};

struct ol_probe_memo {
	struct ol_probe_answer v[OL_PROBE_MEMO_MAX];
	size_t n;
};

/* False for anything that is not a memo (it may come from a remote). */
bool ol_probe_memo_decode(const uint8_t *p, size_t n, struct ol_probe_memo *out);
bool ol_probe_memo_encode(const struct ol_probe_memo *m, struct ol_buf *out);
/* Add an answer (taking facts and argv): it replaces one with the same
 * facts, else the oldest when the memo is full. */
void ol_probe_memo_add(struct ol_probe_memo *m, struct ol_facts *facts, struct ol_strvec *argv);
void ol_probe_memo_free(struct ol_probe_memo *m);

#endif
