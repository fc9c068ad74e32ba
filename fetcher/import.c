/*
 * crlcache import: ingest CRL files offline (air-gapped hosts, tests).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher.h"

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

/*
 * import [--anchor CA.pem]... [--untrusted CERTS.pem]... [--at TIME]
 * [[--url URL] CRL]...: a --url applies to the CRL file that follows it,
 * so options and files are read in order (getopt stops at each file).
 */
int
cmd_import(const struct cmd_ctx *c, int argc, char **argv)
{
	const struct conf *conf = c->conf;
	static const struct option opts[] = {
		{ "anchor", required_argument, NULL, 'a' },
		{ "untrusted", required_argument, NULL, 'u' },
		{ "url", required_argument, NULL, 'U' },
		{ "at", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct strlist anchors = { NULL, 0 }, untrusted = { NULL, 0 };
	struct strlist files = { NULL, 0 }, urls = { NULL, 0 };
	struct trust t = { 0 };
	struct store *s = NULL;
	const char *url = NULL;
	char err[ERRLEN];
	uint64_t gen;
	size_t i;
	int ch, dashdash = 0, failed = 0, ret = 4;

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
			strlist_add(&anchors, optarg);
		else if (ch == 'u')
			strlist_add(&untrusted, optarg);
		else if (ch == 'U') {
			if (url != NULL) {
				logx(0, "import: --url %s names no CRL file", url);
				goto done;
			}
			url = optarg;
		} else if (ch == 'T') {
			if (at_option("import", optarg, &t.at) == -1)
				goto done;
		} else if (ch == 1) {
			strlist_add(&files, optarg);
			strlist_add(&urls, url != NULL ? url : "");
			url = NULL;
		} else
			goto done;
	}
	if (url != NULL) {
		logx(0, "import: --url %s names no CRL file", url);
		goto done;
	}
	if (files.n == 0) {
		logx(0, "import: no CRL file given");
		goto done;
	}
	/*
	 * Command-line anchors replace the configured ones; the configured
	 * untrusted and ca certificates are issuer candidates, as in update.
	 */
	for (i = 0; i < conf->untrusted.n; i++)
		strlist_add(&untrusted, conf->untrusted.v[i]);
	if (trust_load(&t, anchors.n > 0 ? &anchors : &conf->anchors,
	    &untrusted, &conf->cas) == -1)
		goto done;
	if (store_open(&s, c->st, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	trust_use_index(&t, c->st);
	for (i = 0; i < files.n; i++)
		if (import_one(s, &t, conf, files.v[i],
		    urls.v[i][0] != '\0' ? urls.v[i] : NULL) == -1)
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
	strlist_free(&anchors);
	strlist_free(&untrusted);
	strlist_free(&files);
	strlist_free(&urls);
	return ret;
}
