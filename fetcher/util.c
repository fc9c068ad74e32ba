/*
 * Small helpers: logging, allocation, files, time.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <crlcache/index.h>

#include "fetcher.h"

int verbosity = 1;
int log_syslog;

/*
 * Level 0: errors, always shown; 1: normal output (-q hides it); 2: -v.
 * With --syslog, levels 0 and 1 also go to syslog whatever -q says
 * (cron hosts have no journal catching stderr, and -q keeps cron mail
 * for failures only).
 */
/* Where the authority of a URL quoted in text ends (RFC 3986 3.2). */
static int
authority_end(char c)
{
	return c == '/' || c == '?' || c == '#' || c == '"' || c == '<' ||
	    c == '>' || (unsigned char)c <= 0x20 || c == 0x7f;
}

/*
 * s with the userinfo of every URL in it replaced by "***" (in
 * http: //user:pass@host/x, "user:pass" becomes "***"), in a new string.  The one redaction of credentials, for URLs and for any text
 * that may quote one (log lines, error texts): whatever follows "://" up
 * to the last '@' of the authority is userinfo.  A configured URL never
 * holds a character that ends the authority early (url_plain()), so its
 * userinfo is always found.
 */
char *
redact_userinfo(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0, e, at;
	/* An empty userinfo (4 bytes with "@") grows by 3: at most 2x. */
	char *out = xcalloc(1, 2 * len + 1);

	while (i < len) {
		if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') {
			memcpy(out + o, "://", 3);
			o += 3;
			i += 3;
			for (e = i, at = len; e < len && !authority_end(s[e]); e++)
				if (s[e] == '@')
					at = e;
			if (at != len) {
				memcpy(out + o, "***", 3);
				o += 3;
				i = at;
			}
			continue;
		}
		out[o++] = s[i++];
	}
	out[o] = '\0';
	return out;
}

/* A byte a URL may hold here: no white space, control or quoting one. */
static int
url_byte(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '"' && c != '<' && c != '>';
}

/* A configured URL: no white space, control or quoting character. */
int
url_plain(const char *s)
{
	for (; *s != '\0'; s++)
		if (!url_byte((unsigned char)*s) && (unsigned char)*s < 0x80)
			return 0;
	return 1;
}

/*
 * A URL from the network (a certificate's distribution point, a CCADB
 * report or export) that may become a source: http(s), short enough to
 * key its state in LMDB, and only the printable ASCII of RFC 3986 2
 * without the quoting characters, so that no line, log or terminal it
 * reaches is broken by it and its userinfo is always found (url_plain).
 */
int
url_usable(const char *s, size_t len)
{
	size_t i;

	if (len > CRLC_KEY_MAX || !is_http_url(s, len))
		return 0;
	for (i = 0; i < len; i++)
		if (!url_byte((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * s as it may be shown on a terminal or in a log: userinfo redacted
 * (redact_userinfo) and every control byte and every byte above 0x7e as
 * \xHH, so that text from the network (URLs, error texts quoting them)
 * cannot move a cursor, retitle a window or forge a line.  A new string.
 */
char *
safe_text(const char *s)
{
	char *r = redact_userinfo(s), *out;
	size_t i, o = 0;

	out = xcalloc(1, 4 * strlen(r) + 1);
	for (i = 0; r[i] != '\0'; i++) {
		unsigned char c = (unsigned char)r[i];

		if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		crlc_hex_encode(&c, 1, out + o, 0);
		o += 2;
	}
	free(r);
	return out;
}

/*
 * The prefix of a line on standard error: none when that is the journal
 * (systemd names the stream in JOURNAL_STREAM as "device:inode"), which
 * already starts each line with the unit's SyslogIdentifier and pid.
 */
static const char *
stderr_prefix(void)
{
	static const char *prefix;
	unsigned long long dev, ino;
	const char *js;
	struct stat sb;

	if (prefix != NULL)
		return prefix;
	prefix = "crlcache: ";
	if ((js = getenv("JOURNAL_STREAM")) != NULL &&
	    sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &sb) == 0 &&
	    (unsigned long long)sb.st_dev == dev &&
	    (unsigned long long)sb.st_ino == ino)
		prefix = "";
	return prefix;
}

/*
 * Every message is redacted and escaped (safe_text): a URL's credentials
 * never reach a log, and nothing a server sent reaches a terminal raw.
 */
void
logx(int level, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *r;
	int n;

	if (level > verbosity && !(log_syslog && level <= 1))
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	r = safe_text(msg);
	free(msg);
	if (level <= verbosity)
		fprintf(stderr, "%s%s\n", stderr_prefix(), r);
	/* syslog keeps failures and the summary even under -q */
	if (log_syslog && level <= 1)
		syslog(level == 0 ? LOG_ERR : LOG_INFO, "%s", r);
	free(r);
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL) {
		fputs("crlcache: out of memory\n", stderr);
		exit(4);
	}
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if ((p = reallocarray(p, n, size)) == NULL) {
		fputs("crlcache: out of memory\n", stderr);
		exit(4);
	}
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL) {
		fputs("crlcache: out of memory\n", stderr);
		exit(4);
	}
	return p;
}

int
strlist_add(struct strlist *l, const char *s)
{
	char **v;

	if ((v = realloc(l->v, (l->n + 1) * sizeof(*v))) == NULL)
		return -1;
	l->v = v;
	l->v[l->n++] = xstrdup(s);
	return 0;
}

void
strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
strlist_uniq(struct strlist *l)
{
	size_t i, n = 0;

	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_strp);
	for (i = 1; i < l->n; i++) {
		if (strcmp(l->v[i], l->v[n]) == 0)
			free(l->v[i]);
		else
			l->v[++n] = l->v[i];
	}
	l->n = n + 1;
}

int
strlist_listed(const struct strlist *l, const char *s)
{
	return l->n > 0 &&
	    bsearch(&s, l->v, l->n, sizeof(*l->v), cmp_strp) != NULL;
}

int
is_http_url(const char *s, size_t len)
{
	return (len > 7 && strncmp(s, "http://", 7) == 0) ||
	    (len > 8 && strncmp(s, "https://", 8) == 0);
}

int
read_fd(int fd, const struct stat *sb, size_t max, uint8_t **buf,
    size_t *len, char *err, size_t errlen)
{
	uint8_t *p;
	size_t off = 0;
	ssize_t r;

	*buf = NULL;
	*len = 0;
	if ((size_t)sb->st_size > max) {
		snprintf(err, errlen, "file too large (%lld bytes, limit %zu)",
		    (long long)sb->st_size, max);
		errno = EFBIG;
		return -1;
	}
	p = xcalloc(1, (size_t)sb->st_size + 1);
	while (off < (size_t)sb->st_size) {
		r = read(fd, p + off, (size_t)sb->st_size - off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "read: %s",
			    r == 0 ? "file shrank" : strerror(errno));
			free(p);
			errno = EIO;
			return -1;
		}
		off += (size_t)r;
	}
	*buf = p;
	*len = off;
	return 0;
}

/* Read a whole regular file of at most max bytes. */
int
read_file(const char *path, size_t max, uint8_t **buf, size_t *len,
    char *err, size_t errlen)
{
	struct stat sb;
	int fd, ret = -1;

	*buf = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO planted at the path must not hang us. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		snprintf(err, errlen, "not a regular file");
	else
		ret = read_fd(fd, &sb, max, buf, len, err, errlen);
	close(fd);
	return ret;
}

int64_t
asn1_time_to_epoch(const ASN1_TIME *t)
{
	struct tm tm;

	if (t == NULL || !ASN1_TIME_to_tm(t, &tm))
		return -1;
	return (int64_t)timegm(&tm);
}

void
format_time(int64_t t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;

	/* RFC 3339 5.6: full-date is a four-digit year (strftime's %Y
	   prints year 1 as "1"); a year it cannot write prints seconds */
	if (gmtime_r(&tt, &tm) == NULL || tm.tm_year < -1900 ||
	    tm.tm_year > 9999 - 1900)
		snprintf(buf, len, "%lld", (long long)t);
	else
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec);
}

/*
 * The path in OpenSSL_version(which) for OPENSSL_DIR and
 * OPENSSL_MODULES_DIR, which read `OPENSSLDIR: "/usr/lib/ssl"` (as
 * `openssl version -d` prints them): the part between the quotes.
 */
int
openssl_dir(int which, char *out, size_t len)
{
	const char *d = OpenSSL_version(which), *q, *e;

	if ((q = strchr(d, '"')) == NULL || (e = strchr(q + 1, '"')) == NULL)
		return -1;
	return (size_t)snprintf(out, len, "%.*s", (int)(e - q - 1), q + 1) < len ?
	    0 : -1;
}

/*
 * Write data to a new temporary file beside path ("PATH.crlcache-XXXXXX"),
 * with mode and, when uid/gid are not -1 and we are root, that owner;
 * fsync'ed.  Its name goes to tmp.  Logs and returns -1 on failure (no
 * file left behind).
 */
int
write_temp(const char *path, const void *data, size_t len, mode_t mode,
    uid_t uid, gid_t gid, char *tmp, size_t tmplen)
{
	int fd;

	if ((size_t)snprintf(tmp, tmplen, "%s.crlcache-XXXXXX", path) >= tmplen ||
	    (fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		logx(0, "%s: cannot create a temporary file: %s", path,
		    strerror(errno));
		return -1;
	}
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, mode) == -1 ||
	    (geteuid() == 0 && fchown(fd, uid, gid) == -1) || fsync(fd) == -1) {
		logx(0, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Rename tmp over path, then fsync the directory so the new entry
 * survives a crash.  Returns 0; -1 when the rename failed (tmp removed,
 * errno set); 1 when path was replaced but the directory not synced.
 */
int
rename_durably(const char *tmp, const char *path)
{
	char dir[PATH_MAX], *slash;
	int dfd, ret = 0;

	if (rename(tmp, path) == -1) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fsync(dfd) == -1)
		ret = 1;
	if (dfd != -1)
		close(dfd);
	return ret;
}

/*
 * Replace path whole with data (write_temp, then rename_durably): a
 * reader sees the old file or the new one.  Logs and returns -1 on failure.
 */
int
replace_file(const char *path, const void *data, size_t len, mode_t mode,
    uid_t uid, gid_t gid)
{
	char tmp[PATH_MAX];

	if (write_temp(path, data, len, mode, uid, gid, tmp, sizeof(tmp)) == -1)
		return -1;
	if (rename_durably(tmp, path) == -1) {
		logx(0, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * RFC 4648 4 base64 in s[0..len), white space (space, TAB, CR, LF)
 * anywhere ignored as RFC 7468 3 lets a parser do: a malloc'd buffer of
 * the decoded bytes in *out, -1 when a character is not of the alphabet,
 * the padding is misplaced or the result would exceed max bytes.
 */
int
b64_decode_loose(const char *s, size_t len, size_t max, uint8_t **out,
    size_t *outlen)
{
	static const char ws[] = " \t\r\n";
	char *text;
	size_t i, n = 0, pad = 0;
	int dec;

	*out = NULL;
	*outlen = 0;
	text = xcalloc(1, len + 1);
	for (i = 0; i < len; i++) {
		if (strchr(ws, s[i]) != NULL && s[i] != '\0')
			continue;
		if (s[i] == '=')
			pad++;
		else if (pad > 0 || !(isalnum((unsigned char)s[i]) ||
		    s[i] == '+' || s[i] == '/'))
			goto bad;
		text[n++] = s[i];
	}
	if (n == 0 || n % 4 != 0 || pad > 2 || n / 4 * 3 - pad > max)
		goto bad;
	*out = xcalloc(1, n / 4 * 3 + 1);
	if ((dec = EVP_DecodeBlock(*out, (unsigned char *)text, (int)n)) < 0 ||
	    (size_t)dec < pad) {
		free(*out);
		*out = NULL;
		goto bad;
	}
	*outlen = (size_t)dec - pad;
	free(text);
	return 0;
bad:
	free(text);
	return -1;
}
