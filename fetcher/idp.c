/*
 * The scope a partitioned CRL is indexed under: a name of its
 * issuingDistributionPoint (RFC 5280 5.2.5), as <crlcache/dpname.h>
 * spells scopes.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/dpname.h>

#include "fetcher.h"
#include "idp.h"

/* The directoryName scope of n, newly allocated; NULL when unusable. */
static char *
dirname_scope(const X509_NAME *n)
{
	char out[CRLC_SCOPE_DIRNAME_LEN + 1];
	unsigned char *der = NULL;
	int len;

	if ((len = i2d_X509_NAME(n, &der)) <= 0)
		return NULL;
	if (crlc_scope_dirname(der, (size_t)len, out) == -1) {
		OPENSSL_free(der);
		return NULL;
	}
	OPENSSL_free(der);
	return xstrdup(out);
}

/*
 * Which name of dpn (the IDP's distributionPoint of a CRL issued by
 * issuer) the CRL is indexed under.  A URI when it has one: the URI
 * equal to url (the distribution point it was fetched from), else the
 * first; a complete CRL fetched from a URL its IDP does not name is
 * refused, since the certificates that led there name that URL.
 * Without a URI, each directoryName, up to IDP_SCOPES_MAX (one CRL may
 * serve several partitions so named: NIST PKITS 4.14.34; a certificate
 * naming a further one is not covered, "unknown");
 * nameRelativeToCRLIssuer is made full with the CRL issuer's name (RFC
 * 5280 5.2.5).  A CA that names a partition both by URI and by
 * directoryName is matched by certificates that carry the URI.  Returns
 * 0 and scopes[0..*n), or -1 and err.  Long: the three forms and their
 * precedence read in one place.
 */
int
idp_scope(const DIST_POINT_NAME *dpn, const X509_NAME *issuer, const char *url,
    int is_delta, char *scopes[IDP_SCOPES_MAX], size_t *n, char *err,
    size_t errlen)
{
	DIST_POINT_NAME *full = NULL;
	const GENERAL_NAMES *names = dpn->name.fullname;
	const char *first = NULL;
	char **scope = &scopes[0];
	int i, matched = 0;

	*n = 0;
	*scope = NULL;
	if (dpn->type != 0) {
		/* DIST_POINT_set_dpname() wants a mutable copy to fill. */
		if ((full = DIST_POINT_NAME_new()) == NULL ||
		    (full->name.relativename =
		    sk_X509_NAME_ENTRY_deep_copy(dpn->name.relativename,
		    X509_NAME_ENTRY_dup, X509_NAME_ENTRY_free)) == NULL) {
			DIST_POINT_NAME_free(full);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		full->type = 1;
		if (!DIST_POINT_set_dpname(full, issuer) ||
		    (*scope = dirname_scope(full->dpname)) == NULL) {
			DIST_POINT_NAME_free(full);
			snprintf(err, errlen, "IDP nameRelativeToCRLIssuer unusable");
			return -1;
		}
		DIST_POINT_NAME_free(full);
		*n = 1;
		return 0;
	}
	for (i = 0; i < sk_GENERAL_NAME_num(names); i++) {
		GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, i);
		const char *uri;
		int len;

		if (gn->type != GEN_URI)
			continue;
		uri = (const char *)ASN1_STRING_get0_data(gn->d.uniformResourceIdentifier);
		len = ASN1_STRING_length(gn->d.uniformResourceIdentifier);
		if (len <= 0 || len > CRLC_SCOPE_URI_MAX ||
		    memchr(uri, '\0', (size_t)len) != NULL ||
		    crlc_scope_is_dirname((const uint8_t *)uri, (size_t)len))
			continue;
		if (first == NULL)
			first = uri;
		if (url != NULL && strlen(url) == (size_t)len &&
		    memcmp(url, uri, (size_t)len) == 0) {
			matched = 1;
			first = uri;
		}
	}
	for (i = 0; first == NULL && i < sk_GENERAL_NAME_num(names) &&
	    *n < IDP_SCOPES_MAX; i++) {
		GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, i);

		if (gn->type != GEN_DIRNAME)
			continue;
		if ((scopes[*n] = dirname_scope(gn->d.directoryName)) == NULL) {
			snprintf(err, errlen, "IDP directoryName unusable");
			return -1;	/* the caller frees scopes[0..*n) */
		}
		++*n;
	}
	if (*n > 0)
		return 0;
	if (first == NULL) {
		snprintf(err, errlen, "IDP fullName has no usable URI or "
		    "directoryName");
		return -1;
	}
	if (url != NULL && !is_delta && !matched) {
		snprintf(err, errlen, "IDP fullName %.200s does not match the "
		    "distribution point it was fetched from (RFC 5280 5.2.5)",
		    first);
		return -1;
	}
	*scope = xstrdup(first);
	*n = 1;
	return 0;
}
