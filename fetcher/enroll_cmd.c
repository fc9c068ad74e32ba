/*
 * crlcache enroll: enrol the issuers of certificates an administrator
 * names, from files or from a TLS server's chain, with the proof hints
 * get (enrolment.c); the next `update` fetches their CRLs.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "aia.h"
#include "cmd.h"
#include "directory.h"
#include "direntry.h"
#include "enrolled.h"
#include "enrolment.h"
#include "fetcher.h"
#include "peer.h"
#include "privs.h"
#include "store.h"
#include "trust.h"

static int
self_signed(X509 *x)
{
	return X509_check_issued(x, x) == X509_V_OK;
}

/* Over 60 lines: the command's steps in their order, one cleanup path. */
int
cmd_enroll(const struct cmd_ctx *c, int argc, char **argv)
{
	const struct conf *conf = c->conf;
	struct trust t = { 0 };
	struct directory d;
	struct enrolment en;
	struct store *s = NULL;
	STACK_OF(X509) *certs = NULL;
	struct stat sb;
	size_t aia_budget = MAX_AIA_FETCHES;
	char why[ERRLEN], name[256], err[ERRLEN];
	int i, refused = 0, ret = 4;

	memset(&en, 0, sizeof(en));
	memset(&d, 0, sizeof(d));
	if (argc < 2) {
		logx(0, "usage: crlcache enroll CERT.pem | HOST:PORT ...");
		return 4;
	}
	/* The store's lock keeps an update from rewriting the file meanwhile. */
	if (store_open(&s, c->st, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	if ((certs = sk_X509_new_null()) == NULL ||
	    trust_load(&t, &conf->anchors, &conf->untrusted, &conf->cas) == -1 ||
	    enrolment_load(c->st, &en) == -1)
		goto done;
	trust_use_index(&t, c->st);
	/* Issuers are found in the directory too, as update's are. */
	if (directory_load(c->st, &d, NULL, err, sizeof(err)) == -1)
		logx(0, "%s; not used", err);
	else if (directory_trust(&t, &d) == -1)
		goto done;
	for (i = 1; i < argc; i++)
		if ((stat(argv[i], &sb) == 0 ? certs_load(argv[i], certs) :
		    server_chain(argv[i], conf, "enroll", certs)) == -1)
			goto done;
	/* The chain's certificates may serve as issuers, once proven. */
	for (i = 0; i < sk_X509_num(certs); i++)
		(void)trust_add(&t, sk_X509_value(certs, i));
	for (i = 0; i < sk_X509_num(certs); i++) {
		X509 *x = sk_X509_value(certs, i);

		if (self_signed(x))
			continue;	/* an anchor: no issuer above it */
		X509_NAME_oneline(X509_get_subject_name(x), name, sizeof(name));
		if (enrolment_prove(&en, x, &t, conf, &aia_budget,
		    (int64_t)time(NULL), why, sizeof(why)) != 0) {
			printf("refused %s: %s\n", name, why);
			refused++;
			continue;
		}
		X509_NAME_oneline(X509_get_issuer_name(x), why, sizeof(why));
		printf("enrolled issuer %s (of %s)\n", why, name);
	}
	if (enrolment_save(c->st, &en) == -1)
		goto done;
	if (refused < sk_X509_num(certs))
		logx(1, "enroll: `crlcache update` fetches the CRLs");
	ret = refused > 0 ? 1 : 0;
done:
	sk_X509_pop_free(certs, X509_free);
	enrolment_free(&en);
	trust_free(&t);
	directory_free(&d);
	store_close(s);
	return ret;
}
