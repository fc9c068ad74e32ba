/*
 * Hints: a verified certificate that no CRL in the index covers, left in
 * a spool for the fetcher, which proves it and enrols its issuer
 * (DESIGN 4, "Installed means protected").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * CONTRACT WITH THE FETCHER
 *	The spool is the directory HINTS_DIR next to the index file, mode
 *	3733 (setgid, sticky, nobody but its owner may list it), owned by
 *	the index's owner (the crlcache account), created by the fetcher.
 *	One file per certificate: its DER, under a name of random hex
 *	(HINT_RAND octets) followed by HINT_SUFFIX, mode 0640.  The setgid
 *	bit gives the file the spool's group (the fetcher's), so the fetcher
 *	reads it and no other user does.  <crlcache/hint.h> has the whole
 *	contract.
 *
 * WHY SO CAREFUL
 *	This runs inside every OpenSSL program, root daemons included, and
 *	writes into a directory that every local user can write to and that
 *	the network-facing crlcache account controls (DESIGN 8).  So it
 *	follows no symlink (directory and file are opened O_NOFOLLOW), never
 *	opens an existing name (O_CREAT | O_EXCL: no planted file, FIFO or
 *	hard link is ever written) and writes once.  The directory is opened
 *	O_PATH: a 3733 directory is not readable by the users who create
 *	files in it, so O_RDONLY would fail for everybody but root and its
 *	owner.  A spool is used only when the index's owner owns it (a local
 *	user who made "hints" first in a shared state directory would read
 *	what root's programs verify), when neither group nor others may list
 *	it and when it is setgid (else the file's group would be the
 *	writer's).  The name is random and fresh for each hint: another user
 *	can neither test whether a certificate was hinted nor take the name
 *	first; a name that exists is never waited for, a new one is drawn.
 *
 * WHY SO QUIET
 *	It runs in the middle of a handshake.  Any failure drops the hint
 *	without a word and errno is left as it was: a sandboxed or
 *	unprivileged program, a host without the fetcher, a full disk give
 *	no hint and no other difference.  One is told to the caller, which
 *	says it once: a spool on a read-only filesystem (a container that
 *	mounts the host's state read-only), where no hint is ever left.  The checks of the spool and the
 *	random name cost syscalls on this path only: a hint is left once per
 *	issuer and process, never on the common, covered path.
 *
 * WHAT IS WRITTEN
 *	The signature check holds the TBSCertificate and the signature
 *	value.  RFC 5280 4.1.1.2 requires the Certificate's
 *	signatureAlgorithm to be identical to the TBS's signature field
 *	(OpenSSL's X509_verify refuses a certificate where they differ), so
 *	the certificate is rebuilt as it was sent:
 *	    SEQUENCE { tbsCertificate, signatureAlgorithm,
 *	               BIT STRING { 00 (no unused bits), signature value } }
 *	in five pieces for one writev(2): nothing is copied or allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <crlcache/hex.h>
#include <crlcache/hint.h>

#include "prov.h"

#define HINTS_DIR	CRLC_HINTS_DIR
#define HINT_SUFFIX	CRLC_HINT_SUFFIX
#define HINT_RAND	CRLC_HINT_RAND
/*
 * Read by the spool's group (the fetcher's, through the setgid bit),
 * never by other users: a hint says what this user's programs verified.
 */
#define HINT_MODE	CRLC_HINT_MODE
/*
 * Names drawn for one hint.  128 random bits do not collide by chance:
 * a name that exists was planted or guessed, and the next draw is as
 * unguessable.  A few draws, so that no spool can make a program loop.
 */
#define HINT_NAME_TRIES	4
/*
 * Longest signature value a certificate is rebuilt around.  An RSA
 * signature is as long as the modulus, and OpenSSL verifies moduli of
 * up to 16384 bits (OPENSSL_RSA_MAX_MODULUS_BITS): 2048 octets.  ECDSA
 * and EdDSA signatures are far shorter.
 */
#define HINT_SIG_MAX	2048

/* X.690 8.9, 8.6: the two DER tags the rebuilt Certificate adds. */
#define DER_SEQUENCE	0x30
#define DER_BIT_STRING	0x03
/*
 * A DER header: tag, 0x80 | n, n length octets.  With the TBS capped by
 * sig.c (CAPTURE_MAX, 64 KiB) and the signature by HINT_SIG_MAX, every
 * length is below 2^24: at most 3 length octets.
 */
#define DER_LEN_LIMIT	((size_t)1 << 24)
#define DER_HDR_MAX	5

enum { PIECE_SEQ, PIECE_TBS, PIECE_ALG, PIECE_BITS, PIECE_SIG, PIECES };

/* The DER Certificate, as pieces for writev(2). */
struct cert_der {
	uint8_t		seq[DER_HDR_MAX];	/* Certificate header */
	uint8_t		bits[DER_HDR_MAX + 1];	/* BIT STRING header, 00 */
	struct iovec	iov[PIECES];
	size_t		len;			/* sum of the pieces */
};

/* Write the header of a DER element into out; its size, 0 if too long. */
static size_t
der_header(uint8_t out[DER_HDR_MAX], uint8_t tag, size_t len)
{
	size_t n, i;

	if (len >= DER_LEN_LIMIT)
		return 0;
	out[0] = tag;
	if (len < 0x80) {
		out[1] = (uint8_t)len;
		return 2;
	}
	n = len > 0xffff ? 3 : len > 0xff ? 2 : 1;
	out[1] = (uint8_t)(0x80 | n);
	for (i = 0; i < n; i++)
		out[2 + i] = (uint8_t)(len >> (8 * (n - 1 - i)));
	return 2 + n;
}

static void
piece(struct iovec *iov, const void *p, size_t len)
{
	iov->iov_base = (void *)p;
	iov->iov_len = len;
}

/* Lay out the Certificate; -1 when a part is empty or too long. */
static int
cert_der(struct cert_der *c, const struct crlc_span *tbs,
    const struct crlc_span *sigalg, const struct crlc_span *sig)
{
	size_t nbits, nseq, body;

	if (tbs->len == 0 || sigalg->len == 0 || sig->len == 0 ||
	    sig->len > HINT_SIG_MAX)
		return -1;
	if ((nbits = der_header(c->bits, DER_BIT_STRING, 1 + sig->len)) == 0)
		return -1;
	c->bits[nbits++] = 0;	/* unused bits: signatures are octets */
	body = tbs->len + sigalg->len + nbits + sig->len;
	if ((nseq = der_header(c->seq, DER_SEQUENCE, body)) == 0)
		return -1;
	piece(&c->iov[PIECE_SEQ], c->seq, nseq);
	piece(&c->iov[PIECE_TBS], tbs->p, tbs->len);
	piece(&c->iov[PIECE_ALG], sigalg->p, sigalg->len);
	piece(&c->iov[PIECE_BITS], c->bits, nbits);
	piece(&c->iov[PIECE_SIG], sig->p, sig->len);
	c->len = nseq + body;
	return 0;
}

/* "<random hex><suffix>"; -1 when the kernel has no randomness to give. */
static int
spool_name(char name[CRLC_SPOOL_NAME_MAX], const char *suffix)
{
	uint8_t r[HINT_RAND];

	/* GRND_NONBLOCK: early at boot, nothing left rather than a stall. */
	if (strlen(suffix) >= CRLC_SPOOL_NAME_MAX - 2 * HINT_RAND ||
	    getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		return -1;
	crlc_hex_encode(r, HINT_RAND, name, 0);
	memcpy(name + 2 * HINT_RAND, suffix, strlen(suffix) + 1);
	return 0;
}

/*
 * RLIMIT_FSIZE: a write that starts at the limit raises SIGXFSZ, which
 * kills by default, and one that crosses it is cut short.  A program
 * held to files smaller than the certificate gets no hint.
 */
static int
fits_rlimit(size_t len)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
	    (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= len);
}

/*
 * The spool directory: never through a symlink, owned by the index's
 * owner, never listable by others, setgid.  A program running as the
 * spool's owner leaves nothing: that account runs the fetcher, which
 * proves the certificates it checks itself (a hint from it would start
 * a second run for an issuer just learned).  Root is not such an
 * account: it runs every other program too, on the states it owns.
 */
int
crlc_spool_open(const char *spool, const char *index)
{
	struct stat sb, ib;
	int dfd;

	if ((dfd = open(spool, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(dfd, &sb) == -1 || stat(index, &ib) == -1 ||
	    sb.st_uid != ib.st_uid ||
	    (sb.st_uid != 0 && sb.st_uid == geteuid()) ||
	    (sb.st_mode & (S_IRGRP | S_IROTH)) != 0 ||
	    (sb.st_mode & S_ISGID) == 0) {
		close(dfd);
		return -1;
	}
	return dfd;
}

int
crlc_spool_create(int dfd, const char *suffix, mode_t mode, size_t len,
    char name[CRLC_SPOOL_NAME_MAX])
{
	int fd = -1, tries;

	if (!fits_rlimit(len)) {
		errno = EFBIG;
		return -1;
	}
	for (tries = 0; fd == -1 && tries < HINT_NAME_TRIES; tries++) {
		if (spool_name(name, suffix) == -1)
			return -1;
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
		if (fd == -1 && errno != EEXIST)
			return -1;
	}
	if (fd == -1)
		return -1;
	/* The umask may have taken the group's read bit. */
	if (fchmod(fd, mode) == -1) {
		(void)unlinkat(dfd, name, 0);
		close(fd);
		return -1;
	}
	return fd;
}

/* Create a fresh name in the spool and write c into it, or leave nothing. */
static enum crlc_hint
spool_write(int dfd, const struct cert_der *c)
{
	char name[CRLC_SPOOL_NAME_MAX];
	ssize_t n;
	int fd;
	enum crlc_hint ret = CRLC_HINT_NOT_LEFT;

	if ((fd = crlc_spool_create(dfd, HINT_SUFFIX, HINT_MODE, c->len,
	    name)) == -1)
		return errno == EROFS ? CRLC_HINT_READ_ONLY :
		    CRLC_HINT_NOT_LEFT;
	if (
	    (n = writev(fd, c->iov, PIECES)) == -1 || (size_t)n != c->len)
		(void)unlinkat(dfd, name, 0);	/* no half certificate */
	else
		ret = CRLC_HINT_LEFT;
	close(fd);
	return ret;
}

int
crlc_hint_spool(const char *index, char *out, size_t size)
{
	const char *slash = strrchr(index, '/');
	int n;

	if (slash == NULL)
		return -1;
	n = snprintf(out, size, "%.*s/" HINTS_DIR, (int)(slash - index),
	    index);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

enum crlc_hint
crlc_hint_leave(const char *spool, const char *index,
    const struct crlc_span *tbs, const struct crlc_span *sigalg,
    const struct crlc_span *sig)
{
	struct cert_der c;
	enum crlc_hint ret = CRLC_HINT_NOT_LEFT;
	int saved = errno, dfd;

	if (cert_der(&c, tbs, sigalg, sig) == -1)
		goto done;
	/* Programs that cannot reach the spool stop at this one call. */
	if ((dfd = crlc_spool_open(spool, index)) == -1)
		goto done;
	ret = spool_write(dfd, &c);
	close(dfd);
done:
	errno = saved;
	return ret;
}
