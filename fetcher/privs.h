/*
 * crlcache command-line tool: what privs.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_PRIVS_H
#define CRLCACHE_FETCHER_PRIVS_H

#include "fetcher.h"

/*
 * privs.c: how a command reaches STATE_DIR.  Each command declares one of
 * these in main.c's table, and main() calls state_enter() before it runs.
 */
enum state_access {
	STATE_NONE,	/* only names it (the index path a configuration
			   points at): nothing in it is opened */
	STATE_READS,	/* reads it through as_state_owner() only */
	STATE_WRITES,	/* runs wholly as the state's owner */
};
struct state;
struct cmd_ctx {
	const struct conf *conf;
	enum state_access access;
	/*
	 * The state directory's path as given: for messages, and for
	 * naming the index (state_index_path()).  Opened once, by
	 * state_enter(), into pin; nothing opens it again.
	 */
	const char	*path;
	int		 pin;		/* STATE_READS, STATE_WRITES: the directory
					   (O_PATH), or -1 (errno in pin_errno) */
	int		 pin_errno;
	struct state	*st;		/* STATE_WRITES: the opened state */
};
/*
 * Fill c for a command of access at the state directory path.  The
 * directory is opened once, as a place (O_PATH), and everything decided
 * of it or opened in it afterwards (whose state it is, the handle) is
 * of that directory, whatever path names later.  Started as root: for
 * STATE_WRITES become the state's owner (or the crlcache user for a state
 * root owns, unless allow_root).  0, or -1 when the command must not run.
 */
int	 state_enter(struct cmd_ctx *c, enum state_access access,
	    const char *path, int allow_root);
/* Close what state_enter() opened. */
void	 state_leave(struct cmd_ctx *c);
/*
 * The published index's path, as a configuration names it (STATE_NONE:
 * enable, exec): in the directory's real path when it exists; when it
 * does not, -1 if must_exist, else in the path as given.  -1 too when it
 * does not fit len.
 */
int	 state_index_path(const struct cmd_ctx *c, int must_exist, char *out,
	    size_t len);
/*
 * reader(st, out, rarg) in a child running as the state's owner
 * (when root calls for another account's state; as the caller otherwise,
 * in the caller's process when there is nothing to hand over): the only
 * code that opens the state of a STATE_READS command (state.h).  consume(in, carg)
 * gets what reader writes to out; with consume NULL, out is stdout (a
 * child's stdout is copied to root's).  A child that sends nothing for 30 s
 * is killed (privs.c READER_STALL_MS).
 * Returns reader's exit code 0..254; -1 when the child could not be run,
 * failed, or consume returned -1.
 */
int	 as_state_owner(const struct cmd_ctx *c, int (*reader)(struct state *st,
	    FILE *out, void *arg), void *rarg,
	    int (*consume)(FILE *in, void *arg), void *carg);
/* A consume for as_state_owner(): copies everything to the FILE * arg. */
int	 state_copy(FILE *in, void *arg);

#endif /* CRLCACHE_FETCHER_PRIVS_H */
