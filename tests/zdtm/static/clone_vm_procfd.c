/* A child made with clone(CLONE_VM | SIGCHLD) (one address space, its own fd table) holds its
 * /proc/self/status open: the restore does not open files of /proc/PID for a process sharing another's
 * address space (its placeholder makes its fds before the tree is there), so the dump must fail with one
 * line and the tree keep running, the child's fd still reading its own status. Before, the dump passed and
 * the restore refused it after the tree was killed (the dump's run of the restore's checks did not reach the
 * /proc files' preparation). */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define FD 50

static char child_stack[256 << 10] __attribute__((aligned(16)));
static volatile int child_state; /* 1: fd open, 2: asked to check, 3: ok, 4: bad */

static int child(void *arg)
{
	(void)arg;
	char buf[256] = "", want[32];
	close_range(3, ~0U, 0); /* (its own table: the launcher's pipe of test_daemon closed) */
	int fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0 || dup2(fd, FD) != FD || close(fd))
		_exit(2);
	child_state = 1;
	while (child_state != 2)
		usleep(10000);
	snprintf(want, sizeof(want), "\nPid:\t%d\n", (int)getpid());
	child_state = pread(FD, buf, sizeof(buf) - 1, 0) > 0 && strstr(buf, want) ? 3 : 4;
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	pid_t c = clone(child, child_stack + sizeof(child_stack), CLONE_VM | SIGCHLD, NULL);
	if (c < 0)
		fail("clone");
	while (child_state == 0)
		usleep(1000);
	test_daemon();
	test_waitsig();

	child_state = 2;
	while (child_state == 2)
		usleep(1000);
	int st = child_state;
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	if (st != 3)
		fail("the child's fd %d does not read its own status", FD);
	pass();
	return 0;
}
