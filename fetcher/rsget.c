/*
 * A Remote Settings client's transfers (rsget.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fetcher.h"
#include "rsget.h"

void
rs_client_init(struct rs_client *rc, struct state *st,
    const struct conf *conf)
{
	memset(rc, 0, sizeof(*rc));
	rc->conf = conf;
	rc->st = st;
	rc->deadline = fetch_budget(conf);
}

int
rs_fail(struct rs_client *rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rc->err, sizeof(rc->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
rs_get(struct rs_client *rc, struct fetch *f, const char *url, int guarded,
    int decode, size_t max)
{
	if (fetch_until(f, url, guarded, decode, max, rc->conf, rc->deadline,
	    rc->err, sizeof(rc->err)) == -1)
		return -1;
	rc->bytes += f->len;
	return 0;
}
