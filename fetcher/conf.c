/*
 * crlcache.conf: "key = value" lines, '#' comments, keys as in README.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fetcher.h"

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
}

void
conf_free(struct conf *c)
{
	strlist_free(&c->urls);
	strlist_free(&c->ccadb);
	strlist_free(&c->cas);
	strlist_free(&c->anchors);
	strlist_free(&c->untrusted);
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
static int
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

struct numkey {
	const char	*name;
	long long	 min, max;
	int		 suffix;
};

static const struct numkey numkeys[] = {
	{ "parallel", 1, 64, 0 },
	{ "connect_timeout", 1, 3600, 0 },
	{ "timeout", 1, 86400, 0 },
	{ "max_redirects", 0, 20, 0 },
	{ "max_size", 1024, (long long)1 << 30, 1 },
	{ "stale_grace", 0, 365LL * 86400, 0 },
	{ "retries", 0, 5, 0 },
};

static void
set_number(struct conf *c, size_t i, long long v)
{
	switch (i) {
	case 0: c->parallel = (long)v; break;
	case 1: c->connect_timeout = (long)v; break;
	case 2: c->timeout = (long)v; break;
	case 3: c->max_redirects = (long)v; break;
	case 4: c->max_size = (size_t)v; break;
	case 5: c->stale_grace = v; break;
	default: c->retries = (long)v; break;
	}
}

static int
conf_line(struct conf *c, const char *path, size_t lineno, char *line)
{
	char *eq, *key, *val;
	long long v;
	size_t i;

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
	if (strcmp(key, "url") == 0)
		return strlist_add(&c->urls, val);
	if (strcmp(key, "ca") == 0)
		return strlist_add(&c->cas, val);
	if (strcmp(key, "ccadb") == 0)
		return strlist_add(&c->ccadb, val);
	if (strcmp(key, "anchor") == 0)
		return strlist_add(&c->anchors, val);
	if (strcmp(key, "untrusted") == 0)
		return strlist_add(&c->untrusted, val);
	for (i = 0; i < sizeof(numkeys) / sizeof(numkeys[0]); i++) {
		if (strcmp(key, numkeys[i].name) != 0)
			continue;
		if (parse_number(val, numkeys[i].max, numkeys[i].suffix, &v) == -1 ||
		    v < numkeys[i].min) {
			logx(0, "%s:%zu: %s: expected a number from %lld to %lld",
			    path, lineno, key, numkeys[i].min, numkeys[i].max);
			return -1;
		}
		set_number(c, i, v);
		return 0;
	}
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
