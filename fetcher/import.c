/*
 * crlcache import: ingest CRL files offline (air-gapped hosts, tests).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "at.h"
#include "cmd.h"
#include "fetcher.h"
#include "ingest.h"
#include "privs.h"
#include "store.h"
#include "trust.h"

/* Ingest one file; url: the distribution point it was fetched from. */
static int
import_one(struct store *s, const struct trust *t, const struct conf *conf,
    const char *file, const char *url)
{
	char err[ERRLEN];
	uint8_t *buf = NULL;
	size_t len;
	int ret = 0;

	if (read_file(file, conf->max_size, &buf, &len, err,
	    sizeof(err)) == -1 ||
	    ingest_buffer(s, t, file, url, buf, len, NULL, NULL,
	    err, sizeof(err)) == INGEST_FAILED) {
		logx(0, "%s: rejected: %s", file, err);
		ret = -1;
	} else
		logx(2, "%s: ingested", file);
	free(buf);
	return ret;
}

/* What import was given, in order. */
struct import_args {
	struct strlist	 anchors, untrusted;
	struct strlist	 files, urls;	/* urls[i] for files[i]; "": none */
};

/*
 * import [--anchor CA.pem]... [--untrusted CERTS.pem]... [--at TIME]
 * [[--url URL] CRL]...: a --url applies to the CRL file that follows it,
 * so options and files are read in order (getopt stops at each file).
 * -1 after saying what is wrong.
 */
static int
import_parse(int argc, char **argv, struct import_args *a, struct trust *t)
{
	static const struct option opts[] = {
		{ "anchor", required_argument, NULL, 'a' },
		{ "untrusted", required_argument, NULL, 'u' },
		{ "url", required_argument, NULL, 'U' },
		{ "at", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url = NULL;
	int ch, dashdash = 0;

	for (;;) {
		if (dashdash || (ch = getopt_long(argc, argv, "+", opts,
		    NULL)) == -1) {
			if (optind >= argc)
				break;
			/* after "--" every argument is a file */
			dashdash |= strcmp(argv[optind - 1], "--") == 0;
			ch = 1;
			optarg = argv[optind++];
		}
		if (ch == 'a')
			strlist_add(&a->anchors, optarg);
		else if (ch == 'u')
			strlist_add(&a->untrusted, optarg);
		else if (ch == 'U') {
			if (url != NULL) {
				logx(0, "import: --url %s names no CRL file", url);
				return -1;
			}
			url = optarg;
		} else if (ch == 'T') {
			if (at_option("import", optarg, &t->at) == -1)
				return -1;
		} else if (ch == 1) {
			strlist_add(&a->files, optarg);
			strlist_add(&a->urls, url != NULL ? url : "");
			url = NULL;
		} else
			return -1;
	}
	if (url != NULL) {
		logx(0, "import: --url %s names no CRL file", url);
		return -1;
	}
	if (a->files.n == 0) {
		logx(0, "import: no CRL file given");
		return -1;
	}
	return 0;
}

int
cmd_import(const struct cmd_ctx *c, int argc, char **argv)
{
	const struct conf *conf = c->conf;
	struct import_args a;
	struct trust t = { 0 };
	struct store *s = NULL;
	char err[ERRLEN];
	uint64_t gen;
	size_t i;
	int failed = 0, ret = 4;

	memset(&a, 0, sizeof(a));
	if (import_parse(argc, argv, &a, &t) == -1)
		goto done;
	/*
	 * Command-line anchors replace the configured ones; the configured
	 * untrusted and ca certificates are issuer candidates, as in update.
	 */
	for (i = 0; i < conf->untrusted.n; i++)
		strlist_add(&a.untrusted, conf->untrusted.v[i]);
	if (trust_load(&t, a.anchors.n > 0 ? &a.anchors : &conf->anchors,
	    &a.untrusted, &conf->cas) == -1)
		goto done;
	if (store_open(&s, c->st, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	trust_use_index(&t, c->st);
	for (i = 0; i < a.files.n; i++)
		if (import_one(s, &t, conf, a.files.v[i],
		    a.urls.v[i][0] != '\0' ? a.urls.v[i] : NULL) == -1)
			failed++;
	if (store_publish(s, 0, &gen, err, sizeof(err)) == -1) {
		logx(0, "publish: %s", err);
		goto done;
	}
	if (gen != 0)
		logx(2, "published generation %llu", (unsigned long long)gen);
	ret = failed ? 1 : 0;
done:
	store_close(s);
	trust_free(&t);
	strlist_free(&a.anchors);
	strlist_free(&a.untrusted);
	strlist_free(&a.files);
	strlist_free(&a.urls);
	return ret;
}
