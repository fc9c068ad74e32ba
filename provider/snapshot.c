/*
 * The process-wide view of a published index: open once, swap to a new
 * generation without a restart, reopen after fork().
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * SCHEME
 *	One crlc_store per index path, shared by every provider instance
 *	(library context) of the process and refcounted under reg_lock,
 *	which is taken only by provider init and teardown.
 *
 *	A store pins its snapshots with pins.c: a lookup pins the current
 *	one with two atomic adds, no lock and no system call; an old one is
 *	closed when nobody pins it any more.
 *
 *	Refreshing: at most every CRLC_RECHECK_MS one thread (pins.c)
 *	stat()s the file and opens it when its inode, size or mtime
 *	changed.  No lock is held meanwhile.
 *
 *	A snapshot holds a private copy of the top file (format.h READER
 *	CHECKS): a file rewritten in place (same inode, new size or mtime:
 *	`cp` over it, a truncation) cannot change or fault it.  Its new
 *	content is opened at the next check like a publish; refused, the
 *	generation already open is kept.  Page files are copied like the
 *	top when a lookup first needs one; scope files are mapped: one
 *	rewritten in place (never by the fetcher) is format.h's residual
 *	risk.
 *
 *	fork(): the child inherits the slots' pin counts of threads that do
 *	not exist in it.  A pthread_atfork child handler (the child is
 *	single-threaded then) zeroes the pins, releases the refresh flag and
 *	has the next lookup check the file; the inherited snapshots (private
 *	memory and read-only maps) stay usable in the child.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include <crlcache/index.h>

#include "prov.h"

struct file_id {
	dev_t		dev;
	ino_t		ino;
	off_t		size;
	struct timespec	mtime;
};

struct crlc_store {
	struct crlc_store	*next;		/* registry list */
	char			*path;
	unsigned		 refs;		/* under reg_lock */
	enum crlc_log		 log;

	struct crlc_crlite	*crlite;	/* the CRLite set beside it */
	struct crlc_onecrl_list	*onecrl;	/* and OneCRL */
	struct crlc_pins	 pins;		/* of struct crlc_index */
	/* The rest is touched only by the refresher. */
	struct file_id		 id;
	int			 have_id;
	int			 last_err;	/* to log each state once */
	uint64_t		 last_gen;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct crlc_store *registry;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Child side of fork(): only this thread exists now. */
static void
atfork_child(void)
{
	struct crlc_store *s;

	pthread_mutex_init(&reg_lock, NULL);
	for (s = registry; s != NULL; s = s->next) {
		crlc_pins_atfork_child(&s->pins);
		crlc_crlite_atfork_child(s->crlite);
		crlc_onecrl_list_atfork_child(s->onecrl);
	}
}

static void
atfork_register(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

static int
file_id_eq(const struct file_id *a, const struct file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	    a->mtime.tv_sec == b->mtime.tv_sec &&
	    a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void
close_index(void *idx)
{
	crlc_index_close(idx);
}

/* Log a change of the index state once. */
static void
note_state(struct crlc_store *s, int err, const char *detail,
    struct crlc_index *idx)
{
	if (err == CRLC_OK) {
		uint64_t gen = crlc_index_generation(idx);

		if (s->last_err != CRLC_OK || s->last_gen == 0)
			crlc_log(s->log, LOG_INFO, "index %s: generation %llu "
			    "open, checking revocations", s->path,
			    (unsigned long long)gen);
		s->last_gen = gen;
	} else if (err != s->last_err) {
		crlc_log(s->log, LOG_WARNING, "index %s: %s (%s); %s",
		    s->path, crlc_index_strerror(err), detail,
		    crlc_pins_current(&s->pins) ?
		    "keeping the generation already open" :
		    "passing through without revocation checks");
	}
	s->last_err = err;
}

/* Runs in one thread at a time (crlc_pins_refresh). */
static void
refresh(void *arg)
{
	struct crlc_store *s = arg;
	struct crlc_index *idx = NULL;
	struct crlc_pin *slot;
	struct file_id id;
	const char *detail = NULL;
	struct stat sb;
	int err;

	crlc_pins_reclaim(&s->pins);
	if (lstat(s->path, &sb) == -1) {
		err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		note_state(s, err, strerror(errno), NULL);
		goto done;
	}
	memset(&id, 0, sizeof(id));
	id.dev = sb.st_dev;
	id.ino = sb.st_ino;
	id.size = sb.st_size;
	id.mtime = sb.st_mtim;
	if (s->have_id && file_id_eq(&id, &s->id))
		goto done;
	if ((slot = crlc_pins_free_slot(&s->pins)) == NULL)
		goto done;	/* old maps still pinned: next time */
	err = crlc_index_open(s->path, &idx, &detail);
	note_state(s, err, detail, idx);
	if (err != CRLC_OK)
		goto done;	/* not recording id: retry next check */
	s->id = id;
	s->have_id = 1;
	crlc_pins_publish(&s->pins, slot, idx);
done:
	return;
}

struct crlc_pin *
crlc_snap_acquire(struct crlc_store *s)
{
	crlc_pins_refresh(&s->pins, refresh, s);
	return crlc_pins_acquire(&s->pins);
}

void
crlc_store_recheck(struct crlc_store *s)
{
	crlc_pins_recheck(&s->pins);
}

struct crlc_crlite *
crlc_store_crlite(struct crlc_store *s)
{
	return s->crlite;
}

struct crlc_onecrl_list *
crlc_store_onecrl(struct crlc_store *s)
{
	return s->onecrl;
}

struct crlc_index *
crlc_snap_index(struct crlc_pin *snap)
{
	return snap->obj;
}

static void
store_free(struct crlc_store *s)
{
	if (s == NULL)
		return;
	crlc_pins_close_all(&s->pins);
	crlc_crlite_free(s->crlite);
	crlc_onecrl_list_free(s->onecrl);
	free(s->path);
	free(s);
}

/*
 * The store for path, created on first use; the index itself is opened
 * by the first lookup, which logs its state once.  NULL only when out of
 * memory.
 */
struct crlc_store *
crlc_store_get(const char *path, enum crlc_log log, const char *share)
{
	struct crlc_store *s, *created = NULL;

	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&reg_lock);
	for (s = registry; s != NULL; s = s->next)
		if (strcmp(s->path, path) == 0)
			break;
	if (s == NULL) {
		if ((created = calloc(1, sizeof(*created))) == NULL ||
		    (created->path = strdup(path)) == NULL ||
		    (created->crlite = crlc_crlite_new(path, log, share)) == NULL ||
		    (created->onecrl = crlc_onecrl_list_new(path, log)) == NULL) {
			store_free(created);
			created = NULL;
			goto done;
		}
		created->pins.close = close_index;
		created->log = log;
		created->last_err = -1;
		created->next = registry;
		registry = s = created;
	}
	s->refs++;
done:
	pthread_mutex_unlock(&reg_lock);
	/*
	 * Nothing is opened here: every program that loads OpenSSL's config
	 * initialises the provider, most never verify a certificate.  The
	 * first lookup opens the index (crlc_snap_acquire).
	 */
	return s;
}

void
crlc_store_put(struct crlc_store *s)
{
	struct crlc_store **pp;

	if (s == NULL)
		return;
	pthread_mutex_lock(&reg_lock);
	if (--s->refs != 0) {
		s = NULL;
		goto done;
	}
	for (pp = &registry; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
done:
	pthread_mutex_unlock(&reg_lock);
	store_free(s);
}
