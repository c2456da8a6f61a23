#include "packager/image_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum ol_err add_pair(struct image_spec *s, const char *key,
			    size_t klen, const char *value, size_t vlen)
{
	char *k = strndup(key, klen);
	enum ol_err rc = OL_OK;

	if (!k)
		return OL_E_NOMEM;
	if (!ol_strvec_contains(&s->order, k) && ol_strvec_push(&s->order, k)) {
		rc = OL_E_NOMEM;
		goto out;
	}
	if (strcmp(k, "file") == 0) {
		rc = ol_strvec_pushn(&s->files, value, vlen);
		goto out;
	}
	for (size_t i = 0; i < s->keys.n; i++) {
		if (strcmp(s->keys.v[i], k) == 0) {
			char *joined = NULL;

			if (asprintf(&joined, "%s,%.*s", s->values.v[i],
				     (int)vlen, value) < 0) {
				rc = OL_E_NOMEM;
				goto out;
			}
			free(s->values.v[i]);
			s->values.v[i] = joined;
			goto out;
		}
	}
	if (ol_strvec_push(&s->keys, k) || ol_strvec_pushn(&s->values, value, vlen))
		rc = OL_E_NOMEM;
out:
	free(k);
	return rc;
}

enum ol_err image_spec_parse(const char *text, struct image_spec *s,
			     struct ol_diag *d)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		enum ol_err rc;

		if (eq)
			rc = add_pair(s, p, (size_t)(eq - p), eq + 1, n - (size_t)(eq - p) - 1);
		else
			rc = add_pair(s, p, n, "", 0);
		if (rc)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		p += n;
		if (*p == ',')
			p++;
	}
	return OL_OK;
}

void image_spec_free(struct image_spec *s)
{
	ol_strvec_free(&s->files);
	ol_strvec_free(&s->keys);
	ol_strvec_free(&s->values);
	ol_strvec_free(&s->order);
}

const char *image_spec_get(const struct image_spec *s, const char *key)
{
	for (size_t i = 0; i < s->keys.n; i++)
		if (strcmp(s->keys.v[i], key) == 0)
			return s->values.v[i];
	return NULL;
}

bool image_spec_matches(const struct image_spec *s, const struct ob_entry *e,
			const struct ol_origin *o)
{
	for (size_t i = 0; i < s->keys.n; i++) {
		const char *k = s->keys.v[i], *want = s->values.v[i], *have;

		if (strcmp(k, "kind") == 0) {
			if (ob_offload_kind_parse(want) != e->offload_kind)
				return false;
			continue;
		}
		if (strcmp(k, "member") == 0) {
			if (strcmp(o->member ? o->member : "", want) != 0)
				return false;
			continue;
		}
		have = ob_entry_get(e, k);
		if (strcmp(have ? have : "", want) != 0)
			return false;
	}
	return true;
}
