/* POSIX timers armed "for ever": a time left (or an expiry) of 8e9 s and more, which the kernel clamps to its
 * last time (KTIME_MAX, 2^63-1 ns of the timer's base): CLOCK_REALTIME armed relative, CLOCK_MONOTONIC armed
 * relative, CLOCK_REALTIME armed absolute. After C/R each must still be armed that far (more than 5e9 s
 * left) and its signal (blocked) not pending: it did not expire. Before, the expiry the dump read (the clock
 * plus the time left) overflowed 64 bits: the restore of a relative one on CLOCK_REALTIME armed it to expire
 * at once, and that of the others failed (timer_settime at a negative time: EINVAL). */
#include "posix_timer.h"

#define NT 3

static const clockid_t clk[NT] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME};
static const int abs_[NT] = {0, 0, 1};
static const char *const what[NT] = {"CLOCK_REALTIME relative", "CLOCK_MONOTONIC relative",
				     "CLOCK_REALTIME absolute"};

int main(int argc, char **argv)
{
	timer_t t[NT];

	test_init(argc, argv);
	for (int i = 0; i < NT; i++) {
		struct sigevent sev;
		struct itimerspec its = {{0, 0}, {abs_[i] ? 9000000000LL : 8000000000LL, 0}};
		pt_sigev_blocked(&sev, SIGRTMIN + 4 + i);
		if (timer_create(clk[i], &sev, &t[i]) ||
		    timer_settime(t[i], abs_[i] ? TIMER_ABSTIME : 0, &its, NULL)) {
			fail("timer %d (%s): timer_create or timer_settime", i, what[i]);
			return 1;
		}
	}
	struct itimerspec cur[NT];
	pt_wait_gettime(t, cur, NT);
	for (int i = 0; i < NT; i++) {
		test_msg("timer %d (%s): %lld s left\n", i, what[i], (long long)cur[i].it_value.tv_sec);
		if (cur[i].it_value.tv_sec < 5000000000LL)
			fail("timer %d (%s): %lld.%09ld s left after restore, want more than 5e9", i, what[i],
			     (long long)cur[i].it_value.tv_sec, cur[i].it_value.tv_nsec);
		if (pt_pending(SIGRTMIN + 4 + i))
			fail("timer %d (%s): its signal is pending: it expired", i, what[i]);
	}
	pass();
	return 0;
}
