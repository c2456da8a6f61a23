#include "format/target_id.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum ol_err copy_name(char *dst, const char *src, size_t len,
			     const char *what, struct ol_diag *d)
{
	if (len == 0 || len >= OL_TID_NAME_MAX)
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL, "%s of %zu characters",
				   what, len);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return OL_OK;
}

enum ol_err ol_target_id_parse(const char *s, struct ol_target_id *out,
			       struct ol_diag *d)
{
	const char *colon = strchr(s, ':');
	size_t plen = colon ? (size_t)(colon - s) : strlen(s);

	memset(out, 0, sizeof(*out));
	if (plen == 0 && !colon)
		return OL_OK;
	if (copy_name(out->processor, s, plen, "processor name", d))
		return d->code;
	while (colon) {
		const char *f = colon + 1;
		const char *next = strchr(f, ':');
		size_t flen = next ? (size_t)(next - f) : strlen(f);

		if (flen < 2 || (f[flen - 1] != '+' && f[flen - 1] != '-'))
			return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
					   "target ID '%s': feature '%.*s' must end in + or -",
					   s, (int)flen, f);
		if (out->nfeatures == OL_TID_MAX_FEATURES)
			return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
					   "target ID '%s' has too many features", s);
		if (copy_name(out->features[out->nfeatures].name, f, flen - 1,
			      "feature name", d))
			return d->code;
		for (unsigned i = 0; i < out->nfeatures; i++)
			if (strcmp(out->features[i].name,
				   out->features[out->nfeatures].name) == 0)
				return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
						   "target ID '%s' names feature %s twice",
						   s, out->features[i].name);
		out->features[out->nfeatures++].sign = f[flen - 1];
		colon = next;
	}
	return OL_OK;
}

static char sign_of(const struct ol_target_id *t, const char *feature)
{
	for (unsigned i = 0; i < t->nfeatures; i++)
		if (strcmp(t->features[i].name, feature) == 0)
			return t->features[i].sign;
	return 0;
}

bool ol_target_id_serves(const struct ol_target_id *code,
			 const struct ol_target_id *target)
{
	if (strcmp(code->processor, "generic") == 0 ||
	    strcmp(target->processor, "generic") == 0)
		return true;
	if (strcmp(code->processor, target->processor) != 0)
		return false;
	for (unsigned i = 0; i < code->nfeatures; i++)
		if (sign_of(target, code->features[i].name) != code->features[i].sign)
			return false;
	return true;
}

bool ol_target_id_conflict(const struct ol_target_id *a,
			   const struct ol_target_id *b)
{
	if (strcmp(a->processor, b->processor) != 0)
		return false;
	if (a->nfeatures != b->nfeatures)
		return true;
	for (unsigned i = 0; i < a->nfeatures; i++)
		if (!sign_of(b, a->features[i].name))
			return true;
	return false;
}

static int cmp_feature(const void *x, const void *y)
{
	return strcmp((const char *)x, (const char *)y);
}

void ol_target_id_format(const struct ol_target_id *t, char *out, size_t len)
{
	struct ol_target_id sorted = *t;
	size_t n;

	qsort(sorted.features, sorted.nfeatures, sizeof(sorted.features[0]),
	      cmp_feature);
	n = (size_t)snprintf(out, len, "%s", sorted.processor);
	for (unsigned i = 0; i < sorted.nfeatures && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, ":%s%c",
				      sorted.features[i].name, sorted.features[i].sign);
}
