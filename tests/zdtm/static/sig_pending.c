/* Blocked signals with pending ones: process-wide (kill, sigqueue with values)
 * and per-thread (tgkill, rt_tgsigqueueinfo with a value). After restore the
 * same set is pending, and sigwaitinfo returns them with codes and values. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "posix_timer.h"
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	sigset_t blk, pend0, pend1;
	char shd[64], pnd[64], blkstr[64];
	union sigval v;
	siginfo_t si;
	int r1 = SIGRTMIN + 1, r2 = SIGRTMIN + 2;

	test_init(argc, argv);
	sigemptyset(&blk);
	sigaddset(&blk, SIGUSR1);
	sigaddset(&blk, SIGUSR2);
	sigaddset(&blk, SIGHUP);
	sigaddset(&blk, r1);
	sigaddset(&blk, r2);
	sigprocmask(SIG_BLOCK, &blk, NULL);
	kill(getpid(), SIGUSR1); /* shared */
	v.sival_int = 111;
	sigqueue(getpid(), r1, v); /* shared, queued twice */
	v.sival_int = 222;
	sigqueue(getpid(), r1, v);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR2); /* per-thread */
	pt_queue(r2, (pid_t)syscall(SYS_gettid), 333);		     /* per-thread, with value */
	pt_queue(r2, (pid_t)syscall(SYS_gettid), 444);
	memset(&pend0, 0, sizeof(pend0));
	sigpending(&pend0);
	snprintf(shd, sizeof(shd), "%s", proc_status("ShdPnd"));
	snprintf(pnd, sizeof(pnd), "%s", proc_status("SigPnd"));
	snprintf(blkstr, sizeof(blkstr), "%s", proc_status("SigBlk"));
	test_daemon();
	test_waitsig();

	memset(&pend1, 0, sizeof(pend1));
	sigpending(&pend1);
	if (memcmp(&pend0, &pend1, 8))
		fail("sigpending set changed");
	if (strcmp(shd, proc_status("ShdPnd")))
		fail("ShdPnd %s, want %s", proc_status("ShdPnd"), shd);
	if (strcmp(pnd, proc_status("SigPnd")))
		fail("SigPnd %s, want %s", proc_status("SigPnd"), pnd);
	if (strcmp(blkstr, proc_status("SigBlk")))
		fail("SigBlk %s, want %s", proc_status("SigBlk"), blkstr);

	struct {
		int sig, code, val;
	} want[] = {
	    {SIGUSR1, SI_USER, 0}, {SIGUSR2, SI_TKILL, 0}, {0, SI_QUEUE, 111},
	    {0, SI_QUEUE, 222},	   {0, SI_QUEUE, 333},	   {0, SI_QUEUE, 444},
	};
	want[2].sig = want[3].sig = r1;
	want[4].sig = want[5].sig = r2;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, want[i].sig);
		struct timespec ts = {0, 0};
		int s = sigtimedwait(&one, &si, &ts);
		if (s != want[i].sig) {
			fail("signal %d not pending (got %d)", want[i].sig, s);
			continue;
		}
		if ((si.si_code != want[i].code && !(want[i].code == SI_TKILL && si.si_code == SI_USER)) ||
		    si.si_pid != getpid() ||
		    (want[i].code == SI_QUEUE && si.si_value.sival_int != want[i].val))
			fail("signal %d: code %d pid %d value %d, want code %d pid %d value %d", s,
			     si.si_code, si.si_pid, si.si_value.sival_int, want[i].code, getpid(),
			     want[i].val);
	}
	sigpending(&pend1);
	for (int s = 1; s < SIGRTMAX; s++)
		if (sigismember(&pend1, s))
			fail("signal %d still pending", s);
	pass();
	return 0;
}
