/* A pipe held by a parent and its child (made once by crshim) whose read end has 41 open file descriptions
 * (pipe() and 40 reopens through /proc/self/fd): every description is its own after C/R, the child's fds are
 * the parent's descriptions and the data comes through the last one. Before, the restore made at most nine
 * of one end of a shared pipe and the dump refused it. */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NR_MORE 40
#define FD0 40

int main(int argc, char **argv)
{
	int p[2];
	char path[64], buf[16] = "";
	test_init(argc, argv);
	if (pipe(p))
		fail("pipe");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	for (int i = 0; i < NR_MORE; i++) {
		int fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0 || dup2(fd, FD0 + i) != FD0 + i || close(fd))
			fail("reopen %d of the read end", i);
	}
	pid_t c = test_fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	test_daemon();
	test_waitsig();

	pid_t me = getpid();
	for (int i = 0; i < NR_MORE; i++) {
		if (syscall(SYS_kcmp, me, me, KCMP_FILE, p[0], FD0 + i) <= 0)
			fail("fd %d is the description of the pipe's read end", FD0 + i);
		if (i && syscall(SYS_kcmp, me, me, KCMP_FILE, FD0 + i - 1, FD0 + i) <= 0)
			fail("fds %d and %d are one description", FD0 + i - 1, FD0 + i);
		if (syscall(SYS_kcmp, me, c, KCMP_FILE, FD0 + i, FD0 + i))
			fail("the child's fd %d is not the parent's description", FD0 + i);
	}
	if (write(p[1], "data", 4) != 4 || read(FD0 + NR_MORE - 1, buf, sizeof(buf) - 1) != 4 ||
	    strcmp(buf, "data"))
		fail("read '%s' through fd %d", buf, FD0 + NR_MORE - 1);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	pass();
	return 0;
}
