/*
 * What a CRLite source may do within the driver's run (crlitesrc.h):
 * a transfer within the run's deadline, a local file read, a failure
 * said, a relative name checked.  Below the driver (crlite.c) and the
 * sources alike, so that neither calls back into the other.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "crlitesrc.h"
#include "fetcher.h"

int
crlite_fail(struct crlite_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
crlite_get(struct crlite_run *run, struct fetch *f, const char *url,
    int guarded, int decode, size_t max)
{
	if (fetch_until(f, url, guarded, decode, max, run->conf, run->deadline,
	    run->err, sizeof(run->err)) == -1)
		return -1;
	run->bytes += f->len;
	return 0;
}

int
crlite_read_local(struct crlite_run *run, const char *path, size_t max,
    uint8_t **body, size_t *len)
{
	char why[ERRLEN];

	if (read_file(path, max, body, len, why, sizeof(why)) == -1)
		return crlite_fail(run, "%s: %s", path, why);
	return 0;
}

int
crlite_path_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '/' && strstr(s, "..") == NULL &&
	    strstr(s, "//") == NULL && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._~/") == strlen(s);
}
