/*
 * crlcache status: the published generation, its size and its CRLs.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include <crlcache/index.h>

#include "fetcher.h"

struct status_walk {
	int64_t	now;
	int64_t	grace;
	int	stale;
};

static int
print_crl(const struct crlc_crl_info *ci, void *arg)
{
	struct status_walk *w = arg;
	char tu[32], nu[32];
	int stale = ci->next_update != 0 && w->now > ci->next_update + w->grace;

	format_time(ci->this_update, tu, sizeof(tu));
	format_time(ci->next_update, nu, sizeof(nu));
	printf("crl %.*s scope=%.*s entries=%u thisUpdate=%s nextUpdate=%s%s%s\n",
	    (int)ci->source.len, (const char *)ci->source.p,
	    ci->scope.len > 0 ? (int)ci->scope.len : 3,
	    ci->scope.len > 0 ? (const char *)ci->scope.p : "all",
	    ci->entries, tu, ci->next_update != 0 ? nu : "none",
	    ci->delta.len > 0 ? " delta" : "", stale ? " stale" : "");
	w->stale |= stale;
	return 0;
}

int
cmd_status(const char *state_dir, const struct conf *conf, int argc, char **argv)
{
	struct status_walk w = { (int64_t)time(NULL), conf->stale_grace, 0 };
	struct crlc_index *idx;
	struct crlc_stats st;
	const char *detail;
	char path[PATH_MAX], created[32];
	int rc;

	(void)argv;
	if (argc != 1) {
		logx(0, "usage: crlcache status");
		return 4;
	}
	snprintf(path, sizeof(path), "%s/%s", state_dir, INDEX_NAME);
	if ((rc = crlc_index_open(path, &idx, &detail)) != CRLC_OK) {
		logx(0, "%s: %s: %s", path, crlc_index_strerror(rc), detail);
		return 4;
	}
	format_time(crlc_index_created(idx), created, sizeof(created));
	printf("index %s\ngeneration %llu\ncreated %s\n", path,
	    (unsigned long long)crlc_index_generation(idx), created);
	if (crlc_index_stats(idx, &st) == 0)
		printf("issuers %llu\ncrls %llu\nrevoked %llu\nbytes %llu\n",
		    (unsigned long long)st.issuers, (unsigned long long)st.crls,
		    (unsigned long long)st.revoked, (unsigned long long)st.file_size);
	rc = crlc_index_foreach_crl(idx, print_crl, &w);
	crlc_index_close(idx);
	if (rc != 0) {
		logx(0, "%s: cannot read the CRL records", path);
		return 4;
	}
	return w.stale ? 1 : 0;
}
