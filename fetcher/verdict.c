/*
 * The verdict: what the last run that wrote the state left for `status`
 * to tell every user the same.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The sources, the directory's state and the hints' are in the working
 * data, which only the state's owner reads (root reads it as that owner).
 * Another user's `status` would otherwise judge the published index alone
 * and say "ok" where root is told "sources failing": one host, two
 * verdicts.  So each command that writes the state leaves beside the
 * index, world-readable, the counts its own `status` would give; a user
 * who may not read the working data is given those.  Staleness is not in
 * it: every user judges that from the index itself.
 *
 * FORMAT
 *	STATE_DIR/verdict, mode 0644, replaced whole (rename): four lines
 *	"sources N", "failing N", "retrying N", "directory_failing 0|1",
 *	in that order, decimal, each ended by a newline.  A file of any
 *	other shape is not used.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher.h"
#include "state.h"
#include "verdict.h"

#define VERDICT_NAME	"verdict"
/* Four short lines; anything longer is not a verdict this version wrote. */
#define VERDICT_MAX	256

int
verdict_write(struct state *st, const struct verdict *v)
{
	char text[VERDICT_MAX];
	int len;

	len = snprintf(text, sizeof(text), "sources %zu\nfailing %zu\n"
	    "retrying %zu\ndirectory_failing %d\n", v->sources, v->failing,
	    v->retrying, v->dir_failing != 0);
	return state_replace(st, VERDICT_NAME, text, (size_t)len, 0644);
}

int
verdict_read(struct state *st, struct verdict *v)
{
	char err[ERRLEN], *text = NULL;
	uint8_t *buf = NULL;
	size_t len;
	int used = 0, ret = -1;

	memset(v, 0, sizeof(*v));
	if (state_read(st, VERDICT_NAME, VERDICT_MAX, &buf, &len, err,
	    sizeof(err)) == -1)
		return -1;
	text = xcalloc(1, len + 1);
	memcpy(text, buf, len);
	if (sscanf(text, "sources %zu\nfailing %zu\nretrying %zu\n"
	    "directory_failing %d\n%n", &v->sources, &v->failing, &v->retrying,
	    &v->dir_failing, &used) == 4 && (size_t)used == len &&
	    v->failing + v->retrying <= v->sources &&
	    (v->dir_failing == 0 || v->dir_failing == 1))
		ret = 0;
	else
		memset(v, 0, sizeof(*v));
	free(text);
	free(buf);
	return ret;
}
