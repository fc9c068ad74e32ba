/*
 * Unit test of provider/pins.c (built in): while one thread makes the
 * first generation, another that looks meanwhile waits for it (it would
 * otherwise find nothing and its verification pass unchecked), bounded;
 * with a generation there, nobody waits for a refresh.
 */
#include <pthread.h>

#include "check.h"
#include "../../provider/pins.c"

static struct crlc_pins pins;
static atomic_int in_refresh;
static int obj;
static long refresh_ms;		/* how long the refresh takes */
static int refresh_publishes;	/* whether it makes a generation */

static void
close_obj(void *o)
{
	(void)o;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* A refresh that takes refresh_ms, as an open of a slow file would. */
static void
slow_refresh(void *arg)
{
	struct crlc_pin *slot;

	(void)arg;
	atomic_store(&in_refresh, 1);
	sleep_ms(refresh_ms);
	if (refresh_publishes && (slot = crlc_pins_free_slot(&pins)) != NULL)
		crlc_pins_publish(&pins, slot, &obj);
}

static void *
refresher(void *arg)
{
	(void)arg;
	crlc_pins_refresh(&pins, slow_refresh, NULL);
	return NULL;
}

/*
 * Start a refresh in another thread, look while it runs: what the look
 * pinned, and how long it took (ms) into *took.
 */
static struct crlc_pin *
look_during_refresh(long *took)
{
	struct crlc_pin *pin;
	pthread_t t;
	long long t0;

	atomic_store(&in_refresh, 0);
	atomic_store(&pins.next_check_ms, 0);
	CHECK(pthread_create(&t, NULL, refresher, NULL) == 0);
	while (atomic_load(&in_refresh) == 0)
		sleep_ms(1);
	t0 = crlc_mono_ms();
	crlc_pins_refresh(&pins, slow_refresh, NULL);
	pin = crlc_pins_acquire(&pins);
	*took = (long)(crlc_mono_ms() - t0);
	CHECK(pthread_join(t, NULL) == 0);
	return pin;
}

int
main(void)
{
	struct crlc_pin *pin;
	long took;

	pins.close = close_obj;

	/* The first generation, made while another thread looks: it waits. */
	refresh_ms = 200;
	refresh_publishes = 1;
	pin = look_during_refresh(&took);
	CHECK(pin != NULL && pin->obj == &obj);
	CHECK(took >= 100);
	crlc_pin_release(pin);

	/* A generation there: a refresh in another thread holds nobody up. */
	pin = look_during_refresh(&took);
	CHECK(pin != NULL && pin->obj == &obj);
	CHECK(took < 100);
	crlc_pin_release(pin);

	/* Nothing made, however long it takes: the wait is bounded. */
	crlc_pins_clear(&pins);
	refresh_ms = PINS_FIRST_WAIT_MS + 1000;
	refresh_publishes = 0;
	pin = look_during_refresh(&took);
	CHECK(pin == NULL);
	CHECK(took >= PINS_FIRST_WAIT_MS - 50 && took < PINS_FIRST_WAIT_MS + 500);
	return check_result();
}
