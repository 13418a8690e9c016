/* A periodic CLOCK_REALTIME POSIX timer armed relative (100 ms; its signal blocked) whose first expiry
 * comes 200 ms after the test is ready: mostly after the dump read it, before the restore (the runner waits
 * 0.5 s between the two: .desc restore-delay; without it, on an idle machine the restore came before that
 * expiry and the test could not fail, 6 of 6 passed on 5a63b47). The kernel counts
 * the expiries a periodic timer had while nothing took its signal (si_overrun), and a checkpointed process
 * is one that took nothing for a while: after C/R the signals taken must count every expiry since its
 * first (2 either way), its next expiry must be on its grid, and it must be on the kernel's CLOCK_MONOTONIC
 * hrtimer base (/proc/timer_list "clock 0"), as one armed relative is. Before, the restore armed it 1 ns
 * ahead (its expiry passed): it counted one expiry for the whole time and its grid moved to the restore's
 * time (CRIU arms it with the time left at the dump: the same, later); when its signal was pending at the
 * dump, it was armed with TIMER_ABSTIME, on clock 1. (/proc/timer_list not readable: not checked.) */
#include "posix_timer.h"

#define IV (100 * 1000000LL)

int main(int argc, char **argv)
{
	const struct itimerspec set = {{0, IV}, {0, 200 * 1000000}};
	const int sig = SIGRTMIN + 18;
	struct sigevent sev;
	timer_t t;

	test_init(argc, argv);
	pt_sigev_blocked(&sev, sig);
	long long first = pt_now(CLOCK_REALTIME) + 200 * 1000000LL;
	if (timer_create(CLOCK_REALTIME, &sev, &t) || timer_settime(t, 0, &set, NULL)) {
		fail("timer_create/timer_settime");
		return 1;
	}
	test_daemon();
	test_waitsig();

	pt_rel_check(t, sig, IV, first, first, "CLOCK_REALTIME timer armed relative");
	pass();
	return 0;
}
