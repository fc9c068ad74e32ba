/*
 * Log lines of the provider, to syslog or stderr as the configuration
 * says.  Its own file so that every part of the provider (policy.c,
 * snapshot.c, provider.c, store.c) can log without depending on another.
 *
 * The provider runs inside every program, so its logging must never cost
 * that program a verification:
 *   - a line is a datagram sent to the system logger's socket with
 *     MSG_DONTWAIT on a non-blocking socket of our own: a stalled logger
 *     (full socket queue) costs the line, never the handshake, where
 *     syslog(3) would block;
 *   - lines are rate limited per process (LOG_BURST per LOG_WINDOW): a
 *     peer presenting a revoked certificate in a loop cannot flood the
 *     log; what was held back is counted in one line when the next
 *     window opens;
 *   - the line names the program and its pid ("curl[1234]: crlcache:
 *     ..."), the identity journalctl -t and grep look for; the name is
 *     read once.  Never openlog(): the application's identity stays its.
 * Nothing here runs unless a line is logged: verifications that log
 * nothing take no lock and make no system call.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "prov.h"

/* Lines one process logs per window; the rest are counted, not sent. */
#define LOG_BURST	10
#define LOG_WINDOW	60		/* seconds */
/* One line: syslog(3) relays cut longer ones anyway (RFC 5426 3.2). */
#define LOG_LINE_MAX	1024
/* The kernel's name of a program is at most 15 bytes (TASK_COMM_LEN). */
#define PROG_MAX	16
#define SYSLOG_PATH	"/dev/log"
/*
 * Test only: another logger socket, so that a test can count lines and
 * stall the receiver without touching the host's logger.  Ignored in
 * set-user-ID programs (secure_getenv).
 */
#define SOCKET_ENV	"CRLCACHE_TEST_SYSLOG_SOCKET"

static pthread_once_t	 prog_once = PTHREAD_ONCE_INIT;
static pthread_once_t	 log_once = PTHREAD_ONCE_INIT;
static char		 prog[PROG_MAX];
static int		 log_fd = -1;
static struct sockaddr_un log_addr;
static atomic_llong	 window = -1;	/* the current window's number */
static atomic_uint	 sent;		/* lines admitted in it */
static atomic_uint	 held;		/* lines held back or dropped */

/* The program's name: once per process. */
static void
prog_init(void)
{
	const char *name = program_invocation_short_name;
	size_t i;

	for (i = 0; name != NULL && name[i] != '\0' && i < PROG_MAX - 1; i++)
		/* What a syslog tag may not hold becomes '_' (RFC 3164 4.1.3). */
		prog[i] = name[i] > ' ' && name[i] < 0x7f && name[i] != '[' &&
		    name[i] != ']' && name[i] != ':' ? name[i] : '_';
	if (i == 0)
		memcpy(prog, "unknown", sizeof("unknown"));
}

const char *
crlc_prog_name(void)
{
	pthread_once(&prog_once, prog_init);
	return prog;
}

/* The socket: once per process, at its first line. */
static void
log_init(void)
{
	const char *path;

	pthread_once(&prog_once, prog_init);
	if ((path = secure_getenv(SOCKET_ENV)) == NULL || *path == '\0')
		path = SYSLOG_PATH;
	if (strlen(path) >= sizeof(log_addr.sun_path))
		return;
	log_addr.sun_family = AF_UNIX;
	memcpy(log_addr.sun_path, path, strlen(path) + 1);
	log_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/*
 * Whether this line may go out; *released is the count held back in the
 * window that just ended.  Lock free: racing threads may admit a line or
 * two more than LOG_BURST, never an unbounded number.
 */
static int
admit(unsigned *released)
{
	struct timespec ts;
	long long w, cur;

	*released = 0;
	/* CLOCK_MONOTONIC is read through the vDSO: no system call. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = (long long)ts.tv_sec / LOG_WINDOW;
	cur = atomic_load(&window);
	if (w != cur && atomic_compare_exchange_strong(&window, &cur, w)) {
		atomic_store(&sent, 0);
		*released = atomic_exchange(&held, 0);
	}
	if (atomic_load(&sent) >= LOG_BURST ||
	    atomic_fetch_add(&sent, 1) >= LOG_BURST) {
		atomic_fetch_add(&held, 1);
		return 0;
	}
	return 1;
}

/* One datagram; never waits for the receiver. */
static void
send_line(int prio, const char *msg)
{
	char line[LOG_LINE_MAX];
	int n;

	/* RFC 3164 4.1: <PRI>TAG[pid]: MSG; the logger adds the time. */
	n = snprintf(line, sizeof(line), "<%d>%s[%ld]: crlcache: %s",
	    LOG_USER | prio, prog, (long)getpid(), msg);
	if (n < 0 || log_fd == -1)
		return;
	if (sendto(log_fd, line, (size_t)n < sizeof(line) ? (size_t)n :
	    sizeof(line) - 1, MSG_DONTWAIT | MSG_NOSIGNAL,
	    (const struct sockaddr *)&log_addr, sizeof(log_addr)) == -1)
		atomic_fetch_add(&held, 1);	/* stalled or gone: counted */
}

static void
emit(enum crlc_log target, int prio, const char *msg)
{
	if (target == CRLC_LOG_SYSLOG)
		send_line(prio, msg);
	else
		fprintf(stderr, "crlcache: %s\n", msg);
}

void
crlc_log(enum crlc_log target, int prio, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX], note[128];
	unsigned released;
	va_list ap;
	int saved = errno;

	/* Routine news goes to syslog only; stderr belongs to the program. */
	if (target == CRLC_LOG_NONE ||
	    (target == CRLC_LOG_STDERR && prio >= LOG_INFO))
		return;
	pthread_once(&log_once, log_init);
	if (!admit(&released))
		goto done;
	if (released > 0) {
		snprintf(note, sizeof(note), "%u log lines held back or dropped "
		    "(at most %d per %d seconds per process)", released,
		    LOG_BURST, LOG_WINDOW);
		emit(target, LOG_NOTICE, note);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(target, prio, msg);
done:
	errno = saved;
}
