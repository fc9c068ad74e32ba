/*
 * JSON from the network: a strict reader into a flat array of values,
 * and the canonical form content signatures cover (see json.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The reader descends recursively, at most JSON_MAX_DEPTH deep; it
 * validates strings as it meets them (so that decoding them later cannot
 * fail) and allocates only the value array, which grows with the values
 * found, never with what a field claims.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/hex.h>

#include "json.h"

struct parser {
	struct json	*j;
	const char	*p, *end;
	size_t		 max;
	char		*err;
	size_t		 errlen;
};

static int
fail(struct parser *ps, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "JSON at byte %zu: %s",
	    (size_t)(ps->p - ps->j->doc), why);
	return -1;
}

/* RFC 8259 2: space, horizontal tab, line feed, carriage return. */
static void
skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static long
add_val(struct parser *ps, enum json_type type)
{
	struct json *j = ps->j;
	struct json_val *v;
	size_t cap;

	if (j->n >= ps->max)
		return fail(ps, "more than %zu values", ps->max);
	if (j->n == j->cap) {
		/* Doubling: the array is at most twice the values found. */
		cap = j->cap == 0 ? 64 : j->cap * 2;
		if ((v = reallocarray(j->v, cap, sizeof(*v))) == NULL)
			return fail(ps, "out of memory");
		j->v = v;
		j->cap = cap;
	}
	v = &j->v[j->n];
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->start = (uint32_t)(ps->p - j->doc);
	return (long)j->n++;
}

/* The length of a UTF-8 sequence at p (RFC 3629 4), or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong, surrogate, past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static int
hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int d = 0, i;

	for (i = 0; i < 4 && (d = crlc_hex_digit((unsigned char)p[i])) != -1;
	    i++)
		v = v << 4 | (uint32_t)d;
	*out = v;
	return d == -1 ? -1 : 0;
}

/*
 * The next code point of a validated string span at *p (escapes and
 * UTF-8 decoded); advances *p.
 */
static uint32_t
next_cp(const char **p)
{
	const unsigned char *s = (const unsigned char *)*p;
	uint32_t cp, lo;
	size_t n;

	if (s[0] == '\\') {
		*p += 2;
		switch (s[1]) {
		case 'b': return 0x08;
		case 'f': return 0x0c;
		case 'n': return 0x0a;
		case 'r': return 0x0d;
		case 't': return 0x09;
		case 'u': break;
		default: return s[1];	/* " \ / */
		}
		(void)hex4(*p, &cp);
		*p += 4;
		if (cp >= 0xd800 && cp <= 0xdbff) {	/* paired: validated */
			(void)hex4(*p + 2, &lo);
			*p += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		return cp;
	}
	if (s[0] < 0x80) {
		*p += 1;
		return s[0];
	}
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	*p += n;
	return cp;
}

static int
parse_string(struct parser *ps, long *idx)
{
	const char *q, *start;
	uint32_t cp, lo;
	size_t n;

	start = ++ps->p;	/* after the opening quote */
	if ((*idx = add_val(ps, JSON_STRING)) == -1)
		return -1;
	for (q = ps->p; q < ps->end && *q != '"'; q += n) {
		if ((unsigned char)*q < 0x20) {
			ps->p = q;
			return fail(ps, "control character in a string");
		}
		if (*q != '\\') {
			if ((n = utf8_len((const unsigned char *)q,
			    (const unsigned char *)ps->end)) == 0) {
				ps->p = q;
				return fail(ps, "not UTF-8");
			}
			continue;
		}
		ps->p = q;
		if (ps->end - q < 2)
			return fail(ps, "string not closed");
		if (strchr("\"\\/bfnrt", q[1]) != NULL && q[1] != '\0') {
			n = 2;
			continue;
		}
		if (q[1] != 'u' || ps->end - q < 6 || hex4(q + 2, &cp) == -1)
			return fail(ps, "bad escape");
		n = 6;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return fail(ps, "escaped low surrogate alone");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (ps->end - q < 12 || q[6] != '\\' || q[7] != 'u' ||
			    hex4(q + 8, &lo) == -1 || lo < 0xdc00 || lo > 0xdfff)
				return fail(ps, "escaped high surrogate alone");
			n = 12;
		}
	}
	if (q >= ps->end)
		return fail(ps, "string not closed");
	ps->j->v[*idx].start = (uint32_t)(start - ps->j->doc);
	ps->j->v[*idx].len = (uint32_t)(q - start);
	ps->p = q + 1;
	return 0;
}

static size_t
digits(struct parser *ps)
{
	const char *s = ps->p;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return (size_t)(ps->p - s);
}

/* RFC 8259 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int
parse_number(struct parser *ps)
{
	const char *s = ps->p;
	long i;

	if ((i = add_val(ps, JSON_NUMBER)) == -1)
		return -1;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0')
		ps->p++;
	else if (digits(ps) == 0)
		return fail(ps, "bad number");
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (digits(ps) == 0)
			return fail(ps, "bad number");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (digits(ps) == 0)
			return fail(ps, "bad number");
	}
	ps->j->v[i].len = (uint32_t)(ps->p - s);
	return 0;
}

static int
parse_literal(struct parser *ps, const char *word, enum json_type type)
{
	size_t n = strlen(word);
	long i;

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail(ps, "unexpected character");
	if ((i = add_val(ps, type)) == -1)
		return -1;
	ps->j->v[i].len = (uint32_t)n;
	ps->p += n;
	return 0;
}

static int
key_cmp(const void *a, const void *b, void *arg)
{
	return json_str_cmp(arg, *(const size_t *)a, *(const size_t *)b);
}

/* The keys of object obj (n members), sorted: none may be there twice. */
static int
unique_keys(struct parser *ps, size_t obj)
{
	const struct json *j = ps->j;
	size_t *keys, i, k, n = j->v[obj].n;
	int ret = 0;

	if (n < 2)
		return 0;
	if ((keys = calloc(n, sizeof(*keys))) == NULL)
		return fail(ps, "out of memory");
	for (i = 0, k = json_first(j, obj); i < n; i++, k = json_next(j, k))
		keys[i] = k;
	qsort_r(keys, n, sizeof(*keys), key_cmp, (void *)j);
	for (i = 1; i < n && ret == 0; i++)
		if (json_str_cmp(j, keys[i - 1], keys[i]) == 0) {
			ps->p = j->doc + j->v[keys[i]].start;
			ret = fail(ps, "a key twice in one object");
		}
	free(keys);
	return ret;
}

static int parse_value(struct parser *ps, int depth);

/* An array or object from its opening bracket to its closing one. */
static int
parse_container(struct parser *ps, int depth, enum json_type type)
{
	char close = type == JSON_ARRAY ? ']' : '}';
	long i, key = 0;
	uint32_t n = 0;

	if (depth >= JSON_MAX_DEPTH)
		return fail(ps, "nested deeper than %d", JSON_MAX_DEPTH);
	if ((i = add_val(ps, type)) == -1)
		return -1;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close)
		goto closed;
	for (;;) {
		if (type == JSON_OBJECT) {
			if (n >= JSON_MAX_MEMBERS)
				return fail(ps, "more than %d members",
				    JSON_MAX_MEMBERS);
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a key");
			if (parse_string(ps, &key) == -1)
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':'");
			ps->p++;
		}
		if (parse_value(ps, depth + 1) == -1)
			return -1;
		/* A key's end is its member's: the next key follows. */
		if (type == JSON_OBJECT)
			ps->j->v[key].end = (uint32_t)ps->j->n;
		n++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close)
			break;
		return fail(ps, "expected ',' or '%c'", close);
	}
closed:
	ps->p++;
	ps->j->v[i].n = n;
	ps->j->v[i].len = (uint32_t)(ps->p - ps->j->doc) - ps->j->v[i].start;
	ps->j->v[i].end = (uint32_t)ps->j->n;
	return type == JSON_OBJECT ? unique_keys(ps, (size_t)i) : 0;
}

/* The three literal names (RFC 8259 3), by their first byte. */
static const struct literal {
	char		 first;
	const char	*word;
	enum json_type	 type;
} literals[] = {
	{ 't', "true", JSON_TRUE },
	{ 'f', "false", JSON_FALSE },
	{ 'n', "null", JSON_NULL },
};

static int
parse_value(struct parser *ps, int depth)
{
	size_t before = ps->j->n, k;
	long i;
	int r = -1;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end");
	if (*ps->p == '{' || *ps->p == '[')
		return parse_container(ps, depth, *ps->p == '{' ? JSON_OBJECT :
		    JSON_ARRAY);
	if (*ps->p == '"')
		r = parse_string(ps, &i);
	else if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
		r = parse_number(ps);
	else {
		const struct literal *l = NULL;

		for (k = 0; k < sizeof(literals) / sizeof(literals[0]); k++)
			if (*ps->p == literals[k].first)
				l = &literals[k];
		if (l == NULL)
			return fail(ps, "unexpected character");
		r = parse_literal(ps, l->word, l->type);
	}
	if (r == -1)
		return -1;
	ps->j->v[before].end = (uint32_t)ps->j->n;
	return 0;
}

int
json_parse(struct json *j, const char *doc, size_t len, size_t max,
    char *err, size_t errlen)
{
	struct parser ps = { j, doc, doc + len, max, err, errlen };

	memset(j, 0, sizeof(*j));
	j->doc = doc;
	j->len = len;
	if (len > JSON_MAX_DOC) {
		snprintf(err, errlen, "JSON of %zu bytes, more than %zu", len,
		    JSON_MAX_DOC);
		return -1;
	}
	if (parse_value(&ps, 0) == -1)
		goto bad;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "bytes after the value");
		goto bad;
	}
	return 0;
bad:
	json_free(j);
	return -1;
}

void
json_free(struct json *j)
{
	free(j->v);
	j->v = NULL;
	j->n = 0;
}

size_t
json_first(const struct json *j, size_t i)
{
	return j->v[i].n > 0 ? i + 1 : 0;
}

/*
 * The element after element i of an array (or the key after key i of an
 * object): the caller counts them, v[container].n.
 */
size_t
json_next(const struct json *j, size_t i)
{
	return j->v[i].end;
}

/* A string's UTF-16 code units, one at a time (JavaScript's view). */
struct units {
	const char	*p, *end;
	uint32_t	 low;		/* the second unit of a pair, or 0 */
};

/* The next unit, or -1 at the end. */
static long
next_unit(struct units *u)
{
	uint32_t cp;

	if (u->low != 0) {
		cp = u->low;
		u->low = 0;
		return (long)cp;
	}
	if (u->p >= u->end)
		return -1;
	cp = next_cp(&u->p);
	if (cp < 0x10000)
		return (long)cp;
	cp -= 0x10000;
	u->low = 0xdc00 + (cp & 0x3ff);
	return (long)(0xd800 + (cp >> 10));
}

int
json_str_cmp(const struct json *j, size_t a, size_t b)
{
	struct units ua = { j->doc + j->v[a].start,
	    j->doc + j->v[a].start + j->v[a].len, 0 };
	struct units ub = { j->doc + j->v[b].start,
	    j->doc + j->v[b].start + j->v[b].len, 0 };
	long ca, cb;

	do {
		ca = next_unit(&ua);
		cb = next_unit(&ub);
	} while (ca == cb && ca != -1);
	return ca < cb ? -1 : ca > cb;
}

size_t
json_get(const struct json *j, size_t obj, const char *key)
{
	size_t k, m;

	if (obj >= j->n || j->v[obj].type != JSON_OBJECT)
		return 0;
	for (m = 0, k = json_first(j, obj); m < j->v[obj].n;
	    m++, k = json_next(j, k))
		if (json_str_is(j, k, key))
			return k + 1;
	return 0;
}

int
json_str(const struct json *j, size_t i, char *out, size_t outlen)
{
	const char *p, *end;
	uint32_t cp;
	size_t o = 0, n;

	if (i >= j->n || j->v[i].type != JSON_STRING || outlen == 0)
		return -1;
	p = j->doc + j->v[i].start;
	end = p + j->v[i].len;
	while (p < end) {
		if ((cp = next_cp(&p)) == 0)
			return -1;
		n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		if (outlen - o <= n)
			return -1;
		if (n == 1)
			out[o++] = (char)cp;
		else {
			out[o++] = (char)((n == 2 ? 0xc0 : n == 3 ? 0xe0 : 0xf0) |
			    cp >> (6 * (n - 1)));
			while (--n > 0)
				out[o++] = (char)(0x80 | ((cp >> (6 * (n - 1))) & 0x3f));
		}
	}
	out[o] = '\0';
	return 0;
}

int
json_str_is(const struct json *j, size_t i, const char *s)
{
	const char *p, *end;
	size_t k = 0;

	if (i >= j->n || j->v[i].type != JSON_STRING)
		return 0;
	p = j->doc + j->v[i].start;
	end = p + j->v[i].len;
	/* ASCII s (every name this program asks for) compared unit by unit. */
	while (p < end && s[k] != '\0')
		if (next_cp(&p) != (unsigned char)s[k++])
			return 0;
	return p == end && s[k] == '\0';
}

int
json_int(const struct json *j, size_t i, int64_t *out)
{
	const char *p;
	size_t len, k;
	int64_t v = 0;
	int neg;

	if (i >= j->n || j->v[i].type != JSON_NUMBER)
		return -1;
	p = j->doc + j->v[i].start;
	len = j->v[i].len;
	neg = p[0] == '-';
	/* 16 digits hold JSON_MAX_SAFE_INT; more is past it. */
	if (len - (size_t)neg > 16 || (neg && p[1] == '0'))
		return -1;
	for (k = (size_t)neg; k < len; k++) {
		if (p[k] < '0' || p[k] > '9')
			return -1;	/* a fraction or an exponent */
		v = v * 10 + (p[k] - '0');
	}
	if (v > JSON_MAX_SAFE_INT)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/* Append n bytes to the growing buffer. */
static int
put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	char *p;
	size_t c;

	if (*cap - *len < n) {
		for (c = *cap == 0 ? 1024 : *cap; c - *len < n; c *= 2)
			if (c > JSON_MAX_DOC * 8)
				return -1;
		if ((p = realloc(*buf, c)) == NULL)
			return -1;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	return 0;
}

/* \uXXXX of u, one UTF-16 code unit (at most 0xffff), in lowercase hex. */
static int
put_unit(char **buf, size_t *len, size_t *cap, uint16_t u)
{
	const uint8_t be[2] = { (uint8_t)(u >> 8), (uint8_t)u };
	char esc[7] = { '\\', 'u' };

	crlc_hex_encode(be, sizeof(be), esc + 2, 0);
	return put(buf, len, cap, esc, sizeof(esc) - 1);
}

/* A string in canonical form (json.h json_canonical). */
static int
canon_str(const struct json *j, size_t i, char **buf, size_t *len,
    size_t *cap)
{
	struct units u = { j->doc + j->v[i].start,
	    j->doc + j->v[i].start + j->v[i].len, 0 };
	static const char named[] = "\b\f\n\r\t\"\\";
	static const char name_of[] = "bfnrt\"\\";
	const char *q;
	char c[2];
	long cu;
	int r = put(buf, len, cap, "\"", 1);

	while (r == 0 && (cu = next_unit(&u)) != -1) {
		if (cu > 0 && cu < 0x80 && (q = strchr(named, (int)cu)) != NULL) {
			c[0] = '\\';
			c[1] = name_of[q - named];
			r = put(buf, len, cap, c, 2);
		} else if (cu >= 0x20 && cu < 0x7f) {
			c[0] = (char)cu;
			r = put(buf, len, cap, c, 1);
		} else
			r = put_unit(buf, len, cap, (uint16_t)cu);
	}
	return r == 0 ? put(buf, len, cap, "\"", 1) : -1;
}

static int canon(const struct json *j, size_t i,
    int (*skip)(const struct json *, size_t, size_t), char **buf,
    size_t *len, size_t *cap);

static int
canon_object(const struct json *j, size_t i,
    int (*skip)(const struct json *, size_t, size_t), char **buf,
    size_t *len, size_t *cap)
{
	size_t *keys, n = j->v[i].n, m, k, kept = 0;
	int r = 0;

	if ((keys = calloc(n + 1, sizeof(*keys))) == NULL)
		return -1;
	for (m = 0, k = json_first(j, i); m < n; m++, k = json_next(j, k))
		if (skip == NULL || !skip(j, k, k + 1))
			keys[kept++] = k;
	qsort_r(keys, kept, sizeof(*keys), key_cmp, (void *)j);
	r = put(buf, len, cap, "{", 1);
	for (m = 0; m < kept && r == 0; m++) {
		if ((m > 0 && put(buf, len, cap, ",", 1) == -1) ||
		    canon_str(j, keys[m], buf, len, cap) == -1 ||
		    put(buf, len, cap, ":", 1) == -1 ||
		    canon(j, keys[m] + 1, NULL, buf, len, cap) == -1)
			r = -1;
	}
	free(keys);
	return r == 0 ? put(buf, len, cap, "}", 1) : -1;
}

static int
canon(const struct json *j, size_t i,
    int (*skip)(const struct json *, size_t, size_t), char **buf,
    size_t *len, size_t *cap)
{
	const struct json_val *v = &j->v[i];
	size_t m, k;
	int64_t n;

	switch (v->type) {
	case JSON_NULL: case JSON_TRUE: case JSON_FALSE:
		return put(buf, len, cap, j->doc + v->start, v->len);
	case JSON_NUMBER:
		/* As written: the grammar leaves one form to an integer. */
		if (json_int(j, i, &n) == -1)
			return -1;
		return put(buf, len, cap, j->doc + v->start, v->len);
	case JSON_STRING:
		return canon_str(j, i, buf, len, cap);
	case JSON_OBJECT:
		return canon_object(j, i, skip, buf, len, cap);
	default:
		if (put(buf, len, cap, "[", 1) == -1)
			return -1;
		for (m = 0, k = json_first(j, i); m < v->n; m++,
		    k = json_next(j, k))
			if ((m > 0 && put(buf, len, cap, ",", 1) == -1) ||
			    canon(j, k, NULL, buf, len, cap) == -1)
				return -1;
		return put(buf, len, cap, "]", 1);
	}
}

int
json_canonical(const struct json *j, size_t i,
    int (*skip)(const struct json *, size_t key, size_t val),
    char **buf, size_t *len, size_t *cap)
{
	if (i >= j->n)
		return -1;
	return canon(j, i, skip, buf, len, cap);
}

int
json_canonical_put(char **buf, size_t *len, size_t *cap, const char *s)
{
	return put(buf, len, cap, s, strlen(s));
}
