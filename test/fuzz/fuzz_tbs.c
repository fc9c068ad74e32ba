/*
 * libFuzzer target: the TBSCertificate recogniser, the Name
 * canonicaliser, the distribution point scopes (a relative name made
 * full; the names of distribution points with a cRLIssuer and their CRL
 * issuers) and reasons, and the ReasonFlags and IDP onlySomeReasons
 * readers (lib/reasons.c), the parsers that run inside every program's
 * signature
 * verification.  Input: anything (seeded with real
 * certificates); a certificate is also split into its TBS first.
 */
#include <stddef.h>
#include <stdint.h>

#include <crlcache/dpname.h>
#include <crlcache/name.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>
#include <crlcache/validity.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hash[CRLC_HASH_LEN], scope[CRLC_SCOPE_URI_MAX];
	struct crlc_validity v;
	size_t i, len;
	struct crlc_span tbs;
	struct crlc_tbs t;
	unsigned mask;

	(void)crlc_reasons_parse(data, size, &mask);
	(void)crlc_idp_reasons(data, size, &mask);
	if (crlc_cert_tbs(data, size, &tbs) == 0) {
		data = tbs.p;
		size = tbs.len;
	}
	if (crlc_tbs_parse(data, size, &t) == 0) {
		(void)crlc_name_canon_hash(t.issuer.p, t.issuer.len, hash);
		(void)crlc_name_canon_hash(t.subject.p, t.subject.len, hash);
		(void)crlc_validity_check(&t, &v);
		for (i = 0; i < crlc_dp_count(&t); i++) {
			(void)crlc_dp_scope(&t, i, scope, sizeof(scope), &len);
			mask = crlc_dp_reasons(&t, i);
			if (mask & ~CRLC_REASONS_ALL)
				__builtin_trap();	/* unknown bits never kept */
		}
		for (i = 0; i < t.nind; i++) {
			(void)crlc_ind_scope(&t.ind[i], scope, sizeof(scope),
			    &len);
			(void)crlc_name_canon_hash(t.ind[i].crl_issuer.p,
			    t.ind[i].crl_issuer.len, hash);
			if (t.ind[i].unnamed & ~CRLC_REASONS_ALL)
				__builtin_trap();
		}
	} else
		(void)crlc_name_canon_hash(data, size, hash);
	return 0;
}
