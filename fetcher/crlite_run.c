/*
 * What a CRLite source may do within the driver's run (crlitesrc.h)
 * besides its transfers (the run's budget, budget.c): a local file
 * read, a relative name checked.  Below the driver (crlite.c) and the
 * sources alike, so that neither calls back into the other.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <string.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"

int
crlite_read_local(struct crlite_run *run, const char *path, size_t max,
    uint8_t **body, size_t *len)
{
	char why[ERRLEN];

	if (read_file(path, max, body, len, why, sizeof(why)) == -1)
		return fetch_budget_fail(&run->b, "%s: %s", path, why);
	return 0;
}

int
crlite_path_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '/' && strstr(s, "..") == NULL &&
	    strstr(s, "//") == NULL && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._~/") == strlen(s);
}
