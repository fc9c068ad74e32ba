/*
 * fetcher/json.c: the strict reader and the canonical form content
 * signatures cover.
 *  - documents RFC 8259 allows are read, their values found by name;
 *  - malformed and hostile documents are refused, each for its reason:
 *    bad UTF-8 (overlong, surrogate, past U+10FFFF, cut), lone escaped
 *    surrogates, control characters, bad escapes and numbers, keys twice,
 *    nesting past JSON_MAX_DEPTH, more values than allowed, trailing
 *    bytes, every truncation of a real-shaped changeset;
 *  - the canonical form is the one Mozilla's canonicaljson-rs test suite
 *    gives for the same values (its expected strings, src/ser.rs), and
 *    byte for byte its reference form of a real Remote Settings
 *    collection (test/data/canonicaljson: Firefox's search-config-v2,
 *    232 KB with text in many scripts);
 *    a fraction, an exponent, -0 and integers past 2^53 - 1 are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../fetcher/json.c"

static int
parses(const char *doc, size_t max)
{
	struct json j;
	char err[256];
	int ok = json_parse(&j, doc, strlen(doc), max, err, sizeof(err)) == 0;

	json_free(&j);
	return ok;
}

/* Refused, and the reason names what. */
static int
refused_for(const char *doc, size_t len, const char *why)
{
	struct json j;
	char err[256];

	if (json_parse(&j, doc, len, 1000, err, sizeof(err)) == 0) {
		json_free(&j);
		fprintf(stderr, "accepted: %.*s\n", (int)len, doc);
		return 0;
	}
	if (strstr(err, why) == NULL) {
		fprintf(stderr, "refused for \"%s\", not \"%s\"\n", err, why);
		return 0;
	}
	return 1;
}
#define REFUSED(doc, why) refused_for(doc, sizeof(doc) - 1, why)

/* The canonical form of doc, or "(refused)". */
static char *
canonical(const char *doc)
{
	struct json j;
	char err[256], *buf = NULL, *out;
	size_t len = 0, cap = 0;

	if (json_parse(&j, doc, strlen(doc), 1000, err, sizeof(err)) == -1)
		return strdup(err);
	if (json_canonical(&j, 0, NULL, &buf, &len, &cap) == -1) {
		json_free(&j);
		free(buf);
		return strdup("(refused)");
	}
	json_free(&j);
	out = strndup(buf, len);
	free(buf);
	return out;
}

static int
canon_is(const char *doc, const char *want)
{
	char *got = canonical(doc);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		fprintf(stderr, "canonical(%s) = %s, not %s\n", doc, got, want);
	free(got);
	return ok;
}

static void
test_reads(void)
{
	const char *doc = "{ \"a\" : [1, -2, 3.5e-1, true, false, null],"
	    "\r\n\t\"s\": \"x\\u00e9\\ud834\\udd1e\\n\", \"o\": {\"k\": \"v\"}}";
	struct json j;
	char err[256], s[64];
	int64_t n;
	size_t a, k, m;

	CHECK(json_parse(&j, doc, strlen(doc), 100, err, sizeof(err)) == 0);
	a = json_get(&j, 0, "a");
	CHECK(a != 0 && j.v[a].type == JSON_ARRAY && j.v[a].n == 6);
	k = json_first(&j, a);
	CHECK(json_int(&j, k, &n) == 0 && n == 1);
	k = json_next(&j, k);
	CHECK(json_int(&j, k, &n) == 0 && n == -2);
	k = json_next(&j, k);
	CHECK(json_int(&j, k, &n) == -1);	/* 3.5e-1: not an integer */
	for (m = 3; m < 6; m++)
		k = json_next(&j, k);
	CHECK(j.v[k].type == JSON_NULL);
	CHECK(json_str(&j, json_get(&j, 0, "s"), s, sizeof(s)) == 0 &&
	    strcmp(s, "x\xc3\xa9\xf0\x9d\x84\x9e\n") == 0);
	CHECK(json_str(&j, json_get(&j, 0, "s"), s, 5) == -1);	/* too long */
	CHECK(json_str_is(&j, json_get(&j, json_get(&j, 0, "o"), "k"), "v"));
	CHECK(json_get(&j, 0, "missing") == 0);
	CHECK(json_get(&j, a, "a") == 0);	/* not an object */
	json_free(&j);
	/* U+0000 is read but never handed out as a C string */
	CHECK(json_parse(&j, "\"a\\u0000b\"", 10, 10, err, sizeof(err)) == 0);
	CHECK(json_str(&j, 0, s, sizeof(s)) == -1);
	json_free(&j);
	CHECK(parses("0", 10) && parses("-0", 10) && parses(" [] ", 10));
	CHECK(parses("\"\xf4\x8f\xbf\xbf\"", 10));	/* U+10FFFF */
	CHECK(parses("{\"a\":1,\"A\":2}", 10));	/* keys differ in case */
}

static void
test_refused(void)
{
	char deep[2 * JSON_MAX_DEPTH + 8];
	size_t i;

	CHECK(REFUSED("", "unexpected end"));
	CHECK(REFUSED("{\"a\":1,}", "expected a key"));
	CHECK(REFUSED("[1,]", "unexpected character"));
	CHECK(REFUSED("[1 2]", "expected ','"));
	CHECK(REFUSED("{\"a\" 1}", "expected ':'"));
	CHECK(REFUSED("{a:1}", "expected a key"));
	CHECK(REFUSED("01", "bytes after"));
	CHECK(REFUSED("1.", "bad number"));
	CHECK(REFUSED(".5", "unexpected character"));
	CHECK(REFUSED("1e", "bad number"));
	CHECK(REFUSED("-", "bad number"));
	CHECK(REFUSED("+1", "unexpected character"));
	CHECK(REFUSED("tru", "unexpected character"));
	CHECK(REFUSED("nul", "unexpected character"));
	CHECK(REFUSED("[1]x", "bytes after"));
	CHECK(REFUSED("\"abc", "string not closed"));
	CHECK(REFUSED("\"a\\", "string not closed"));
	CHECK(REFUSED("\"a\tb\"", "control character"));
	CHECK(REFUSED("\"\\x41\"", "bad escape"));
	CHECK(REFUSED("\"\\u12g4\"", "bad escape"));
	CHECK(REFUSED("\"\\u123\"", "bad escape"));
	CHECK(REFUSED("\"\\ud834\"", "high surrogate alone"));
	CHECK(REFUSED("\"\\ud834\\u0041\"", "high surrogate alone"));
	CHECK(REFUSED("\"\\udd1e\"", "low surrogate alone"));
	CHECK(REFUSED("\"\xc0\xaf\"", "not UTF-8"));		/* overlong '/' */
	CHECK(REFUSED("\"\xe0\x80\xaf\"", "not UTF-8"));	/* overlong */
	CHECK(REFUSED("\"\xed\xa0\x80\"", "not UTF-8"));	/* surrogate */
	CHECK(REFUSED("\"\xf4\x90\x80\x80\"", "not UTF-8"));	/* > 10FFFF */
	CHECK(REFUSED("\"\xe2\x9c\"", "not UTF-8"));		/* cut */
	CHECK(REFUSED("\"\xff\"", "not UTF-8"));
	CHECK(REFUSED("\"\x80\"", "not UTF-8"));
	CHECK(REFUSED("\xef\xbb\xbf{}", "unexpected character"));	/* BOM */
	CHECK(REFUSED("{\"a\":1,\"b\":2,\"a\":3}", "a key twice"));
	/* the same key, one of them escaped */
	CHECK(REFUSED("{\"\\u0061\":1,\"a\":2}", "a key twice"));
	CHECK(REFUSED("[1, 2,\v3]", "unexpected character"));
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		deep[i] = '[';
	deep[i] = '\0';
	CHECK(REFUSED(deep, "nested deeper"));
	CHECK(!parses("[1,2,3,4,5,6,7,8,9]", 5));	/* more values than max */
	CHECK(parses("[1,2,3,4]", 5));
}

/* A changeset-shaped document: every truncation is refused, none crashes. */
static void
test_truncations(void)
{
	static const char doc[] = "{\"metadata\":{\"signature\":{\"x5u\":"
	    "\"https://example.net/chain\",\"signature\":\"abc_-\"}},"
	    "\"changes\":[{\"id\":\"F1\",\"incremental\":false,\"attachment\":"
	    "{\"size\":219,\"hash\":\"e7\"},\"details\":\"r\\u00e9voqu\xc3\xa9"
	    " \\ud834\\udd1e\"}],\"timestamp\":1760000000000}";
	struct json j;
	char err[256];
	size_t len;
	int accepted = 0;

	for (len = 0; len < sizeof(doc) - 1; len++) {
		char *copy = malloc(len + 1);	/* exact size: ASan sees reads */

		memcpy(copy, doc, len);
		if (json_parse(&j, copy, len, 1000, err, sizeof(err)) == 0) {
			accepted++;
			json_free(&j);
		}
		free(copy);
	}
	CHECK(accepted == 0);
	CHECK(json_parse(&j, doc, sizeof(doc) - 1, 1000, err, sizeof(err)) == 0);
	json_free(&j);
}

/* Documents and their canonical forms ("(refused)": none). */
static const struct {
	const char	*doc, *want;
} canon_cases[] = {
	/* canonicaljson-rs src/ser.rs test_to_string, its expected outputs */
	{ "null", "null" },
	{ "true", "true" },
	{ "0", "0" },
	{ "123", "123" },
	{ "-123", "-123" },
	{ "2300", "2300" },
	{ "\"\"", "\"\"" },
	{ "\" Preserve single quotes'in string\"",
	    "\" Preserve single quotes'in string\"" },
	{ "\" Escapes quotes \\\" \"", "\" Escapes quotes \\\" \"" },
	{ "\"This\\\\and this\"", "\"This\\\\and this\"" },
	{ "\"I \xe2\x9d\xa4 testing\"", "\"I \\u2764 testing\"" },
	{ "\"This is a sentence.\\n\"",
	    "\"This is a sentence.\\n\"" },
	{ "\"a \\t tab \\r cr\"", "\"a \\t tab \\r cr\"" },
	{ "\"image\\/jpeg\"", "\"image/jpeg\"" },
	{ "\"\xf0\x9d\x84\x9e\"", "\"\\ud834\\udd1e\"" },
	{ "\"\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\"",
	    "\"\\ud800\\udc00 \\udbff\\udfff\"" },
	{ "{\"a\":{},\"b\":\"b\"}", "{\"a\":{},\"b\":\"b\"}" },
	{ "{\"a\": \"a\", \"id\": \"1\", \"b\": \"b\"}",
	    "{\"a\":\"a\",\"b\":\"b\",\"id\":\"1\"}" },
	{ "{\"b\": [\"two\", \"three\"], \"a\": [\"zero\", \"one\"]}",
	    "{\"a\":[\"zero\",\"one\"],\"b\":[\"two\",\"three\"]}" },
	{ "{\"\xc3\xa9\": \"check\"}", "{\"\\u00e9\":\"check\"}" },
	{ "[{\"key\": \"\xc4\x99\"}]", "[{\"key\":\"\\u0119\"}]" },
	{ "[{\"foo\": \"bar\", \"last_modified\": \"12345\", "
	    "\"id\": \"1\"}, {\"bar\": \"baz\", \"last_modified\": \"45678\", "
	    "\"id\": \"2\"}]", "[{\"foo\":\"bar\",\"id\":\"1\",\"last_modified\":"
	    "\"12345\"},{\"bar\":\"baz\",\"id\":\"2\",\"last_modified\":\"45678\"}]" },
	{ "{\"g\": {\"2\": 2, \"3\": 3, \"1\": {\"b\": \"b\", "
	    "\"a\": \"a\"}}}", "{\"g\":{\"1\":{\"a\":\"a\",\"b\":\"b\"},\"2\":2,"
	    "\"3\":3}}" },
	/* control characters, DEL, escapes written as \u, in lowercase */
	{ "\"\\u0001\\u001F\\u007f\\b\\f\\u00E9\"",
	    "\"\\u0001\\u001f\\u007f\\b\\f\\u00e9\"" },
	/* keys by UTF-16 code units: U+1D11E (D834 DD1E) before U+FFFD */
	{ "{\"\xef\xbf\xbd\":1,\"\xf0\x9d\x84\x9e\":2}",
	    "{\"\\ud834\\udd1e\":2,\"\\ufffd\":1}" },
	/* what has two forms between JavaScript and Rust: refused */
	{ "1.5", "(refused)" },
	{ "1e3", "(refused)" },
	{ "-0", "(refused)" },
	{ "9007199254740992", "(refused)" },
	{ "9007199254740991", "9007199254740991" },
	{ "[1,{\"a\":[2.0]}]", "(refused)" },
};

static void
test_canonical(void)
{
	size_t i;

	for (i = 0; i < sizeof(canon_cases) / sizeof(canon_cases[0]); i++)
		CHECK(canon_is(canon_cases[i].doc, canon_cases[i].want));
}

/* Read a whole test data file (the tests run from the top directory). */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		buf = NULL;
	} else
		*len = (size_t)n;
	if (f != NULL)
		fclose(f);
	return buf;
}

/* Mozilla's reference canonical form of a real collection, byte for byte. */
static void
test_real_collection(void)
{
	char *doc, *want, *got = NULL, err[256];
	size_t dlen = 0, wlen = 0, glen = 0, cap = 0;
	struct json j;

	doc = slurp("test/data/canonicaljson/search-config-v2.json", &dlen);
	want = slurp("test/data/canonicaljson/search-config-v2.canonical.json",
	    &wlen);
	CHECK(doc != NULL && want != NULL);
	if (doc == NULL || want == NULL)
		goto done;
	CHECK(json_parse(&j, doc, dlen, 1000000, err, sizeof(err)) == 0);
	CHECK(json_canonical(&j, 0, NULL, &got, &glen, &cap) == 0);
	CHECK(glen == wlen && got != NULL && memcmp(got, want, wlen) == 0);
	json_free(&j);
done:
	free(doc);
	free(want);
	free(got);
}

int
main(void)
{
	test_reads();
	test_refused();
	test_truncations();
	test_canonical();
	test_real_collection();
	return check_result();
}
