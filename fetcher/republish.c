/*
 * crlcache publish: write the published index anew from the working
 * state, without fetching anything.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * An upgrade that changes the published format (format.h VERSIONS) leaves
 * a file the new readers refuse, and programs then pass through until the
 * next `update`.  The package's postinst runs this so that the host is
 * protected again before dpkg returns, with no network access.
 */
#include <getopt.h>

#include "cmd.h"
#include "fetcher.h"
#include "privs.h"
#include "spool.h"
#include "store.h"

int
cmd_publish(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ NULL, 0, NULL, 0 },
	};
	struct store *s = NULL;
	char err[ERRLEN];
	uint64_t gen;
	int ret = 4;

	if (getopt_long(argc, argv, "", opts, NULL) != -1 || optind != argc) {
		logx(0, "usage: crlcache publish");
		goto done;
	}
	if (store_open(&s, c->st, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	/*
	 * After an upgrade (the package runs publish): an older version's
	 * spool, which programs no longer write into, made as it ships now.
	 * A failure is said and costs the hints only.
	 */
	(void)hints_prepare(c->st);
	if (store_publish(s, 1, &gen, err, sizeof(err)) == -1) {
		logx(0, "publish: %s", err);
		goto done;
	}
	logx(1, "published generation %llu", (unsigned long long)gen);
	ret = 0;
done:
	store_close(s);
	return ret;
}
