/*
 * Run the fetcher unprivileged: it parses CRLs from the network.  And
 * read the state directory as its owner: root never opens, creates or
 * follows anything in it on that account's behalf (LMDB, for one, opens
 * lock.mdb O_RDWR|O_CREAT and follows a link planted there).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fetcher.h"

#define CRLCACHE_USER	"crlcache"
/* The exit code of a child that could not become the state's owner. */
#define CHILD_FAILED	255

/*
 * Started as root: switch to the crlcache user (creating the state
 * directory for it if needed), or, with allow_root, go on as root in a
 * state directory root owns.  Returns 0 when it is safe to go on.
 */
int
drop_privileges(const char *state_dir, int allow_root)
{
	struct passwd *pw;
	struct stat sb;

	if (geteuid() != 0)
		return 0;
	if (allow_root) {
		/* Root's own state only: never work in another account's. */
		if (stat(state_dir, &sb) == 0 && sb.st_uid != 0) {
			logx(0, "%s belongs to uid %lu: --allow-root is for a "
			    "state directory root owns; run as that user",
			    state_dir, (unsigned long)sb.st_uid);
			return -1;
		}
		return 0;
	}
	if ((pw = getpwnam(CRLCACHE_USER)) == NULL) {
		logx(0, "refusing to run as root: create the '" CRLCACHE_USER
		    "' system user (make install does) or pass --allow-root");
		return -1;
	}
	if (mkdir(state_dir, 0755) == 0 &&
	    chown(state_dir, pw->pw_uid, pw->pw_gid) == -1) {
		logx(0, "%s: chown: %s", state_dir, strerror(errno));
		return -1;
	}
	if (setgroups(0, NULL) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		logx(0, "cannot switch to user " CRLCACHE_USER ": %s",
		    strerror(errno));
		return -1;
	}
	if (setuid(0) == 0) {
		logx(0, "dropped privileges could be regained; refusing to run");
		return -1;
	}
	logx(2, "running as user " CRLCACHE_USER);
	return 0;
}

/*
 * The account a root process acts as inside the state directory: the
 * owner of the directory, or of its working data when root owns the
 * directory itself.  *uid is 0 when root owns both: nothing there belongs
 * to another account.  Only the state directory (root's choice) and the
 * name "work" in it are looked at, and the latter without following it.
 */
static int
state_owner(const char *state_dir, uid_t *uid, gid_t *gid)
{
	char work[PATH_MAX];
	struct passwd *pw;
	struct stat sb;

	if (stat(state_dir, &sb) == -1) {
		logx(0, "%s: %s", state_dir, strerror(errno));
		return -1;
	}
	if (sb.st_uid == 0) {
		snprintf(work, sizeof(work), "%s/%s", state_dir, WORK_NAME);
		if (lstat(work, &sb) == -1) {
			if (errno != ENOENT) {
				logx(0, "%s: %s", work, strerror(errno));
				return -1;
			}
			sb.st_uid = 0;
		}
	}
	*uid = sb.st_uid;
	*gid = (pw = getpwuid(sb.st_uid)) != NULL ? pw->pw_gid : sb.st_gid;
	return 0;
}

/* Copy the child's output to out until it closes the pipe. */
static void
copy_out(int fd, FILE *out)
{
	char buf[BUFSIZ];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		fwrite(buf, 1, (size_t)n, out);
	}
}

int
as_state_owner(const char *state_dir, int (*fn)(FILE *out, void *arg),
    void *arg, FILE *out)
{
	int p[2], status, rc;
	uid_t uid = 0;
	gid_t gid = 0;
	pid_t pid;
	FILE *f;

	if (geteuid() != 0)
		return fn(out, arg);
	if (state_owner(state_dir, &uid, &gid) == -1)
		return -1;
	if (uid == 0)
		return fn(out, arg);
	fflush(NULL);		/* nothing buffered is written twice */
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		logx(0, "cannot start a process as uid %lu: %s",
		    (unsigned long)uid, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		if (setgroups(0, NULL) == -1 || setgid(gid) == -1 ||
		    setuid(uid) == -1 || setuid(0) == 0) {
			logx(0, "cannot switch to uid %lu: %s",
			    (unsigned long)uid, strerror(errno));
			_exit(CHILD_FAILED);
		}
		if ((f = fdopen(p[1], "w")) == NULL)
			_exit(CHILD_FAILED);
		rc = fn(f, arg);
		_exit(fclose(f) == 0 ? rc : CHILD_FAILED);
	}
	close(p[1]);
	copy_out(p[0], out);
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) != CHILD_FAILED ?
	    WEXITSTATUS(status) : -1;
}
