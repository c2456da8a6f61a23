#include "cache/probe_memo.h"

#include <string.h>

#include "common/le.h"
#include "common/nonstring.h"

static const char magic[8] OL_NONSTRING = "OLPROBE1";

static bool u32(const uint8_t *p, size_t n, size_t *at, uint32_t *v)
{
	if (*at > n || 4 > n - *at)
		return false;
	*v = ol_le32(p + *at);
	*at += 4;
	return true;
}

bool ol_probe_memo_decode(const uint8_t *p, size_t n, struct ol_probe_memo *out)
{
	size_t at = sizeof(magic);
	uint32_t count;

	memset(out, 0, sizeof(*out));
	if (n < sizeof(magic) || memcmp(p, magic, sizeof(magic)) != 0 || !u32(p, n, &at, &count) ||
	    count > OL_PROBE_MEMO_MAX)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		struct ol_probe_answer *a = &out->v[out->n];
		uint32_t flen, argc;

		if (!u32(p, n, &at, &flen) || flen > n - at || !ol_facts_parse(p + at, flen, &a->facts))
			goto bad;
		out->n++;
		at += flen;
		if (!u32(p, n, &at, &argc) || !argc || argc > n - at)
			goto bad;
		for (uint32_t k = 0; k < argc; k++) {
			const uint8_t *z = memchr(p + at, '\0', n - at);

			if (!z || ol_strvec_pushn(&a->argv, (const char *)p + at, (size_t)(z - p - at)))
				goto bad;
			at = (size_t)(z - p) + 1;
		}
	}
	if (at == n)
		return true;
bad:
	ol_probe_memo_free(out);
	return false;
}

bool ol_probe_memo_encode(const struct ol_probe_memo *m, struct ol_buf *out)
{
	bool ok = !ol_buf_append(out, magic, sizeof(magic)) && !ol_buf_le32(out, (uint32_t)m->n);

	for (size_t i = 0; ok && i < m->n; i++) {
		const struct ol_probe_answer *a = &m->v[i];

		ok = !ol_buf_le32(out, (uint32_t)a->facts.data.len) &&
		     !ol_buf_append(out, a->facts.data.data, a->facts.data.len) &&
		     !ol_buf_le32(out, (uint32_t)a->argv.n);
		for (size_t k = 0; ok && k < a->argv.n; k++)
			ok = !ol_buf_append(out, a->argv.v[k], strlen(a->argv.v[k]) + 1);
	}
	return ok;
}

static void free_answer(struct ol_probe_answer *a)
{
	ol_facts_free(&a->facts);
	ol_strvec_free(&a->argv);
}

void ol_probe_memo_add(struct ol_probe_memo *m, struct ol_facts *facts, struct ol_strvec *argv)
{
	size_t at = m->n;

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].facts.data.len == facts->data.len &&
		    memcmp(m->v[i].facts.data.data, facts->data.data, facts->data.len) == 0)
			at = i;
	if (at == OL_PROBE_MEMO_MAX) { /* full: the oldest goes */
		free_answer(&m->v[0]);
		memmove(&m->v[0], &m->v[1], (OL_PROBE_MEMO_MAX - 1) * sizeof(m->v[0]));
		at = OL_PROBE_MEMO_MAX - 1;
		m->n--;
	} else if (at < m->n) {
		free_answer(&m->v[at]);
		m->n--;
		memmove(&m->v[at], &m->v[at + 1], (m->n - at) * sizeof(m->v[0]));
		at = m->n;
	}
	m->v[at].facts = *facts;
	m->v[at].argv = *argv;
	memset(facts, 0, sizeof(*facts));
	memset(argv, 0, sizeof(*argv));
	m->n++;
}

void ol_probe_memo_free(struct ol_probe_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free_answer(&m->v[i]);
	m->n = 0;
}
