/* POSIX timers armed with TIMER_ABSTIME (and one armed relative) on CLOCK_REALTIME, CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME, CLOCK_TAI and, with CAP_WAKE_ALARM and an RTC, the alarm clocks, an hour or more away, some
 * periodic: after restore each still expires at the very time it was armed for (its clock's time plus
 * timer_gettime's value is not later than that, and not 10 s earlier: the dump reads the time and the value
 * one after the other), the interval unchanged. Before, the restore armed each with the time left at the
 * dump, so it expired later by the time between the dump and the restore (as CRIU does). */
#include <errno.h>
#include "posix_timer.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

struct tcase {
	clockid_t clock;
	int abs;
	long long first, iv; /* s from now; interval s */
	timer_t t;
	long long at; /* ns of its clock */
	int made;
};

static struct tcase cases[] = {
    {CLOCK_REALTIME, 1, 3600, 0, 0, 0, 0},	    {CLOCK_MONOTONIC, 1, 3600, 0, 0, 0, 0},
    {CLOCK_BOOTTIME, 1, 7200, 0, 0, 0, 0},	    {CLOCK_TAI, 1, 3600, 0, 0, 0, 0},
    {CLOCK_MONOTONIC, 1, 1800, 3600, 0, 0, 0},	    {CLOCK_REALTIME, 1, 5400, 600, 0, 0, 0},
    {CLOCK_MONOTONIC, 0, 3600, 0, 0, 0, 0},	    {CLOCK_REALTIME_ALARM, 1, 3600, 0, 0, 0, 0},
    {CLOCK_BOOTTIME_ALARM, 1, 3600, 7200, 0, 0, 0},
};
#define NC (int)(sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	struct sigevent sev;

#ifdef PT_TIMENS
	zdtm_timens(PT_TIMENS);
#endif
	test_init(argc, argv);
#ifdef PT_TIMENS
	if (zdtm_timens_errno())
		test_skip("a time namespace with offsets: %s", strerror(zdtm_timens_errno()));
#endif
	pt_sigev_blocked(&sev, SIGRTMIN + 1);
	for (int i = 0; i < NC; i++) {
		struct tcase *c = &cases[i];
		if (timer_create(c->clock, &sev, &c->t)) {
			if ((errno == EPERM || errno == ENOTSUP) &&
			    (c->clock == CLOCK_REALTIME_ALARM || c->clock == CLOCK_BOOTTIME_ALARM))
				continue; /* no CAP_WAKE_ALARM, or no RTC to wake the machine */
			fail("timer_create clock %d", (int)c->clock);
			return 1;
		}
		long long now = pt_now(c->clock);
		c->at = now + c->first * PT_NS;
		long long v = c->abs ? c->at : c->first * PT_NS;
		struct itimerspec its = {{c->iv, 0}, {v / PT_NS, v % PT_NS}};
		if (timer_settime(c->t, c->abs ? TIMER_ABSTIME : 0, &its, NULL)) {
			fail("timer_settime clock %d", (int)c->clock);
			return 1;
		}
		if (!c->abs) { /* its expiry: at most the time after timer_settime plus the value */
			struct itimerspec cur;
			timer_gettime(c->t, &cur);
			c->at = pt_now(c->clock) + cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec;
		}
		c->made = 1;
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NC; i++) {
		struct tcase *c = &cases[i];
		struct itimerspec cur;
		if (!c->made)
			continue;
		long long now = pt_now(c->clock);
		if (timer_gettime(c->t, &cur)) {
			fail("timer %d (clock %d) is gone", i, (int)c->clock);
			continue;
		}
		long long at = now + cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec;
		if (cur.it_interval.tv_sec != c->iv || cur.it_interval.tv_nsec)
			fail("timer %d (clock %d): interval %ld.%09ld s, want %lld s", i, (int)c->clock,
			     (long)cur.it_interval.tv_sec, cur.it_interval.tv_nsec, c->iv);
		if (at > c->at || at < c->at - 10 * PT_NS)
			fail("timer %d (clock %d, %s): expires %+lld ns from the time it was armed for", i,
			     (int)c->clock, c->abs ? "TIMER_ABSTIME" : "relative", at - c->at);
	}
	pass();
	return 0;
}
