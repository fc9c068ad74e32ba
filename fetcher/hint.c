/*
 * The hint spool: certificates that programs on this host verified and
 * that no CRL in the index covered (provider/hint.c writes them).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * STATE_DIR/hints is mode 1733: every local user can create files in it,
 * so every entry is hostile input.  A hint is taken only when it is a
 * regular file (opened with O_NOFOLLOW | O_NONBLOCK, checked with fstat:
 * no symlink is followed, no FIFO blocks), at most HINT_MAX_SIZE bytes,
 * named by the lowercase hex SHA-256 of its content plus HINT_SUFFIX,
 * and exactly one DER Certificate (RFC 5280 4.1) with nothing after it.
 * What a hint claims is proven later (enrolment.c); here it only has to
 * be well-formed.
 *
 * Draining: each run renames the spool into the private working
 * directory and creates an empty one, so the live spool holds at most
 * what one interval of writers left, however many arrived.  The drained
 * entries are read (at most HINT_TAKE_MAX) and removed (at most
 * HINT_SCAN_MAX per run; a larger flood is finished by the next runs
 * before the spool is swapped again).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509.h>

#include <crlcache/hash.h>

#include "fetcher.h"

#define SPOOL_MODE	CRLC_HINTS_MODE
#define DRAIN_NAME	WORK_NAME "/hints.drain"
#define HINT_MAX_SIZE	CRLC_HINT_MAX
/* Hints proven per run: each costs a signature check and a chain build. */
#define HINT_TAKE_MAX	512
/*
 * Entries looked at and removed per run.  Removing one costs a few
 * microseconds; this bounds a flooded run to well under a second.
 */
#define HINT_SCAN_MAX	50000
#define HEX_NAME_LEN	(2 * CRLC_HASH_LEN)

/* Is name "<64 lowercase hex>.crt"?  The hex goes to want. */
static int
hint_name(const char *name, uint8_t want[CRLC_HASH_LEN])
{
	size_t len = strlen(name), sfx = sizeof(HINT_SUFFIX) - 1;

	return len == HEX_NAME_LEN + sfx &&
	    strcmp(name + HEX_NAME_LEN, HINT_SUFFIX) == 0 &&
	    hex_decode(name, HEX_NAME_LEN, want, CRLC_HASH_LEN) == 0;
}

/* Read one hint; NULL (and why) when it is not a well-formed one. */
static X509 *
hint_read(int dfd, const char *name, const char **why)
{
	uint8_t want[CRLC_HASH_LEN], got[CRLC_HASH_LEN], *buf = NULL;
	const unsigned char *p;
	struct stat sb;
	X509 *x = NULL;
	ssize_t n;
	int fd;

	*why = "not named <sha256>" HINT_SUFFIX;
	if (!hint_name(name, want))
		return NULL;
	*why = "not a regular file";
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		goto done;
	*why = "empty or too large";
	if (sb.st_size <= 0 || sb.st_size > HINT_MAX_SIZE ||
	    (buf = malloc((size_t)sb.st_size + 1)) == NULL)
		goto done;
	/* One byte more than fstat said: a file that grew is refused. */
	*why = "changed while read";
	if ((n = read(fd, buf, (size_t)sb.st_size + 1)) != sb.st_size)
		goto done;
	*why = "content does not match its name";
	crlc_sha256(buf, (size_t)n, got);
	if (memcmp(want, got, sizeof(got)) != 0)
		goto done;
	*why = "not one DER certificate";
	p = buf;
	if ((x = d2i_X509(NULL, &p, n)) != NULL && p != buf + n) {
		X509_free(x);
		x = NULL;
	}
done:
	ERR_clear_error();
	free(buf);
	close(fd);
	return x;
}

/* A fresh, empty spool that every local user can write to. */
static int
spool_create(const char *path)
{
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		logx(0, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* mkdir's mode passes through the umask; the sticky bit must not. */
	if (chmod(path, SPOOL_MODE) == -1) {
		logx(0, "%s: chmod: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
hints_prepare(const char *state_dir)
{
	char spool[PATH_MAX];
	struct stat sb;

	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (lstat(spool, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    (sb.st_mode & 07777) == SPOOL_MODE)
		return 0;
	if (lstat(spool, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
	    unlink(spool) == -1) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	return spool_create(spool);
}

/* Move the live spool aside (nothing to do when there is none). */
static int
spool_swap(const char *state_dir, const char *drain)
{
	char spool[PATH_MAX];
	struct stat sb;

	if (lstat(drain, &sb) == 0)
		return 0;	/* the last run's flood is not finished */
	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (rename(spool, drain) == -1 && errno != ENOENT) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	return spool_create(spool);
}

int
hints_drain(const char *state_dir, STACK_OF(X509) *out, struct hint_tally *tl)
{
	char drain[PATH_MAX];
	const char *why;
	struct dirent *de;
	DIR *d = NULL;
	X509 *x;
	int dfd, more = 0, ret = -1;

	memset(tl, 0, sizeof(*tl));
	snprintf(drain, sizeof(drain), "%s/%s", state_dir, DRAIN_NAME);
	if (spool_swap(state_dir, drain) == -1)
		return -1;
	if ((dfd = open(drain, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (tl->scanned == HINT_SCAN_MAX) {
			more = 1;
			break;
		}
		tl->scanned++;
		if (tl->taken < HINT_TAKE_MAX &&
		    (x = hint_read(dfd, de->d_name, &why)) != NULL) {
			if (sk_X509_push(out, x))
				tl->taken++;
			else
				X509_free(x);
		} else if (tl->taken < HINT_TAKE_MAX) {
			tl->malformed++;
			logx(2, "hint %.80s: refused: %s", de->d_name, why);
		} else
			tl->dropped++;
		/* The sticky bit lets the spool's owner remove anything. */
		if (unlinkat(dfd, de->d_name, 0) == -1 &&
		    unlinkat(dfd, de->d_name, AT_REMOVEDIR) == -1)
			tl->stuck++;
	}
	if (more) {
		logx(1, "hints: more than %d waiting; the rest is removed by "
		    "the next runs", HINT_SCAN_MAX);
	} else if (rmdir(drain) == -1) {
		char junk[PATH_MAX];

		/*
		 * Only what a user made undeletable is left (a directory of
		 * theirs with content): park it, never let it block the spool.
		 */
		snprintf(junk, sizeof(junk), "%s/%s/hints.junk.%lld", state_dir,
		    WORK_NAME, (long long)time(NULL));
		if (rename(drain, junk) == -1)
			goto done;
		logx(1, "hints: %zu entries could not be removed; moved to %s",
		    tl->stuck, junk);
	}
	ret = 0;
done:
	closedir(d);
	return ret;
}
