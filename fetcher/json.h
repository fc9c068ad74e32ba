/*
 * A JSON reader for documents from the network (RFC 8259), and the
 * canonical serialization Mozilla's content signatures are made over.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * json_parse() reads a whole document, at most JSON_MAX_DOC bytes, into
 * a flat array of values (one per value and one per object key: at most
 * one per byte of the document, and at most the caller's max), or
 * refuses it whole.  Refused: anything RFC 8259 does not allow (white
 * space other than its four, a number out of its grammar, a control
 * character in a string, an unknown escape), bytes that are not UTF-8
 * (RFC 3629 3: no overlong form, no surrogate, nothing past U+10FFFF),
 * an escaped surrogate without its pair, nesting deeper than
 * JSON_MAX_DEPTH, an object with more than JSON_MAX_MEMBERS members or
 * with a key twice (RFC 8259 4: SHOULD be unique; a signed document
 * must not mean two things), anything after the value.
 */
#ifndef CRLCACHE_JSON_H
#define CRLCACHE_JSON_H

#include <stddef.h>
#include <stdint.h>

/*
 * The largest document read: Mozilla's cert-revocations changeset is
 * about 20 KB (a few dozen records); the server's root document under
 * 2 KB.  8 MiB bounds the value array (16 bytes per value) at 128 MiB
 * for a hostile document of one-byte values, and the caller's max
 * bounds it further.
 */
#define JSON_MAX_DOC		((size_t)8 << 20)
/* Nesting: the changeset is 4 deep (changes, record, attachment). */
#define JSON_MAX_DEPTH		32
/*
 * Members of one object: a record has about 12.  The duplicate check
 * sorts them (n log n), so the bound is for sense, not for time.
 */
#define JSON_MAX_MEMBERS	4096
/*
 * Integers the canonical form writes: the safe integers of ECMAScript
 * (2^53 - 1), which Firefox's serializer, in JavaScript, writes exactly.
 */
#define JSON_MAX_SAFE_INT	9007199254740991LL

enum json_type {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING,
	JSON_ARRAY, JSON_OBJECT
};

/* One value (or object key, a JSON_STRING) of the document. */
struct json_val {
	uint32_t	 type;		/* enum json_type */
	uint32_t	 start, len;	/* its bytes in the document; a string
					   without its quotes, as escaped */
	uint32_t	 n;		/* array: elements; object: members */
	uint32_t	 end;		/* the index after it and its contents */
};

struct json {
	const char	*doc;		/* the caller's: outlives the json */
	size_t		 len;
	struct json_val	*v;		/* v[0] is the document's value */
	size_t		 n, cap;
};

/*
 * Parse doc[0..len) (borrowed) into j with at most max values: 0, or -1
 * with the reason and its byte offset in err.
 */
int	 json_parse(struct json *j, const char *doc, size_t len, size_t max,
	    char *err, size_t errlen);
/* Accepts a zeroed or already freed json. */
void	 json_free(struct json *j);
/*
 * The value of member key of object obj (its index), or 0 when obj is not
 * an object or has no such member (0 is the document itself, never a
 * member).
 */
size_t	 json_get(const struct json *j, size_t obj, const char *key);
/*
 * The first element of an array (or key of an object) and the next one:
 * walk v[container].n of them.
 */
size_t	 json_first(const struct json *j, size_t i);
size_t	 json_next(const struct json *j, size_t i);
/*
 * The string at i decoded (UTF-8, NUL-terminated) into out: 0, or -1
 * when it is not a string, holds U+0000, or needs more than outlen bytes.
 */
int	 json_str(const struct json *j, size_t i, char *out, size_t outlen);
/* Is i the string s exactly (after decoding)? */
int	 json_str_is(const struct json *j, size_t i, const char *s);
/* An integer (no fraction or exponent) of at most JSON_MAX_SAFE_INT. */
int	 json_int(const struct json *j, size_t i, int64_t *out);

/*
 * The canonical form of value i appended to *buf (malloc'd, *len bytes,
 * *cap allocated): no white space, object members sorted by their keys'
 * UTF-16 code units (JavaScript's sort), strings with '"' and '\\'
 * escaped, \b \f \n \r \t, any other control character, DEL and every
 * character past ASCII as \uXXXX in lowercase (surrogate pairs past the
 * BMP), integers as decimal digits.  This is what Firefox's
 * CanonicalJSON (jsesc with json and lowercaseHex) and Mozilla's
 * canonicaljson-rs both write for such values.  A number with a fraction
 * or an exponent, -0, or an integer past JSON_MAX_SAFE_INT is refused
 * (-1): their forms differ between those two, and Mozilla's server
 * refuses floats in signed collections for that reason
 * (mozilla/remote-settings, signer/listeners.py prevent_float_value).  skip, when not NULL, is asked of each
 * member of value i itself (not of nested objects): 1 leaves it out.
 */
int	 json_canonical(const struct json *j, size_t i,
	    int (*skip)(const struct json *, size_t key, size_t val),
	    char **buf, size_t *len, size_t *cap);
/* Append the text s (written as it is) to a canonical form's buffer. */
int	 json_canonical_put(char **buf, size_t *len, size_t *cap,
	    const char *s);
/* Compare two strings by UTF-16 code units, as JavaScript's < does. */
int	 json_str_cmp(const struct json *j, size_t a, size_t b);

#endif /* CRLCACHE_JSON_H */
