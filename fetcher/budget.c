/*
 * A source's transfers within one deadline (budget.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/clock.h>

#include "budget.h"
#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"

void
fetch_budget_start(struct fetch_budget *b, const struct conf *conf)
{
	long long s = (long long)conf->timeout * FETCH_BUDGET_TRANSFERS;

	memset(b, 0, sizeof(*b));
	b->conf = conf;
	b->deadline = crlc_mono_ms() + (s < FETCH_BUDGET_MAX_S ? s :
	    FETCH_BUDGET_MAX_S) * 1000;
}

int
fetch_budget_fail(struct fetch_budget *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
fetch_budget_get(struct fetch_budget *b, struct fetch *f, const char *url,
    int guarded, int decode, size_t max)
{
	long long left = (b->deadline - crlc_mono_ms()) / 1000;
	struct conf c = *b->conf;
	char *shown;

	f->url = url;
	f->guarded = guarded;
	f->decode = decode;
	c.max_size = max;
	/* Each attempt a share of what is left: retries end in time too. */
	left /= c.retries + 1;
	if (left < c.timeout)
		c.timeout = left;
	if (c.connect_timeout > c.timeout)
		c.connect_timeout = c.timeout;
	if (c.timeout >= 1 && fetch_all(f, 1, &c) == 0 && f->ok) {
		b->bytes += f->len;
		return 0;
	}
	shown = safe_text(url);
	fetch_budget_fail(b, "%s: %s", shown, c.timeout < 1 ? "not asked: "
	    "the time this source may take is spent" : f->err[0] != '\0' ?
	    f->err : "fetch failed");
	free(shown);
	return -1;
}
