/*
 * Test helper: a private scratch directory, $TMPDIR/NAME.XXXXXX (/tmp when
 * TMPDIR is unset or empty, as mktemp(1) does), removed with all it holds
 * when the test exits, whether it passes or fails (exit() or a return
 * from main; a crash leaves it for the post-mortem).  A build daemon may
 * point TMPDIR at its own directory, and a failed run must leave nothing
 * behind in the shared /tmp.  One directory a test; exits 2 when it
 * cannot be made.
 */
#ifndef CRLCACHE_TEST_TMPDIR_H
#define CRLCACHE_TEST_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The directory's path: the tests' path buffers (300 bytes and more) hold
   it and the names they put in it. */
#define TMPDIR_PATH_MAX	200
/* nftw's open directories at once: the scratch trees are two levels deep. */
#define TMPDIR_FTW_FDS	16

static char tmpdir_path[TMPDIR_PATH_MAX];

static int
tmpdir_unlink(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) != 0)
		perror(path);
	return 0;	/* remove what can be removed */
}

static void
tmpdir_remove(void)
{
	nftw(tmpdir_path, tmpdir_unlink, TMPDIR_FTW_FDS, FTW_DEPTH | FTW_PHYS);
}

static const char *
tmpdir_make(const char *name)
{
	const char *base = getenv("TMPDIR");

	if (base == NULL || *base == '\0')
		base = "/tmp";
	if ((size_t)snprintf(tmpdir_path, sizeof(tmpdir_path), "%s/%s.XXXXXX",
	    base, name) >= sizeof(tmpdir_path) ||
	    mkdtemp(tmpdir_path) == NULL || atexit(tmpdir_remove) != 0) {
		perror(tmpdir_path);
		exit(2);
	}
	return tmpdir_path;
}

#endif /* CRLCACHE_TEST_TMPDIR_H */
