/* A tree that is PID 1 of its own PID namespace (modes ns, uns, cuns: the mode's) whose next fork would get
 * PID N: its namespace's last PID (/proc/sys/kernel/ns_last_pid, which the kernel hands out after) is well
 * above its live PIDs, after 40 children that are gone. After C/R a child forked gets N again. Before, the
 * restore gave every PID with clone3 set_tid, which leaves the namespace's last PID at 0: the next fork got
 * the lowest free PID (3). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define GONE 40

/* A child forked, gone at once and reaped: its PID (-1: fork failed). */
static pid_t fork_gone(void)
{
	int st;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p > 0)
		waitpid(p, &st, 0);
	return p;
}

static int last_pid(void)
{
	int v = -1;
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	if (!f || fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	pid_t kid;
	test_init_pidns(argc, argv);
	if (getpid() != 1) {
		fail("not PID 1 of a PID namespace (PID %d)", getpid());
		return 1;
	}
	/* a child that stays (PID 2 or so): the PIDs of the tree below the next one */
	kid = fork();
	if (kid == 0) {
		test_forked();
		for (;;)
			pause();
	}
	for (int i = 0; i < GONE; i++)
		if (fork_gone() < 0) {
			fail("fork");
			return 1;
		}
	int last = last_pid();
	test_msg("ns_last_pid %d before the dump\n", last);
	if (last < GONE) {
		fail("ns_last_pid %d after %d children", last, GONE);
		return 1;
	}
	test_daemon();
	test_waitsig();

	int now = last_pid();
	pid_t next = fork_gone();
	test_msg("ns_last_pid %d after restore, next child %d (want %d)\n", now, next, last + 1);
	if (next != last + 1)
		fail("the next child got PID %d, want %d (ns_last_pid %d before the dump, %d after)", next,
		     last + 1, last, now);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	pass();
	return 0;
}
