/* POSIX timers whose last signal taken counted missed expiries: timer_getoverrun() (the overrun count of the
 * last signal taken) must read the same after restore, and the timers keep their interval and next expiry.
 * Each is armed on a grid N+1 intervals in the past so that it expires at once; its signal (blocked) is taken
 * with sigtimedwait, which counts N missed and moves it on to the next expiry, 40 % of an interval ahead
 * (posix_timer.h). Intervals are long (10 s and more): no expiry during the test, so no signal is pending at
 * the dump. */
#include "posix_timer.h"

#define NT 4

static struct pt_overrun cases[NT] = {
    {CLOCK_REALTIME, SIGEV_SIGNAL, 3600 * PT_NS, 5, 0, 0, 0, 0},
    {CLOCK_MONOTONIC, SIGEV_SIGNAL, 10 * PT_NS, 3, 0, 0, 0, 0},
    {CLOCK_BOOTTIME, SIGEV_THREAD_ID, 20 * PT_NS, 2, 0, 0, 0, 0},
    {CLOCK_REALTIME, SIGEV_THREAD_ID, 7200 * PT_NS, 1000, 0, 0, 0, 0},
};

int main(int argc, char **argv)
{
	sigset_t s;
	char what[32];
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < NT; k++)
		sigaddset(&s, SIGRTMIN + 2 + k);
	sigprocmask(SIG_BLOCK, &s, NULL);
	for (int k = 0; k < NT; k++)
		if (pt_overrun_make(&cases[k], SIGRTMIN + 2 + k)) {
			fail("timer %d: no overrun to keep", k);
			return 1;
		}
	test_daemon();
	test_waitsig();

	for (int k = 0; k < NT; k++) {
		snprintf(what, sizeof(what), "timer %d", k);
		pt_overrun_check(&cases[k], what);
	}
	sigpending(&s);
	for (int k = 0; k < NT; k++)
		if (sigismember(&s, cases[k].sig))
			fail("timer %d: a signal pending after restore", k);
	return test_pass();
}
