/*
 * The one way a command reaches the state directory (main.c's table says
 * how each one does): root never opens, creates or follows anything in it
 * on its owner's behalf (LMDB, for one, opens work/lock.mdb
 * O_RDWR|O_CREAT and follows a link planted there).  A command that
 * writes the state runs wholly as its owner; one that reads it reads it
 * in a child running as the owner, and gets only the child's output.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fetcher.h"
#include "privs.h"
#include "state.h"

#define CRLCACHE_USER	"crlcache"
/* The exit code of a child that could not become the state's owner. */
#define CHILD_FAILED	255

/* Become uid/gid for good: no group kept, no way back to root. */
static int
switch_to(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) == -1 || setgid(gid) == -1 ||
	    setuid(uid) == -1) {
		logx(0, "cannot switch to uid %lu: %s", (unsigned long)uid,
		    strerror(errno));
		return -1;
	}
	if (setuid(0) == 0) {
		logx(0, "dropped privileges could be regained; refusing to run");
		return -1;
	}
	return 0;
}

/*
 * Open the state directory c->path as a place (O_PATH): c->pin, or -1
 * with the reason in c->pin_errno.  The path itself is root's choice and
 * may be a link; nothing in the directory is opened here.
 */
static void
pin(struct cmd_ctx *c)
{
	if ((c->pin = open(c->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		c->pin_errno = errno;
}

/*
 * The account a root process acts as inside the state directory (c->pin):
 * the owner of the directory, or, when root owns the directory itself, of
 * the entries in it root would open (a directory root owns holds another
 * account's state when that account owns one of them).  *uid is 0 when
 * root owns all: nothing there belongs to another account.  Its entries
 * are looked at without following (fstatat, AT_SYMLINK_NOFOLLOW).  Two
 * other accounts' entries in one directory: refused.
 */
static int
state_owner(const struct cmd_ctx *c, uid_t *uid, gid_t *gid)
{
	static const char *const names[] = { WORK_NAME, LOCK_NAME, INDEX_NAME,
	    SCOPE_NAME, HINTS_NAME };
	struct passwd *pw;
	struct stat sb, eb;
	uid_t owner;
	gid_t group;
	size_t i;

	if (c->pin == -1 || fstat(c->pin, &sb) == -1) {
		logx(0, "%s: %s", c->path,
		    strerror(c->pin == -1 ? c->pin_errno : errno));
		return -1;
	}
	/*
	 * Any local user can create entries in a world-writable directory,
	 * sticky or not: whose they are says nothing of whose state it is.
	 */
	if (sb.st_mode & S_IWOTH) {
		logx(0, "%s is writable by every user: refusing to take any "
		    "account's state from it (chmod o-w it)", c->path);
		return -1;
	}
	owner = sb.st_uid;
	group = sb.st_gid;
	for (i = 0; sb.st_uid == 0 && i < sizeof(names) / sizeof(*names); i++) {
		if (fstatat(c->pin, names[i], &eb, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno == ENOENT)
				continue;
			logx(0, "%s: cannot tell whose %s is: %s", c->path,
			    names[i], strerror(errno));
			return -1;
		}
		if (eb.st_uid == 0 || eb.st_uid == owner)
			continue;
		if (owner != 0) {
			logx(0, "%s: entries of uid %lu and of uid %lu: "
			    "refusing to guess whose state it is", c->path,
			    (unsigned long)owner, (unsigned long)eb.st_uid);
			return -1;
		}
		owner = eb.st_uid;
		group = eb.st_gid;
	}
	*uid = owner;
	*gid = (pw = getpwuid(owner)) != NULL ? pw->pw_gid : group;
	return 0;
}

/*
 * A command that writes the state, started as root: become the state's
 * owner for the whole run.  A state directory root owns (or none yet) is
 * the crlcache user's, created for it when missing, unless allow_root
 * keeps root in a state that is root's alone; allow_root never works in
 * another account's.
 */
static int
become_owner(struct cmd_ctx *c, int allow_root)
{
	struct passwd *pw;
	uid_t uid = 0;
	gid_t gid = 0;

	if (geteuid() != 0)
		return 0;
	if (c->pin != -1 && state_owner(c, &uid, &gid) == -1)
		return -1;
	if (uid != 0 && allow_root) {
		logx(0, "the state in %s belongs to uid %lu: --allow-root is "
		    "for a state directory root owns; run as that user", c->path,
		    (unsigned long)uid);
		return -1;
	}
	if (uid != 0) {
		logx(2, "running as uid %lu, the owner of %s",
		    (unsigned long)uid, c->path);
		return switch_to(uid, gid);
	}
	if (allow_root)
		return 0;
	if ((pw = getpwnam(CRLCACHE_USER)) == NULL) {
		logx(0, "refusing to run as root: create the '" CRLCACHE_USER
		    "' system user (make install does) or pass --allow-root");
		return -1;
	}
	/* Made now: pinned, and the directory pinned is the one given away. */
	if (mkdir(c->path, 0755) == 0) {
		pin(c);
		if (c->pin == -1 || fchownat(c->pin, "", pw->pw_uid, pw->pw_gid,
		    AT_EMPTY_PATH) == -1) {
			logx(0, "%s: chown: %s", c->path,
			    strerror(c->pin == -1 ? c->pin_errno : errno));
			return -1;
		}
	}
	if (switch_to(pw->pw_uid, pw->pw_gid) == -1)
		return -1;
	logx(2, "running as user " CRLCACHE_USER);
	return 0;
}

int
state_enter(struct cmd_ctx *c, enum state_access access, const char *path,
    int allow_root)
{
	static struct state st;

	c->access = access;
	c->path = path;
	c->pin = -1;
	c->pin_errno = ENOENT;
	c->st = NULL;
	if (access == STATE_NONE)
		return 0;
	pin(c);
	if (access == STATE_WRITES) {
		if (become_owner(c, allow_root) == -1 ||
		    state_open_pinned(&st, c->pin, path) == -1)
			return -1;
		c->st = &st;
	}
	return 0;
}

void
state_leave(struct cmd_ctx *c)
{
	state_close(c->st);
	c->st = NULL;
	if (c->pin != -1)
		close(c->pin);
	c->pin = -1;
}

int
state_index_path(const struct cmd_ctx *c, int must_exist, char *out,
    size_t len)
{
	char real[PATH_MAX];
	const char *dir = c->path;
	int n;

	if (realpath(c->path, real) != NULL)
		dir = real;
	else if (must_exist)
		return -1;
	n = snprintf(out, len, "%s/" INDEX_NAME, dir);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
state_copy(FILE *in, void *arg)
{
	FILE *out = arg;
	char buf[BUFSIZ];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return -1;
	return ferror(in) ? -1 : 0;
}

/*
 * How long root waits for the reader child's next byte, and then for it
 * to exit, before it kills it.  The child runs as the state's owner, the
 * account the trust model treats as hostile, which can stop it (SIGSTOP,
 * ptrace) or have it wait on a lock of its own files (an exclusive lock
 * on work/lock.mdb holds LMDB's opening for ever) and so hang root's
 * check, status or mirror, and any cron job or monitor that runs them.
 * A reader answers in well under a second on the largest states measured
 * (docs/performance.md); time spent writing to root's own stdout, a
 * pager the user left, is not counted.
 */
#define READER_STALL_MS	30000
/*
 * How long root waits for the child in all: every byte restarts the
 * deadline above, so an owner that lets its stopped child run for an
 * instant every few seconds would hold root for as long as the child has
 * output.  Root's waits for the child's output and for its exit count;
 * root's own work (a mirror's writes, its stdout) does not.  Twice the
 * idle deadline, so that a child that stops once is named for that; a
 * mirror of 43 MB (400 files) waits 15 to 80 ms for its reader in all,
 * a status 1 ms.
 */
#define READER_TOTAL_MS	60000
/*
 * Bytes root takes from the child.  The most a sound state sends is a
 * mirror's: each CRL it holds under the URL its index record names, and
 * the complete CRL again under each other URL that fed the same scope (a
 * CA's second distribution point, the base of an applied delta).  Every
 * CRL held is in the working store, which cannot outgrow its map
 * (CRLC_MAP_SIZE: 8 GiB, 1 GiB for a 32-bit process); twice that lets
 * each come under a second URL too.  The states of docs/performance.md
 * hold 168 MB (16,000 CRLs, the Web PKI's shape) and 309 MB of CRLs; a
 * report (check, status) is a small part of its state.
 */
#define READER_MAX_BYTES	(2 * (uint64_t)CRLC_MAP_SIZE)

/* Why root killed the child. */
enum reader_end {
	READER_RUNNING,		/* not killed */
	READER_STALLED,		/* READER_STALL_MS with nothing */
	READER_SLOW,		/* READER_TOTAL_MS waited in all */
	READER_TOO_MUCH		/* more than READER_MAX_BYTES */
};

/* The read end of the child's pipe, read under the deadlines. */
struct reader_pipe {
	int		 fd;
	pid_t		 pid;
	long long	 waited_us;	/* root's waits for the child so far */
	uint64_t	 received;	/* bytes read from it so far */
	enum reader_end	 killed;
};

/* Microseconds since *since. */
static long long
us_since(const struct timespec *since)
{
	struct timespec now;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - since->tv_sec) * 1000000 +
	    (now.tv_nsec - since->tv_nsec) / 1000;
}

/* Kill the child, once, for why. */
static void
reader_kill(struct reader_pipe *rp, enum reader_end why)
{
	if (rp->killed != READER_RUNNING)
		return;
	rp->killed = why;
	(void)kill(rp->pid, SIGKILL);
}

/*
 * Wait up to idle_ms, and no longer than READER_TOTAL_MS allows, for the
 * child: poll(2) on fd (-1: a nap, for its exit), the wait counted.
 * Returns poll's result, or 0 with the child killed when a deadline
 * passed.
 */
static int
reader_wait(struct reader_pipe *rp, int fd, int idle_ms)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	long long left_ms = READER_TOTAL_MS - rp->waited_us / 1000;
	struct timespec t0;
	int ms = left_ms < idle_ms ? (int)left_ms : idle_ms, rc;

	if (ms <= 0) {
		reader_kill(rp, READER_SLOW);
		return 0;
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = poll(&pfd, fd == -1 ? 0 : 1, ms);
	rp->waited_us += us_since(&t0);
	if (rc == 0 && ms == idle_ms && fd != -1)
		reader_kill(rp, READER_STALLED);
	return rc;
}

static ssize_t
reader_pipe_read(void *cookie, char *buf, size_t len)
{
	struct reader_pipe *rp = cookie;
	ssize_t n;
	int rc;

	for (;;) {
		if ((rc = reader_wait(rp, rp->fd, READER_STALL_MS)) == 0 &&
		    rp->killed != READER_RUNNING) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc == -1 && errno != EINTR)
			return -1;
		if (rc != 1 || ((n = read(rp->fd, buf, len)) == -1 &&
		    errno == EINTR))
			continue;
		if (n > 0 && (rp->received += (uint64_t)n) > READER_MAX_BYTES) {
			reader_kill(rp, READER_TOO_MUCH);
			errno = EFBIG;
			return -1;
		}
		return n;
	}
}

static int
reader_pipe_close(void *cookie)
{
	return close(((struct reader_pipe *)cookie)->fd);
}

/*
 * Reap the child, killing it when it has not exited READER_STALL_MS after
 * its output ended, or READER_TOTAL_MS is spent.
 */
static int
reap(struct reader_pipe *rp, int *status)
{
	long long idle_us = rp->waited_us + (long long)READER_STALL_MS * 1000;
	pid_t r;

	while (rp->killed == READER_RUNNING) {
		if ((r = waitpid(rp->pid, status, WNOHANG)) == rp->pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
		if (rp->waited_us >= idle_us)
			reader_kill(rp, READER_STALLED);
		else
			(void)reader_wait(rp, -1, 1);	/* a 1 ms nap */
	}
	while ((r = waitpid(rp->pid, status, 0)) == -1 && errno == EINTR)
		;
	return -1;
}

/* Say why the child reading dir was killed. */
static void
reader_killed_say(const struct reader_pipe *rp, const char *dir)
{
	switch (rp->killed) {
	case READER_RUNNING:
		break;
	case READER_STALLED:
		logx(0, "the process reading %s as its owner sent nothing for "
		    "%d s and was killed: stopped, or held by a lock of that "
		    "account", dir, READER_STALL_MS / 1000);
		break;
	case READER_SLOW:
		logx(0, "the process reading %s as its owner was waited for %d s "
		    "in all and was killed: stopped again and again, or held "
		    "by that account", dir, READER_TOTAL_MS / 1000);
		break;
	case READER_TOO_MUCH:
		logx(0, "the process reading %s as its owner sent more than "
		    "%llu bytes, more than a sound state holds, and was "
		    "killed", dir, (unsigned long long)READER_MAX_BYTES);
		break;
	}
}

/* The child of as_state_owner(): the state's owner from here on. */
static void
reader_child(const struct cmd_ctx *c, uid_t uid, gid_t gid, int fd,
    int to_stdout, int (*reader)(struct state *, FILE *, void *), void *rarg)
{
	struct state st;
	FILE *out = stdout;
	int rc;

	if (uid != 0 && switch_to(uid, gid) == -1)
		_exit(CHILD_FAILED);
	if (to_stdout ? dup2(fd, STDOUT_FILENO) == -1 :
	    (out = fdopen(fd, "w")) == NULL)
		_exit(CHILD_FAILED);
	if (state_open_pinned(&st, c->pin, c->path) == -1)
		_exit(CHILD_FAILED);
	rc = reader(&st, out, rarg);
	state_close(&st);
	if (rc < 0 || rc >= CHILD_FAILED)
		rc = CHILD_FAILED;
	if ((out == stdout ? fflush(out) : fclose(out)) != 0)
		rc = CHILD_FAILED;
	_exit(rc);
}

/* Long: one fork, its pipe and its deadlines, cleaned up on one path. */
int
as_state_owner(const struct cmd_ctx *c, int (*reader)(struct state *st,
    FILE *out, void *arg), void *rarg, int (*consume)(FILE *in, void *arg),
    void *carg)
{
	static const cookie_io_functions_t io = {
		.read = reader_pipe_read,
		.close = reader_pipe_close,
	};
	struct reader_pipe rp = { -1, -1, 0, 0, READER_RUNNING };
	int p[2], status, rc, crc, to_stdout = consume == NULL;
	uid_t uid = 0;
	gid_t gid = 0;
	FILE *in;

	if (c->access != STATE_READS) {
		logx(0, "internal error: a command reads the state it did "
		    "not declare it reads");
		return -1;
	}
	/* uid stays 0 where there is no account to switch to. */
	if (geteuid() == 0 && state_owner(c, &uid, &gid) == -1)
		return -1;
	/* No switch to make and nothing to hand over: no process either. */
	if (uid == 0 && consume == NULL) {
		struct state st;

		if (state_open_pinned(&st, c->pin, c->path) == -1)
			return -1;
		rc = reader(&st, stdout, rarg);
		state_close(&st);
		return rc < 0 || rc >= CHILD_FAILED ? -1 : rc;
	}
	/* The child's stdout, too, comes through root, under the deadlines. */
	if (to_stdout) {
		consume = state_copy;
		carg = stdout;
	}
	fflush(NULL);		/* nothing buffered is written twice */
	if (pipe2(p, O_CLOEXEC) == -1)
		p[0] = p[1] = -1;
	if (p[0] == -1 || (rp.pid = fork()) == -1) {
		logx(0, "cannot start a process to read %s: %s",
		    c->path, strerror(errno));
		if (p[0] != -1) {
			close(p[0]);
			close(p[1]);
		}
		return -1;
	}
	if (rp.pid == 0) {
		close(p[0]);
		reader_child(c, uid, gid, p[1], to_stdout, reader, rarg);
	}
	close(p[1]);
	rp.fd = p[0];
	if ((in = fopencookie(&rp, "r", io)) == NULL) {
		close(p[0]);
		(void)kill(rp.pid, SIGKILL);
		crc = -1;
	} else {
		crc = consume(in, carg);
		fclose(in);
	}
	if (reap(&rp, &status) == -1) {
		reader_killed_say(&rp, c->path);
		return -1;
	}
	if (crc == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == CHILD_FAILED)
		return -1;
	return WEXITSTATUS(status);
}
