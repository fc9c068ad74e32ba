/*
 * A changeset of Mozilla's security-state bucket on a Remote Settings
 * server, read and its content signature verified: shared by the CRLite
 * source (crlite_rs.c, collection cert-revocations) and OneCRL
 * (onecrl.c, collection onecrl).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_RSCHANGESET_H
#define CRLCACHE_RSCHANGESET_H

#include <stddef.h>
#include <stdint.h>

#include "fetcher.h"
#include "json.h"

/*
 * The one signer of both collections: Firefox's SECURITY_STATE_SIGNER
 * (security/manager/ssl/RemoteSecuritySettings.sys.mjs), which its
 * OneCRLBlocklistClient and CRLiteFilters clients both name, chained to
 * the same root (crlite_root).
 */
#define RS_SIGNER	"onecrl.content-signature.mozilla.org"
/*
 * x5u chains fetched for one changeset: the server lists one signature
 * per key while Mozilla rotates one (two at most so far); each costs a
 * transfer, so a list of 8 cannot cost 8 timeouts.
 */
#define RS_X5U_TRIES	2
/* Record ids are UUIDs (36 bytes). */
#define RS_ID_MAX	64

struct fetch_budget;

struct rs_changeset {
	struct fetch_budget *b;		/* the configuration, err, bytes */
	struct json	 cs;
	size_t		*rec;		/* the records' values, sorted by id */
	size_t		 n;
	int64_t		 timestamp;	/* the collection's (ms) */
};

/*
 * Read the changeset {"metadata": {...}, "changes": [records],
 * "timestamp": N} of at most max_values JSON values and max_records
 * records: each an object with an id, none twice, no tombstone ("deleted":
 * a full changeset holds none).  0, or -1 with why in b->err.
 */
int	 rs_changeset_read(struct rs_changeset *c, struct fetch_budget *b,
	    const uint8_t *body, size_t len, size_t max_values,
	    size_t max_records);
/*
 * Its content signature, by RS_SIGNER under crlite_root, from the first
 * RS_X5U_TRIES signatures listed: 0 or -1.
 */
int	 rs_changeset_verify(struct rs_changeset *c);
/* Accepts a zeroed one. */
void	 rs_changeset_free(struct rs_changeset *c);
/* A string member of at most max bytes of printable ASCII, or -1. */
int	 rs_member_text(const struct json *j, size_t obj, const char *key,
	    char *out, size_t max);

#endif /* CRLCACHE_RSCHANGESET_H */
