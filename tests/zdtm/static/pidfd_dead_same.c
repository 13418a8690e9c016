/* Three pidfds (three open file descriptions) of one child that exited and was reaped: the parent holds fd 40
 * and fd 42 (PIDFD_NONBLOCK = O_NONBLOCK), a second child only fd 41. After restore they are still pidfds of
 * one process: the same pidfs inode in both processes, and fd 42 alone is non-blocking. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define PIDFS_MAGIC_ 0x50494446
enum { A = 40, B = 41, C = 42 };

static int pidfd_at(pid_t pid, unsigned flags, int at)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, flags);
	if (fd < 0 || dup3(fd, at, 0) != at)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t m;
	int sig, res[2] = {-1, -1};
	struct stat a = {0}, c = {0};
	struct statfs sfs;
	char ino[64] = "", want[64];

	test_init(argc, argv);
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	if (dead < 0 || pidfd_at(dead, 0, A) || pidfd_at(dead, 0, B) || pidfd_at(dead, O_NONBLOCK, C) ||
	    waitpid(dead, NULL, 0) != dead || pipe(res))
		fail("pidfds of a reaped child");
	if (fstatfs(A, &sfs) || sfs.f_type != PIDFS_MAGIC_)
		test_skip("pidfds are not pidfs files here (anonymous inodes: one inode for all)");
	usr1_mask(&m);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(A);
		close(C);
		close(res[0]);
		sigwait(&m, &sig);
		if (fstat(B, &a))
			_exit(1);
		snprintf(ino, sizeof(ino), "%llu", (unsigned long long)a.st_ino);
		_exit(write(res[1], ino, strlen(ino)) > 0 ? 0 : 2);
	}
	close(B);
	close(res[1]);
	test_daemon();
	test_waitsig();

	child_report(ch, res[0], ino, sizeof(ino));
	if (fstat(A, &a) || fstat(C, &c))
		fail("fstat");
	snprintf(want, sizeof(want), "%llu", (unsigned long long)a.st_ino);
	if (a.st_ino != c.st_ino)
		fail("fds %d and %d of the parent are pidfds of two processes (inodes %s, %llu)", A, C, want,
		     (unsigned long long)c.st_ino);
	if (strcmp(ino, want))
		fail("the child's pidfd is inode %s, the parent's %s: two processes", ino, want);
	if ((fcntl(A, F_GETFL) & O_NONBLOCK) || !(fcntl(C, F_GETFL) & O_NONBLOCK))
		fail("O_NONBLOCK: fd %d %#x, fd %d %#x", A, fcntl(A, F_GETFL), C, fcntl(C, F_GETFL));
	if (syscall(SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, A, C) == 0)
		fail("fds %d and %d became one open file description", A, C);
	pass();
	return 0;
}
