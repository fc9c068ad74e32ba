/*
 * The one path by which a CRL reaches the index: parse, verify, store.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <string.h>
#include <time.h>

#include "at.h"
#include "crl.h"
#include "fetcher.h"
#include "ingest.h"
#include "issuerid.h"
#include "scope.h"
#include "store.h"
#include "trust.h"

/*
 * Ingest buf as the CRL from source (a file name or URL; url, when not
 * NULL, is the distribution point it was fetched from).  Returns an
 * enum ingest_result; on INGEST_FAILED err says why and the index is
 * untouched.  On success key/keylen, when key is not NULL, name the
 * "crl" record that holds it.  buf is consumed: its pages are let go as
 * they are copied into the index (store_ingest), so the caller frees it
 * unread.
 */
int
ingest_buffer(struct store *s, const struct trust *t, const char *source,
    const char *url, const uint8_t *buf, size_t len, uint8_t *key,
    size_t *keylen, char *err, size_t errlen)
{
	struct crl c;
	size_t i = 0;
	int res = INGEST_FAILED, r;

	if (crl_from_buffer(&c, source, buf, len, err, errlen) == -1 ||
	    crl_verify(&c, t, url, (time_t)at_or_now(t->at), err, errlen) == -1)
		goto done;
	/* One record per IDP name (idp.c); changed when any changed. */
	do {
		c.scope = c.nscopes > 0 ? c.scopes[i] : NULL;
		c.keep_body = i + 1 < c.nscopes;
		r = store_ingest(s, &c, err, errlen);
		res = r == INGEST_FAILED || res == INGEST_FAILED ? r :
		    r > res ? r : res;
	} while (res != INGEST_FAILED && ++i < c.nscopes);
	if (res == INGEST_FAILED)
		goto done;
	crl_log_quirks(&c);	/* what was taken in spite of them */
	c.scope = c.nscopes > 0 ? c.scopes[0] : NULL;
	if (key != NULL)
		(void)store_scope_key(s, c.issuer_name, c.issuer, c.scope,
		    c.reasons, c.idp_flags, key, keylen);
done:
	crl_free(&c);
	return res;
}
