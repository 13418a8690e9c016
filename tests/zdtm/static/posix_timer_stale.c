/* POSIX timers whose signal is pending (blocked) at the dump: the signal must stay the timer's own. The
 * kernel (Linux 6.13+) drops such a signal when the timer is disarmed, re-armed or deleted before it is
 * taken, and counts the expiries missed meanwhile into si_overrun when it is taken. A twin of each case is
 * run before the checkpoint (the kernel's behaviour, whatever its version); after the restore each must
 * behave the same. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "posix_timer.h"
#include "zdtmtst.h"

#define MS 1000000L
enum { DISARM, DELETE, REARM, TAKE, NCASE };
static const char *const what[NCASE] = {"disarmed", "deleted", "re-armed", "taken"};

struct tm_case {
	timer_t t;
	int sig;
};

static int make(struct tm_case *c, int sig, long value_ms, long interval_ms)
{
	struct sigevent sev;
	struct itimerspec its = {{interval_ms / 1000, interval_ms % 1000 * MS},
				 {value_ms / 1000, value_ms % 1000 * MS}};
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	c->sig = sig;
	if (timer_create(CLOCK_MONOTONIC, &sev, &c->t) || timer_settime(c->t, 0, &its, NULL)) {
		fail("timer for signal %d", sig);
		return -1;
	}
	return 0;
}

/* Act on the timer of case k, then take its signal if it comes: the signal's si_overrun, or -1 if none. */
static int act(int k, struct tm_case *c)
{
	struct itimerspec off = {{0, 0}, {0, 0}}, far = {{0, 0}, {3600, 0}};
	struct timespec zero = {0, 0};
	sigset_t s;
	siginfo_t si;
	if (k == DISARM)
		timer_settime(c->t, 0, &off, NULL);
	else if (k == DELETE)
		timer_delete(c->t);
	else if (k == REARM)
		timer_settime(c->t, 0, &far, NULL);
	else
		usleep(45000); /* 4 or more expiries missed more */
	sigemptyset(&s);
	sigaddset(&s, c->sig);
	int r = sigtimedwait(&s, &si, &zero);
	if (r < 0)
		return -1;
	if (si.si_code != SI_TIMER || si.si_value.sival_int != c->sig)
		fail("signal %d: code %d value %d", c->sig, si.si_code, si.si_value.sival_int);
	return si.si_overrun;
}

int main(int argc, char **argv)
{
	struct tm_case base[NCASE], cr[NCASE];
	int want[NCASE];
	sigset_t s;
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < NCASE; k++) {
		sigaddset(&s, SIGRTMIN + 1 + k);
		sigaddset(&s, SIGRTMIN + 1 + NCASE + k);
	}
	sigprocmask(SIG_BLOCK, &s, NULL);
	/* periodic (10 ms) but the deleted one (one-shot), each with its signal pending */
	for (int k = 0; k < NCASE; k++)
		if (make(&base[k], SIGRTMIN + 1 + k, 5, k == DELETE ? 0 : 10) ||
		    make(&cr[k], SIGRTMIN + 1 + NCASE + k, 5, k == DELETE ? 0 : 10))
			return 1;
	usleep(30000);
	for (int k = 0; k < NCASE; k++) {
		if (!pt_pending(base[k].sig) || !pt_pending(cr[k].sig))
			fail("timer signal of case %s not pending", what[k]);
		want[k] = act(k, &base[k]);
		test_msg("kernel: pending signal of a timer %s: %s (si_overrun %d)", what[k],
			 want[k] < 0 ? "dropped" : "taken", want[k]);
	}
	if (want[TAKE] < 3)
		fail("kernel: si_overrun %d, want 3 or more", want[TAKE]);
	test_daemon();
	test_waitsig();

	for (int k = 0; k < NCASE; k++) {
		int got = act(k, &cr[k]);
		if ((got < 0) != (want[k] < 0))
			fail("after restore, the pending signal of a timer %s is %s (the kernel: %s)",
			     what[k], got < 0 ? "dropped" : "taken", want[k] < 0 ? "dropped" : "taken");
		else if (k == TAKE && got < 3)
			fail("after restore, si_overrun %d (the kernel: %d; want 3 or more)", got, want[k]);
	}
	/* the taken one is re-armed by the kernel: it fires again */
	usleep(25000);
	if (!pt_pending(cr[TAKE].sig))
		fail("the periodic timer does not fire again after its signal was taken");
	return test_pass();
}
