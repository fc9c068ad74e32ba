/*
 * One entry of the issuer directory file (format in directory.c): its
 * lines parsed, its memory freed.  Below both readers of the file, the
 * whole-file parser (directory.c) and the index's (dirindex.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#include "conf.h"
#include "direntry.h"
#include "fetcher.h"
#include "trust.h"

/* "cert FP BASE64": the entry's fingerprint, into fp. */
int
dir_entry_fp(const char *s, uint8_t fp[CRLC_HASH_LEN])
{
	if (strlen(s) < 2 * CRLC_HASH_LEN + 2 || s[2 * CRLC_HASH_LEN] != ' ' ||
	    crlc_hex_decode(s, 2 * CRLC_HASH_LEN, fp, CRLC_HASH_LEN) == -1)
		return -1;
	return 0;
}

/*
 * "url LEN URL" at s (in a NUL-terminated buffer): the URL's LEN bytes
 * are taken as they are, whatever they hold, and must be followed by the
 * line end.  Returns where the next line starts, NULL when malformed.
 */
char *
dir_entry_url(char *s, struct dir_entry *e)
{
	char *end, *u;
	long long len;

	if ((end = strchr(s, ' ')) == NULL || end - s > 4)
		return NULL;
	*end = '\0';
	if (parse_number(s, CRLC_KEY_MAX, 0, &len) == -1 || len == 0)
		return NULL;
	u = end + 1;
	if (strnlen(u, (size_t)len + 1) != (size_t)len + 1 || u[len] != '\n' ||
	    e->urls.n >= DIR_MAX_URLS || !url_usable(u, (size_t)len))
		return NULL;
	u[len] = '\0';
	return strlist_add(&e->urls, u) == 0 ? u + len + 1 : NULL;
}

int
dir_entry_parse(char *buf, const uint8_t fp[CRLC_HASH_LEN], int with_cert,
    struct dir_entry *e)
{
	uint8_t got[CRLC_HASH_LEN];
	char *line = buf, *next;

	memset(e, 0, sizeof(*e));
	if (strncmp(line, "cert ", 5) != 0 ||
	    dir_entry_fp(line + 5, got) == -1 ||
	    memcmp(got, fp, CRLC_HASH_LEN) != 0 ||
	    (next = strchr(line, '\n')) == NULL)
		return -1;
	*next++ = '\0';
	memcpy(e->fp, fp, CRLC_HASH_LEN);
	if (with_cert && (e->cert = cert_from_b64(line + 5 + 2 * CRLC_HASH_LEN +
	    1, DIR_MAX_CERT, fp)) == NULL)
		goto bad;
	for (line = next; *line != '\0'; line = next)
		if (strncmp(line, "url ", 4) != 0 ||
		    (next = dir_entry_url(line + 4, e)) == NULL)
			goto bad;
	if (e->urls.n > 0)
		return 0;
bad:
	X509_free(e->cert);
	strlist_free(&e->urls);
	memset(e, 0, sizeof(*e));
	return -1;
}

void
directory_free(struct directory *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		X509_free(d->v[i].cert);
		strlist_free(&d->v[i].urls);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
