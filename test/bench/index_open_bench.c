/*
 * Benchmark of the format 4 reader (lib/index.c): what crlc_index_open()
 * costs for a top file of many issuers -- read, checksum trailer, the
 * checks of every record -- and what a lookup costs once, the first time
 * (the page file read and checked, the scope file mapped and checked)
 * and after (no system call).
 * Builds its own index with the encoder (lib/indexwrite.c): ISSUERS
 * issuers, each with a complete CRL and a partition, so 2 * ISSUERS
 * scope records, ENTRIES revocations per scope file, URLs and sources of
 * Web PKI length.
 *
 *   index_open_bench DIR [ISSUERS [ENTRIES]]     (default 1000, 100)
 *
 * With BENCH_COUNT=N in the environment it builds the index, opens and
 * closes it N times and exits: index_open.sh counts the instructions of
 * those opens (callgrind --toggle-collect=crlc_index_open).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>

#include "bench.h"
#include "../unit/topdir.h"

/* Runs of each timed operation; the median is reported. */
#define RUNS		201
/* Lookups per timed run of the warm lookup. */
#define LOOKUPS		10000
#define URI_FMT		"http://crl.example-ca-%05u.test/partition/%05u.crl"
#define SRC_FMT		"http://crl.example-ca-%05u.test/full/%05u.crl"

static int
issuer_cmp(const void *a, const void *b)
{
	return memcmp(((const struct crlc_top_issuer *)a)->hash,
	    ((const struct crlc_top_issuer *)b)->hash, CRLC_HASH_LEN);
}

/* The DER Name "CN=bench issuer NNNNN" of issuer i into n (23 bytes). */
static void
issuer_name(unsigned i, uint8_t n[23])
{
	static const uint8_t hdr[] = { 0x30, 0x15, 0x31, 0x13, 0x30, 0x11,
	    0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x0a };

	char cn[11];

	memcpy(n, hdr, sizeof(hdr));
	snprintf(cn, sizeof(cn), "issuer%04u", i % 10000);
	memcpy(n + sizeof(hdr), cn, 10);
}

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

static void
build(const char *dir, unsigned nissuers, unsigned nentries)
{
	static uint8_t der[1024];
	struct crlc_span body = { der, sizeof(der) };
	struct crlc_top_issuer *alias, *canon;
	struct crlc_top_key *keys;
	struct crlc_top_scope *sc;
	struct crlc_scope_entry *e;
	char path[512], name[2 * CRLC_SCOPE_ID_LEN + 1];
	char (*uri)[80], (*src)[80];
	uint8_t nm[23], h[CRLC_HASH_LEN];
	unsigned i, j, k, n = 2 * nissuers;
	int fd;

	alias = calloc(nissuers, sizeof(*alias));
	canon = calloc(nissuers, sizeof(*canon));
	keys = calloc(nissuers, sizeof(*keys));
	sc = calloc(n, sizeof(*sc));
	e = calloc(nentries, sizeof(*e));
	uri = calloc(n, sizeof(*uri));
	src = calloc(n, sizeof(*src));
	if (!alias || !canon || !keys || !sc || !e || !uri || !src)
		die("calloc");
	snprintf(path, sizeof(path), "%s/scope", dir);
	if (mkdir(path, 0755) == -1)
		die(path);
	for (i = 0; i < nissuers; i++) {
		issuer_name(i, nm);
		crlc_sha256(nm, sizeof(nm), alias[i].hash);
		alias[i].id = i + 1;
		crlc_sha256(alias[i].hash, CRLC_HASH_LEN, canon[i].hash);
		canon[i].id = i + 1;
		keys[i].issuer_id = i + 1;
		crlc_sha256(&i, sizeof(i), keys[i].hash);
		keys[i].key_no = 1;
		keys[i].ski_len = 20;
		memcpy(keys[i].ski, keys[i].hash, 20);
		for (j = 0; j < 2; j++) {
			struct crlc_top_scope *s = &sc[2 * i + j];

			snprintf(uri[2 * i + j], sizeof(uri[0]), URI_FMT, i, i);
			snprintf(src[2 * i + j], sizeof(src[0]), SRC_FMT, i, j);
			s->issuer_id = i + 1;
			s->key_no = 1;
			s->uri = (struct crlc_span){ (uint8_t *)uri[2 * i + j],
			    j == 0 ? 0 : strlen(uri[2 * i + j]) };
			s->scope_no = j + 1;
			s->entries = nentries;
			s->this_update = 1790000000;
			s->next_update = 1790000000 + 7 * 86400;
			s->fetched_at = 1790000000;
			s->number = (struct crlc_span){ (uint8_t *)"\x01\x02", 2 };
			s->source = (struct crlc_span){ (uint8_t *)src[2 * i + j],
			    strlen(src[2 * i + j]) };
			crlc_sha256(s->source.p, s->source.len, h);
			memcpy(s->id, h, CRLC_SCOPE_ID_LEN);
			for (k = 0; k < nentries; k++) {
				/* 16 random-looking octets, as CAs issue */
				crlc_sha256(&k, sizeof(k), h);
				h[0] = (uint8_t)(i + j);
				crlc_scope_slot(h, 16, e[k].slot);
				e[k].revoked_at = 1780000000;
				e[k].reason = 1;
			}
			crlc_scope_name(s->id, name);
			snprintf(path, sizeof(path), "%s/scope/%s", dir, name);
			if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC,
			    0644)) == -1 || crlc_scope_write(fd, s->id, e,
			    crlc_scope_sort(e, nentries), &body, NULL) != 0 ||
			    close(fd) != 0)
				die(path);
		}
	}
	qsort(alias, nissuers, sizeof(*alias), issuer_cmp);
	qsort(canon, nissuers, sizeof(*canon), issuer_cmp);
	topdir_write(dir, 1, 1790000000, alias, nissuers, canon, nissuers,
	    keys, nissuers, sc, n);
	free(alias);
	free(canon);
	free(keys);
	free(sc);
	free(e);
	free(uri);
	free(src);
}

int
main(int argc, char **argv)
{
	unsigned nissuers = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	unsigned nentries = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	static const uint8_t serial[] = { 0x7f, 0x01, 0x02 };
	double t[RUNS], t0;
	char path[512];
	uint8_t nm[23];
	struct crlc_index *idx;
	struct crlc_verdict v;
	struct crlc_tbs cert;
	struct stat sb;
	const char *detail;
	int i, k, rc;

	if (argc < 2 || nissuers == 0 || nissuers > 10000) {
		fprintf(stderr, "usage: index_open_bench DIR [ISSUERS [ENTRIES]]\n");
		return 2;
	}
	build(argv[1], nissuers, nentries);
	snprintf(path, sizeof(path), "%s/index.mdb", argv[1]);
	if (stat(path, &sb) == -1)
		die(path);
	if (getenv("BENCH_COUNT") != NULL) {
		for (k = atoi(getenv("BENCH_COUNT")); k > 0; k--) {
			if (crlc_index_open(path, &idx, &detail) != CRLC_OK) {
				fprintf(stderr, "%s: %s\n", path, detail);
				return 1;
			}
			crlc_index_close(idx);
		}
		return 0;
	}
	for (i = 0; i < RUNS; i++) {
		t0 = now();
		rc = crlc_index_open(path, &idx, &detail);
		t[i] = now() - t0;
		if (rc != CRLC_OK) {
			fprintf(stderr, "%s: %s\n", path, detail);
			return 1;
		}
		crlc_index_close(idx);
	}
	printf("top file: %u scope records, %lld bytes\n", 2 * nissuers,
	    (long long)sb.st_size);
	printf("crlc_index_open + close: median %.1f us of %d runs\n",
	    median(t, RUNS) * 1e6, RUNS);

	/* A certificate of the last issuer: its complete CRL covers it. */
	memset(&cert, 0, sizeof(cert));
	issuer_name(nissuers - 1, nm);
	cert.issuer = (struct crlc_span){ nm, sizeof(nm) };
	cert.serial = (struct crlc_span){ serial, sizeof(serial) };
	for (i = 0; i < RUNS; i++) {
		if (crlc_index_open(path, &idx, &detail) != CRLC_OK)
			return 1;
		t0 = now();
		rc = crlc_index_lookup(idx, &cert, NULL, 1790000000, 0, &v);
		t[i] = now() - t0;
		if (rc != 0 || v.state != CRLC_GOOD) {
			fprintf(stderr, "lookup: %d, state %d\n", rc, v.state);
			return 1;
		}
		crlc_index_close(idx);
	}
	printf("first lookup (maps and checks a scope file of %u entries): "
	    "median %.1f us\n", nentries, median(t, RUNS) * 1e6);
	if (crlc_index_open(path, &idx, &detail) != CRLC_OK)
		return 1;
	for (i = 0; i < RUNS; i++) {
		t0 = now();
		for (k = 0; k < LOOKUPS; k++)
			(void)crlc_index_lookup(idx, &cert, NULL, 1790000000,
			    0, &v);
		t[i] = (now() - t0) / LOOKUPS;
	}
	crlc_index_close(idx);
	printf("warm lookup (issuer cached, scope mapped): median %.0f ns\n",
	    median(t, RUNS) * 1e9);
	return 0;
}
