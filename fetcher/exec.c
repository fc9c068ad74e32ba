/*
 * crlcache exec: run one program with the provider switched on, through a
 * generated OPENSSL_CONF, before enabling it system-wide.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The configuration is a real file, BASE/crlcache-exec.XXXXXX/openssl.cnf
 * (directory 0711, file 0644), so that the program's children find it
 * too, even when they close inherited descriptors (Python's subprocess
 * does) or run as another user (setpriv, a server's workers).  The file
 * holds paths and settings, no secret: what matters is that nobody else
 * can change or replace it.  The program replaces crlcache in the same
 * process (same pid); a cleaner started before that, outside the
 * program's session and not its child, waits for the program to exit
 * and removes the file and the directory.  A grandchild still running
 * after the program exited keeps the provider it has loaded, and one
 * that initialises OpenSSL after that point still has the name in
 * OPENSSL_CONF: BASE is therefore a directory in which nobody but the
 * caller and root can ever create that name again (see privdir.c),
 * never a shared /tmp, so such a late reader finds no file and runs
 * without the provider (use `crlcache enable` for services that
 * daemonise), never someone else's configuration.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>

#include "cmd.h"
#include "fetcher.h"
#include "osslconf.h"
#include "privdir.h"
#include "privs.h"

#ifndef SNIPPET_PATH
#define SNIPPET_PATH	"/etc/ssl/openssl.cnf.d/crlcache.cnf"
#endif

#define CONF_NAME	"openssl.cnf"
/*
 * Without pidfd_open (kernels before 5.3, or a seccomp filter refusing
 * it), the cleaner looks for the program's exit this often: the file
 * outlives the program by at most that long.
 */
#define WATCH_INTERVAL_MS	200
/*
 * Without close_range, the cleaner closes descriptors one by one up to
 * the open-files limit, at most this many: shells and test harnesses
 * hand down low numbers, and 65536 close calls take a few milliseconds.
 */
#define CLOSE_FALLBACK_MAX	65536
/* /proc/PID/stat: 52 fields of at most 20 digits and a 16-byte name. */
#define PROC_STAT_MAX	2048

/* dir/../rel next to our own executable (the build tree), if it exists. */
static int
beside_exe(const char *rel, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return -1;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(out, len, "%s/../%s", exe, rel) >= len ||
	    access(out, R_OK) == -1)
		return -1;
	return realpath(out, exe) != NULL &&
	    (size_t)snprintf(out, len, "%s", exe) < len ? 0 : -1;
}

/* Option, environment, build tree, installed location: first that exists. */
static int
locate(const char *opt, const char *env, const char *rel, const char *installed,
    char *out, size_t len)
{
	const char *e = getenv(env);

	if (opt != NULL)
		return snprintf(out, len, "%s", opt) < (int)len ? 0 : -1;
	if (e != NULL && *e != '\0')
		return snprintf(out, len, "%s", e) < (int)len ? 0 : -1;
	if (beside_exe(rel, out, len) == 0)
		return 0;
	return snprintf(out, len, "%s", installed) < (int)len ? 0 : -1;
}

/*
 * fd moved above stderr (the cleaner points 0-2 at /dev/null), still
 * close-on-exec; -1 stays -1.
 */
static int
above_stdio(int fd)
{
	int nfd;

	if (fd == -1 || fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return nfd;
}

/* The private directory and its configuration file. */
struct tmpconf {
	char	dir[PATH_MAX];
	char	file[PATH_MAX];
	int	dfd;		/* the directory, for unlinkat */
};

/*
 * A directory under privdir_base (mkdtemp, then 0711: others may reach
 * the file, not list or change the directory), and in it an empty file,
 * 0644.
 */
static FILE *
tmpconf_create(struct tmpconf *t)
{
	char base[PATH_MAX];
	FILE *f = NULL;
	int fd;

	t->dfd = -1;
	t->dir[0] = '\0';
	if (privdir_base(base, sizeof(base)) == -1)
		return NULL;
	if ((size_t)snprintf(t->dir, sizeof(t->dir), "%s/crlcache-exec.XXXXXX",
	    base) >= sizeof(t->dir) ||
	    (size_t)snprintf(t->file, sizeof(t->file), "%s/" CONF_NAME,
	    t->dir) >= sizeof(t->file)) {
		logx(0, "exec: %s: path too long", base);
		t->dir[0] = '\0';
		return NULL;
	}
	if (mkdtemp(t->dir) == NULL) {
		logx(0, "exec: %s: %s", t->dir, strerror(errno));
		t->dir[0] = '\0';
		return NULL;
	}
	snprintf(t->file, sizeof(t->file), "%s/" CONF_NAME, t->dir);
	if ((t->dfd = above_stdio(open(t->dir, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC))) == -1 || fchmod(t->dfd, 0711) == -1 ||
	    (fd = openat(t->dfd, CONF_NAME, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		logx(0, "exec: %s: %s", t->file, strerror(errno));
		return NULL;
	}
	/* Exactly 0644, whatever the umask. */
	if (fchmod(fd, 0644) == -1) {
		logx(0, "exec: %s: %s", t->file, strerror(errno));
		close(fd);
		return NULL;
	}
	if ((f = fdopen(fd, "w")) == NULL) {
		logx(0, "exec: %s: %s", t->file, strerror(errno));
		close(fd);
	}
	return f;
}

/* Remove the file and the directory (what we made, nothing else). */
static void
tmpconf_remove(struct tmpconf *t)
{
	if (t->dfd != -1) {
		(void)unlinkat(t->dfd, CONF_NAME, 0);
		close(t->dfd);
		t->dfd = -1;
	}
	if (t->dir[0] != '\0')
		(void)rmdir(t->dir);
	t->dir[0] = '\0';
}

/* State and start time (fields 3 and 22) of /proc/PID/stat; 0 or -1. */
static int
proc_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[PROC_STAT_MAX], *p, *save = NULL;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The name in parentheses may hold anything: skip to its end. */
	if ((p = strrchr(buf, ')')) == NULL || (p = strtok_r(p + 1, " ",
	    &save)) == NULL)
		return -1;
	*state = *p;
	for (i = 4; i <= 22 && (p = strtok_r(NULL, " ", &save)) != NULL; i++)
		;
	if (p == NULL)
		return -1;
	*start = strtoull(p, NULL, 10);
	return 0;
}

/* Without a pidfd: gone, a zombie, or its pid taken by another process. */
static int
program_gone(pid_t pid, unsigned long long start)
{
	unsigned long long now;
	char state;

	if (proc_stat(pid, &state, &now) == -1)
		return kill(pid, 0) == -1 && errno == ESRCH;
	return state == 'Z' || state == 'X' || now != start;
}

/* Close descriptors lo..hi (none when lo > hi). */
static void
close_between(int lo, int hi)
{
	long max;

	if (lo > hi || close_range((unsigned)lo, (unsigned)hi, 0) == 0)
		return;
	/* close_range is Linux 5.9 and later: one by one, bounded. */
	if ((max = sysconf(_SC_OPEN_MAX)) < 0 || max > CLOSE_FALLBACK_MAX)
		max = CLOSE_FALLBACK_MAX;
	for (; lo <= hi && lo < max; lo++)
		close(lo);
}

/*
 * The cleaner: holds nothing of the caller's (terminal, pipes, working
 * directory), ignores the terminal's signals, waits for pid to exit and
 * removes the configuration.  It signals nobody; a plain kill ends it
 * (leaving only the private directory behind).
 */
static void __attribute__((noreturn))
cleaner(pid_t pid, int pidfd, unsigned long long start, struct tmpconf *t)
{
	static const int ignored[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE,
	    SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	struct timespec ts = { 0, WATCH_INTERVAL_MS * 1000000L };
	struct pollfd pfd = { pidfd, POLLIN, 0 };
	sigset_t none;
	size_t i;
	int fd, lo, hi;

	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	/* Every other descriptor but the two we need (both above stderr). */
	lo = pidfd < t->dfd ? pidfd : t->dfd;
	hi = pidfd < t->dfd ? t->dfd : pidfd;
	if (lo < 0)
		lo = hi;
	close_between(STDERR_FILENO + 1, lo - 1);
	close_between(lo + 1, hi - 1);
	close_between(hi + 1, INT_MAX);
	/* Not to hold a mount busy; staying where we were is harmless. */
	if (chdir("/") == -1)
		errno = 0;
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (pidfd != -1)
		while (poll(&pfd, 1, -1) == -1 && errno == EINTR)
			;
	else
		while (!program_gone(pid, start))
			nanosleep(&ts, NULL);
	tmpconf_remove(t);
	_exit(0);
}

/*
 * Start the cleaner for this process (which is about to become the
 * program): a grandchild in its own session, so the program never sees
 * it as a child (a wait() of its own cannot reap it) and the terminal's
 * signals do not reach it.  0 or -1.
 */
static int
spawn_cleaner(struct tmpconf *t)
{
	pid_t self = getpid(), mid;
	unsigned long long start = 0;
	char state;
	int pidfd = -1, status = 0;

#ifdef SYS_pidfd_open
	/* Opened here, before the fork: it names this process, never a reuse. */
	pidfd = above_stdio((int)syscall(SYS_pidfd_open, self, 0));
#endif
	if (pidfd == -1 && proc_stat(self, &state, &start) == -1)
		start = 0;
	fflush(NULL);
	if ((mid = fork()) == -1) {
		logx(0, "exec: fork: %s", strerror(errno));
		if (pidfd != -1)
			close(pidfd);
		return -1;
	}
	if (mid == 0) {
		(void)setsid();
		if ((mid = fork()) != 0)
			_exit(mid == -1 ? 1 : 0);
		cleaner(self, pidfd, start, t);
	}
	if (pidfd != -1)
		close(pidfd);
	while (waitpid(mid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		logx(0, "exec: cannot start the cleaner of %s", t->dir);
		return -1;
	}
	return 0;
}

/* Over 60 lines: the steps to a wired program in order, one cleanup. */
int
cmd_exec(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct strlist sets = { NULL, 0 };
	struct tmpconf t = { "", "", -1 };
	const char *module_opt = NULL;
	char module[PATH_MAX], snippet[PATH_MAX], index[PATH_MAX], installed[PATH_MAX];
	char *system_cnf = NULL, err[ERRLEN];
	uint8_t *sys = NULL;
	size_t syslen = 0;
	FILE *f = NULL;
	int ch, ret = 4;

	/* '+': stop at the program name; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'm')
			module_opt = optarg;
		else if (ch == 's')
			strlist_add(&sets, optarg);
		else
			goto done;
	}
	if (optind >= argc) {
		logx(0, "usage: crlcache exec [--module PATH] [--set KEY=VALUE]... "
		    "[--] PROGRAM [ARGS...]");
		goto done;
	}
	if (openssl_dir(OPENSSL_MODULES_DIR, installed, sizeof(installed)) == -1 ||
	    strlen(installed) + sizeof("/crlcache.so") > sizeof(installed)) {
		logx(0, "exec: cannot tell OpenSSL's modules directory");
		goto done;
	}
	strcat(installed, "/crlcache.so");
	if (locate(module_opt, "CRLCACHE_MODULE", "provider/crlcache.so",
	    installed, module, sizeof(module)) == -1 ||
	    locate(NULL, "CRLCACHE_SNIPPET", "openssl.cnf.d/crlcache.cnf",
	    SNIPPET_PATH, snippet, sizeof(snippet)) == -1 ||
	    state_index_path(c, 1, index, sizeof(index)) == -1) {
		logx(0, "exec: cannot locate the module, the snippet or %s",
		    c->path);
		goto done;
	}
	if (access(module, R_OK) == -1 || access(snippet, R_OK) == -1) {
		logx(0, "exec: %s: %s", access(module, R_OK) == -1 ? module : snippet,
		    strerror(errno));
		goto done;
	}
	/* The system configuration the program would have read. */
	system_cnf = CONF_get1_default_config_file();
	if (system_cnf != NULL && access(system_cnf, R_OK) == -1) {
		OPENSSL_free(system_cnf);
		system_cnf = NULL;
	}
	if (system_cnf != NULL && read_file(system_cnf, OSSLCONF_MAX_SIZE, &sys,
	    &syslen, err, sizeof(err)) == -1) {
		logx(0, "exec: %s: %s", system_cnf, err);
		goto done;
	}
	if ((f = tmpconf_create(&t)) == NULL)
		goto done;
	if (osslconf_write(f, system_cnf, (const char *)sys, syslen, snippet,
	    module, index, &sets) == -1 || fclose(f) != 0) {
		f = NULL;
		goto done;
	}
	f = NULL;
	/* Nothing of ours left on the heap of the processes forked next. */
	free(sys);
	sys = NULL;
	OPENSSL_free(system_cnf);
	system_cnf = NULL;
	strlist_free(&sets);
	if (setenv("OPENSSL_CONF", t.file, 1) == -1 || spawn_cleaner(&t) == -1)
		goto done;
	logx(2, "exec: OPENSSL_CONF=%s with module %s, index %s", t.file,
	    module, index);
	execvp(argv[optind], argv + optind);
	logx(0, "exec: %s: %s", argv[optind], strerror(errno));
	ret = 127;
done:
	if (f != NULL)
		fclose(f);
	tmpconf_remove(&t);
	free(sys);
	OPENSSL_free(system_cnf);
	strlist_free(&sets);
	return ret;
}
