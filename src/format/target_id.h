/* Target IDs: "<processor>(:<feature>(+|-))*", e.g. gfx90a:sramecc+:xnack-.
 * A feature left out means "any" (the code runs with it on or off).  Used
 * to group device images for linking and to match bundle entries. */
#ifndef OFFLINK_FORMAT_TARGET_ID_H
#define OFFLINK_FORMAT_TARGET_ID_H

#include <stdbool.h>

#include "common/diag.h"

enum { OL_TID_MAX_FEATURES = 8, OL_TID_NAME_MAX = 64 };

struct ol_target_id {
	char processor[OL_TID_NAME_MAX];
	unsigned nfeatures;
	struct {
		char name[OL_TID_NAME_MAX];
		char sign; /* '+' or '-' */
	} features[OL_TID_MAX_FEATURES];
};

/* Parse s ("" parses to an empty processor: CPU targets have no arch). */
enum ol_err ol_target_id_parse(const char *s, struct ol_target_id *out,
			       struct ol_diag *d);

/* True if code built for `code` can serve a request for `target`: same
 * processor, and every feature the code fixes is fixed the same way in the
 * target ("any" in the code serves both).  The processor "generic" serves
 * and is served by anything. */
bool ol_target_id_serves(const struct ol_target_id *code,
			 const struct ol_target_id *target);

/* True if a and b name the same processor but do not fix the same set of
 * features (one says "any" where the other says on or off): such code
 * objects cannot be told apart at load time, so they may not be combined. */
bool ol_target_id_conflict(const struct ol_target_id *a,
			   const struct ol_target_id *b);

/* Canonical text: processor, then features sorted by name. */
void ol_target_id_format(const struct ol_target_id *t, char *out, size_t len);

#endif
