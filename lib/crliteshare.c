/*
 * The shared lookup file (<crlcache/crliteshare.h>): a reader's request
 * and checks, and the sharer's sealed copy and answer.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/crliteshare.h>
#include <crlcache/format.h>
#include <crlcache/statefile.h>

/* The seals a reader needs: no truncation (SIGBUS), no change. */
#define SEALS_NEEDED	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)
/*
 * Descriptors an answer may carry that are read (and closed): one is
 * right; the kernel closes those past the room (MSG_CTRUNC).
 */
#define FDS_ROOM	4
/* The sharer copies the lookup file this many bytes at a time. */
#define COPY_LEN	65536

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is readable, at most until end (ms): 0, or -1. */
static int
wait_in(int fd, int64_t end)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t left;
	int r;

	for (;;) {
		if ((left = end - now_ms()) < 0)
			left = 0;
		r = poll(&p, 1, (int)left);
		if (r == 1 && (p.revents & POLLIN))
			return 0;
		if (r == 0 || (r == -1 && errno != EINTR) || r == 1)
			return -1;
	}
}

/*
 * One packet of CRLC_SHARE_MSG_LEN on fd, and its descriptors in fds
 * (*nfds): its checksum, -1 when it is not a whole message.
 */
static int
recv_msg(int fd, uint64_t *sum, int *fds, size_t *nfds)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(FDS_ROOM * sizeof(int))];
	} ctl;
	uint8_t b[CRLC_SHARE_MSG_LEN + 1];
	struct iovec iov = { b, sizeof(b) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	size_t k;
	ssize_t r;

	*nfds = 0;
	if (fds != NULL) {
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
	}
	do
		r = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (r == -1 && errno == EINTR);
	for (c = fds != NULL && r >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c != NULL;
	    c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) &&
			    *nfds < FDS_ROOM; k++)
				memcpy(&fds[(*nfds)++], CMSG_DATA(c) +
				    k * sizeof(int), sizeof(int));
	if (r != CRLC_SHARE_MSG_LEN || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    memcmp(b, CRLC_SHARE_MAGIC, CRLC_SHARE_MAGIC_LEN) != 0)
		return -1;
	*sum = crlc_get_u64(b + CRLC_SHARE_MAGIC_LEN);
	return 0;
}

/* One message on fd, with the descriptor mfd unless it is -1. */
static int
send_msg(int fd, uint64_t sum, int mfd)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	uint8_t b[CRLC_SHARE_MSG_LEN];
	struct iovec iov = { b, sizeof(b) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	memcpy(b, CRLC_SHARE_MAGIC, CRLC_SHARE_MAGIC_LEN);
	crlc_put_u64(b + CRLC_SHARE_MAGIC_LEN, sum);
	if (mfd != -1) {
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &mfd, sizeof(int));
	}
	return sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    CRLC_SHARE_MSG_LEN ? 0 : -1;
}

/* A non-blocking connection to the socket at path, or -1 with why. */
static int
connect_to(const char *path, char *why, size_t whylen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return crlc_refuse(why, whylen, "socket path too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return crlc_refuse(why, whylen, "socket: %s", strerror(errno));
	/* a full backlog is EAGAIN, never a wait */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		crlc_refuse(why, whylen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
crlc_share_ask(const char *sock, uint64_t sum, uid_t owner, int wait_ms,
    char *why, size_t whylen)
{
	int64_t end = now_ms() + wait_ms;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fds[FDS_ROOM], fd, ret = -1;
	uint64_t got;
	size_t k, nfds = 0;

	if ((fd = connect_to(sock, why, whylen)) == -1)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1 ||
	    (cred.uid != owner && cred.uid != 0)) {
		crlc_refuse(why, whylen, "%s: served by uid %ld, not the "
		    "state's owner (%ld) or root", sock, clen == sizeof(cred) ?
		    (long)cred.uid : -1L, (long)owner);
		goto done;
	}
	if (send_msg(fd, sum, -1) == -1) {
		crlc_refuse(why, whylen, "%s: %s", sock, strerror(errno));
		goto done;
	}
	if (wait_in(fd, end) == -1) {
		crlc_refuse(why, whylen, "%s: no answer within %d ms", sock,
		    wait_ms);
		goto done;
	}
	if (recv_msg(fd, &got, fds, &nfds) == -1 || nfds != 1 || got != sum) {
		crlc_refuse(why, whylen, "%s: no lookup file of this set in the "
		    "answer", sock);
		goto done;
	}
	ret = fds[0];
	nfds = 0;
done:
	for (k = 0; k < nfds; k++)
		close(fds[k]);
	close(fd);
	return ret;
}

int
crlc_share_check(int fd, uint64_t len, char *why, size_t whylen)
{
	struct stat sb;
	int seals;
	off_t hole;

	if ((seals = fcntl(fd, F_GET_SEALS)) == -1 ||
	    (seals & SEALS_NEEDED) != SEALS_NEEDED)
		return crlc_refuse(why, whylen, "the shared copy can still "
		    "change (seals %d)", seals);
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size != len || len > CRLC_SHARE_MAX)
		return crlc_refuse(why, whylen, "the shared copy is not the "
		    "lookup file's %llu bytes", (unsigned long long)len);
	if ((hole = lseek(fd, 0, SEEK_HOLE)) != (off_t)len)
		return crlc_refuse(why, whylen, "the shared copy has a hole "
		    "at %lld", (long long)hole);
	return 0;
}

int
crlc_share_memfd(int fd, uint64_t len, char *why, size_t whylen)
{
	uint8_t buf[COPY_LEN];
	uint64_t off = 0;
	ssize_t r;
	int mfd, ret = -1;

	if (len > CRLC_SHARE_MAX)
		return crlc_refuse(why, whylen, "%llu bytes, more than %llu",
		    (unsigned long long)len, (unsigned long long)CRLC_SHARE_MAX);
	if ((mfd = memfd_create("crlcache-lookup", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		return crlc_refuse(why, whylen, "memfd_create: %s",
		    strerror(errno));
	/* written whole, not ftruncate'd: no hole a reader would fill */
	while (off < len) {
		r = pread(fd, buf, len - off < COPY_LEN ? (size_t)(len - off) :
		    COPY_LEN, (off_t)off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0 || write(mfd, buf, (size_t)r) != r) {
			crlc_refuse(why, whylen, "copied %llu of %llu bytes",
			    (unsigned long long)off, (unsigned long long)len);
			goto done;
		}
		off += (uint64_t)r;
	}
	if (fcntl(mfd, F_ADD_SEALS, SEALS_NEEDED | F_SEAL_SEAL) == -1) {
		crlc_refuse(why, whylen, "seals: %s", strerror(errno));
		goto done;
	}
	ret = mfd;
	mfd = -1;
done:
	if (mfd != -1)
		close(mfd);
	return ret;
}

int
crlc_share_request(int cfd, int wait_ms, uint64_t *want)
{
	size_t nfds;

	if (wait_in(cfd, now_ms() + wait_ms) == -1)
		return -1;
	return recv_msg(cfd, want, NULL, &nfds);
}

int
crlc_share_reply(int cfd, int mfd, uint64_t sum)
{
	return send_msg(cfd, mfd == -1 ? 0 : sum, mfd);
}
