/*
 * libFuzzer target: the CRL ingest path, the one way a CRL from the
 * network reaches the index: ingest_buffer() (fetcher/ingest.c) parses
 * (PEM or DER), verifies against the trust store (issuer, signature,
 * times, extensions, cRLNumber, IDP) and, for a CRL that verifies,
 * writes its entries to a working store.  Input: anything, seeded with
 * real CRLs and with CRLs of a test PKI whose issuers the environment
 * names, so that seeds and what keeps their signature reach the store:
 *   FUZZ_CRL_ANCHORS  PEM file of trust anchors
 *   FUZZ_CRL_CERTS    PEM file of intermediates
 *   FUZZ_CRL_URL      the distribution point URL the IDP is checked against
 *   FUZZ_CRL_STATE    a state directory of the fuzzer's own (else a new
 *                     one under TMPDIR)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetcher/fetcher.h"
#include "../../fetcher/ingest.h"
#include "../../fetcher/state.h"
#include "../../fetcher/store.h"
#include "../../fetcher/trust.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trust	trust;
static struct store	*store;
static struct state	 st;
static const char	*url;

static void
env_list(const char *var, struct strlist *l)
{
	const char *v = getenv(var);

	if (v != NULL && *v != '\0')
		strlist_add(l, v);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct strlist anchors = { NULL, 0 }, certs = { NULL, 0 },
	    none = { NULL, 0 };
	char err[ERRLEN], tmpl[4096];
	const char *state = getenv("FUZZ_CRL_STATE"), *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	verbosity = 0;
	url = getenv("FUZZ_CRL_URL");
	env_list("FUZZ_CRL_ANCHORS", &anchors);
	env_list("FUZZ_CRL_CERTS", &certs);
	if (trust_load(&trust, &anchors, &certs, &none) == -1)
		abort();
	if (state == NULL || *state == '\0') {
		snprintf(tmpl, sizeof(tmpl), "%s/fuzz_crl.XXXXXX",
		    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
		if ((state = mkdtemp(tmpl)) == NULL)
			abort();
	}
	/* The handle lives as long as the store: the whole fuzzing run. */
	if (state_open(&st, state) == -1 ||
	    store_open(&store, &st, err, sizeof(err)) == -1) {
		fprintf(stderr, "fuzz_crl: %s\n", err);
		abort();
	}
	strlist_free(&anchors);
	strlist_free(&certs);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ERRLEN];

	(void)ingest_buffer(store, &trust, "fuzz", url, data, size, NULL, NULL,
	    err, sizeof(err));
	return 0;
}
