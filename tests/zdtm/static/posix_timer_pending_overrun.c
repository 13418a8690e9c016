/* Periodic POSIX timers (10 ms) whose signal is blocked: queued at their first expiry, it stays pending and
 * counts the expiries missed since, which its taking tells (si_overrun, then timer_getoverrun). After 200 ms
 * the test is dumped; taken after restore, each signal must count at least the expiries before the dump
 * (the kernel moves a pending timer on only when its signal is taken). A CLOCK_MONOTONIC timer signalling
 * the process, a CLOCK_REALTIME one signalling the first thread (SIGEV_THREAD_ID). Before, the count was
 * only that of the expiries since the restore. */
#include "posix_timer.h"

#define IV (10 * 1000000LL)

static const clockid_t clk[2] = {CLOCK_MONOTONIC, CLOCK_REALTIME};

int main(int argc, char **argv)
{
	timer_t t[2];
	long long from[2];
	int sig[2], before[2];

	test_init(argc, argv);
	for (int i = 0; i < 2; i++) {
		struct sigevent sev;
		struct itimerspec its = {{0, IV}, {0, IV}};
		sig[i] = SIGRTMIN + 4 + i;
		pt_sigev_blocked(&sev, sig[i]);
		if (i == 1) {
			sev.sigev_notify = SIGEV_THREAD_ID;
			sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		}
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

	for (int i = 0; i < 2; i++) {
		sigset_t s;
		siginfo_t si;
		struct timespec zero = {0, 0};
		sigemptyset(&s);
		sigaddset(&s, sig[i]);
		if (sigtimedwait(&s, &si, &zero) != sig[i] || si.si_code != SI_TIMER) {
			fail("timer %d: its signal is not pending", i);
			continue;
		}
		int ov = timer_getoverrun(t[i]);
		test_msg("timer %d: si_overrun %d, timer_getoverrun %d\n", i, si.si_overrun, ov);
		if (si.si_overrun < before[i] || ov != si.si_overrun)
			fail("timer %d: si_overrun %d (timer_getoverrun %d), at least %d expiries missed "
			     "before "
			     "the dump",
			     i, si.si_overrun, ov, before[i]);
	}
	pass();
	return 0;
}
