/*
 * crlcache command-line tool: the enrolled issuers (types shared by
 * enrolment.c and crlite_cover.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ENROLLED_H
#define CRLCACHE_FETCHER_ENROLLED_H

#include "fetcher.h"

/*
 * The enrolled issuers, as enrolment.c loads and saves them and
 * crlite_cover.c reads them (the types only).
 */
struct enrolled {
	uint8_t		 fp[CRLC_HASH_LEN];	/* SHA-256 of the issuer cert */
	X509		*issuer;
	int64_t		 first_seen, last_seen;
	struct strlist	 urls;		/* CDPs of the proven certificates */
};
struct enrolment {
	struct enrolled	*v;
	size_t		 n;
	int64_t		 hints_at;	/* the last run that read hints */
	size_t		 hints_taken;	/* ... its hints that enrolled */
	size_t		 hints_refused;	/* ... malformed, unproven, dropped */
	/* Not in the file: the CRL URLs of the certificates this run's
	 * hints proved, which update --hints publishes first. */
	struct strlist	 hinted_dps;
	int64_t		 hints_failed;	/* the last run could not read them */
};

#endif /* CRLCACHE_FETCHER_ENROLLED_H */
