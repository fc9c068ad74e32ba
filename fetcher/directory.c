/*
 * The issuer directory on disk: the CA certificates of the Web PKI with
 * their CRL URLs, built from the CCADB's reports (dirrefresh.c) and kept
 * in STATE_DIR/work/, which only the crlcache account reads.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Files in STATE_DIR/work/, each replaced whole (state_replace):
 *
 *   directory          the last directory built, in this format (LF line
 *                      ends):
 *
 *        crlcache-directory 2
 *        built EPOCH
 *        entries N
 *        cert FP BASE64          N times, FP strictly ascending
 *        url LEN URL             1 to DIR_MAX_URLS times after each cert
 *        end
 *
 *                      FP is the SHA-256 of the certificate in 64
 *                      uppercase hex digits, BASE64 its DER on one line,
 *                      URL an http(s) URL (url_usable) of LEN bytes, the
 *                      length first so that no byte of a URL can end or
 *                      forge a line.  Reading it back checks every
 *                      bound, the order, each URL and each certificate's
 *                      digest; any error refuses the whole file.
 *                      Format 1 (url URL) is no longer read: a refresh
 *                      replaces it.
 *
 *   directory.state    the refresh state:
 *
 *        crlcache-directory-state 1
 *        attempt EPOCH           the last refresh tried
 *        built EPOCH             the directory's (0: none yet)
 *        entries N
 *        error TEXT              only when the last refresh failed
 *        rows N                  data rows of the last directory's reports
 *        skipped REASON N        rows not used, by reason (csv.c), each
 *        refused REASON N        records not kept, by reason
 *                                (dir_reason_key), each
 *        expires EPOCH           optional: the first notAfter of an entry
 *        inputs HEX              optional: SHA-256 of the anchors and
 *                                candidates it was built with
 *        report SOURCE           each report the directory was built from
 *        etag VALUE              optional, that report's validators
 *        modified VALUE
 *
 *                      A value holds no control character (written as
 *                      '?').
 *
 *   directory.refused  the records the last build did not keep:
 *
 *        crlcache-directory-refused 1
 *        refused FP REASON SUBJECT   FP as above, REASON a
 *                                    dir_reason_key, SUBJECT RFC 2253
 *                                    ("-": no certificate), control
 *                                    characters written as '?'
 *
 *   directory.index    where each entry of the directory lies and its
 *                      subject's name hash, written after it (format in
 *                      dirindex.c): a run reads only the entries it
 *                      looks up.
 *
 *   directory-HEX.csv  the body of report URL whose SHA-256 is HEX, as
 *                      last built from, for a 304 answer (conditional GET).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/x509.h>

#include "conf.h"
#include "directory.h"
#include "direntry.h"
#include "dirindex.h"
#include "fetcher.h"
#include "name.h"
#include "state.h"
#include "trust.h"

#define STATE_FORMAT		"crlcache-directory-state 1"
/* Files of the work directory: the crlcache account's only. */
#define WORK_MODE		0600
/* The state file: a few lines per report. */
#define DIR_MAX_STATE		((size_t)1 << 20)

/* "WHAT: WHY" into err, shortened with "..." when it does not fit. */
void
dir_say(char *err, size_t errlen, const char *what, const char *why)
{
	if ((size_t)snprintf(err, errlen, "%s: %s", what, why) >= errlen &&
	    errlen > 4)
		memcpy(err + errlen - 4, "...", 4);
}

/* dir_say() of the state's file name: "STATE_DIR/NAME: WHY". */
static void
file_say(char *err, size_t errlen, const struct state *st, const char *name,
    const char *why)
{
	if ((size_t)snprintf(err, errlen, "%s/%s: %s", state_path(st), name,
	    why) >= errlen && errlen > 4)
		memcpy(err + errlen - 4, "...", 4);
}

void
dir_reports_free(struct dir_report *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].src);
		free(r[i].etag);
		free(r[i].modified);
	}
	free(r);
}

void
dir_state_free(struct dir_state *ds)
{
	free(ds->error);
	free(ds->inputs);
	dir_reports_free(ds->r, ds->n);
	memset(ds, 0, sizeof(*ds));
}

struct dir_report *
dir_report_add(struct dir_report **r, size_t *n, const char *src, int kind)
{
	struct dir_report *v;

	if (*n >= DIR_MAX_REPORTS ||
	    (v = reallocarray(*r, *n + 1, sizeof(*v))) == NULL)
		return NULL;
	*r = v;
	memset(&v[*n], 0, sizeof(v[*n]));
	v[*n].src = xstrdup(src);
	v[*n].kind = kind;
	return &v[(*n)++];
}

/* A value for a state line: one line of printable characters. */
static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int
state_number(const char *val, long long *out)
{
	return parse_number(val, LLONG_MAX, 0, out);
}

static int
state_line(struct dir_state *ds, char *key, char *val)
{
	long long v;
	struct dir_report *r = ds->n > 0 ? &ds->r[ds->n - 1] : NULL;
	char *sp;
	int k;

	if (strcmp(key, "attempt") == 0 || strcmp(key, "built") == 0 ||
	    strcmp(key, "entries") == 0 || strcmp(key, "rows") == 0 ||
	    strcmp(key, "expires") == 0) {
		if (state_number(val, &v) == -1)
			return -1;
		if (key[0] == 'a')
			ds->attempt = v;
		else if (key[0] == 'b')
			ds->built = v;
		else if (key[1] == 'n')
			ds->entries = v;
		else if (key[0] == 'e')
			ds->expires = v;
		else
			ds->rows = v;
	} else if (strcmp(key, "inputs") == 0 && ds->inputs == NULL) {
		ds->inputs = xstrdup(val);
	} else if (strcmp(key, "skipped") == 0) {
		if ((sp = strchr(val, ' ')) == NULL)
			return -1;
		*sp = '\0';
		for (k = 0; k < CSV_NSKIP && strcmp(csv_skip_name[k], val); k++)
			;
		if (k == CSV_NSKIP || state_number(sp + 1, &v) == -1)
			return -1;
		ds->skipped[k] = v;
	} else if (strcmp(key, "refused") == 0) {
		if ((sp = strchr(val, ' ')) == NULL)
			return -1;
		*sp = '\0';
		for (k = 1; k < DIR_NREASONS && strcmp(dir_reason_key[k], val);
		    k++)
			;
		if (k == DIR_NREASONS || state_number(sp + 1, &v) == -1)
			return -1;
		ds->refused[k] = v;
	} else if (strcmp(key, "error") == 0 && ds->error == NULL)
		ds->error = xstrdup(val);
	else if (strcmp(key, "report") == 0) {
		if (dir_report_add(&ds->r, &ds->n, val, 0) == NULL)
			return -1;
	} else if (strcmp(key, "etag") == 0 && r != NULL && r->etag == NULL)
		r->etag = xstrdup(val);
	else if (strcmp(key, "modified") == 0 && r != NULL &&
	    r->modified == NULL)
		r->modified = xstrdup(val);
	else
		return -1;
	return 0;
}

int
dir_state_read(struct state *st, struct dir_state *ds, char *err,
    size_t errlen)
{
	char why[64], *line, *next, *sp;
	uint8_t *buf;
	size_t len, lineno = 1;
	int ret = -1;

	memset(ds, 0, sizeof(*ds));
	if (state_read(st, DIR_STATE_FILE, DIR_MAX_STATE, &buf, &len, err,
	    errlen) == -1)
		return errno == ENOENT ? 0 : -1;
	line = (char *)buf;
	if ((next = strchr(line, '\n')) == NULL || memchr(buf, '\0', len) ||
	    (*next++ = '\0', strcmp(line, STATE_FORMAT) != 0)) {
		file_say(err, errlen, st, DIR_STATE_FILE,
		    "not a directory state file");
		goto done;
	}
	for (line = next; *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) == NULL)
			break;
		*next++ = '\0';
		if ((sp = strchr(line, ' ')) == NULL ||
		    (*sp = '\0', state_line(ds, line, sp + 1) == -1)) {
			snprintf(why, sizeof(why), "line %zu: malformed", lineno);
			file_say(err, errlen, st, DIR_STATE_FILE, why);
			goto done;
		}
	}
	ret = *line == '\0' ? 0 : -1;
	if (ret == -1)
		file_say(err, errlen, st, DIR_STATE_FILE, "truncated");
done:
	free(buf);
	if (ret == -1)
		dir_state_free(ds);
	return ret;
}

/* A value for a state line: its control characters become '?'. */
static void
state_value(FILE *f, const char *key, const char *val)
{
	fprintf(f, "%s ", key);
	for (; *val != '\0'; val++)
		fputc((unsigned char)*val < 0x20 || *val == 0x7f ? '?' : *val, f);
	fputc('\n', f);
}

int
dir_state_write(struct state *st, const struct dir_state *ds)
{
	char *text = NULL;
	size_t i, len = 0;
	FILE *f;
	int ret = -1;

	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	fprintf(f, STATE_FORMAT "\nattempt %lld\nbuilt %lld\nentries %lld\n"
	    "rows %lld\n", (long long)ds->attempt, (long long)ds->built,
	    ds->entries, ds->rows);
	for (i = 0; i < CSV_NSKIP; i++)
		if (ds->skipped[i] > 0)
			fprintf(f, "skipped %s %lld\n", csv_skip_name[i],
			    ds->skipped[i]);
	for (i = 1; i < DIR_NREASONS; i++)
		if (ds->refused[i] > 0)
			fprintf(f, "refused %s %lld\n", dir_reason_key[i],
			    ds->refused[i]);
	if (ds->expires > 0)
		fprintf(f, "expires %lld\n", (long long)ds->expires);
	if (ds->inputs != NULL)
		state_value(f, "inputs", ds->inputs);
	if (ds->error != NULL)
		state_value(f, "error", ds->error);
	for (i = 0; i < ds->n; i++) {
		state_value(f, "report", ds->r[i].src);
		/* A validator is sent back as it came, or not at all. */
		if (ds->r[i].etag != NULL && printable(ds->r[i].etag))
			state_value(f, "etag", ds->r[i].etag);
		if (ds->r[i].modified != NULL && printable(ds->r[i].modified))
			state_value(f, "modified", ds->r[i].modified);
	}
	if (fclose(f) == 0 && state_replace(st, DIR_STATE_FILE, text, len,
	    WORK_MODE) == 0)
		ret = 0;
	free(text);
	return ret;
}

static int
cert_line(FILE *f, const struct dir_entry *e)
{
	char hex[2 * CRLC_HASH_LEN + 1], *b64;

	if ((b64 = cert_to_b64(e->cert, DIR_MAX_CERT)) == NULL)
		return -1;
	crlc_hex_encode(e->fp, CRLC_HASH_LEN, hex, 1);
	fprintf(f, "cert %s %s\n", hex, b64);
	free(b64);
	return 0;
}

int
directory_write(struct state *st, const struct directory *d)
{
	char *text = NULL;
	struct dir_span *at = NULL;
	size_t i, j, len = 0;
	FILE *f;
	int ret = -1;

	if (d->n > DIR_MAX_ENTRIES)
		return -1;
	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	at = xcalloc(d->n + 1, sizeof(*at));
	fprintf(f, DIR_FORMAT "\nbuilt %lld\nentries %zu\n", (long long)d->built,
	    d->n);
	for (i = 0; i < d->n; i++) {
		at[i].off = (uint64_t)ftello(f);
		if (cert_line(f, &d->v[i]) == -1)
			break;
		for (j = 0; j < d->v[i].urls.n; j++)
			fprintf(f, "url %zu %s\n", strlen(d->v[i].urls.v[j]),
			    d->v[i].urls.v[j]);
		at[i].len = (uint64_t)ftello(f) - at[i].off;
	}
	fputs("end\n", f);
	if (fclose(f) == 0 && i == d->n && state_replace(st, DIR_FILE, text, len,
	    WORK_MODE) == 0)
		ret = 0;
	/* Without its index, the directory is read whole when needed. */
	if (ret == 0 && dir_index_write(st, d, at, len) == -1)
		logx(0, "directory: cannot write its index; runs read it whole");
	free(at);
	free(text);
	return ret;
}

/* Is the directory file there and in the format this version reads? */
int
directory_current(struct state *st)
{
	char head[sizeof(DIR_FORMAT)];
	int fd, ok;

	if ((fd = state_openat(st, DIR_FILE, O_RDONLY | O_NONBLOCK, 0)) == -1)
		return 0;
	ok = pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	    memcmp(head, DIR_FORMAT "\n", sizeof(head)) == 0;
	close(fd);
	return ok;
}

int
directory_info(struct state *st, struct dir_state *ds)
{
	char err[ERRLEN];

	if (dir_state_read(st, ds, err, sizeof(err)) == -1 ||
	    (ds->attempt == 0 && ds->built == 0)) {
		dir_state_free(ds);
		return -1;
	}
	return 0;
}

static int
cmp_fp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_HASH_LEN);
}

/*
 * Parse a directory file (NUL-terminated buf) into d.  only == NULL:
 * every entry, with its certificate.  Otherwise the entries only names
 * (its fingerprints sorted), with their URLs and no certificate: the
 * rest are checked as lines and let go, none of their certificates
 * decoded, so that what an update needs of its enrolled issuers costs
 * a read of the file, not a decode of every CA in it.  Over 60 lines:
 * one pass over the lines, each kind checked where it may stand.
 */
static int
dir_parse(char *buf, struct directory *d, const struct fpset *only,
    size_t *lineno)
{
	char *line = buf, *next;
	long long built, entries = 0, seen = 0;
	struct dir_entry *e = NULL, other;
	uint8_t fp[CRLC_HASH_LEN], prev[CRLC_HASH_LEN];
	int ret = -1;

	memset(&other, 0, sizeof(other));
	*lineno = 0;
	for (;; line = next) {
		++*lineno;
		if (*lineno > 3 && strncmp(line, "url ", 4) == 0) {
			if (e == NULL || (next = dir_entry_url(line + 4, e)) == NULL)
				goto done;
			continue;
		}
		if ((next = strchr(line, '\n')) == NULL)
			goto done;	/* truncated */
		*next++ = '\0';
		if (*lineno == 1) {
			if (strcmp(line, DIR_FORMAT) != 0)
				goto done;
		} else if (*lineno == 2) {
			if (strncmp(line, "built ", 6) != 0 ||
			    parse_number(line + 6, LLONG_MAX, 0, &built) == -1)
				goto done;
			d->built = built;
		} else if (*lineno == 3) {
			if (strncmp(line, "entries ", 8) != 0 || parse_number(line +
			    8, DIR_MAX_ENTRIES, 0, &entries) == -1)
				goto done;
			d->v = xcalloc((only != NULL && only->n < (size_t)entries ?
			    only->n : (size_t)entries) + 1, sizeof(*d->v));
		} else if (strncmp(line, "cert ", 5) == 0) {
			if ((e != NULL && e->urls.n == 0) || seen >= entries ||
			    dir_entry_fp(line + 5, fp) == -1 ||
			    (seen++ > 0 && memcmp(prev, fp, sizeof(fp)) >= 0))
				goto done;
			memcpy(prev, fp, sizeof(fp));
			strlist_free(&other.urls);
			if (only != NULL && (only->n == 0 || bsearch(fp, only->v,
			    only->n, sizeof(*only->v), cmp_fp) == NULL)) {
				e = &other;
				continue;
			}
			e = &d->v[d->n++];
			memcpy(e->fp, fp, sizeof(fp));
			if (only == NULL && (e->cert = cert_from_b64(line + 5 +
			    2 * CRLC_HASH_LEN + 1, DIR_MAX_CERT, fp)) == NULL)
				goto done;
		} else if (strcmp(line, "end") == 0) {
			if (*next == '\0' && seen == entries &&
			    (e == NULL || e->urls.n > 0))
				ret = 0;
			goto done;
		} else
			goto done;
	}
done:
	strlist_free(&other.urls);
	return ret;
}

int
directory_load(struct state *st, struct directory *d,
    const struct fpset *only, char *err, size_t errlen)
{
	char why[64];
	uint8_t *buf;
	size_t len, lineno;
	int ret;

	memset(d, 0, sizeof(*d));
	if (only != NULL && dir_index_find(st, only, d) == 0)
		return 0;
	if (state_read(st, DIR_FILE, DIR_MAX_FILE, &buf, &len, err,
	    errlen) == -1)
		return errno == ENOENT ? 0 : -1;
	ret = memchr(buf, '\0', len) == NULL ? dir_parse((char *)buf, d, only,
	    &lineno) : (lineno = 0, -1);
	free(buf);
	if (ret == -1) {
		snprintf(why, sizeof(why), "line %zu: malformed directory",
		    lineno);
		file_say(err, errlen, st, DIR_FILE, why);
		directory_free(d);
	}
	return ret;
}

void
fpset_sort(struct fpset *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_fp);
}

static int
cmp_entry(const void *a, const void *b)
{
	return memcmp(((const struct dir_entry *)a)->fp,
	    ((const struct dir_entry *)b)->fp, CRLC_HASH_LEN);
}

const struct dir_entry *
directory_find(const struct directory *d, const uint8_t fp[CRLC_HASH_LEN])
{
	struct dir_entry key;

	memcpy(key.fp, fp, CRLC_HASH_LEN);
	return d->n == 0 ? NULL :
	    bsearch(&key, d->v, d->n, sizeof(*d->v), cmp_entry);
}

int
directory_trust(struct trust *t, const struct directory *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].cert != NULL && trust_add(t, d->v[i].cert) == -1)
			return -1;
	return 0;
}

#define REFUSED_FORMAT		"crlcache-directory-refused 1"
/* A refused line: a fingerprint, a reason and a subject of some 200 bytes. */
#define REFUSED_MAX_LINE	4096

/* x's subject as RFC 2253 text on one line, into out ("-": none). */
static void
subject_text(X509 *x, char *out, size_t len)
{
	snprintf(out, len, "-");
	if (x != NULL)
		name_text(X509_get_subject_name(x), out, len);
}

int
dir_refused_write(struct state *st, const struct ccadb_records *rs)
{
	char hex[2 * CRLC_HASH_LEN + 1], subj[1024], head[128];
	char *text = NULL;
	size_t i, len = 0;
	FILE *f;
	int ret = -1;

	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	fputs(REFUSED_FORMAT "\n", f);
	for (i = 0; i < rs->n && i < DIR_MAX_ENTRIES; i++) {
		if (rs->v[i].reason == DIR_KEPT)
			continue;
		crlc_hex_encode(rs->v[i].fp, CRLC_HASH_LEN, hex, 1);
		subject_text(rs->v[i].cert, subj, sizeof(subj));
		snprintf(head, sizeof(head), "refused %s %s", hex,
		    dir_reason_key[rs->v[i].reason]);
		state_value(f, head, subj);
	}
	if (fclose(f) == 0 && state_replace(st, REFUSED_FILE, text, len,
	    WORK_MODE) == 0)
		ret = 0;
	free(text);
	return ret;
}

int
dir_refused_print(struct state *st, FILE *out)
{
	char err[ERRLEN], *line, *next, *safe;
	uint8_t *buf;
	size_t len;

	if (state_read(st, REFUSED_FILE, (size_t)DIR_MAX_ENTRIES *
	    REFUSED_MAX_LINE, &buf, &len, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		return -1;
	}
	line = (char *)buf;
	if (memchr(buf, '\0', len) != NULL || (next = strchr(line, '\n')) ==
	    NULL || (*next++ = '\0', strcmp(line, REFUSED_FORMAT) != 0)) {
		logx(0, "%s/%s: not a list of refused records", state_path(st),
		    REFUSED_FILE);
		free(buf);
		return -1;
	}
	for (line = next; (next = strchr(line, '\n')) != NULL; line = next) {
		*next++ = '\0';
		/* the subject came from the CCADB: escaped again for a terminal */
		safe = safe_text(line);
		fprintf(out, "%s\n", safe);
		free(safe);
	}
	free(buf);
	return 0;
}
