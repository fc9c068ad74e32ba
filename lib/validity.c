/*
 * Certificate lifetime rules of the CA/B Forum Baseline Requirements
 * (ballot SC-081); see include/crlcache/validity.h for how periods count.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>

#include <crlcache/validity.h>

/*
 * The schedule, oldest first.  A row holds from its start date (notBefore
 * >= from, 00:00:00 UTC) until the next row's.  To follow a new ballot,
 * add a row; test/unit/t_validity.c checks that the rows are in order and
 * that each epoch value matches its date text.
 */
static const struct crlc_validity_rule schedule[] = {
	/* from		from_text	max	short-lived */
	{ INT64_MIN,	NULL,		398,	10 },
	{ 1773532800,	"2026-03-15",	200,	7 },	/* SC-081 */
	{ 1805068800,	"2027-03-15",	100,	7 },	/* SC-081 */
	{ 1868227200,	"2029-03-15",	47,	7 },	/* SC-081 */
};

#define NRULES	(sizeof(schedule) / sizeof(schedule[0]))

const struct crlc_validity_rule *
crlc_validity_schedule(size_t *n)
{
	*n = NRULES;
	return schedule;
}

void
crlc_validity_eval(int64_t not_before, int64_t not_after,
    struct crlc_validity *out)
{
	uint64_t diff;
	size_t i;

	for (i = 1; i < NRULES && schedule[i].from <= not_before; i++)
		;
	out->applies = 1;
	out->rule = &schedule[i - 1];
	out->next = i < NRULES ? &schedule[i] : NULL;
	out->max_days = out->rule->max_days;
	out->short_lived_days = out->rule->short_lived_days;
	if (not_after < not_before) {
		out->seconds = 0;
		out->days = 0;
	} else {
		/* Exact in uint64_t for any int64_t pair; seconds = diff + 1. */
		diff = (uint64_t)not_after - (uint64_t)not_before;
		out->seconds = diff == UINT64_MAX ? UINT64_MAX : diff + 1;
		/* ceil((diff + 1) / 86400) without overflow */
		out->days = diff / CRLC_DAY_SECONDS + 1;
	}
	out->exceeds = out->days > out->max_days;
	out->short_lived = out->days >= 1 &&
	    out->days <= out->short_lived_days;
}

int
crlc_validity_check(const struct crlc_tbs *t, struct crlc_validity *out)
{
	crlc_validity_eval(t->not_before, t->not_after, out);
	out->applies = t->cabf_policy && !t->is_ca;
	if (!out->applies) {
		out->exceeds = 0;
		out->short_lived = 0;
	}
	return out->applies;
}

int
crlc_validity_format(const struct crlc_validity *v, char *buf, size_t len)
{
	const char *op, *date;

	if (!v->applies)
		return snprintf(buf, len,
		    "validity=%llud (CA/B BR limits do not apply)",
		    (unsigned long long)v->days);
	if (v->rule->from_text != NULL) {
		op = ">= ";
		date = v->rule->from_text;
	} else if (v->next != NULL) {
		op = "< ";
		date = v->next->from_text;
	} else {
		op = "";
		date = "any";
	}
	if (v->short_lived)
		return snprintf(buf, len,
		    "validity=%llud max=%ud (short-lived: <= %ud for "
		    "notBefore %s%s)", (unsigned long long)v->days,
		    (unsigned)v->max_days, (unsigned)v->short_lived_days,
		    op, date);
	return snprintf(buf, len,
	    "validity=%llud max=%ud (%s CA/B BR limit for notBefore %s%s)",
	    (unsigned long long)v->days, (unsigned)v->max_days,
	    v->exceeds ? "exceeds" : "within", op, date);
}
