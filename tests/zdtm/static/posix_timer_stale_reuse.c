/* The stale signal of a deleted POSIX timer whose id a timer of another signal number took since (made
 * with PR_TIMER_CREATE_RESTORE_IDS), pending (blocked) at the dump: Linux 6.13+ keeps it pending but drops
 * it when it is taken. A twin taken before the checkpoint shows the kernel's behaviour; after restore the
 * signal must still be pending and behave the same, and the new timer keep its id, signal and value: a
 * periodic one whose last signal counted missed expiries, its overrun count (timer_getoverrun) kept too.
 * Before, the stale signal came back as an ordinary one, taken after restore. */
#include <sys/prctl.h>
#include "posix_timer.h"

#ifndef PR_TIMER_CREATE_RESTORE_IDS
#define PR_TIMER_CREATE_RESTORE_IDS 77
#endif

#define MS 1000000L

struct reuse {
	int old_sig, new_sig;
	int id; /* kernel timer id of both */
	struct pt_overrun o;
};

static int ktimer_create(clockid_t clock, int notify, int sig, int *id)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = notify;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	return (int)syscall(SYS_timer_create, clock, &sev, id);
}

/* A one-shot timer of old_sig fires (its signal pending) and is deleted; a periodic timer of new_sig takes
 * its id, and its signal once after missed expiries. */
static int make(struct reuse *r)
{
	struct itimerspec its = {{0, 0}, {0, MS}};
	int id = -1;
	if (ktimer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL, r->old_sig, &id) ||
	    syscall(SYS_timer_settime, id, 0, &its, NULL))
		return -1;
	usleep(20000);
	if (!pt_pending(r->old_sig) || syscall(SYS_timer_delete, id))
		return -1;
	r->id = id;
	if (prctl(PR_TIMER_CREATE_RESTORE_IDS, 1, 0, 0, 0)) {
		if (errno == EINVAL)
			test_skip("no PR_TIMER_CREATE_RESTORE_IDS");
		return -1;
	}
	int got = ktimer_create(r->o.clock, SIGEV_SIGNAL, r->new_sig, &id);
	prctl(PR_TIMER_CREATE_RESTORE_IDS, 0, 0, 0, 0);
	if (got || id != r->id)
		return -1;
	r->o.t = (timer_t)(intptr_t)id; /* glibc's timer_t of a SIGEV_SIGNAL timer: the kernel's id */
	return pt_overrun_take(&r->o, r->new_sig);
}

int main(int argc, char **argv)
{
	struct reuse r[2];
	sigset_t s;
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < 4; k++)
		sigaddset(&s, SIGRTMIN + 2 + k);
	sigprocmask(SIG_BLOCK, &s, NULL);
	for (int k = 0; k < 2; k++) {
		r[k].o = (struct pt_overrun){CLOCK_REALTIME, SIGEV_SIGNAL, 3600 * PT_NS, 4, 0, 0, 0, 0};
		r[k].old_sig = SIGRTMIN + 2 + 2 * k;
		r[k].new_sig = SIGRTMIN + 3 + 2 * k;
		if (make(&r[k])) {
			fail("timer %d: stale signal or id reuse not made", k);
			return 1;
		}
	}
	int want = pt_take(r[0].old_sig);
	test_msg("kernel: stale signal of a deleted timer whose id was taken: %s",
		 want ? "taken" : "dropped");
	test_daemon();
	test_waitsig();

	if (!pt_pending(r[1].old_sig))
		fail("the stale signal is not pending after restore");
	else if (pt_take(r[1].old_sig) != want)
		fail("the stale signal was %s after restore, the kernel %s it", want ? "dropped" : "taken",
		     want ? "takes" : "drops");
	pt_overrun_check(&r[0].o, "the first timer that took an id");
	pt_overrun_check(&r[1].o, "the timer that took the id");
	if (pt_pending(r[1].new_sig))
		fail("the signal of the timer that took the id is pending after restore");
	return test_pass();
}
