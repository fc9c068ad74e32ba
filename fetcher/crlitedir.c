/*
 * The CRLite set in STATE_DIR/crlite/ (<crlcache/crlite.h>): read it,
 * install a new one whole, and what each source fetched.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Installing: every new filter is written to a temporary name, synced
 * and renamed to its content name; then the set file is replaced the
 * same way (state_replace: the directory synced after the rename); only
 * then are the files the new set does not name removed.  A crash at any
 * point leaves the previous set or the new one whole, and at worst files
 * no set names, removed by the next install.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/clubcard.h>
#include <crlcache/crliteset.h>
#include <crlcache/hash.h>
#include <crlcache/onecrl.h>

#include "crlitedir.h"
#include "fetcher.h"
#include "state.h"

#define SET_MAX_LEN	(CRLC_CRLITE_HDR_LEN + CRLC_CRLITE_FILTERS_MAX * \
	CRLC_CRLITE_REC_LEN + CRLC_CRLITE_TRAILER_LEN)
#define TALLY_FILE	WORK_NAME "/crlite.state"
/* A file of the CRLite directory by its name in the state: "crlite/NAME". */
#define CRLITE_NAME_MAX	(sizeof(CRLC_CRLITE_DIR) + 2 * CRLC_HASH_LEN + 16)
/* The tally file: a line per source kind, a few dozen bytes each. */
#define TALLY_MAX_LEN	4096

const char *
crlite_source_name(unsigned source)
{
	switch (source) {
	case CRLC_CRLITE_SRC_REMOTE_SETTINGS: return "remote-settings";
	case CRLC_CRLITE_SRC_MIRROR: return "mirror";
	case CRLC_CRLITE_SRC_UPKI_DIR: return "upki-dir";
	default: return "unknown";
	}
}

/* A filter's file name; with in_state, its name in the state directory. */
static void
filter_name(char *out, size_t len, const uint8_t hash[CRLC_HASH_LEN],
    int in_state)
{
	char hex[2 * CRLC_HASH_LEN + 1];

	crlc_hex_encode(hash, CRLC_HASH_LEN, hex, 0);
	snprintf(out, len, "%s%s%s", in_state ? CRLC_CRLITE_DIR "/" : "", hex,
	    CRLC_CRLITE_FILTER_SUFFIX);
}

int
crlite_set_read(struct state *st, struct crlite_set *s, char *err,
    size_t errlen)
{
	struct crlc_crliteset_file file;
	char why[CRLC_CRLITESET_WHY_LEN];
	size_t i;
	int r;

	memset(s, 0, sizeof(*s));
	if ((r = crlite_set_file(st, &file, why, sizeof(why))) != 0) {
		if (r == -1)
			snprintf(err, errlen, "%s/%s: %s", state_path(st),
			    CRLC_CRLITE_DIR, why);
		return r;
	}
	s->installed = file.installed;
	s->newest = file.newest;
	s->source = file.source;
	for (i = 0; i < file.n; i++) {
		memcpy(s->f[i].hash, file.f[i].hash, CRLC_HASH_LEN);
		s->f[i].size = file.f[i].size;
		s->f[i].kind = file.f[i].kind;
	}
	s->n = file.n;
	return 0;
}

/*
 * The descriptor of crlite/, the handle's (do not close it); -1 with
 * errno (ENOENT: none yet) and why.
 */
static int
crlite_dirfd(struct state *st, char *why, size_t whylen)
{
	const char *base;
	int dfd, e;

	/* the directory holding the set file: crlite/ */
	if ((dfd = state_dirfd(st, CRLC_CRLITE_DIR "/" CRLC_CRLITE_SET_NAME,
	    &base)) == -1) {
		e = errno;
		snprintf(why, whylen, "%s", strerror(e));
		errno = e;
	}
	return dfd;
}

/*
 * crlite/'s descriptor into *dfd: 0; 1 when there is none yet (nothing
 * installed: the path readers' silence); -1 with why.
 */
static int
dir_at(struct state *st, int *dfd, char *why, size_t whylen)
{
	if ((*dfd = crlite_dirfd(st, why, whylen)) != -1)
		return 0;
	return errno == ENOENT ? 1 : -1;
}

int
crlite_set_file(struct state *st, struct crlc_crliteset_file *file,
    char *why, size_t whylen)
{
	int dfd, r;

	if ((r = dir_at(st, &dfd, why, whylen)) != 0)
		return r;
	return crlc_crliteset_read_at(dfd, file, why, whylen);
}

int
crlite_set_open(struct state *st, struct crlc_crliteset **set, char *why,
    size_t whylen)
{
	int dfd, r;

	*set = NULL;
	if ((r = dir_at(st, &dfd, why, whylen)) != 0)
		return r;
	return crlc_crliteset_open_at(dfd, set, why, whylen);
}

int
crlite_onecrl_open(struct state *st, struct crlc_onecrl **o, char *why,
    size_t whylen)
{
	int dfd, r;

	*o = NULL;
	if ((r = dir_at(st, &dfd, why, whylen)) != 0)
		return r;
	return crlc_onecrl_open_at(dfd, o, why, whylen);
}

int
crlite_file_read(struct state *st, const struct crlite_filter *f,
    uint8_t **body)
{
	char name[CRLITE_NAME_MAX], why[ERRLEN];
	uint8_t hash[CRLC_HASH_LEN];
	size_t len;

	filter_name(name, sizeof(name), f->hash, 1);
	if (state_read(st, name, CRLC_CLUBCARD_MAX_LEN, body, &len, why,
	    sizeof(why)) == -1)
		return -1;
	crlc_sha256(*body, len, hash);
	if (len != f->size || memcmp(hash, f->hash, CRLC_HASH_LEN) != 0) {
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}

int
crlite_dir_prepare(struct state *st, char *err, size_t errlen)
{
	struct stat sb;
	int fd;

	if (state_mkdir(st, CRLC_CRLITE_DIR, 0755) == -1) {
		snprintf(err, errlen, "%s/%s: %s", state_path(st),
		    CRLC_CRLITE_DIR, strerror(errno));
		return -1;
	}
	if ((fd = state_openat(st, CRLC_CRLITE_DIR, O_RDONLY | O_DIRECTORY,
	    0)) == -1 || fstat(fd, &sb) == -1 ||
	    sb.st_uid != geteuid() || (sb.st_mode & 022) != 0) {
		snprintf(err, errlen, "%s/%s: not a directory of this account "
		    "that only it may write", state_path(st), CRLC_CRLITE_DIR);
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* A file of the set, durably; readers of every account read it. */
static int
write_file(struct state *st, const char *name, const void *data, size_t len,
    char *err, size_t errlen)
{
	if (state_replace(st, name, data, len, 0644) == -1) {
		snprintf(err, errlen, "%s/%s: cannot write", state_path(st),
		    name);
		return -1;
	}
	return 0;
}

static int
write_filter(struct state *st, const struct crlite_filter *f,
    char *err, size_t errlen)
{
	char name[CRLITE_NAME_MAX];

	filter_name(name, sizeof(name), f->hash, 1);
	return write_file(st, name, f->body, (size_t)f->size, err, errlen);
}

/* Is name one of s's filters, or its lookup file (named lookup)? */
static int
named(const struct crlite_set *s, const char *lookup, const char *name)
{
	char want[2 * CRLC_HASH_LEN + 16];
	size_t i;

	for (i = 0; i < s->n; i++) {
		filter_name(want, sizeof(want), s->f[i].hash, 0);
		if (strcmp(want, name) == 0)
			return 1;
	}
	return strcmp(name, CRLC_CRLITE_SET_NAME) == 0 ||
	    strcmp(name, lookup) == 0 || strcmp(name, CRLC_ONECRL_NAME) == 0 ||
	    strcmp(name, CRLC_CRLITE_RS_HELD) == 0 ||
	    strcmp(name, CRLC_ONECRL_RS_HELD) == 0;
}

/* Remove what s does not name: superseded filters, stray temporaries. */
static void
remove_superseded(struct state *st, const struct crlite_set *s,
    const char *lookup)
{
	struct dirent *de;
	DIR *d;
	int dfd;

	if ((d = state_list(st, CRLC_CRLITE_DIR)) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || named(s, lookup, de->d_name))
			continue;
		if (unlinkat(dfd, de->d_name, 0) == 0)
			logx(2, "crlite: removed %s (superseded)", de->d_name);
	}
	closedir(d);
}

/*
 * The lookup file of s, whose set file's checksum is sum, from its
 * filters (each read back and checked against its record when s does
 * not hold its bytes), written durably as *name.
 */
static int
write_lookup(struct state *st, const struct crlite_set *s, uint64_t sum,
    char *name, size_t namelen, char *err, size_t errlen)
{
	struct crlc_clubcard *cc[CRLC_CRLITE_FILTERS_MAX] = { NULL };
	uint8_t *own[CRLC_CRLITE_FILTERS_MAX] = { NULL }, *out = NULL;
	const uint8_t *body;
	char rel[CRLITE_NAME_MAX], why[CRLC_CRLITESET_WHY_LEN];
	size_t i, len;
	int ret = -1;

	crlc_crlite_lookup_name(sum, name, namelen);
	for (i = 0; i < s->n; i++) {
		if ((body = s->f[i].body) == NULL &&
		    crlite_file_read(st, &s->f[i], &own[i]) == -1) {
			snprintf(err, errlen, "filter %zu: missing or not the "
			    "file the set names", i);
			goto done;
		}
		if (crlc_clubcard_parse(body != NULL ? body : own[i],
		    (size_t)s->f[i].size, &cc[i], why, sizeof(why)) == -1) {
			snprintf(err, errlen, "filter %zu: %s", i, why);
			goto done;
		}
	}
	if (crlc_crlite_lookup_build((const struct crlc_clubcard *const *)cc,
	    s->n, sum, &out, &len, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "the lookup file: %s", why);
		goto done;
	}
	snprintf(rel, sizeof(rel), "%s/%s", CRLC_CRLITE_DIR, name);
	if (write_file(st, rel, out, len, err, errlen) == -1)
		goto done;
	ret = 0;
done:
	for (i = 0; i < s->n; i++) {
		crlc_clubcard_free(cc[i]);
		free(own[i]);
	}
	free(out);
	return ret;
}

int
crlite_set_install(struct state *st, const struct crlite_set *s,
    char *err, size_t errlen)
{
	uint8_t buf[SET_MAX_LEN], *r;
	char lookup[CRLC_CRLITE_LOOKUP_NAME_LEN];
	size_t i, len;

	if (s->n == 0 || s->n > CRLC_CRLITE_FILTERS_MAX) {
		snprintf(err, errlen, "a set of %zu filters", s->n);
		return -1;
	}
	if (crlite_dir_prepare(st, err, errlen) == -1)
		return -1;
	for (i = 0; i < s->n; i++)
		if (s->f[i].body != NULL &&
		    write_filter(st, &s->f[i], err, errlen) == -1)
			return -1;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, CRLC_CRLITE_MAGIC, CRLC_CRLITE_MAGIC_LEN);
	crlc_put_u32(buf + 8, CRLC_CRLITE_VERSION);
	crlc_put_u32(buf + 12, (uint32_t)s->n);
	crlc_put_u64(buf + 16, (uint64_t)s->installed);
	crlc_put_u64(buf + 24, s->newest);
	crlc_put_u32(buf + 32, s->source);
	for (i = 0; i < s->n; i++) {
		r = buf + CRLC_CRLITE_HDR_LEN + i * CRLC_CRLITE_REC_LEN;
		memcpy(r, s->f[i].hash, CRLC_HASH_LEN);
		crlc_put_u64(r + 32, s->f[i].size);
		r[40] = (uint8_t)s->f[i].kind;
	}
	len = CRLC_CRLITE_HDR_LEN + s->n * CRLC_CRLITE_REC_LEN;
	crlc_put_u64(buf + len, crlc_sum64(buf, len));
	/* the lookup file before the set that names it (its checksum) */
	if (write_lookup(st, s, crlc_get_u64(buf + len), lookup,
	    sizeof(lookup), err, errlen) == -1)
		return -1;
	len += CRLC_CRLITE_TRAILER_LEN;
	if (write_file(st, CRLC_CRLITE_DIR "/" CRLC_CRLITE_SET_NAME, buf, len,
	    err, errlen) == -1)
		return -1;
	remove_superseded(st, s, lookup);
	return 0;
}

void
crlite_set_free(struct crlite_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->f[i].body);
		s->f[i].body = NULL;
	}
}

int
crlite_tally_read(struct state *st, unsigned source,
    struct crlite_tally *t)
{
	char why[ERRLEN], *line, *next;
	unsigned long long a, b, c;
	uint8_t *buf;
	size_t len;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (state_read(st, TALLY_FILE, TALLY_MAX_LEN, &buf, &len, why,
	    sizeof(why)) == -1)
		return -1;
	for (line = (char *)buf; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, crlite_source_name(source),
		    strlen(crlite_source_name(source))) == 0 &&
		    sscanf(line + strlen(crlite_source_name(source)),
		    " %llu %llu %llu", &a, &b, &c) == 3) {
			t->attempt = (int64_t)a;
			t->bytes = b;
			t->total = c;
			ret = 0;
		}
	}
	free(buf);
	return ret;
}

void
crlite_tally_add(struct state *st, unsigned source, uint64_t bytes)
{
	struct crlite_tally t;
	char line[128];
	unsigned k;
	int n;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&text, &len)) == NULL)
		return;
	for (k = CRLC_CRLITE_SRC_REMOTE_SETTINGS; k <= CRLC_CRLITE_SRC_UPKI_DIR;
	    k++) {
		if (crlite_tally_read(st, k, &t) == -1 && k != source)
			continue;
		if (k == source) {
			t.attempt = (int64_t)time(NULL);
			t.bytes = bytes;
			t.total += bytes;
		}
		n = snprintf(line, sizeof(line), "%s %lld %llu %llu\n",
		    crlite_source_name(k), (long long)t.attempt,
		    (unsigned long long)t.bytes, (unsigned long long)t.total);
		fwrite(line, 1, (size_t)n, f);
	}
	/* the crlcache account's only, as the rest of work/ */
	if (fclose(f) == 0 && state_replace(st, TALLY_FILE, text, len,
	    0600) == -1)
		logx(0, "%s/%s: cannot write", state_path(st), TALLY_FILE);
	free(text);
}

int
crlite_info(struct state *st, struct crlite_info *ci)
{
	char why[CRLC_CRLITESET_WHY_LEN];
	struct crlc_crliteset *set = NULL;
	struct crlc_clubcard_info info;
	struct crlc_clubcard *cc;
	uint8_t *body;
	size_t i;
	int r;

	memset(ci, 0, sizeof(*ci));
	if ((r = crlite_set_read(st, &ci->set, ci->why,
	    sizeof(ci->why))) != 0)
		return r;
	ci->usable = 1;
	for (i = 0; i < ci->set.n && ci->usable; i++) {
		if (crlite_file_read(st, &ci->set.f[i], &body) == -1) {
			snprintf(ci->why, sizeof(ci->why), "filter %zu: missing "
			    "or not the file the set names", i);
			ci->usable = 0;
			break;
		}
		if (crlc_clubcard_parse(body, (size_t)ci->set.f[i].size, &cc,
		    why, sizeof(why)) == -1) {
			snprintf(ci->why, sizeof(ci->why), "filter %zu: %s", i,
			    why);
			ci->usable = 0;
		} else if (i == 0) {
			crlc_clubcard_info(cc, &info);
			ci->issuers = info.issuers;
		}
		crlc_clubcard_free(cc);
		free(body);
	}
	/* and as the readers see it: the set with its lookup file */
	if (ci->usable && crlite_set_open(st, &set, why, sizeof(why)) != 0) {
		snprintf(ci->why, sizeof(ci->why), "%s", why);
		ci->usable = 0;
	}
	crlc_crliteset_free(set);
	return 0;
}
