/* Pidfds: of the process itself (PIDFD_NONBLOCK), of a child of the tree that sleeps, of a child that
 * exited and was reaped, and of the parent (outside the tree: the runner's reaper, alive throughout).
 * After restore each refers to the same pid (fdinfo "Pid:"), the one of the child still signals it and
 * waits for it (waitid P_PIDFD), the one of the reaped child says -1. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static int pid_of(int fd)
{
	return (int)fdinfo_field(fd, "Pid:", 10, -100);
}

int main(int argc, char **argv)
{
	int self, kid, dead, ext, fl;
	pid_t child;
	siginfo_t si;

	test_init(argc, argv);
	/* modes ns and uns: our parent is outside our PID namespace (getppid() 0): ourselves instead */
	pid_t parent = getppid() ? getppid() : getpid();
	child = tree_sleeper();
	dead = tree_pidfd_reaped();
	self = (int)syscall(SYS_pidfd_open, getpid(), O_NONBLOCK);
	kid = (int)syscall(SYS_pidfd_open, child, 0);
	ext = (int)syscall(SYS_pidfd_open, parent, 0);
	if (self < 0 || kid < 0 || dead < 0 || ext < 0)
		fail("pidfd_open");
	fl = fcntl(self, F_GETFL);
	test_daemon();
	test_waitsig();

	if (pid_of(self) != getpid() || pid_of(kid) != child || pid_of(dead) != -1)
		fail("pids %d %d %d, want %d %d -1", pid_of(self), pid_of(kid), pid_of(dead), getpid(),
		     child);
	if (fcntl(self, F_GETFL) != fl)
		fail("flags of the pidfd of self: %#o, want %#o", fcntl(self, F_GETFL), fl);
	if (syscall(SYS_pidfd_send_signal, kid, SIGKILL, NULL, 0))
		fail("pidfd_send_signal to the child");
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)kid, &si, WEXITED) || si.si_pid != child || si.si_code != CLD_KILLED)
		fail("waitid on the pidfd of the child");
	pass();
	return 0;
}
