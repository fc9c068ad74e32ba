/*
 * crlcache share: hand the installed CRLite set's lookup file, as one
 * sealed memfd, to every process that asks (<crlcache/crliteshare.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Runs as the state's owner (systemd's crlcache-share.service, User=),
 * reading the state as STATE_READS commands do; listens on the socket
 * systemd passes (sd_listen_fds(3): LISTEN_PID, LISTEN_FDS, descriptor
 * 3) or on --socket PATH, bound here.  One copy per set: the memfd is
 * made at the start and when the set in force changes (looked at every
 * SHARE_RECHECK_MS, and when a request names another set), and every
 * request gets the same one, so that a local user asking in a loop
 * costs a descriptor passed, never a copy.  A copy takes some
 * milliseconds (20 MB): the readers that ask meanwhile read the file.  The sharer maps the
 * copy itself, so that each page is mapped at least twice once a reader
 * maps it: shared memory in every reader's accounting (smaps Shared_*),
 * charged to the sharer that wrote it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/crliteshare.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>

#include "cmd.h"
#include "crlitedir.h"
#include "fetcher.h"
#include "privs.h"
#include "state.h"

/* sd_listen_fds(3): the first descriptor passed. */
#define LISTEN_FDS_START	3
/*
 * With no request for this long, the sharer exits: systemd starts it
 * again at the next connection; the readers hold their mappings.
 */
#define SHARE_IDLE_MS		(10 * 60 * 1000)
/*
 * How often the set in force is looked at (a read of its set file), so
 * that a new set is copied before readers ask for it: `update` installs
 * one at most hourly, and readers look again every CRLC_RECHECK_MS.
 */
#define SHARE_RECHECK_MS	1000
/*
 * Answers a second at most: a busy host starts a few hundred programs
 * a second; past this, connections are closed unanswered (the readers
 * read the file) until the next second.
 */
#define SHARE_PER_SECOND	1000
#define SHARE_BACKLOG		64

/* The copy handed out. */
struct shared {
	uint64_t	 sum;		/* of its set; 0: none */
	int		 fd;		/* the sealed memfd, or -1 */
	void		*map;		/* its mapping, kept */
	size_t		 len;
	uint64_t	 last_why;	/* the last failure said */
};

struct share_args {
	const char	*socket;	/* NULL: the one systemd passed */
};

/* The socket systemd passed, or -1 when none was. */
static int
listen_inherited(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int type;
	socklen_t len = sizeof(type);

	if (pid == NULL || fds == NULL || strtol(pid, NULL, 10) != getpid())
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (strcmp(fds, "1") != 0 || getsockopt(LISTEN_FDS_START, SOL_SOCKET,
	    SO_TYPE, &type, &len) == -1 || type != SOCK_SEQPACKET) {
		logx(0, "share: systemd passed no single SOCK_SEQPACKET socket "
		    "(ListenSequentialPacket= in crlcache-share.socket)");
		return -1;
	}
	if (fcntl(LISTEN_FDS_START, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(LISTEN_FDS_START, F_SETFL, O_NONBLOCK) == -1)
		return -1;
	return LISTEN_FDS_START;
}

/* A socket bound at path (a socket left there is replaced), or -1. */
static int
listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat sb;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		logx(0, "share: %s: socket path too long", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &sb) == 0 && S_ISSOCK(sb.st_mode))
		(void)unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    chmod(path, 0666) == -1 || listen(fd, SHARE_BACKLOG) == -1) {
		logx(0, "share: %s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

static void
shared_drop(struct shared *sh)
{
	if (sh->map != NULL)
		munmap(sh->map, sh->len);
	if (sh->fd != -1)
		close(sh->fd);
	sh->map = NULL;
	sh->fd = -1;
	sh->sum = 0;
}

/* Say a failure once, until another comes. */
static void
shared_fail(struct shared *sh, const char *why)
{
	uint64_t fp = crlc_sum64(why, strlen(why));

	if (fp != sh->last_why)
		logx(0, "share: %s; readers read the lookup file themselves",
		    why);
	sh->last_why = fp;
}

/*
 * A sealed copy of the lookup file of set, checked to be its (magic,
 * the set's checksum, its length), into sh: 0, or -1 with why.
 */
static int
shared_make(struct state *st, const struct crlc_crliteset_file *set,
    struct shared *sh, char *why, size_t whylen)
{
	char name[STATE_NAME_MAX], lname[CRLC_CRLITE_LOOKUP_NAME_LEN];
	uint8_t h[CRLC_CRLITE_LOOKUP_HDR_LEN];
	struct stat sb;
	void *map = MAP_FAILED;
	int fd, mfd = -1, ret = -1;

	crlc_crlite_lookup_name(set->sum, lname, sizeof(lname));
	snprintf(name, sizeof(name), "%s/%s", CRLC_CRLITE_DIR, lname);
	if ((fd = state_open_file(st, name, &sb)) == -1) {
		snprintf(why, whylen, "%s: %s", name, strerror(errno));
		return -1;
	}
	if ((mfd = crlc_share_memfd(fd, (uint64_t)sb.st_size, why,
	    whylen)) == -1)
		goto done;
	if (pread(mfd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, CRLC_CRLITE_LOOKUP_MAGIC, CRLC_CRLITE_MAGIC_LEN) != 0 ||
	    crlc_get_u64(h + 16) != set->sum ||
	    crlc_get_u64(h + 32) != (uint64_t)sb.st_size) {
		snprintf(why, whylen, "%s: not the lookup file of the set in "
		    "force", name);
		goto done;
	}
	if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED |
	    MAP_POPULATE, mfd, 0)) == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		goto done;
	}
	shared_drop(sh);
	sh->sum = set->sum;
	sh->fd = mfd;
	sh->map = map;
	sh->len = (size_t)sb.st_size;
	mfd = -1;
	ret = 0;
	logx(2, "share: %s copied (%lld bytes)", name, (long long)sb.st_size);
done:
	if (mfd != -1)
		close(mfd);
	close(fd);
	return ret;
}

/* The copy of the set in force now; none when it cannot be made. */
static void
shared_refresh(struct state *st, struct shared *sh)
{
	static struct crlc_crliteset_file set;
	char why[CRLC_CRLITESET_WHY_LEN];
	int r;

	if ((r = crlite_set_file(st, &set, why, sizeof(why))) == 1) {
		shared_drop(sh);
		return;
	}
	if (r == 0 && set.sum == sh->sum)
		return;
	shared_drop(sh);
	if (r == -1 || shared_make(st, &set, sh, why, sizeof(why)) == -1)
		shared_fail(sh, why);
	else
		sh->last_why = 0;
}

/* One connection: its request answered, or dropped. */
static void
serve_one(struct state *st, struct shared *sh, int cfd)
{
	uint64_t want;

	if (crlc_share_request(cfd, CRLC_SHARE_WAIT_MS, &want) == -1)
		return;
	if (want != sh->sum)
		shared_refresh(st, sh);
	(void)crlc_share_reply(cfd, sh->fd, sh->sum);
	logx(2, "share: asked for %016llx, passed %016llx",
	    (unsigned long long)want, (unsigned long long)sh->sum);
}

/* The reader (as_state_owner): serve until idle. */
static int
share_serve(struct state *st, FILE *out, void *arg)
{
	const struct share_args *a = arg;
	struct shared sh = { 0, -1, NULL, 0, 0 };
	struct pollfd p = { .events = POLLIN };
	time_t second = 0, now, looked, asked;
	unsigned served = 0;
	int cfd, r;

	(void)out;
	if ((p.fd = a->socket != NULL ? listen_at(a->socket) :
	    listen_inherited()) == -1) {
		if (a->socket == NULL)
			logx(0, "share: no socket: give --socket PATH, or let "
			    "systemd pass one (crlcache-share.socket)");
		return 1;
	}
	shared_refresh(st, &sh);
	looked = asked = time(NULL);
	logx(2, "share: listening");
	for (;;) {
		if ((r = poll(&p, 1, SHARE_RECHECK_MS)) == -1 && errno != EINTR)
			break;
		now = time(NULL);
		if (r == 1 && (cfd = accept4(p.fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC)) != -1) {
			if (now != second) {
				second = now;
				served = 0;
			}
			if (++served <= SHARE_PER_SECOND)
				serve_one(st, &sh, cfd);
			close(cfd);
			asked = now;
		}
		if ((now - asked) * 1000 >= SHARE_IDLE_MS)
			break;
		if ((now - looked) * 1000 >= SHARE_RECHECK_MS) {
			shared_refresh(st, &sh);
			looked = now;
		}
	}
	logx(2, "share: idle, exiting");
	shared_drop(&sh);
	close(p.fd);
	if (a->socket != NULL)
		(void)unlink(a->socket);
	return 0;
}

int
cmd_share(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct share_args a = { NULL };
	struct stat sb;
	int ch;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch != 'S') {
			fputs("usage: crlcache share [--socket PATH]\n", stderr);
			return 4;
		}
		a.socket = optarg;
	}
	if (optind != argc) {
		fputs("usage: crlcache share [--socket PATH]\n", stderr);
		return 4;
	}
	/*
	 * Root reading another account's state would read it in a child
	 * under as_state_owner()'s deadlines, made for short commands:
	 * the sharer runs as that account instead.
	 */
	if (geteuid() == 0 && (c->pin == -1 || fstat(c->pin, &sb) == -1 ||
	    sb.st_uid != 0)) {
		logx(0, "share: run it as the owner of %s (User= in "
		    "crlcache-share.service), not as root", c->path);
		return 4;
	}
	return as_state_owner(c, share_serve, &a, NULL, NULL) == 0 ? 0 : 1;
}
