/* A namespace file of a namespace the task is not in (a child's own UTS namespace, held open after the
 * child is gone): refused at dump with one line (.desc), the fd still names that namespace afterwards.
 * Without CAP_SYS_ADMIN (mode user) the child makes a user namespace with it, which then owns the UTS one. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int pfd[2], st;
	char p[64];
	struct stat a, b;
	test_init(argc, argv);
	if (pipe(pfd))
		fail("pipe");
	pid_t c = fork();
	if (c == 0) {
		char x;
		if (unshare(CLONE_NEWUTS) && (errno != EPERM || unshare(CLONE_NEWUSER | CLONE_NEWUTS)))
			_exit(1);
		close(pfd[1]);
		_exit(read(pfd[0], &x, 1) == 0 ? 0 : 1); /* until the parent has the file open */
	}
	close(pfd[0]);
	snprintf(p, sizeof(p), "/proc/%d/ns/uts", c);
	int fd = -1;
	for (int i = 0; i < 5000 && (stat(p, &a) || stat("/proc/self/ns/uts", &b) || a.st_ino == b.st_ino);
	     i++)
		usleep(1000); /* the child's unshare */
	fd = open(p, O_RDONLY);
	close(pfd[1]);
	if (fd < 0 || waitpid(c, &st, 0) != c || st)
		return fail("setup: the child's uts namespace file"), 1;
	if (fstat(fd, &a) || stat("/proc/self/ns/uts", &b) || a.st_ino == b.st_ino)
		return fail("setup: the fd names our own uts namespace"), 1;
	test_daemon();
	test_waitsig();
	struct stat c2;
	if (fstat(fd, &c2) || c2.st_ino != a.st_ino)
		fail("the fd names another namespace after the refused dump");
	pass();
	return 0;
}
