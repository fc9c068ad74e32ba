/*
 * Trust anchors and CA certificates used to verify CRL issuers.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <limits.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <crlcache/index.h>

#include "fetcher.h"

/* Append every certificate of a PEM (or single DER) file to sk. */
int
certs_load(const char *path, STACK_OF(X509) *sk)
{
	BIO *bio;
	X509 *x;
	int n = 0;

	if ((bio = BIO_new_file(path, "r")) == NULL) {
		logx(0, "%s: cannot open certificate file", path);
		return -1;
	}
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (!sk_X509_push(sk, x)) {
			X509_free(x);
			break;
		}
		n++;
	}
	ERR_clear_error();
	if (n == 0) {
		(void)BIO_reset(bio);
		if ((x = d2i_X509_bio(bio, NULL)) != NULL && sk_X509_push(sk, x))
			n++;
		else
			X509_free(x);
		ERR_clear_error();
	}
	BIO_free(bio);
	if (n == 0) {
		logx(0, "%s: no certificate found", path);
		return -1;
	}
	return 0;
}

static int
load_list(const struct strlist *l, STACK_OF(X509) *sk)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (certs_load(l->v[i], sk) == -1)
			return -1;
	return 0;
}

int
trust_load(struct trust *t, const struct strlist *anchors,
    const struct strlist *untrusted, const struct strlist *cas)
{
	STACK_OF(X509) *roots = NULL;
	int i, ret = -1;

	t->store = X509_STORE_new();
	t->certs = sk_X509_new_null();
	roots = sk_X509_new_null();
	if (t->store == NULL || t->certs == NULL || roots == NULL)
		goto done;
	if (anchors->n == 0) {
		if (!X509_STORE_set_default_paths(t->store)) {
			logx(0, "cannot load the system trust store");
			goto done;
		}
	} else {
		if (load_list(anchors, roots) == -1)
			goto done;
		for (i = 0; i < sk_X509_num(roots); i++) {
			X509 *x = sk_X509_value(roots, i);

			if (!X509_STORE_add_cert(t->store, x) ||
			    !X509_up_ref(x) || !sk_X509_push(t->certs, x))
				goto done;
		}
	}
	if (load_list(untrusted, t->certs) == -1 || load_list(cas, t->certs) == -1)
		goto done;
	ret = 0;
done:
	sk_X509_pop_free(roots, X509_free);
	return ret;
}

/*
 * Check CRL issuers' chains against what is already published (a fresh
 * state directory has nothing yet; that is not an error).
 */
void
trust_use_index(struct trust *t, const char *state_dir)
{
	char path[PATH_MAX];

	if (index_open(state_dir, path, sizeof(path), &t->index, 0) == -1)
		t->index = NULL;
}

void
trust_free(struct trust *t)
{
	crlc_index_close(t->index);
	t->index = NULL;
	X509_STORE_free(t->store);
	sk_X509_pop_free(t->certs, X509_free);
	t->store = NULL;
	t->certs = NULL;
}
