/* POSIX timers whose own signal was already stale at the dump: pending (blocked) when its timer was then
 * re-armed further away than its interval (periodic), or deleted. Linux 6.13+ keeps such a signal pending
 * (sigpending shows it) but drops it when it is taken. A twin of each is taken before the checkpoint (the
 * kernel's behaviour, whatever its version); after restore each must still be pending and behave the same.
 * Before, both came back live: taken after restore. */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "posix_timer.h"
#include "zdtmtst.h"

#define MS 1000000L
enum { REARM, DELETE, NCASE };
static const char *const what[NCASE] = {"re-armed further than its interval", "deleted"};

static int make(timer_t *t, int sig)
{
	struct sigevent sev;
	struct itimerspec its = {{0, 10 * MS}, {0, 5 * MS}}, far = {{0, 10 * MS}, {3600, 0}};
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	if (timer_create(CLOCK_MONOTONIC, &sev, t) || timer_settime(*t, 0, &its, NULL))
		return -1;
	usleep(20000);
	if (sig % NCASE == REARM)
		return timer_settime(*t, 0, &far, NULL);
	return timer_delete(*t);
}

int main(int argc, char **argv)
{
	int base[NCASE], cr[NCASE], want[NCASE];
	timer_t t;
	sigset_t s;
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < 2 * NCASE; k++)
		sigaddset(&s, SIGRTMIN + 2 + k);
	sigprocmask(SIG_BLOCK, &s, NULL);
	/* signal SIGRTMIN + 2 + k: case (SIGRTMIN + 2 + k) % NCASE */
	for (int k = 0; k < 2 * NCASE; k++) {
		int sig = SIGRTMIN + 2 + k, c = sig % NCASE;
		if (make(&t, sig) || !pt_pending(sig)) {
			fail("timer for signal %d (%s): not made or its signal not pending", sig, what[c]);
			return 1;
		}
		if (k < NCASE)
			base[c] = sig;
		else
			cr[c] = sig;
	}
	for (int c = 0; c < NCASE; c++) {
		want[c] = pt_take(base[c]);
		test_msg("kernel: stale signal of a timer %s: %s", what[c], want[c] ? "taken" : "dropped");
	}
	test_daemon();
	test_waitsig();

	for (int c = 0; c < NCASE; c++) {
		if (!pt_pending(cr[c]))
			fail("after restore, the stale signal of a timer %s is not pending", what[c]);
		int got = pt_take(cr[c]);
		if (got != want[c])
			fail("after restore, the stale signal of a timer %s is %s (the kernel: %s)", what[c],
			     got ? "taken" : "dropped", want[c] ? "taken" : "dropped");
	}
	return test_pass();
}
