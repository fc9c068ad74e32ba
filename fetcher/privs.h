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
	const char	*state_dir;	/* STATE_NONE: the path it names */
	struct state	*st;		/* STATE_WRITES: the opened state */
	const char	*read_dir;	/* STATE_READS: for as_state_owner() */
};
/*
 * Started as root: for STATE_WRITES become the state's owner (or the
 * crlcache user for a state root owns, unless allow_root); fill c.
 * 0, or -1 when the command must not run.
 */
int	 state_enter(struct cmd_ctx *c, enum state_access access,
	    const char *state_dir, int allow_root);
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
