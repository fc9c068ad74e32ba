/*
 * Generations of process-wide data pinned without a lock: the index
 * (snapshot.c) and the CRLite set (crlite.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A small fixed pool of slots, each one generation (obj) and a count of
 * users; `cur` points to the slot of the newest.  A user pins a slot:
 *
 *	s = cur; s->users++; if (cur != s) { s->users--; retry; }
 *
 * The refresher publishes a new slot with cur = new and closes an old one
 * only when it then reads old->users == 0.  All four accesses are
 * sequentially consistent, so either the user sees the new cur and backs
 * off, or the refresher sees the pin and keeps the old generation for a
 * later pass.  Slots are never freed while the pool lives, so a late
 * increment on a closed slot touches valid memory and is undone.  The
 * common path costs two atomic adds, no lock and no system call.
 *
 * At most every CRLC_RECHECK_MS (CLOCK_MONOTONIC_COARSE, the vDSO) one
 * thread, chosen by an atomic flag, runs the owner's refresh.  The others
 * go on with the generation they have; while there is none (a process's
 * first verifications, a file that went away) they wait for it, bounded
 * by PINS_FIRST_WAIT_MS: a verification that went on would find nothing
 * and pass unchecked, a revoked certificate accepted because two threads
 * of a new process met it at once.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <crlcache/clock.h>

#include "prov.h"

/*
 * How long a thread waits for another's first open of the file (a local
 * file, opened in microseconds), and how often it looks meanwhile.  Past
 * it the verification goes on without, as where there is no file at all.
 */
#define PINS_FIRST_WAIT_MS	1000
#define PINS_LOOK_NS		100000L

/* The refresh another thread runs, finished or given up on. */
static void
await_refresh(struct crlc_pins *p)
{
	struct timespec ts = { 0, PINS_LOOK_NS };
	long long until = crlc_mono_ms() + PINS_FIRST_WAIT_MS;
	int saved = errno;

	while (atomic_load(&p->refreshing) != 0 && crlc_mono_ms() < until)
		(void)nanosleep(&ts, NULL);
	errno = saved;
}

void
crlc_pins_refresh(struct crlc_pins *p, void (*refresh)(void *), void *arg)
{
	long long now = crlc_mono_ms();

	if (now >= atomic_load_explicit(&p->next_check_ms,
	    memory_order_relaxed) && atomic_exchange(&p->refreshing, 1) == 0) {
		atomic_store(&p->next_check_ms, now + CRLC_RECHECK_MS);
		refresh(arg);
		atomic_store(&p->refreshing, 0);
		return;
	}
	/* Another thread may be at it: wait only where nothing is pinnable. */
	if (atomic_load(&p->refreshing) != 0 && atomic_load(&p->cur) == NULL)
		await_refresh(p);
}

void
crlc_pins_recheck(struct crlc_pins *p)
{
	atomic_store_explicit(&p->next_check_ms, 0, memory_order_relaxed);
}

struct crlc_pin *
crlc_pins_acquire(struct crlc_pins *p)
{
	struct crlc_pin *pin;

	for (;;) {
		if ((pin = atomic_load(&p->cur)) == NULL)
			return NULL;
		atomic_fetch_add(&pin->users, 1);
		if (atomic_load(&p->cur) == pin)
			return pin;
		atomic_fetch_sub(&pin->users, 1);
	}
}

void
crlc_pin_release(struct crlc_pin *pin)
{
	if (pin != NULL)
		atomic_fetch_sub(&pin->users, 1);
}

int
crlc_pins_current(struct crlc_pins *p)
{
	return atomic_load(&p->cur) != NULL;
}

void
crlc_pins_reclaim(struct crlc_pins *p)
{
	struct crlc_pin *cur = atomic_load(&p->cur);
	size_t i;

	for (i = 0; i < CRLC_PIN_SLOTS; i++) {
		struct crlc_pin *sl = &p->slots[i];

		if (sl == cur || sl->obj == NULL || atomic_load(&sl->users) != 0)
			continue;
		p->close(sl->obj);
		sl->obj = NULL;
	}
}

struct crlc_pin *
crlc_pins_free_slot(struct crlc_pins *p)
{
	size_t i;

	for (i = 0; i < CRLC_PIN_SLOTS; i++)
		if (p->slots[i].obj == NULL)
			return &p->slots[i];
	return NULL;
}

void
crlc_pins_publish(struct crlc_pins *p, struct crlc_pin *slot, void *obj)
{
	slot->obj = obj;
	atomic_store(&p->cur, slot);
	crlc_pins_reclaim(p);
}

void
crlc_pins_clear(struct crlc_pins *p)
{
	atomic_store(&p->cur, NULL);
	crlc_pins_reclaim(p);
}

void
crlc_pins_atfork_child(struct crlc_pins *p)
{
	size_t i;

	for (i = 0; i < CRLC_PIN_SLOTS; i++)
		atomic_store(&p->slots[i].users, 0);
	atomic_store(&p->refreshing, 0);
	atomic_store(&p->next_check_ms, 0);
}

void
crlc_pins_close_all(struct crlc_pins *p)
{
	size_t i;

	for (i = 0; i < CRLC_PIN_SLOTS; i++)
		if (p->slots[i].obj != NULL)
			p->close(p->slots[i].obj);
}

int
crlc_seen_same(struct crlc_seen *seen, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &sb) == -1) {
		seen->have = 0;
		return 0;
	}
	if (seen->have && sb.st_dev == seen->st.st_dev &&
	    sb.st_ino == seen->st.st_ino && sb.st_size == seen->st.st_size &&
	    sb.st_mtim.tv_sec == seen->st.st_mtim.tv_sec &&
	    sb.st_mtim.tv_nsec == seen->st.st_mtim.tv_nsec)
		return 1;
	seen->st = sb;
	seen->have = 1;
	return 0;
}

void
crlc_state_subdir(const char *index, const char *sub, char *out, size_t len)
{
	const char *slash = strrchr(index, '/');
	int n;

	n = slash == NULL ? snprintf(out, len, "%s", sub) :
	    snprintf(out, len, "%.*s/%s", (int)(slash - index), index, sub);
	if (n < 0 || (size_t)n >= len)
		out[0] = '\0';		/* too long: none */
}
