/* A pipe held by a parent and its child (made once by crshim) with two open file descriptions of its read
 * end: the one from pipe() and a reopen through /proc/self/fd (O_NONBLOCK), both inherited by the child.
 * After restore each process still has two descriptions (kcmp), the parent's and the child's are the same
 * ones, the flags are kept, and data written comes through the reopened one. Before, every description of
 * an end of a shared pipe came back as one (the reopen lost O_NONBLOCK). */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define R2 40

static long kcmp_file(pid_t a, pid_t b, int fa, int fb)
{
	return syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb);
}

int main(int argc, char **argv)
{
	int p[2], fd;
	char path[64], buf[16] = "";
	test_init(argc, argv);
	if (pipe(p))
		fail("pipe");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0 || dup2(fd, R2) != R2 || close(fd))
		fail("reopen the read end");
	pid_t c = test_fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	test_daemon();
	test_waitsig();

	pid_t me = getpid();
	if (kcmp_file(me, me, p[0], R2) <= 0)
		fail("the two read ends are one description");
	if (kcmp_file(me, c, p[0], p[0]) || kcmp_file(me, c, R2, R2) || kcmp_file(me, c, p[1], p[1]))
		fail("the child's descriptions are not the parent's");
	if (!(fcntl(R2, F_GETFL) & O_NONBLOCK) || (fcntl(p[0], F_GETFL) & O_NONBLOCK))
		fail("flags %#x %#x", fcntl(p[0], F_GETFL), fcntl(R2, F_GETFL));
	if (write(p[1], "data", 4) != 4 || read(R2, buf, sizeof(buf) - 1) != 4 || strcmp(buf, "data"))
		fail("read '%s' through fd %d", buf, R2);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	pass();
	return 0;
}
