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
 *	A store has a small fixed pool of slots; each holds one opened
 *	snapshot and a count of lookups using it.  `cur` points to the
 *	slot of the newest snapshot.  A lookup pins a slot with no lock:
 *
 *		s = cur; s->users++; if (cur != s) { s->users--; retry; }
 *
 *	The refresher publishes a new slot with cur = new and closes an
 *	old one only when it then reads old->users == 0.  All four accesses
 *	are sequentially consistent, so either the lookup sees the new cur
 *	and backs off, or the refresher sees the pin and keeps the old map
 *	for a later pass.  Slots are never freed while the store lives, so
 *	a late increment on a closed slot touches valid memory and is
 *	undone.  The common path costs two atomic adds on the slot, no lock
 *	and no system call.
 *
 *	Refreshing: at most every CRLC_RECHECK_MS (CLOCK_MONOTONIC_COARSE,
 *	served by the vDSO) one thread, chosen by an atomic flag that the
 *	others skip rather than wait on, stat()s the file and opens it when
 *	its inode, size or mtime changed.  No lock is held meanwhile.
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
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include <crlcache/clock.h>
#include <crlcache/index.h>

#include "prov.h"

/*
 * Snapshots mapped at once: the current one plus old ones still pinned
 * by slow lookups.  When all are busy, the swap waits for the next check.
 */
#define SNAP_SLOTS		4

struct crlc_snap {
	atomic_uint		 users;		/* lookups pinning this slot */
	struct crlc_index	*idx;		/* NULL: slot free */
};

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
	struct crlc_snap	 slots[SNAP_SLOTS];
	_Atomic(struct crlc_snap *) cur;	/* NULL: no usable index */
	atomic_llong		 next_check_ms;
	atomic_int		 refreshing;	/* one refresher at a time */
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
	size_t i;

	pthread_mutex_init(&reg_lock, NULL);
	for (s = registry; s != NULL; s = s->next) {
		for (i = 0; i < SNAP_SLOTS; i++)
			atomic_store(&s->slots[i].users, 0);
		atomic_store(&s->refreshing, 0);
		atomic_store(&s->next_check_ms, 0);
		crlc_crlite_atfork_child(s->crlite);
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

/* Close old snapshots nobody pins any more. */
static void
reclaim(struct crlc_store *s)
{
	struct crlc_snap *cur = atomic_load(&s->cur);
	size_t i;

	for (i = 0; i < SNAP_SLOTS; i++) {
		struct crlc_snap *sl = &s->slots[i];

		if (sl == cur || sl->idx == NULL ||
		    atomic_load(&sl->users) != 0)
			continue;
		crlc_index_close(sl->idx);
		sl->idx = NULL;
	}
}

static struct crlc_snap *
free_slot(struct crlc_store *s)
{
	size_t i;

	for (i = 0; i < SNAP_SLOTS; i++)
		if (s->slots[i].idx == NULL)
			return &s->slots[i];
	return NULL;
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
		    atomic_load(&s->cur) != NULL ?
		    "keeping the generation already open" :
		    "passing through without revocation checks");
	}
	s->last_err = err;
}

/* Runs in one thread at a time (s->refreshing held). */
static void
refresh(struct crlc_store *s)
{
	struct crlc_index *idx = NULL;
	struct crlc_snap *slot;
	struct file_id id;
	const char *detail = NULL;
	struct stat sb;
	int err;

	reclaim(s);
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
	if ((slot = free_slot(s)) == NULL)
		goto done;	/* old maps still pinned: next time */
	err = crlc_index_open(s->path, &idx, &detail);
	note_state(s, err, detail, idx);
	if (err != CRLC_OK)
		goto done;	/* not recording id: retry next check */
	s->id = id;
	s->have_id = 1;
	slot->idx = idx;
	atomic_store(&s->cur, slot);
	reclaim(s);
done:
	return;
}

static void
maybe_refresh(struct crlc_store *s)
{
	long long now = crlc_mono_ms();

	if (now < atomic_load_explicit(&s->next_check_ms, memory_order_relaxed))
		return;
	if (atomic_exchange(&s->refreshing, 1) != 0)
		return;		/* another thread is at it */
	atomic_store(&s->next_check_ms, now + CRLC_RECHECK_MS);
	refresh(s);
	atomic_store(&s->refreshing, 0);
}

struct crlc_snap *
crlc_snap_acquire(struct crlc_store *s)
{
	struct crlc_snap *snap;

	maybe_refresh(s);
	for (;;) {
		if ((snap = atomic_load(&s->cur)) == NULL)
			return NULL;
		atomic_fetch_add(&snap->users, 1);
		if (atomic_load(&s->cur) == snap)
			return snap;
		atomic_fetch_sub(&snap->users, 1);
	}
}

void
crlc_store_recheck(struct crlc_store *s)
{
	atomic_store_explicit(&s->next_check_ms, 0, memory_order_relaxed);
}

struct crlc_crlite *
crlc_store_crlite(struct crlc_store *s)
{
	return s->crlite;
}

struct crlc_index *
crlc_snap_index(struct crlc_snap *snap)
{
	return snap->idx;
}

void
crlc_snap_release(struct crlc_snap *snap)
{
	if (snap != NULL)
		atomic_fetch_sub(&snap->users, 1);
}

static void
store_free(struct crlc_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < SNAP_SLOTS; i++)
		crlc_index_close(s->slots[i].idx);
	crlc_crlite_free(s->crlite);
	free(s->path);
	free(s);
}

/*
 * The store for path, created on first use; the index itself is opened
 * by the first lookup, which logs its state once.  NULL only when out of
 * memory.
 */
struct crlc_store *
crlc_store_get(const char *path, enum crlc_log log)
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
		    (created->crlite = crlc_crlite_new(path, log)) == NULL) {
			store_free(created);
			created = NULL;
			goto done;
		}
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
