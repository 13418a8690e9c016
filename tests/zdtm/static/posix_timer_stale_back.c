/* Periodic POSIX timers whose own signal (blocked) is stale at the dump: queued, then the timer armed again
 * within its interval, so that the dump takes the signal to read the expiries it counts, finds it stale
 * (dropped by its taking) and has the timer make it again (engine/task/dump-core.c stale_again): one on
 * CLOCK_MONOTONIC, one on CLOCK_REALTIME armed relative, one on CLOCK_REALTIME armed absolute. After the
 * dump, failed (mode fault: dump-timer-stale fails right after the first signal was dropped) or not, and
 * after a restore, each signal must still be pending (sigpending) and stale (dropped when taken). Not
 * restored, each timer must also expire when it did (within 0.5 s) and be on its kernel base
 * (/proc/timer_list: the absolute one on CLOCK_REALTIME's, clock 1; where readable). Before, a dump that
 * failed there lost the signal, and the dump armed the absolute one again relative. */
#include <errno.h>
#include <stdlib.h>
#include "posix_timer.h"

#define NT 3
#define MS 1000000LL

static const clockid_t clk[NT] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_REALTIME};
static const int abs_[NT] = {0, 0, 1};
static const char *const what[NT] = {"CLOCK_MONOTONIC", "CLOCK_REALTIME relative", "CLOCK_REALTIME absolute"};

static long long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * PT_NS + ts->tv_nsec;
}

/* Timer i armed again within its interval (20.1, 20.2, 20.3 s of 30), absolute or not: its signal stale. */
static int rearm(timer_t t, int i, long long *expiry)
{
	long long v = 20 * PT_NS + (i + 1) * 100 * MS;
	struct itimerspec its = {{30, 0}, {v / PT_NS, v % PT_NS}};
	*expiry = pt_now(clk[i]) + v;
	if (abs_[i])
		its.it_value = (struct timespec){*expiry / PT_NS, *expiry % PT_NS};
	return timer_settime(t, abs_[i] ? TIMER_ABSTIME : 0, &its, NULL);
}

int main(int argc, char **argv)
{
	const struct itimerspec first = {{30, 0}, {0, MS}};
	long long expiry[NT], start;
	timer_t t[NT];
	int sig[NT];

	test_init(argc, argv);
	start = pt_starttime();
	for (int i = 0; i < NT; i++) {
		struct sigevent sev;
		sig[i] = SIGRTMIN + 14 + i;
		pt_sigev_blocked(&sev, sig[i]);
		if (timer_create(clk[i], &sev, &t[i]) || timer_settime(t[i], 0, &first, NULL)) {
			fail("timer_create/timer_settime %d", i);
			return 1;
		}
	}
	usleep(100000);
	for (int i = 0; i < NT; i++)
		if (!pt_pending(sig[i]) || rearm(t[i], i, &expiry[i])) {
			fail("timer %d (%s): signal pending %d, or timer_settime failed", i, what[i],
			     pt_pending(sig[i]));
			return 1;
		}
	test_daemon();
	test_waitsig();

	int restored = pt_starttime() != start;
	for (int i = 0; i < NT; i++) {
		struct itimerspec cur;
		if (!pt_pending(sig[i]))
			fail("timer %d (%s): its stale signal is no longer pending: lost", i, what[i]);
		if (timer_gettime(t[i], &cur)) {
			fail("timer_gettime %d", i);
			continue;
		}
		long long d = pt_now(clk[i]) + ns_of(&cur.it_value) - expiry[i];
		test_msg("timer %d (%s): expires %+lld us from its time%s\n", i, what[i], d / 1000,
			 restored ? " (restored: not checked)" : "");
		if (!restored && (d < -20 * MS || d > 500 * MS))
			fail("timer %d (%s): expires %+lld ms from its time", i, what[i], d / MS);
		int b = restored || clk[i] != CLOCK_REALTIME ? -5 : pt_base_of(t[i]);
		if (b == -3)
			test_msg("/proc/timer_list: %s: bases not checked\n", strerror(errno));
		else if (b != -5 && b != abs_[i])
			fail("timer %d (%s): on clock base %d of /proc/timer_list, want %d", i, what[i], b,
			     abs_[i]);
	}
	for (int i = 0; i < NT; i++)
		if (pt_take(sig[i]))
			fail("timer %d (%s): its stale signal was taken (not stale any more)", i, what[i]);
	pass();
	return 0;
}
