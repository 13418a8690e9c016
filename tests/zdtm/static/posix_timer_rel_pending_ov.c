/* A periodic CLOCK_REALTIME POSIX timer armed relative (100 ms; its signal blocked) with an overrun count
 * (its last signal taken counted 2 expiries missed: timer_getoverrun 2) whose own signal is pending again at
 * the dump. The dump told how such a timer was armed only once it took its pending signal, which it did not
 * for one with an overrun count (the taking sets that count): the restore armed it as an absolute one
 * (TIMER_ABSTIME, /proc/timer_list "clock 1", following clock_settime), and without the expiries its pending
 * signal counted at the dump. After C/R it must be on the kernel's CLOCK_MONOTONIC hrtimer base ("clock 0"),
 * as one armed relative is, its next expiry on its grid, and its signals must count every expiry since the
 * last one taken. (/proc/timer_list not readable: the base not checked.) */
#include "posix_timer.h"

#define IV (100 * 1000000LL)

int main(int argc, char **argv)
{
	const int sig = SIGRTMIN + 20;
	long long first, taken;
	timer_t t;

	test_init(argc, argv);
	/* expired at 1, 101 and 201 ms, its signal taken at 250 ms: overrun 2; pending again from 301 ms */
	int ov = pt_rel_overrun_take(&t, sig, IV, &first, &taken);
	if (ov < 1) {
		fail("overrun %d after its first signal taken (want 2)", ov);
		return 1;
	}
	while (!pt_pending(sig))
		usleep(10000);
	test_daemon();
	test_waitsig();

	test_msg("overrun %d before the dump\n", ov);
	pt_rel_check(t, sig, IV, first, first + taken * IV,
		     "CLOCK_REALTIME timer armed relative, with an overrun count");
	pass();
	return 0;
}
