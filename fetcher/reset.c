/*
 * crlcache reset: forget the CRL one scope holds, on an administrator's
 * word.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The rollback rule (RFC 5280 5.2.3, admissible() in scope.c) lets no CRL
 * with a lower number replace the one held: one accepted bad CRL -- a
 * number far ahead, a signer since refused -- would lock its scope for
 * good.  reset removes that scope's CRL record and the entries its CRLs
 * listed, and publishes; the next update (which asks unconditionally for
 * a scope it does not hold) or import fills the scope afresh.  It is
 * logged to stderr and, always, to syslog: revocation data was removed.
 *
 * reset --all removes the whole working index -- every CRL, rollback
 * lock and source record, and the issuer directory with the state of its
 * last refresh -- whatever its format, and publishes the empty
 * index: the way out of a working index this version does not read
 * (store.c refuses it, format.h VERSIONS).  The next update fetches
 * everything afresh.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <openssl/x509.h>

#include <crlcache/reasons.h>

#include "cmd.h"
#include "dirrefresh.h"
#include "fetcher.h"
#include "privs.h"
#include "scope.h"
#include "state.h"
#include "store.h"
#include "trust.h"

/* Said on stderr and, always, in syslog: revocation data is removed. */
static void
log_always(void)
{
	if (!log_syslog)
		openlog("crlcache", LOG_PID, LOG_DAEMON);
	log_syslog = 1;
}

/* ", kind user-only,indirect" and a NUL */
#define KIND_TEXT_MAX	32

/*
 * The kind of scope --kind names (format.h SCOPE KINDS), in the words
 * `status` shows: "user-only" or "CA-only" and "indirect", separated by
 * commas.  0 and *kind, or -1.
 */
static int
kind_from_text(const char *text, unsigned *kind)
{
	static const struct {
		const char	*word;
		unsigned	 flag;
	} words[] = {
		{ "user-only", CRLC_CRL_USER_ONLY },
		{ "CA-only", CRLC_CRL_CA_ONLY },
		{ "indirect", CRLC_CRL_INDIRECT },
	};
	const char *p = text;
	size_t i, n;

	*kind = 0;
	do {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(words) / sizeof(words[0]) &&
		    (strlen(words[i].word) != n ||
		    strncmp(words[i].word, p, n) != 0); i++)
			;
		if (i == sizeof(words) / sizeof(words[0]))
			return -1;
		*kind |= words[i].flag;
		p += n;
	} while (*p++ == ',');
	/* RFC 5280 5.2.5: a CRL is not both */
	return (*kind & CRLC_CRL_USER_ONLY) && (*kind & CRLC_CRL_CA_ONLY) ?
	    -1 : 0;
}

static int
reset_all(struct state *st)
{
	struct store *s = NULL;
	char err[ERRLEN];
	uint64_t gen;
	int ret = 4;

	if (store_open_empty(&s, st, err, sizeof(err)) == -1) {
		logx(0, "reset --all: %s", err);
		goto done;
	}
	log_always();
	/* The issuer directory and its refresh state live there too. */
	directory_forget(st);
	if (store_publish(s, 1, &gen, err, sizeof(err)) == -1) {
		logx(0, "reset --all: the working index of %s was removed; "
		    "the empty one is not published: %s", state_path(st), err);
		goto done;
	}
	logx(1, "reset --all: removed every CRL and source record and the "
	    "issuer directory of %s; published the empty index, generation %llu; the next "
	    "`crlcache update` fetches every source again", state_path(st),
	    (unsigned long long)gen);
	ret = 0;
done:
	store_close(s);
	return ret;
}

/* What reset was asked to remove. */
struct reset_args {
	const char	*issuer, *scope, *kindtext;
	unsigned	 reasons, kind;
	int		 all;
};

/* The options into a; -1 after saying what is wrong with one. */
static int
reset_parse(int argc, char **argv, struct reset_args *a)
{
	static const struct option opts[] = {
		{ "issuer", required_argument, NULL, 'i' },
		{ "scope", required_argument, NULL, 'u' },
		{ "reasons", required_argument, NULL, 'r' },
		{ "kind", required_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->reasons = CRLC_REASONS_ALL;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'i')
			a->issuer = optarg;
		else if (ch == 'u')
			a->scope = optarg;
		else if (ch == 'a')
			a->all = 1;
		else if (ch == 'r' && crlc_reasons_from_text(optarg,
		    &a->reasons) == 0)
			continue;
		else if (ch == 'k' && kind_from_text(optarg, &a->kind) == 0)
			a->kindtext = optarg;
		else {
			if (ch == 'r')
				logx(0, "reset: --reasons: a comma-separated "
				    "list of RFC 5280 ReasonFlags names "
				    "(keyCompromise,...), or all");
			if (ch == 'k')
				logx(0, "reset: --kind: user-only or CA-only, "
				    "and indirect, separated by a comma");
			return -1;
		}
	}
	return 0;
}

/*
 * What the messages name after a scope: its reason partition, then its
 * kind (checked words: nothing to escape; cut if repeated).
 */
static void
partition_text(const struct reset_args *a, char *rtext, size_t len)
{
	rtext[0] = '\0';
	if (a->reasons != CRLC_REASONS_ALL) {
		memcpy(rtext, ", reasons ", 11);
		crlc_reasons_format(a->reasons, rtext + 10, len - 10);
	}
	if (a->kindtext != NULL)
		snprintf(rtext + strlen(rtext), len - strlen(rtext),
		    ", kind %s", a->kindtext);
}

/* Remove the CRL a names from the working index and publish. */
static int
reset_scope(struct state *st, const struct reset_args *a)
{
	STACK_OF(X509) *certs = sk_X509_new_null();
	const char *scope = a->scope != NULL ? a->scope : "all";
	struct store *s = NULL;
	struct store_reset held;
	char name[256], num[2 * CRLC_CRLNUM_MAX + 1], tu[32], err[ERRLEN];
	/* ", reasons LIST" then ", kind LIST" (KIND_TEXT_MAX) */
	char rtext[10 + CRLC_REASONS_TEXT_MAX + KIND_TEXT_MAX];
	uint64_t gen;
	int rc, ret = 4;

	partition_text(a, rtext, sizeof(rtext));
	if (certs == NULL || certs_load(a->issuer, certs) == -1)
		goto done;
	if (sk_X509_num(certs) != 1) {
		logx(0, "%s: give exactly one certificate, the CRL issuer's",
		    a->issuer);
		goto done;
	}
	X509_NAME_oneline(X509_get_subject_name(sk_X509_value(certs, 0)), name,
	    sizeof(name));
	if (store_open(&s, st, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	if ((rc = store_reset_scope(s, sk_X509_value(certs, 0), a->scope,
	    a->reasons, a->kind, &held, err, sizeof(err))) == -1) {
		logx(0, "reset: %s", err);
		goto done;
	}
	if (rc == 0) {
		logx(0, "reset: no CRL held for issuer %s, scope %s%s", name,
		    scope, rtext);
		ret = 1;
		goto done;
	}
	if (held.numlen > 0)
		crlc_hex_encode(held.number, held.numlen, num, 1);
	else
		snprintf(num, sizeof(num), "none");
	format_time(held.this_update, tu, sizeof(tu));
	if (store_publish(s, 0, &gen, err, sizeof(err)) == -1) {
		/* the working index changed: the next publish carries it */
		logx(0, "reset: issuer %s, scope %s%s removed from the working "
		    "index, not published: %s", name, scope, rtext, err);
		goto done;
	}
	log_always();
	logx(1, "reset: issuer %s, scope %s%s: removed CRL number %s "
	    "(thisUpdate %s, %u entries); published generation %llu",
	    name, scope, rtext, num, tu, held.entries,
	    (unsigned long long)gen);
	ret = 0;
done:
	store_close(s);
	sk_X509_pop_free(certs, X509_free);
	return ret;
}

int
cmd_reset(const struct cmd_ctx *c, int argc, char **argv)
{
	struct reset_args a;

	if (reset_parse(argc, argv, &a) == -1)
		return 4;
	if (a.all && a.issuer == NULL && a.scope == NULL &&
	    a.reasons == CRLC_REASONS_ALL && a.kind == 0 && optind == argc)
		return reset_all(c->st);
	if (a.all || a.issuer == NULL || optind != argc) {
		logx(0, "usage: crlcache reset --issuer CERT.pem [--scope URI] "
		    "[--reasons LIST] [--kind KINDS] | --all");
		return 4;
	}
	return reset_scope(c->st, &a);
}
