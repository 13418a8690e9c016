/* A periodic POSIX timer whose own signal is pending (blocked) and stale: the timer was armed again since,
 * nearer than its new interval (5 s left of 10 s), so that its time left does not tell it apart from a timer
 * whose signal is live (which the dump takes to read the expiries it counts missed, and queues again):
 * Linux 6.13+ keeps such a signal pending but drops it when it is taken. A twin is taken before the
 * checkpoint (the kernel's behaviour, whatever its version); after restore the signal must still be pending
 * and behave the same, the timer still armed, 5 s left at most, interval 10 s. (A guard of the dump's
 * taking of pending signals: the signal it drops is queued again as stale.) */
#include "posix_timer.h"

#define MS 1000000L

static int make(timer_t *t, int sig)
{
	struct sigevent sev;
	struct itimerspec its = {{0, 10 * MS}, {0, 5 * MS}}, near = {{10, 0}, {5, 0}};
	pt_sigev_blocked(&sev, sig);
	if (timer_create(CLOCK_MONOTONIC, &sev, t) || timer_settime(*t, 0, &its, NULL))
		return -1;
	usleep(30000);
	return timer_settime(*t, 0, &near, NULL);
}

int main(int argc, char **argv)
{
	timer_t base, t;
	struct itimerspec cur;
	int sb = SIGRTMIN + 6, sig = SIGRTMIN + 7;
	test_init(argc, argv);
	if (make(&base, sb) || make(&t, sig) || !pt_pending(sb) || !pt_pending(sig)) {
		fail("timers not made or their signals not pending");
		return 1;
	}
	int want = pt_take(sb);
	test_msg("kernel: the stale signal %s\n", want ? "taken" : "dropped");
	test_daemon();
	test_waitsig();

	if (!pt_pending(sig))
		fail("after restore, the stale signal is not pending");
	int got = pt_take(sig);
	if (got != want)
		fail("after restore, the stale signal is %s (the kernel: %s)", got ? "taken" : "dropped",
		     want ? "taken" : "dropped");
	if (timer_gettime(t, &cur) || cur.it_interval.tv_sec != 10 || cur.it_interval.tv_nsec ||
	    cur.it_value.tv_sec >= 5 || (!cur.it_value.tv_sec && !cur.it_value.tv_nsec))
		fail("after restore: interval %ld.%09ld s, %ld.%09ld s left", (long)cur.it_interval.tv_sec,
		     cur.it_interval.tv_nsec, (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	return test_pass();
}
