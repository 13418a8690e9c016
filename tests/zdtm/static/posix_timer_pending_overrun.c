/* Periodic POSIX timers (10 ms) whose signal is blocked: queued at their first expiry, it stays pending and
 * counts the expiries missed since, which its taking tells (si_overrun, then timer_getoverrun). After 200 ms
 * the test is dumped; taken after restore, each signal must count at least the expiries before the dump
 * (the kernel moves a pending timer on only when its signal is taken). A CLOCK_MONOTONIC timer signalling
 * the process, a CLOCK_REALTIME one signalling the first thread (SIGEV_THREAD_ID). Before, the count was
 * only that of the expiries since the restore. Restored, the CLOCK_REALTIME one (armed relative) may read
 * timer_getoverrun 0 after its signal was taken: its signal is queued by the task (posix_timer_rel_pending).
 * Not restored (dump --leave-running, a dump that failed: fault point dump-timer-taken, right after the dump
 * took the signal to read its count): the signals pending at the end count every expiry since the first,
 * no more (1 + si_overrun each; the dump may leave two: the one it took, queued back, and the next
 * expiry's). Before, a dump that failed there lost the signal with the expiries it counted. */
#include "posix_timer.h"

#define IV (10 * 1000000LL)

static const clockid_t clk[2] = {CLOCK_MONOTONIC, CLOCK_REALTIME};

int main(int argc, char **argv)
{
	timer_t t[2];
	long long from[2], armed[2], start;
	int sig[2], before[2];

	test_init(argc, argv);
	start = pt_starttime();
	for (int i = 0; i < 2; i++) {
		struct sigevent sev;
		struct itimerspec its = {{0, IV}, {0, IV}};
		sig[i] = SIGRTMIN + 4 + i;
		pt_sigev_blocked(&sev, sig[i]);
		if (i == 1) {
			sev.sigev_notify = SIGEV_THREAD_ID;
			sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		}
		armed[i] = pt_now(clk[i]);
		if (timer_create(clk[i], &sev, &t[i]) || timer_settime(t[i], 0, &its, NULL)) {
			fail("timer_create/timer_settime %d", i);
			return 1;
		}
		from[i] = pt_now(clk[i]) + IV; /* (about: its first expiry, at which its signal is queued) */
	}
	usleep(200000);
	for (int i = 0; i < 2; i++) {
		/* the expiries missed since the first, surely: one less for where it really began */
		before[i] = (int)((pt_now(clk[i]) - from[i]) / IV) - 1;
		if (!pt_pending(sig[i]) || before[i] < 10) {
			fail("timer %d: signal pending %d, %d expiries missed", i, pt_pending(sig[i]),
			     before[i]);
			return 1;
		}
		test_msg("timer %d (clock %d): at least %d expiries missed before the dump\n", i, (int)clk[i],
			 before[i]);
	}
	test_daemon();
	test_waitsig();

	int restored = pt_starttime() != start;
	for (int i = 0; i < 2; i++) {
		siginfo_t si;
		sigset_t s;
		struct timespec zero = {0, 0};
		long long now = pt_now(clk[i]), n = 0;
		sigemptyset(&s);
		sigaddset(&s, sig[i]);
		if (sigtimedwait(&s, &si, &zero) != sig[i] || si.si_code != SI_TIMER) {
			fail("timer %d: its signal is not pending", i);
			continue;
		}
		int ov = timer_getoverrun(t[i]);
		test_msg("timer %d: si_overrun %d, timer_getoverrun %d\n", i, si.si_overrun, ov);
		/* (restored, the CLOCK_REALTIME one, armed relative, has its signal queued by the task: the
		 * kernel's own would put it on the CLOCK_REALTIME hrtimer base, and its count reads 0 until
		 * its next signal, which the dump and the restore say) */
		if (restored && i == 1 && !ov)
			ov = si.si_overrun;
		if (si.si_overrun < before[i] || ov != si.si_overrun)
			fail("timer %d: si_overrun %d (timer_getoverrun %d), at least %d expiries missed "
			     "before "
			     "the dump",
			     i, si.si_overrun, ov, before[i]);
		n = 1 + si.si_overrun;
		int more = pt_take_all(sig[i], &n);
		/* the expiries from the first (about from) to now, and at most to the end (the first not
		 * before armed + IV) */
		long long least = (now - from[i]) / IV + 1 - 2, most = (pt_now(clk[i]) - armed[i]) / IV + 2;
		test_msg("timer %d: %d more signals, %lld expiries counted, %lld to %lld expected%s\n", i,
			 more, n, least, most, restored ? " (restored: not checked)" : "");
		if (!restored && (n < least || n > most))
			fail("timer %d: its signals count %lld expiries, %lld to %lld since the first", i, n,
			     least, most);
	}
	pass();
	return 0;
}
