/*
 * The process-wide OneCRL list (<crlcache/onecrl.h>), read at the first
 * verification and swapped to a new generation when the fetcher replaces
 * the file, and its answer for one certificate.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The file (at most a few hundred KB) is read whole into private memory
 * by crlc_onecrl_open() and checked before any record is used; it is
 * looked at again at most every CRLC_RECHECK_MS by one thread, and a new
 * one read while the old one keeps answering, pinned with pins.c as the
 * CRLite set (crlite.c) is.  A file that cannot be used is said once
 * (each distinct reason), and a good list read before keeps answering.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include <crlcache/crlite.h>
#include <crlcache/hash.h>
#include <crlcache/onecrl.h>

#include "prov.h"

struct crlc_onecrl_list {
	char			 dir[PATH_MAX];
	enum crlc_log		 log;
	struct crlc_pins	 pins;		/* of struct crlc_onecrl */
	/* The refresher's own: the file's identity, the last reason. */
	struct crlc_seen	 seen;
	uint64_t		 last_why;
};

static void
close_list(void *o)
{
	crlc_onecrl_free(o);
}

struct crlc_onecrl_list *
crlc_onecrl_list_new(const char *index, enum crlc_log log)
{
	struct crlc_onecrl_list *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return NULL;
	l->log = log;
	l->pins.close = close_list;
	crlc_state_subdir(index, CRLC_CRLITE_DIR, l->dir, sizeof(l->dir));
	return l;
}

void
crlc_onecrl_list_free(struct crlc_onecrl_list *l)
{
	if (l == NULL)
		return;
	crlc_pins_close_all(&l->pins);
	free(l);
}

void
crlc_onecrl_list_atfork_child(struct crlc_onecrl_list *l)
{
	crlc_pins_atfork_child(&l->pins);
}

/* Runs in one thread at a time (crlc_pins_refresh). */
static void
refresh(void *arg)
{
	struct crlc_onecrl_list *l = arg;
	char why[CRLC_ONECRL_WHY_LEN];
	struct crlc_onecrl_info info;
	struct crlc_onecrl *o = NULL;
	struct crlc_pin *slot;
	uint64_t fp;
	int rc;

	crlc_pins_reclaim(&l->pins);
	/* old generations still pinned: next time */
	if ((slot = crlc_pins_free_slot(&l->pins)) == NULL ||
	    crlc_seen_same(&l->seen, l->dir, CRLC_ONECRL_NAME))
		return;
	if ((rc = crlc_onecrl_open(l->dir, &o, why, sizeof(why))) == 1) {
		crlc_pins_clear(&l->pins);	/* none (any more) */
		return;
	}
	if (rc == -1) {
		fp = crlc_sum64(why, strlen(why));
		if (fp != l->last_why)
			crlc_log(l->log, LOG_WARNING, "OneCRL data in %s not "
			    "used: %s; %s", l->dir, why,
			    crlc_pins_current(&l->pins) ? "keeping the list "
			    "already read" : "no certificate is refused by it");
		l->last_why = fp;
		return;
	}
	l->last_why = 0;
	crlc_onecrl_info(o, &info);
	crlc_log(l->log, LOG_INFO, "OneCRL data in %s: %zu entries read",
	    l->dir, info.issuer_serial + info.subject_key);
	crlc_pins_publish(&l->pins, slot, o);
}

/*
 * The names a thread met last, each with its SHA-256 and which records
 * have it as their name, under the list they were looked up in: a name
 * met again (the same issuers, handshake after handshake) costs a
 * compare, not two SHA-256s.  The whole name is compared, so no name a
 * peer makes can take another's answer; a longer one is hashed each time.
 */
#define NAME_MEMO_SLOTS	16
#define NAME_MEMO_MAX	256	/* Web PKI names are 50 to 200 bytes */

struct name_memo {
	uint64_t	list;		/* crlc_onecrl_id(), 0: empty */
	size_t		len;
	unsigned	names;		/* CRLC_ONECRL_NAMES_* */
	uint8_t		h[CRLC_ONECRL_KEY_LEN];
	uint8_t		name[NAME_MEMO_MAX];
};

static _Thread_local struct name_memo name_memo[NAME_MEMO_SLOTS];

/* Names differ most at their end (a CA's CN): its last 8 bytes, mixed. */
static size_t
memo_slot(const struct crlc_span *name)
{
	uint64_t v = name->len;
	size_t i;

	for (i = name->len > 8 ? name->len - 8 : 0; i < name->len; i++)
		v = (v << 8) ^ name->p[i];
	return (size_t)((v * 0x9e3779b97f4a7c15ull) >> 60) % NAME_MEMO_SLOTS;
}

/* What o's records say of name, its SHA-256 into h. */
static unsigned
name_lookup(const struct crlc_onecrl *o, uint64_t id,
    const struct crlc_span *name, uint8_t h[CRLC_ONECRL_KEY_LEN])
{
	struct name_memo *m = NULL;
	unsigned names;

	if (name->len <= NAME_MEMO_MAX) {
		m = &name_memo[memo_slot(name)];
		if (m->list == id && m->len == name->len &&
		    memcmp(m->name, name->p, name->len) == 0) {
			memcpy(h, m->h, CRLC_ONECRL_KEY_LEN);
			return m->names;
		}
	}
	crlc_sha256(name->p, name->len, h);
	names = crlc_onecrl_named(o, h);
	if (m != NULL) {
		m->list = id;
		m->len = name->len;
		m->names = names;
		memcpy(m->h, h, CRLC_ONECRL_KEY_LEN);
		memcpy(m->name, name->p, name->len);
	}
	return names;
}

enum crlc_onecrl_hit
crlc_onecrl_list_check(struct crlc_onecrl_list *l, const struct crlc_tbs *cert)
{
	enum crlc_onecrl_hit hit = CRLC_ONECRL_NONE;
	uint8_t h[CRLC_ONECRL_KEY_LEN];
	const struct crlc_onecrl *o;
	struct crlc_pin *pin;
	uint64_t id;

	if (l == NULL || l->dir[0] == '\0')
		return CRLC_ONECRL_NONE;
	crlc_pins_refresh(&l->pins, refresh, l);
	if ((pin = crlc_pins_acquire(&l->pins)) == NULL)
		return CRLC_ONECRL_NONE;
	o = pin->obj;
	id = crlc_onecrl_id(o);
	if (cert->issuer.len > 0 && (name_lookup(o, id, &cert->issuer, h) &
	    CRLC_ONECRL_NAMES_ISSUER) && crlc_onecrl_listed(o,
	    CRLC_ONECRL_ISSUER_SERIAL, h, &cert->serial))
		hit = CRLC_ONECRL_ISSUER_SERIAL;
	else if (cert->subject.len > 0 && (name_lookup(o, id, &cert->subject,
	    h) & CRLC_ONECRL_NAMES_SUBJECT) && crlc_onecrl_listed(o,
	    CRLC_ONECRL_SUBJECT_KEY, h, &cert->spki))
		hit = CRLC_ONECRL_SUBJECT_KEY;
	crlc_pin_release(pin);
	return hit;
}
