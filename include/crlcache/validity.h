/*
 * Certificate lifetime rules of the CA/Browser Forum TLS Baseline
 * Requirements (ballot SC-081; BR 6.3.2 and the definitions in BR 1.6.1).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Scope.  The rules apply to a certificate when its certificatePolicies
 * carry a CA/Browser Forum reserved policy OID (struct crlc_tbs
 * cabf_policy, filled by crlc_tbs_parse) and it is not a CA certificate
 * (basicConstraints cA is not TRUE).
 *
 * How the period is counted (BR 1.6.1 "Validity Period", BR 6.3.2).  The
 * validity period runs from notBefore through notAfter inclusive (RFC 5280
 * 4.1.2.5), so it lasts
 *
 *	seconds = notAfter - notBefore + 1
 *
 * "For the purpose of calculations, a day is measured as 86,400 seconds.
 * Any amount of time greater than this, including fractional seconds and/or
 * leap seconds, shall represent an additional day", so
 *
 *	days = ceil(seconds / 86400)
 *
 * Examples: notAfter = notBefore + 200 days - 1 s is 17,280,000 seconds,
 * exactly 200 days; notAfter = notBefore + 200 days is one second more and
 * counts as 201 days.  notAfter = notBefore is one second, 1 day.  A
 * certificate whose notAfter lies before its notBefore has a period of 0
 * days: it is neither over any limit nor short-lived (it never validates).
 *
 * The limit is chosen by issuance date, taken to be notBefore: the row of
 * the schedule with the latest start date <= notBefore.  The certificate
 * exceeds the limit when days > max_days.  It is short-lived (BR 1.6.1
 * "Short-lived Subscriber Certificate": no revocation information need be
 * published for it, BR 4.9.7 / 4.9.10) when days <= short_lived_days,
 * which under this counting is the same as seconds <= short_lived_days *
 * 86,400 (604,800 s for 7 days).
 *
 * Schedule (lib/validity.c, one table):
 *	notBefore <  2026-03-15		398 days, short-lived <= 10 days
 *	notBefore >= 2026-03-15		200 days, short-lived <= 7 days
 *	notBefore >= 2027-03-15		100 days, short-lived <= 7 days
 *	notBefore >= 2029-03-15		 47 days, short-lived <= 7 days
 * All dates are 00:00:00 UTC.
 *
 * Nothing here allocates, locks or depends on the current time: the
 * verdict is a function of the certificate alone, so the provider can call
 * crlc_validity_check() on every verification and the CLI prints the same.
 */
#ifndef CRLCACHE_VALIDITY_H
#define CRLCACHE_VALIDITY_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/tbs.h>

#define CRLC_DAY_SECONDS	86400

/* One row of the schedule: applies to notBefore >= from. */
struct crlc_validity_rule {
	int64_t		 from;		/* seconds since the epoch (UTC) */
	const char	*from_text;	/* "2026-03-15"; NULL for the first row */
	uint32_t	 max_days;
	uint32_t	 short_lived_days;
};

struct crlc_validity {
	int		 applies;	/* CA/B policy OID and not a CA */
	uint64_t	 seconds;	/* notAfter - notBefore + 1, 0 if negative */
	uint64_t	 days;		/* ceil(seconds / 86400) */
	uint32_t	 max_days;	/* limit for this notBefore */
	uint32_t	 short_lived_days;
	int		 exceeds;	/* days > max_days */
	int		 short_lived;	/* 1 <= days <= short_lived_days */
	/* The schedule row used, and the next one (NULL if none). */
	const struct crlc_validity_rule *rule;
	const struct crlc_validity_rule *next;
};

/*
 * Evaluate the period and the schedule for any notBefore/notAfter, whether
 * or not the rules apply; out->applies is set to 1.
 */
void	crlc_validity_eval(int64_t not_before, int64_t not_after,
	    struct crlc_validity *out);

/*
 * Evaluate t.  Always fills *out; when the rules do not apply
 * (out->applies == 0) exceeds and short_lived are 0 and only the counted
 * period is meaningful.  Returns out->applies.
 */
int	crlc_validity_check(const struct crlc_tbs *t, struct crlc_validity *out);

/*
 * Describe the verdict in buf, snprintf-style (returns what snprintf
 * returns), e.g.
 *	"validity=201d max=200d (exceeds CA/B BR limit for notBefore >= 2026-03-15)"
 *	"validity=90d max=200d (within CA/B BR limit for notBefore >= 2026-03-15)"
 *	"validity=7d max=200d (short-lived: <= 7d for notBefore >= 2026-03-15)"
 *	"validity=400d max=398d (exceeds CA/B BR limit for notBefore < 2026-03-15)"
 * For a certificate the rules do not apply to, "validity=Nd (CA/B BR
 * limits do not apply)".  No allocation.
 */
int	crlc_validity_format(const struct crlc_validity *v, char *buf,
	    size_t len);

/* The schedule, oldest row first; *n receives the number of rows. */
const struct crlc_validity_rule *crlc_validity_schedule(size_t *n);

#endif /* CRLCACHE_VALIDITY_H */
