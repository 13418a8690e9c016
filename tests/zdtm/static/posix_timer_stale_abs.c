/* CLOCK_REALTIME POSIX timers whose own signal (blocked) is pending and stale at the dump: queued at their
 * first expiry, then the timer armed again (a one-shot one, 20 s ahead), which makes the kernel (Linux
 * 6.13+) drop that signal when it is taken. One armed again with TIMER_ABSTIME, one relative. The restore
 * queues such a signal by the timer (restorer.c timer_requeue) and arms it again as it was: each must be
 * on the kernel's hrtimer base it was on (/proc/timer_list "clock 1", CLOCK_REALTIME, for the absolute one,
 * which follows clock_settime; "clock 0" for the relative one), expire at its time (within 20 ms), and its
 * stale signal must not be taken. Before, the restore armed both relative with the time left at the dump:
 * the absolute one came back on clock 0. (/proc/timer_list not readable: the bases not checked.) */
#include "posix_timer.h"

#define NT 2

static const int abs_[NT] = {1, 0};
static const char *const what[NT] = {"absolute", "relative"};

int main(int argc, char **argv)
{
	timer_t t[NT];
	int sig[NT];
	long long expiry[NT];

	test_init(argc, argv);
	for (int i = 0; i < NT; i++) {
		const struct itimerspec first = {{0, 0}, {0, 1000000}};
		sig[i] = SIGRTMIN + 16 + i;
		if (pt_make(&t[i], sig[i], &first, 0, i, what[i]))
			return 1;
	}
	usleep(50000);
	for (int i = 0; i < NT; i++) {
		/* (20 s and 1.234 s more: no other timer of the machine expires within 5 ms of it) */
		struct itimerspec again = {{0, 0}, {21, 234000000 + 100000000 * i}};
		expiry[i] = pt_now(CLOCK_REALTIME) + again.it_value.tv_sec * PT_NS + again.it_value.tv_nsec;
		if (abs_[i])
			again.it_value = (struct timespec){expiry[i] / PT_NS, expiry[i] % PT_NS};
		if (!pt_pending(sig[i]) || timer_settime(t[i], abs_[i] ? TIMER_ABSTIME : 0, &again, NULL)) {
			fail("timer %d (%s): its signal pending %d, or timer_settime failed", i, what[i],
			     pt_pending(sig[i]));
			return 1;
		}
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NT; i++) {
		struct itimerspec cur;
		if (pt_take(sig[i]))
			fail("timer %d (%s): its stale signal was taken", i, what[i]);
		if (timer_gettime(t[i], &cur)) {
			fail("timer_gettime %d", i);
			continue;
		}
		long long d =
		    pt_now(CLOCK_REALTIME) + cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec - expiry[i];
		test_msg("timer %d (%s): expires %+lld us from its time\n", i, what[i], d / 1000);
		if (llabs(d) > 20000000)
			fail("timer %d (%s): expires %+lld ms from its time", i, what[i], d / 1000000);
		char name[64];
		snprintf(name, sizeof(name), "timer %d (CLOCK_REALTIME, armed %s)", i, what[i]);
		if (pt_base_check(t[i], abs_[i], name))
			break;
	}
	pass();
	return 0;
}
