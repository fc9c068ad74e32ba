/*
 * crlcache.conf: "key = value" lines, '#' comments, keys as in
 * crlcache.conf(5).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fetcher.h"

/*
 * Mozilla's production content-signing root, SHA-256 of its DER: the
 * value application-services' remote_settings client pins
 * (ROOT_CERT_SHA256_HASH_PROD, Mozilla bug 1940903, the root that
 * replaced the one of fingerprint 97:E8:BA:9C:... expiring in 2025).
 */
static const uint8_t crlite_root_default[CRLC_HASH_LEN] = {
	0xc8, 0xa8, 0x0e, 0x9a, 0xfa, 0xef, 0x4e, 0x21, 0x9b, 0x6f, 0xb5,
	0xd7, 0xa7, 0x1d, 0x0f, 0x10, 0x12, 0x23, 0xba, 0xc5, 0x00, 0x1a,
	0xc2, 0x8f, 0x9b, 0x0d, 0x43, 0xdc, 0x59, 0xa1, 0x06, 0xdb,
};

void
conf_init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->parallel = 8;
	c->connect_timeout = 15;
	c->timeout = 120;
	c->max_redirects = 3;
	c->retries = 2;
	c->max_size = DEFAULT_MAX_SIZE;
	c->stale_grace = 86400;
	c->ccadb_since = 2000;
	c->ccadb_refresh = 0;	/* daily, monthly with CRLite (dirrefresh.c) */
	c->enroll = ENROLL_SEEN;
	c->seen_expiry = 30 * 86400;
	c->hint_refetch = 600;
	memcpy(c->crlite_root, crlite_root_default, CRLC_HASH_LEN);
}

void
conf_free(struct conf *c)
{
	strlist_free(&c->urls);
	strlist_free(&c->ccadb);
	strlist_free(&c->ccadb_records);
	strlist_free(&c->ccadb_records_fallback);
	strlist_free(&c->ccadb_pems);
	strlist_free(&c->cas);
	strlist_free(&c->anchors);
	strlist_free(&c->untrusted);
	strlist_free(&c->crl_fresh);
	free(c->mirror);
	free(c->crlite);
	free(c->crlite_mirror);
	free(c->crlite_upki_dir);
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A non-negative integer with an optional K/M/G suffix, at most max. */
int
parse_number(const char *s, long long max, int suffix, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || v < 0)
		return -1;
	if (suffix && (*end == 'K' || *end == 'k'))
		v = v > max >> 10 ? max + 1 : v << 10, end++;
	else if (suffix && (*end == 'M' || *end == 'm'))
		v = v > max >> 20 ? max + 1 : v << 20, end++;
	else if (suffix && (*end == 'G' || *end == 'g'))
		v = v > max >> 30 ? max + 1 : v << 30, end++;
	if (*end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

enum numtype { NUM_LONG, NUM_I64, NUM_SIZE };

struct numkey {
	const char	*name;
	long long	 min, max;
	int		 suffix;	/* K/M/G allowed */
	enum numtype	 type;
	size_t		 off;		/* the field in struct conf */
};

#define NUMKEY(name, min, max, suffix, type) \
	{ #name, min, max, suffix, type, offsetof(struct conf, name) }

static const struct numkey numkeys[] = {
	NUMKEY(parallel, 1, 64, 0, NUM_LONG),
	NUMKEY(connect_timeout, 1, 3600, 0, NUM_LONG),
	NUMKEY(timeout, 1, 86400, 0, NUM_LONG),
	NUMKEY(max_redirects, 0, 20, 0, NUM_LONG),
	NUMKEY(max_size, 1024, (long long)1 << 30, 1, NUM_SIZE),
	NUMKEY(stale_grace, 0, 365LL * 86400, 0, NUM_I64),
	NUMKEY(retries, 0, 5, 0, NUM_LONG),
	/* The CCADB's first disclosed certificates date from 1994. */
	NUMKEY(ccadb_since, 1994, 9999, 0, NUM_LONG),
	/* The CCADB reports change daily at most; never more than hourly. */
	NUMKEY(ccadb_refresh, 3600, 365LL * 86400, 0, NUM_I64),
	NUMKEY(seen_expiry, 3600, 10 * 365LL * 86400, 0, NUM_I64),
	NUMKEY(hint_refetch, 1, 86400, 0, NUM_I64),
};

static void
set_number(struct conf *c, const struct numkey *k, long long v)
{
	char *field = (char *)c + k->off;

	switch (k->type) {
	case NUM_LONG: *(long *)(void *)field = (long)v; break;
	case NUM_I64: *(int64_t *)(void *)field = v; break;
	case NUM_SIZE: *(size_t *)(void *)field = (size_t)v; break;
	}
}

/* A word from a fixed set; its index, or -1. */
static int
keyword(const char *val, const char *const *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(val, words[i]) == 0)
			return (int)i;
	return -1;
}

/*
 * A URL of the configuration that is logged and has paths appended: no
 * credentials, nothing unprintable, no query or fragment.
 */
static int
conf_url(const char *path, size_t lineno, const char *key, const char *val,
    char **out)
{
	if (!is_http_url(val, strlen(val)) || !url_plain(val) ||
	    strchr(val, '@') != NULL || strpbrk(val, "?#") != NULL ||
	    strlen(val) > CRLC_KEY_MAX) {
		logx(0, "%s:%zu: %s: expected an http:// or https:// URL "
		    "without user, query or fragment", path, lineno, key);
		return -1;
	}
	free(*out);
	*out = xstrdup(val);
	return 0;
}

/* A base its files' names are appended to: *s made to end in one '/'. */
static int
slash_ended(char **s)
{
	char *slashed;

	if ((*s)[strlen(*s) - 1] == '/')
		return 0;
	if (asprintf(&slashed, "%s/", *s) == -1)
		return -1;
	free(*s);
	*s = slashed;
	return 0;
}

/* A SHA-256 fingerprint: 64 hex digits, pairs maybe parted by ':'. */
static int
conf_fingerprint(const char *path, size_t lineno, const char *key,
    const char *val, uint8_t out[CRLC_HASH_LEN])
{
	char hex[2 * CRLC_HASH_LEN + 1];
	size_t i, n = 0, len = strlen(val);
	int colons = strchr(val, ':') != NULL;

	/* 64 digits, or 32 pairs and 31 colons (openssl's -fingerprint) */
	if (len == (colons ? 3 * CRLC_HASH_LEN - 1 : 2 * CRLC_HASH_LEN)) {
		for (i = 0; i < len && n < sizeof(hex) - 1; i++) {
			if (!colons || i % 3 != 2)
				hex[n++] = val[i];
			else if (val[i] != ':')
				n = sizeof(hex);	/* a colon misplaced */
		}
	}
	hex[n < sizeof(hex) ? n : 0] = '\0';
	if (n != 2 * CRLC_HASH_LEN ||
	    crlc_hex_decode(hex, n, out, CRLC_HASH_LEN) == -1) {
		logx(0, "%s:%zu: %s: expected a SHA-256 fingerprint (64 hex "
		    "digits, ':' between pairs allowed)", path, lineno, key);
		return -1;
	}
	return 0;
}

/* What a key_* function returns for a key that is not one of its own. */
#define NOT_MINE	1

/* The keys that may repeat, each adding one to a list (crl_fresh aside). */
static const struct listkey {
	const char	*name;
	size_t		 off;		/* its struct strlist in struct conf */
} listkeys[] = {
	{ "url", offsetof(struct conf, urls) },
	{ "ca", offsetof(struct conf, cas) },
	{ "ccadb", offsetof(struct conf, ccadb) },
	{ "anchor", offsetof(struct conf, anchors) },
	{ "untrusted", offsetof(struct conf, untrusted) },
	{ "ccadb_records", offsetof(struct conf, ccadb_records) },
	{ "ccadb_records_fallback",
	    offsetof(struct conf, ccadb_records_fallback) },
	{ "ccadb_pems", offsetof(struct conf, ccadb_pems) },
};

/* A key of a list: 0, -1, or NOT_MINE. */
static int
key_list(struct conf *c, const char *key, const char *val)
{
	size_t i;

	if (strcmp(key, "crl_fresh") == 0) {
		if (strcmp(val, "all") == 0) {
			c->crl_fresh_all = 1;
			return 0;
		}
		return strlist_add(&c->crl_fresh, val);
	}
	for (i = 0; i < sizeof(listkeys) / sizeof(listkeys[0]); i++)
		if (strcmp(key, listkeys[i].name) == 0)
			return strlist_add((struct strlist *)(void *)
			    ((char *)c + listkeys[i].off), val);
	return NOT_MINE;
}

/* A key of the CRLite sources: 0, -1, or NOT_MINE. */
static int
key_crlite(struct conf *c, const char *path, size_t lineno, const char *key,
    char *val)
{
	if (strcmp(key, "crlite") == 0) {
		/* The server's base: paths are appended to it. */
		while (strlen(val) > 8 && val[strlen(val) - 1] == '/')
			val[strlen(val) - 1] = '\0';
		return conf_url(path, lineno, key, val, &c->crlite);
	}
	if (strcmp(key, "crlite_mirror") == 0) {
		/* Unsigned: only HTTPS vouches for it (crlite_mirror.c). */
		if (strncmp(val, "https://", 8) != 0) {
			logx(0, "%s:%zu: %s: expected an https:// URL", path,
			    lineno, key);
			return -1;
		}
		if (conf_url(path, lineno, key, val, &c->crlite_mirror) == -1)
			return -1;
		return slash_ended(&c->crlite_mirror);
	}
	if (strcmp(key, "crlite_upki_dir") == 0) {
		/* Its file names are appended: one '/' ends it. */
		if (val[0] != '/' || strlen(val) > PATH_MAX - 64) {
			logx(0, "%s:%zu: %s: expected an absolute path", path,
			    lineno, key);
			return -1;
		}
		free(c->crlite_upki_dir);
		c->crlite_upki_dir = xstrdup(val);
		return slash_ended(&c->crlite_upki_dir);
	}
	if (strcmp(key, "crlite_root") == 0)
		return conf_fingerprint(path, lineno, key, val, c->crlite_root);
	return NOT_MINE;
}

/* A key of what is fetched and from where: 0, -1, or NOT_MINE. */
static int
key_fetch(struct conf *c, const char *path, size_t lineno, const char *key,
    const char *val)
{
	/* Indexed by enum enroll_mode, and by the truth of the answer. */
	static const char *const modes[] = { "seen", "all", "none" };
	static const char *const yesno[] = { "no", "yes" };
	int k;

	if (strcmp(key, "enroll") == 0) {
		if ((k = keyword(val, modes, 3)) == -1) {
			logx(0, "%s:%zu: enroll: expected seen, all or none",
			    path, lineno);
			return -1;
		}
		c->enroll = (enum enroll_mode)k;
		return 0;
	}
	if (strcmp(key, "mirror") == 0)
		return conf_url(path, lineno, key, val, &c->mirror);
	if (strcmp(key, "allow_private_urls") == 0) {
		if ((k = keyword(val, yesno, 2)) == -1) {
			logx(0, "%s:%zu: allow_private_urls: expected yes or no",
			    path, lineno);
			return -1;
		}
		c->allow_private = k;
		return 0;
	}
	if (strcmp(key, "nat64_prefix") == 0) {
		if (crlc_addr_parse_nat64(val, c->nat64) == -1) {
			logx(0, "%s:%zu: nat64_prefix: expected an IPv6 /96 "
			    "prefix such as 2001:db8:64::/96", path, lineno);
			return -1;
		}
		c->has_nat64 = 1;
		return 0;
	}
	return NOT_MINE;
}

/* A key of numkeys[]: 0, -1, or NOT_MINE. */
static int
key_number(struct conf *c, const char *path, size_t lineno, const char *key,
    const char *val)
{
	long long v;
	size_t i;

	for (i = 0; i < sizeof(numkeys) / sizeof(numkeys[0]); i++) {
		if (strcmp(key, numkeys[i].name) != 0)
			continue;
		if (parse_number(val, numkeys[i].max, numkeys[i].suffix, &v) == -1 ||
		    v < numkeys[i].min) {
			logx(0, "%s:%zu: %s: expected a number from %lld to %lld",
			    path, lineno, key, numkeys[i].min, numkeys[i].max);
			return -1;
		}
		set_number(c, &numkeys[i], v);
		return 0;
	}
	return NOT_MINE;
}

static int
conf_line(struct conf *c, const char *path, size_t lineno, char *line)
{
	char *eq, *key, *val;
	int r;

	if ((eq = strchr(line, '=')) == NULL) {
		logx(0, "%s:%zu: expected key = value", path, lineno);
		return -1;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (*val == '\0') {
		logx(0, "%s:%zu: %s: empty value", path, lineno, key);
		return -1;
	}
	if ((r = key_list(c, key, val)) != NOT_MINE ||
	    (r = key_crlite(c, path, lineno, key, val)) != NOT_MINE ||
	    (r = key_fetch(c, path, lineno, key, val)) != NOT_MINE ||
	    (r = key_number(c, path, lineno, key, val)) != NOT_MINE)
		return r;
	logx(0, "%s:%zu: unknown key '%s'", path, lineno, key);
	return -1;
}

int
conf_load(struct conf *c, const char *path, int must_exist)
{
	char err[ERRLEN], *line, *next;
	uint8_t *buf;
	size_t len, lineno = 0;
	int ret = 0;

	if (read_file(path, MAX_CONF_SIZE, &buf, &len, err, sizeof(err)) == -1) {
		if (!must_exist && access(path, F_OK) == -1 && errno == ENOENT)
			return 0;
		logx(0, "%s: %s", path, err);
		return -1;
	}
	if (memchr(buf, '\0', len) != NULL) {
		logx(0, "%s: contains a NUL byte", path);
		free(buf);
		return -1;
	}
	for (line = (char *)buf; line != NULL && ret == 0; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (++lineno > MAX_CONF_ITEMS) {
			logx(0, "%s: more than %d lines", path, MAX_CONF_ITEMS);
			ret = -1;
			break;
		}
		line[strcspn(line, "#")] = '\0';
		line = trim(line);
		if (*line != '\0')
			ret = conf_line(c, path, lineno, line);
	}
	free(buf);
	return ret;
}
