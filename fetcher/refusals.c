/*
 * The refusal spool (<crlcache/refusal.h>): made and pruned after each
 * command that writes the state, shown by `crlcache status --refusals`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Everything in the spool is hostile input: any local user may create a
 * file there and write what it likes in it, and set its mtime to any
 * date (utimensat(2)).  So only the owner and the birth time of a file
 * are believed, which the kernel sets and no owner can change (its
 * status-change time where the filesystem keeps no birth time, which an
 * owner can only bring to now); each line is shown with the account that
 * wrote it, escaped, and no more than CRLC_REFUSAL_MAX bytes of it; no
 * link is followed, no entry but a regular file is opened, and a listing
 * stops at CRLC_REFUSALS_SCAN entries.  The lines shown are taken in
 * turns across writers, so that no user's files crowd out another's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/refusal.h>

#include "fetcher.h"
#include "outfmt.h"
#include "refusals.h"
#include "state.h"

/* One file of the spool, as listed. */
struct refusal {
	int64_t	 when;		/* birth, else status change (spool_entry) */
	uid_t	 uid;
	size_t	 key;		/* refusals_pick()'s: writer, then turn */
	char	 name[NAME_MAX + 1];
};

/*
 * A regular file with the spool's suffix: its owner and time in r.  The
 * time is its birth (statx(2) STATX_BTIME), which no call sets; where the
 * filesystem keeps none, its status change, which every change of the
 * file moves to now and none sets back or ahead.
 */
static int
spool_entry(DIR *d, const struct dirent *de, struct refusal *r)
{
	size_t len = strlen(de->d_name), slen = strlen(CRLC_REFUSAL_SUFFIX);
	struct statx sx;

	if (len <= slen || strcmp(de->d_name + len - slen,
	    CRLC_REFUSAL_SUFFIX) != 0 || statx(dirfd(d), de->d_name,
	    AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_UID |
	    STATX_CTIME | STATX_BTIME, &sx) == -1 ||
	    !(sx.stx_mask & STATX_TYPE) || !S_ISREG(sx.stx_mode) ||
	    !(sx.stx_mask & STATX_UID) || !(sx.stx_mask & STATX_CTIME))
		return -1;
	r->when = (int64_t)(sx.stx_mask & STATX_BTIME ? sx.stx_btime.tv_sec :
	    sx.stx_ctime.tv_sec);
	r->uid = sx.stx_uid;
	memcpy(r->name, de->d_name, len + 1);
	return 0;
}

void
refusals_tend(struct state *st)
{
	const char *base;
	struct refusal r;
	struct dirent *de;
	int64_t now = (int64_t)time(NULL);
	size_t n = 0;
	DIR *d;
	int dfd;

	if ((dfd = state_dirfd(st, CRLC_REFUSALS_DIR, &base)) == -1)
		return;
	/* mkdir's mode passes the umask: the bits are set after. */
	if (mkdirat(dfd, base, 0700) == 0 &&
	    fchmodat(dfd, base, CRLC_REFUSALS_MODE, 0) == -1)
		logx(0, "%s/%s: cannot set mode %o", state_path(st),
		    CRLC_REFUSALS_DIR, CRLC_REFUSALS_MODE);
	/* The spool, listed without following a link. */
	if ((d = state_list(st, CRLC_REFUSALS_DIR)) == NULL)
		return;
	while (n++ < CRLC_REFUSALS_SCAN && (de = readdir(d)) != NULL)
		if (spool_entry(d, de, &r) == 0 &&
		    r.when < now - CRLC_REFUSALS_KEEP)
			(void)unlinkat(dirfd(d), r.name, 0);
	closedir(d);
}

/* Oldest first; the name breaks ties, so that an order is one order. */
static int
cmp_when(const void *a, const void *b)
{
	const struct refusal *x = a, *y = b;

	if (x->when != y->when)
		return (x->when > y->when) - (x->when < y->when);
	return strcmp(x->name, y->name);
}

/* By key, the newest first within one. */
static int
cmp_key(const void *a, const void *b)
{
	const struct refusal *x = a, *y = b;

	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return cmp_when(b, a);
}

/*
 * The CRLC_REFUSALS_SHOWN of v[0..n) that are shown to v[0..), oldest
 * first; their count.  Taken in turns across writers, newest first:
 * every writer's newest before any writer's second, so that a user who
 * writes any number of files, however dated, hides no other's.
 */
static size_t
refusals_pick(struct refusal *v, size_t n)
{
	size_t i;

	if (n > CRLC_REFUSALS_SHOWN) {
		/* Each writer's files together, its newest first... */
		for (i = 0; i < n; i++)
			v[i].key = v[i].uid;
		qsort(v, n, sizeof(*v), cmp_key);
		/* ...then in turns: how many newer ones its writer has. */
		v[0].key = 0;
		for (i = 1; i < n; i++)
			v[i].key = v[i].uid == v[i - 1].uid ? v[i - 1].key + 1 : 0;
		qsort(v, n, sizeof(*v), cmp_key);
		n = CRLC_REFUSALS_SHOWN;
	}
	qsort(v, n, sizeof(*v), cmp_when);
	return n;
}

/* The first line of one file, at most CRLC_REFUSAL_MAX bytes, escaped. */
static char *
refusal_line(DIR *d, const char *name)
{
	char buf[CRLC_REFUSAL_MAX + 1];
	struct stat sb;
	ssize_t n;
	int fd;

	fd = openat(dirfd(d), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (n = read(fd, buf, CRLC_REFUSAL_MAX)) <= 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return safe_text(buf);
}

/* One refusal shown: text, or a JSON object (every string escaped). */
static void
print_one(FILE *out, int json, size_t nth, const struct refusal *r,
    const char *line)
{
	struct passwd *pw = getpwuid(r->uid);
	/* An account name is the administrator's, but no less escaped. */
	char when[32], *user = safe_text(pw != NULL ? pw->pw_name : "?");

	if (!json) {
		format_time(r->when, when, sizeof(when));
		fprintf(out, "refusal %s uid=%lu(%s) %s\n", when,
		    (unsigned long)r->uid, user, line);
	} else {
		fprintf(out, "%s\n  {\"time\": %lld, \"uid\": %lu, \"user\": ",
		    nth > 0 ? "," : "", (long long)r->when,
		    (unsigned long)r->uid);
		if (pw != NULL)
			out_json_str(out, user, strlen(user));
		else
			fputs("null", out);
		fputs(", \"line\": ", out);
		out_json_str(out, line, strlen(line));
		fputc('}', out);
	}
	free(user);
}

int
refusals_print(struct state *st, FILE *out, int json)
{
	struct refusal *v = xcalloc(CRLC_REFUSALS_SCAN, sizeof(*v));
	struct dirent *de;
	char *line;
	size_t n = 0, seen = 0, shown, printed = 0, i;
	int missing;
	DIR *d;

	if ((d = state_list(st, CRLC_REFUSALS_DIR)) == NULL) {
		missing = errno == ENOENT;
		if (json) {
			fputs("[]\n", out);
			logx(missing ? 1 : 0, "no refusals noted: %s/%s %s",
			    state_path(st), CRLC_REFUSALS_DIR, missing ?
			    "is made by the next update" : strerror(errno));
		} else
			fprintf(out, "no refusals noted: %s/%s %s\n",
			    state_path(st), CRLC_REFUSALS_DIR, missing ?
			    "is made by the next update" : strerror(errno));
		free(v);
		return missing ? 0 : -1;
	}
	while (seen++ < CRLC_REFUSALS_SCAN && (de = readdir(d)) != NULL)
		if (spool_entry(d, de, &v[n]) == 0)
			n++;
	shown = refusals_pick(v, n);
	if (n > shown && !json)
		fprintf(out, "refusals: %zu of %zu shown, taken in turns across "
		    "their writers, the newest of each first\n", shown, n);
	if (json)
		fputc('[', out);
	/* Oldest first, as a log reads; the writer is the file's owner. */
	for (i = 0; i < shown; i++)
		if ((line = refusal_line(d, v[i].name)) != NULL) {
			print_one(out, json, printed++, &v[i], line);
			free(line);
		}
	if (json)
		fputs(printed > 0 ? "\n]\n" : "]\n", out);
	else if (n == 0)
		fputs("no refusals noted\n", out);
	closedir(d);
	free(v);
	return ferror(out) ? -1 : 0;
}
