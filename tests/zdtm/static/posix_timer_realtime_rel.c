/* CLOCK_REALTIME POSIX timers armed relative (timer_settime without TIMER_ABSTIME: a one-shot one and a
 * periodic one) and one armed absolute. The kernel keeps a relative one on its CLOCK_MONOTONIC hrtimer base
 * (/proc/timer_list "clock 0"), where clock_settime does not move its expiry, and an absolute one on the
 * CLOCK_REALTIME base ("clock 1"), where it does. After C/R each must be on the base it was on, and expire
 * when it expired for before (the wall time since taken off its time left). Before, the restore armed them
 * all with TIMER_ABSTIME: the relative ones came back on clock 1. (/proc/timer_list not readable, as in a
 * user namespace: the bases not checked.) */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "posix_timer.h"

#define NT 3
#ifndef PT_EXPIRY_US
#define PT_EXPIRY_US 20000 /* how far from its time a timer may expire after restore */
#endif
#ifndef PT_LATE_US /* how much later: the restore arms a relative timer from a clock read, so a restorer */
#define PT_LATE_US PT_EXPIRY_US /* that waits for a CPU in between arms it that much late, never early */
#endif

static const char *const what[NT] = {"relative one-shot", "relative periodic", "absolute"};

static long long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * PT_NS + ts->tv_nsec;
}

int main(int argc, char **argv)
{
	/* (odd values: no other timer of the machine expires within 5 ms of these) */
	const struct itimerspec set[NT] = {
	    {{0, 0}, {1234, 567000000}}, {{2000, 0}, {1345, 678000000}}, {{0, 0}, {1456, 789000000}}};
	const int want[NT] = {0, 0, 1};
	long long expiry[NT];
	timer_t t[NT];

	test_init(argc, argv);
#ifdef PT_SIGTRAP_IGNORED
	signal(SIGTRAP, SIG_IGN); /* (the dump's remote syscalls one at a time) */
#endif
	for (int i = 0; i < NT; i++) {
		struct sigevent sev;
		struct itimerspec its = set[i];
		pt_sigev_blocked(&sev, SIGRTMIN + 10 + i);
		if (timer_create(CLOCK_REALTIME, &sev, &t[i])) {
			fail("timer_create %d", i);
			return 1;
		}
		expiry[i] = pt_now(CLOCK_REALTIME) + ns_of(&set[i].it_value);
		if (want[i])
			its.it_value = (struct timespec){expiry[i] / PT_NS, expiry[i] % PT_NS};
		if (timer_settime(t[i], want[i] ? TIMER_ABSTIME : 0, &its, NULL)) {
			fail("timer_settime %d", i);
			return 1;
		}
		if (!want[i]) /* (as the kernel has it: the test may wait between the clock and the timer) */
			expiry[i] = pt_expiry(t[i], CLOCK_REALTIME);
		int b = pt_base_of(t[i]);
		if (b != -3 && b != want[i]) {
			fail("timer %d (%s): on clock base %d before the dump, want %d", i, what[i], b,
			     want[i]);
			return 1;
		}
	}
	struct itimerspec got[NT];
	pt_wait_gettime(t, got, NT);
	/* Early by the dump's wait is what a dump that cannot read /proc/timer_list (0400: an unprivileged
	 * crshim, mode user, whose test cannot read it either) still gives: it warns, the late bound holds.
	 */
	long long early = access("/proc/timer_list", R_OK) ? PT_LATE_US : PT_EXPIRY_US;
	for (int i = 0; i < NT; i++) {
		const struct itimerspec *cur = &got[i];
		long long d = pt_expiry(t[i], CLOCK_REALTIME) - expiry[i];
		test_msg("timer %d (%s): expires %+lld us from its time\n", i, what[i], d / 1000);
		if (d < -early * 1000LL || d > PT_LATE_US * 1000LL)
			fail("timer %d (%s): expires %+lld us from its time", i, what[i], d / 1000);
		if (ns_of(&cur->it_interval) != ns_of(&set[i].it_interval))
			fail("timer %d (%s): interval %lld ns, want %lld", i, what[i],
			     ns_of(&cur->it_interval), ns_of(&set[i].it_interval));
		int b = pt_base_of(t[i]);
		test_msg("timer %d (%s): on the kernel's clock base %d\n", i, what[i], b);
		if (b == -3) {
			test_msg("/proc/timer_list: %s: bases not checked\n", strerror(errno));
			continue;
		}
		if (b != want[i])
			fail("timer %d (CLOCK_REALTIME, armed %s): on clock base %d of /proc/timer_list, "
			     "want %d%s",
			     i, what[i], b, want[i],
			     b == 1   ? ": armed absolute (follows clock_settime)"
			     : b == 0 ? ": armed relative"
				      : "");
	}
	pass();
	return 0;
}
