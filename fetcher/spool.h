/*
 * The hint spool (spool.c) and the writers' queues it fills (hint.c):
 * what the two share.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_SPOOL_H
#define CRLCACHE_FETCHER_SPOOL_H

#include <dirent.h>
#include <sys/types.h>

#include "fetcher.h"
#include "state.h"
struct state;

struct hint_tally;

#define QUEUE_NAME	WORK_NAME "/hints.queue"
/* Queues and parked drains: nobody else's. */
#define QUEUE_MODE	0700
/* A queue entry's name: mtime seconds and nanoseconds, run, sequence. */
#define QNAME_SIZE	(16 + 8 + 1 + 16 + 1 + 8 + 1)

/*
 * The spool's files to their writers' queues under qfd (work/hints.queue):
 * the drain (the spool of the last swap) first, then, while a drain
 * remains, the live spool in place.  0, or -1 when neither can be read.
 */
int	 spool_intake(struct state *st, int qfd, struct hint_tally *tl);
/*
 * A private directory of this account, name in the state, made (mode
 * exactly) if missing; its fd.
 */
int	 private_dir(struct state *st, const char *name, mode_t mode);
/* A directory stream of dfd's directory from its start (dfd stays open). */
DIR	*list_dir(int dfd);
/* "." or ".."? */
int	 dot(const char *name);
/* Remove an entry of dfd: a file, or an empty directory. */
int	 remove_entry(int dfd, const char *name);

/*
 * spool.c, hint.c: the spool of certificates no CRL covered (see
 * HINTS_NAME), and the hints read from it
 */
struct hint_tally {
	size_t	scanned;	/* spool entries looked at this run */
	size_t	taken;		/* well-formed certificates returned */
	size_t	malformed;	/* refused: type, size or content */
	size_t	repeated;	/* a hint its writer already left this run */
	size_t	waiting;	/* returned, and left for the next run */
	size_t	stuck;		/* could not be removed */
};
/*
 * spool.c.  Create the spool (mode 3733, this account's group) if it is
 * missing or wrong.  0, or -1 (logged) also when another account owns it.
 */
int	 hints_prepare(struct state *st);
/* Is a hint waiting (in the spool, or a drain left by the last run)? */
int	 hints_waiting(struct state *st);
/* Does one come within ms (hints_waiting() every HINTS_FOLLOW_POLL_MS)? */
int	 hints_follow(struct state *st, long ms);
/* The live spool for listing (no symlink followed), or NULL and errno. */
DIR	*hints_opendir(struct state *st);

#endif
