/* Scheduling policies of a tree: children under SCHED_RR priority 3, SCHED_FIFO priority 1, SCHED_BATCH
 * (nice 5), SCHED_IDLE, and SCHED_OTHER with SCHED_RESET_ON_FORK. After restore each has its policy, flag,
 * priority and nice (CRIU's zdtm sched_policy00). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define N 5
static const struct {
	int policy, prio, nice;
} want[N] = {
    {SCHED_RR, 3, 0},
    {SCHED_FIFO, 1, 0},
    {SCHED_BATCH, 0, 5},
    {SCHED_IDLE, 0, 0},
    {SCHED_OTHER | SCHED_RESET_ON_FORK, 0, 2},
};

int main(int argc, char **argv)
{
	pid_t pid[N];
	int i;

	test_init(argc, argv);
	for (i = 0; i < N; i++) {
		struct sched_param sp = {.sched_priority = want[i].prio};
		pid[i] = fork();
		if (pid[i] < 0)
			fail("fork");
		if (!pid[i]) {
			test_forked();
			while (1)
				pause();
		}
		if (setpriority(PRIO_PROCESS, pid[i], want[i].nice) ||
		    sched_setscheduler(pid[i], want[i].policy, &sp)) {
			int err = errno;
			/* (no child left behind: the runner's reaper saw them) */
			for (int j = 0; j <= i; j++)
				kill(pid[j], SIGKILL);
			errno = err;
			test_skip("cannot set policy %d: %m", want[i].policy);
		}
	}
	test_daemon();
	test_waitsig();

	for (i = 0; i < N; i++) {
		struct sched_param sp = {0};
		int pol = sched_getscheduler(pid[i]), nice;
		errno = 0;
		nice = getpriority(PRIO_PROCESS, pid[i]);
		if (pol != want[i].policy)
			fail("child %d: policy %#x, want %#x", i, pol, want[i].policy);
		if (sched_getparam(pid[i], &sp) || sp.sched_priority != want[i].prio)
			fail("child %d: priority %d, want %d", i, sp.sched_priority, want[i].prio);
		if (want[i].policy != SCHED_RR && want[i].policy != SCHED_FIFO &&
		    want[i].policy != SCHED_IDLE && nice != want[i].nice)
			fail("child %d: nice %d, want %d", i, nice, want[i].nice);
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	pass();
	return 0;
}
