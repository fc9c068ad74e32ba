/*
 * The CRLite and OneCRL step of `update` (DESIGN 4a), off the state
 * lock: what is in force read under the lock, every transfer made and
 * verified without it (a hint run is never kept waiting by a server of
 * Mozilla's or a mirror, and each source within its budget, budget.h),
 * then the results installed under the lock again.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"
#include "mozilla.h"
#include "onecrl.h"

struct mozilla_run {
	struct rs_monitor mon;
	struct crlite_run crlite;
	struct onecrl_run onecrl;
};

struct mozilla_run *
mozilla_begin(struct state *st, const struct conf *conf, struct store *s)
{
	struct mozilla_run *m = xcalloc(1, sizeof(*m));

	(void)crlite_begin(&m->crlite, st, conf, s, &m->mon);
	(void)onecrl_begin(&m->onecrl, st, conf, &m->mon);
	return m;
}

void
mozilla_fetch(struct mozilla_run *m, struct state *st,
    const struct conf *conf)
{
	struct rs_client rc;

	if (conf->crlite != NULL) {
		fetch_budget_start(&rc.b, conf);
		rc.st = st;
		if (rs_poll(&rc, &m->mon) == -1)
			logx(1, "remote settings: %s; each collection is asked "
			    "with _since", rc.b.err);
	}
	crlite_fetch(&m->crlite);
	onecrl_fetch(&m->onecrl);
}

void
mozilla_finish(struct mozilla_run *m, struct state *st, struct store *s,
    char *crlite, size_t crlitelen, int *crlite_failed, char *onecrl,
    size_t onecrllen, int *onecrl_failed)
{
	*crlite_failed = crlite_finish(&m->crlite, s, crlite, crlitelen) == -1;
	*onecrl_failed = onecrl_finish(&m->onecrl, s, onecrl, onecrllen) == -1;
	/*
	 * A collection that failed, or came older than listed, is listed by
	 * the next poll again.
	 */
	if (!*crlite_failed && !*onecrl_failed && !m->crlite.col.behind &&
	    !m->onecrl.col.behind)
		rs_poll_done(st, &m->mon);
}

void
mozilla_free(struct mozilla_run *m)
{
	if (m == NULL)
		return;
	crlite_free(&m->crlite);
	onecrl_free(&m->onecrl);
	free(m);
}
