/* Periodic POSIX timers on CLOCK_REALTIME armed relative, whose signal (blocked) the dump takes in the task:
 * one whose signal is pending with expiries missed (100 ms, dump-core.c pending_overrun), one whose pending
 * signal is stale (armed again since, 20 s of 30: stale_again). Not restored (dump --leave-running, a dump
 * that failed), each must still be relative: the kernel keeps such a timer on its CLOCK_MONOTONIC base
 * (/proc/timer_list "clock 0"), not on the CLOCK_REALTIME one ("clock 1") that an absolute one is on, whose
 * expiries follow clock_settime; and the first one's signals count every expiry since its first. Before,
 * the dump armed the first again with TIMER_ABSTIME. (Restored, the restore arms them as it does: not
 * checked; /proc/timer_list not readable: the bases not checked.) */
#include <errno.h>
#include "posix_timer.h"

#define IV (100 * 1000000LL)
#define NT 2

int main(int argc, char **argv)
{
	const struct itimerspec set[NT] = {{{0, IV}, {0, IV}}, {{30, 0}, {0, 1000000}}};
	const struct itimerspec again = {{30, 0}, {20, 0}};
	timer_t t[NT];
	int sig[NT];
	long long from, armed, start;

	test_init(argc, argv);
	start = pt_starttime();
	for (int i = 0; i < NT; i++) {
		struct sigevent sev;
		sig[i] = SIGRTMIN + 6 + i;
		pt_sigev_blocked(&sev, sig[i]);
		if (!i)
			armed = pt_now(CLOCK_REALTIME);
		if (timer_create(CLOCK_REALTIME, &sev, &t[i]) || timer_settime(t[i], 0, &set[i], NULL)) {
			fail("timer_create/timer_settime %d", i);
			return 1;
		}
	}
	from = armed - 1000000 + IV; /* (timer 0's first expiry, about) */
	usleep(300000);
	/* timer 1's signal queued, then made stale: armed again, its next expiry 20 s away */
	if (!pt_pending(sig[0]) || !pt_pending(sig[1]) || timer_settime(t[1], 0, &again, NULL)) {
		fail("signals pending %d %d", pt_pending(sig[0]), pt_pending(sig[1]));
		return 1;
	}
	test_daemon();
	test_waitsig();

	int restored = pt_starttime() != start;
	long long now = pt_now(CLOCK_REALTIME), n = 0;
	int k = pt_take_all(sig[0], &n);
	long long least = (now - from) / IV + 1 - 2, most = (pt_now(CLOCK_REALTIME) - armed) / IV + 2;
	test_msg("timer 0: %d signals, %lld expiries counted, %lld to %lld expected%s\n", k, n, least, most,
		 restored ? " (restored: not checked)" : "");
	if (!k || (!restored && (n < least || n > most)))
		fail("timer 0: %d signals counting %lld expiries, %lld to %lld since the first", k, n, least,
		     most);
	if (pt_take(sig[1]))
		fail("timer 1: its stale signal was taken");
	/* timer 0 moved on by the taking: its next signal taken, it runs again (about 100 ms left) */
	struct timespec wait = {2, 0};
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig[0]);
	if (sigtimedwait(&s, NULL, &wait) != sig[0])
		fail("timer 0: no signal after 2 s");
	for (int i = 0; i < NT && !restored; i++) {
		int b = pt_base_of(t[i]);
		test_msg("timer %d: on the kernel's clock base %d\n", i, b);
		if (b == -3) {
			test_msg("/proc/timer_list: %s: bases not checked\n", strerror(errno));
			break;
		}
		if (b != 0)
			fail("timer %d (CLOCK_REALTIME, armed relative): on clock base %d of "
			     "/proc/timer_list, "
			     "want 0 (CLOCK_MONOTONIC)%s",
			     i, b, b == 1 ? ": armed absolute" : "");
	}
	pass();
	return 0;
}
