/*
 * Unit test of the CRLite filter reader (lib/clubcard.c), run under
 * ASan+UBSan:
 *  - filters of both encodings that test/clubcard_build.py builds at
 *    test time: every entry answers as built (revoked or good), unknown
 *    issuers not enrolled, SCTs outside the coverage not covered, a full
 *    filter with deltas combines as upki-revocation "Step 3" says;
 *  - malformed filters the builder writes, each refused for its reason;
 *    every truncation refused; every byte changed three ways either
 *    refused or queried without a read outside the buffer, and a filter
 *    whose bytes are rewritten after the parse still read only inside;
 *  - Mozilla's real delta filter of 2026-06-24 (test/data/crlite/SOURCES)
 *    and real certificates of CA test sites: the inputs read from each
 *    certificate (lib/sct.c) equal what upki recorded for it, and the
 *    answers are go-upki's (GTS Root R1 revoked, DigiCert TLS ECC P384
 *    Root G5 good); the same filter re-encoded as version 3 answers the
 *    same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tmpdir.h"
#include <crlcache/clubcard.h>
#include <crlcache/hash.h>
#include <crlcache/sct.h>

#define REAL_FILTER	"test/data/crlite/20260624-1-default.filter.delta"
#define SITES		"test/data/crlite/sites.txt"
#define MAX_FILES	4		/* filters named on one expect line */
#define MAX_SERIAL	64
#define MAX_LOADED	16

/* One line of an expect file: a query and its answer. */
struct expect {
	char		 files[MAX_FILES][16];
	size_t		 nfiles;
	uint8_t		 issuer[CRLC_SCT_HASH_LEN];
	uint8_t		 serial[MAX_SERIAL];
	size_t		 serial_len;
	struct crlc_sct	 scts[CRLC_SCT_MAX];
	size_t		 nscts;
	enum crlc_clubcard_answer answer;
	char		 name[32];	/* sites.txt: the site */
};

struct loaded {
	char		 path[300];
	uint8_t		*buf;
	struct crlc_clubcard *cc;
};
static struct loaded loaded[MAX_LOADED];
static size_t nloaded;

static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0;
	FILE *f;

	*len = 0;
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	do {
		cap = cap ? 2 * cap : 4096;
		if ((buf = realloc(buf, cap)) == NULL)
			exit(2);
		*len += fread(buf + *len, 1, cap - *len, f);
	} while (*len == cap);
	fclose(f);
	return buf;
}

/* Hex s[0..n) into out; its length, or SIZE_MAX when not hex or too long. */
static size_t
unhex(const char *s, size_t n, uint8_t *out, size_t max)
{
	size_t i;
	unsigned v;

	if (n % 2 != 0 || n / 2 > max)
		return SIZE_MAX;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return SIZE_MAX;
		out[i] = (uint8_t)v;
	}
	return n / 2;
}

static enum crlc_clubcard_answer
answer_of(const char *w)
{
	if (strcmp(w, "revoked") == 0)
		return CRLC_CLUBCARD_REVOKED;
	if (strcmp(w, "good") == 0)
		return CRLC_CLUBCARD_GOOD;
	if (strcmp(w, "not-enrolled") == 0)
		return CRLC_CLUBCARD_NOT_ENROLLED;
	if (strcmp(w, "not-covered") == 0)
		return CRLC_CLUBCARD_NOT_COVERED;
	fprintf(stderr, "unknown answer %s\n", w);
	exit(2);
}

/* "LOGHEX:MS,LOGHEX:MS" or "-" */
static void
scts_parse(char *s, struct expect *e)
{
	char *tok, *save, *colon;

	e->nscts = 0;
	if (strcmp(s, "-") == 0)
		return;
	for (tok = strtok_r(s, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((colon = strchr(tok, ':')) == NULL ||
		    e->nscts == CRLC_SCT_MAX ||
		    unhex(tok, (size_t)(colon - tok), e->scts[e->nscts].log_id,
		    CRLC_SCT_HASH_LEN) != CRLC_SCT_HASH_LEN)
			exit(2);
		e->scts[e->nscts++].timestamp = strtoull(colon + 1, NULL, 10);
	}
}

/*
 * The lines of an expect file (FILES ISSUER SERIAL SCTS ANSWER) or of
 * sites.txt (NAME ISSUER SERIAL SCTS ANSWER).
 */
static struct expect *
expect_read(const char *path, int sites, size_t *n)
{
	char line[4096], f[5][1024], *tok, *save;
	struct expect *v = NULL, *e;
	size_t cap = 0;
	FILE *fp;

	*n = 0;
	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%1023s %1023s %1023s %1023s %1023s", f[0],
		    f[1], f[2], f[3], f[4]) != 5)
			exit(2);
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			if ((v = realloc(v, cap * sizeof(*v))) == NULL)
				exit(2);
		}
		e = &v[(*n)++];
		memset(e, 0, sizeof(*e));
		if (sites)
			snprintf(e->name, sizeof(e->name), "%.31s", f[0]);
		else
			for (tok = strtok_r(f[0], ",", &save); tok != NULL &&
			    strcmp(tok, "-") != 0 && e->nfiles < MAX_FILES;
			    tok = strtok_r(NULL, ",", &save))
				snprintf(e->files[e->nfiles++],
				    sizeof(e->files[0]), "%.15s", tok);
		if (unhex(f[1], strlen(f[1]), e->issuer, CRLC_SCT_HASH_LEN) !=
		    CRLC_SCT_HASH_LEN ||
		    (e->serial_len = unhex(f[2], strlen(f[2]), e->serial,
		    MAX_SERIAL)) == SIZE_MAX)
			exit(2);
		scts_parse(f[3], e);
		e->answer = answer_of(f[4]);
	}
	fclose(fp);
	return v;
}

/* path parsed once and kept (the expect lines name filters again). */
static struct crlc_clubcard *
filter(const char *path)
{
	char why[CRLC_CLUBCARD_WHY_LEN];
	struct loaded *l;
	size_t i, len;

	for (i = 0; i < nloaded; i++)
		if (strcmp(loaded[i].path, path) == 0)
			return loaded[i].cc;
	if (nloaded == MAX_LOADED)
		exit(2);
	l = &loaded[nloaded++];
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->buf = slurp(path, &len);
	if (crlc_clubcard_parse(l->buf, len, &l->cc, why, sizeof(why)) != 0)
		fprintf(stderr, "%s: %s\n", path, why);
	CHECK(l->cc != NULL);
	return l->cc;
}

static void
loaded_free(void)
{
	size_t i;

	for (i = 0; i < nloaded; i++) {
		crlc_clubcard_free(loaded[i].cc);
		free(loaded[i].buf);
	}
	nloaded = 0;
}

static struct crlc_clubcard_info
info(const struct crlc_clubcard *cc)
{
	struct crlc_clubcard_info i;

	crlc_clubcard_info(cc, &i);
	return i;
}

static enum crlc_clubcard_answer
ask(const struct crlc_clubcard *const *cc, size_t n, const struct expect *e)
{
	struct crlc_clubcard_query q;

	crlc_clubcard_query_init(&q, e->issuer, e->serial, e->serial_len,
	    e->scts, e->nscts);
	return crlc_clubcard_query_set(cc, n, &q, NULL);
}

/* Every line of dir/expect against dir/NAME.vVERSION. */
static void
check_expect(const char *dir, const struct expect *v, size_t n, int version)
{
	const struct crlc_clubcard *cc[MAX_FILES];
	struct crlc_clubcard_query q;
	enum crlc_clubcard_answer a;
	char path[300];
	size_t i, j, which, wrong = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < v[i].nfiles; j++) {
			snprintf(path, sizeof(path), "%s/%s.v%d", dir,
			    v[i].files[j], version);
			cc[j] = filter(path);
			CHECK(cc[j] == NULL || info(cc[j]).version == version);
		}
		crlc_clubcard_query_init(&q, v[i].issuer, v[i].serial,
		    v[i].serial_len, v[i].scts, v[i].nscts);
		a = crlc_clubcard_query_set(cc, v[i].nfiles, &q, &which);
		if (a != v[i].answer && wrong++ < 5)
			fprintf(stderr, "v%d line %zu: %s, want %s\n", version,
			    i + 1, crlc_clubcard_answer_name(a),
			    crlc_clubcard_answer_name(v[i].answer));
		CHECK(a == v[i].answer);
		CHECK(a == CRLC_CLUBCARD_NOT_COVERED ? which == v[i].nfiles :
		    which < v[i].nfiles &&
		    crlc_clubcard_query(cc[which], &q) == a);
		if (v[i].nfiles == 1)
			CHECK(crlc_clubcard_query(cc[0], &q) == a);
	}
	CHECK(wrong == 0);
}

/* Every strict prefix refused (a prefix parses as the file did, then ends). */
static void
check_truncations(const uint8_t *buf, size_t len, size_t stride)
{
	struct crlc_clubcard *cc;
	char why[CRLC_CLUBCARD_WHY_LEN];
	size_t n, accepted = 0;
	uint8_t *copy;

	for (n = 0; n < len; n += (n < 4096 || len - n < 4096) ? 1 : stride) {
		/* an exact-size copy: ASan sees a read past the prefix */
		if ((copy = malloc(n ? n : 1)) == NULL)
			exit(2);
		memcpy(copy, buf, n);
		if (crlc_clubcard_parse(copy, n, &cc, why, sizeof(why)) == 0) {
			accepted++;
			crlc_clubcard_free(cc);
		}
		free(copy);
	}
	CHECK(accepted == 0);
}

/*
 * Each byte of buf changed three ways: refused, or accepted and queried
 * (the answers may change; ASan checks that no read leaves the buffer).
 */
static void
check_corruptions(uint8_t *buf, size_t len, const struct expect *v, size_t n)
{
	static const uint8_t flip[] = { 0x01, 0x80, 0xff };
	const struct crlc_clubcard *one[1];
	struct crlc_clubcard *cc;
	size_t i, j, k, accepted = 0, refused = 0;

	for (i = 0; i < len; i++)
		for (j = 0; j < sizeof(flip); j++) {
			buf[i] ^= flip[j];
			if (crlc_clubcard_parse(buf, len, &cc, NULL, 0) == 0) {
				accepted++;
				one[0] = cc;
				for (k = 0; k < n; k += 37)
					(void)ask(one, 1, &v[k]);
				crlc_clubcard_free(cc);
			} else
				refused++;
			buf[i] ^= flip[j];
		}
	CHECK(accepted > 0 && refused > 0);
}

/* Parsed, then the bytes rewritten (against the contract): reads stay in. */
static void
check_rewritten(const uint8_t *orig, size_t len, const struct expect *v,
    size_t n)
{
	const struct crlc_clubcard *one[1];
	struct crlc_clubcard *cc;
	uint8_t *buf;
	size_t i, k;
	int round;

	for (round = 0; round < 3; round++) {
		if ((buf = malloc(len)) == NULL)
			exit(2);
		memcpy(buf, orig, len);
		CHECK(crlc_clubcard_parse(buf, len, &cc, NULL, 0) == 0);
		if (cc == NULL) {
			free(buf);
			continue;
		}
		srandom((unsigned)round);
		for (i = 0; i < len; i++)
			buf[i] = round == 0 ? 0xff : round == 1 ? 0 :
			    (uint8_t)random();
		one[0] = cc;
		for (k = 0; k < n; k++)
			CHECK(ask(one, 1, &v[k]) <= CRLC_CLUBCARD_REVOKED);
		crlc_clubcard_free(cc);
		free(buf);
	}
}

/* dir/bad/list: NAME|REASON; each refused, for that reason. */
static void
check_malformed(const char *dir)
{
	char line[256], path[600], why[CRLC_CLUBCARD_WHY_LEN], *bar;
	struct crlc_clubcard *cc;
	size_t len, count = 0;
	uint8_t *buf;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/bad/list", dir);
	if ((fp = fopen(path, "r")) == NULL)
		exit(2);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((bar = strchr(line, '|')) == NULL)
			exit(2);
		*bar = '\0';
		snprintf(path, sizeof(path), "%s/bad/%s", dir, line);
		buf = slurp(path, &len);
		why[0] = '\0';
		CHECK(crlc_clubcard_parse(buf, len, &cc, why, sizeof(why)) ==
		    -1 && cc == NULL);
		if (strstr(why, bar + 1) == NULL)
			fprintf(stderr, "%s: refused for \"%s\", want \"%s\"\n",
			    line, why, bar + 1);
		CHECK(strstr(why, bar + 1) != NULL);
		free(buf);
		count++;
	}
	fclose(fp);
	CHECK(count >= 31);
	/* refused on the length alone, before a byte is read */
	CHECK(crlc_clubcard_parse((const uint8_t *)"\4", 0, &cc, why,
	    sizeof(why)) == -1 && strstr(why, "no version") != NULL);
	CHECK(crlc_clubcard_parse((const uint8_t *)"\4", 1, &cc, why,
	    sizeof(why)) == -1 && strstr(why, "no version") != NULL);
	CHECK(crlc_clubcard_parse((const uint8_t *)"\4", CRLC_CLUBCARD_MAX_LEN +
	    1, &cc, why, sizeof(why)) == -1 && strstr(why, "more than the") !=
	    NULL && cc == NULL);
	/* a reason cut to its buffer, still a string */
	CHECK(crlc_clubcard_parse((const uint8_t *)"\5\0", 2, &cc, why, 8) ==
	    -1 && strcmp(why, "at byte") == 0);
}

/* The builder's filters. */
static void
check_built(const char *dir)
{
	char path[300];
	struct expect *v;
	uint8_t *buf;
	size_t n, len, nmain;
	int version;

	snprintf(path, sizeof(path), "%s/expect", dir);
	v = expect_read(path, 0, &n);
	CHECK(n > 1700);
	for (nmain = 0; nmain < n && strcmp(v[nmain].files[0], "main") == 0 &&
	    v[nmain].nfiles == 1; nmain++)
		;
	for (version = 3; version <= 4; version++) {
		check_expect(dir, v, n, version);
		snprintf(path, sizeof(path), "%s/main.v%d", dir, version);
		buf = slurp(path, &len);
		check_truncations(buf, len, 1);
		check_corruptions(buf, len, v, nmain);
		check_rewritten(buf, len, v, nmain);
		free(buf);
		loaded_free();
	}
	check_malformed(dir);
	free(v);
}

/* The CRLite inputs of test/data/crlite/sites/NAME.{leaf,issuer}.der. */
static int
site_inputs(const char *name, struct expect *got,
    uint8_t leaf_key[CRLC_SCT_HASH_LEN], uint8_t **leaf, uint8_t **issuer)
{
	struct crlc_crlite_cert lc, ic;
	struct crlc_span tbs;
	const char *why = "";
	char path[300];
	size_t len;

	memset(got, 0, sizeof(*got));
	snprintf(path, sizeof(path), "test/data/crlite/sites/%s.leaf.der", name);
	*leaf = slurp(path, &len);
	if (crlc_cert_tbs(*leaf, len, &tbs) != 0 ||
	    crlc_crlite_cert(tbs.p, tbs.len, &lc, &why) != 0 ||
	    crlc_sct_list(lc.sct_list.p, lc.sct_list.len, got->scts,
	    &got->nscts, &why) != 0 || lc.serial.len > MAX_SERIAL) {
		fprintf(stderr, "%s leaf: %s\n", name, why);
		return -1;
	}
	memcpy(got->serial, lc.serial.p, lc.serial.len);
	got->serial_len = lc.serial.len;
	snprintf(path, sizeof(path), "test/data/crlite/sites/%s.issuer.der",
	    name);
	*issuer = slurp(path, &len);
	if (crlc_cert_tbs(*issuer, len, &tbs) != 0 ||
	    crlc_crlite_cert(tbs.p, tbs.len, &ic, &why) != 0) {
		fprintf(stderr, "%s issuer: %s\n", name, why);
		return -1;
	}
	crlc_sha256(ic.spki.p, ic.spki.len, got->issuer);
	crlc_sha256(lc.spki.p, lc.spki.len, leaf_key);
	return 0;
}

/*
 * Mozilla's delta: the inputs each site's certificates give are upki's,
 * and the answers those test/data/crlite/SOURCES names.
 */
static void
check_real(const char *dir)
{
	const struct crlc_clubcard *cc[1];
	struct crlc_clubcard *v3;
	struct expect *v, got;
	char path[300], cmd[700], why[CRLC_CLUBCARD_WHY_LEN];
	uint8_t *leaf, *issuer, *buf, *buf3, leaf_key[CRLC_SCT_HASH_LEN];
	size_t n, i, len, len3;
	int rc;

	buf = slurp(REAL_FILTER, &len);
	rc = crlc_clubcard_parse(buf, len, (struct crlc_clubcard **)&cc[0],
	    why, sizeof(why));
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", REAL_FILTER, why);
	CHECK(rc == 0);
	if (rc != 0)
		return;
	CHECK(info(cc[0]).version == 4 && info(cc[0]).issuers == 969 &&
	    info(cc[0]).logs == 50 && info(cc[0]).newest == 1782305424367ULL);
	snprintf(path, sizeof(path), "%s/real.v3", dir);
	snprintf(cmd, sizeof(cmd), "python3 test/clubcard_build.py reencode "
	    "'%s' '%s' 3", REAL_FILTER, path);
	CHECK(system(cmd) == 0);
	buf3 = slurp(path, &len3);
	CHECK(crlc_clubcard_parse(buf3, len3, &v3, why, sizeof(why)) == 0);
	CHECK(v3 != NULL && info(v3).version == 3 && info(v3).issuers == 969 &&
	    info(v3).logs == 50 && info(v3).newest == 1782305424367ULL);
	v = expect_read(SITES, 1, &n);
	CHECK(n == 8);
	for (i = 0; i < n; i++) {
		leaf = issuer = NULL;
		CHECK(site_inputs(v[i].name, &got, leaf_key, &leaf,
		    &issuer) == 0);
		CHECK(memcmp(got.issuer, v[i].issuer, CRLC_SCT_HASH_LEN) == 0);
		CHECK(got.serial_len == v[i].serial_len &&
		    memcmp(got.serial, v[i].serial, got.serial_len) == 0);
		CHECK(got.nscts == v[i].nscts && memcmp(got.scts, v[i].scts,
		    got.nscts * sizeof(got.scts[0])) == 0);
		CHECK(ask(cc, 1, &got) == v[i].answer);
		fprintf(stderr, "%s: %s\n", v[i].name,
		    crlc_clubcard_answer_name(ask(cc, 1, &got)));
		if (v3 != NULL)
			CHECK(ask((const struct crlc_clubcard *const *)&v3, 1,
			    &got) == v[i].answer);
		/* the leaf's own key as the issuer: it issues nothing */
		memcpy(got.issuer, leaf_key, CRLC_SCT_HASH_LEN);
		CHECK(ask(cc, 1, &got) == (v[i].answer ==
		    CRLC_CLUBCARD_NOT_COVERED ? CRLC_CLUBCARD_NOT_COVERED :
		    CRLC_CLUBCARD_NOT_ENROLLED));
		free(leaf);
		free(issuer);
	}
	check_truncations(buf, len, 101);
	check_truncations(buf3, len3, 101);
	free(v);
	crlc_clubcard_free(v3);
	crlc_clubcard_free((struct crlc_clubcard *)cc[0]);
	free(buf3);
	free(buf);
}

int
main(void)
{
	const char *dir = tmpdir_make("crlc-t_clubcard");
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "python3 test/clubcard_build.py suite '%s'",
	    dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "%s failed\n", cmd);
		return 2;
	}
	check_built(dir);
	check_real(dir);
	return check_result();
}
