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

int
cmd_import(const char *state_dir, const struct conf *conf, int argc,
    char **argv)
{
	static const struct option opts[] = {
		{ "anchor", required_argument, NULL, 'a' },
		{ "untrusted", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct strlist anchors = { NULL, 0 }, untrusted = { NULL, 0 };
	struct trust t = { NULL, NULL, NULL };
	struct store *s = NULL;
	char err[ERRLEN];
	uint8_t *buf;
	size_t len;
	uint64_t gen;
	int ch, i, failed = 0, ret = 4;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'a')
			strlist_add(&anchors, optarg);
		else if (ch == 'u')
			strlist_add(&untrusted, optarg);
		else
			goto done;
	}
	if (optind >= argc) {
		logx(0, "import: no CRL file given");
		goto done;
	}
	/* Command-line anchors replace the configured ones. */
	if (trust_load(&t, anchors.n > 0 ? &anchors : &conf->anchors,
	    &untrusted, &conf->untrusted) == -1)
		goto done;
	if (store_open(&s, state_dir, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	trust_use_index(&t, state_dir);
	if (store_adopt_legacy(s, &t) == -1)
		logx(0, "index: moving format 1 CRL records to their keys failed");
	for (i = optind; i < argc; i++) {
		if (read_file(argv[i], conf->max_size, &buf, &len, err,
		    sizeof(err)) == -1 ||
		    ingest_buffer(s, &t, argv[i], NULL, buf, len, NULL, NULL,
		    err, sizeof(err)) == INGEST_FAILED) {
			logx(0, "%s: rejected: %s", argv[i], err);
			failed++;
		} else
			logx(2, "%s: ingested", argv[i]);
		free(buf);
	}
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
	return ret;
}
