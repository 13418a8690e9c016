/* One fd table shared down a line and across it: the test P clones A and C with CLONE_FILES; A clones Y with
 * CLONE_FILES and exits, so Y is reparented to P (a child subreaper); C leads a session of its own
 * (setsid), has a thread, and clones B with CLONE_FILES; B forks D, whose table is a copy with an fd of its
 * own. After restore P, Y, C and B share one table (kcmp), an fd B opens is seen by P and Y, D's table is
 * still its own (its fd at its offset, none of the shared table's new fds). The dump refused C and A
 * ("has children"). */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int same_table(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0) == 0;
}

static pid_t clone_files(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
}

static int ready_fd; /* the write end of the test's pipe: its table is P's (not closed by the sharers) */

static int say(pid_t pid)
{
	return write(ready_fd, &pid, sizeof(pid)) == sizeof(pid) ? 0 : -1;
}

static int d_main(void)
{
	test_forked();
	int f = open("d.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0 || write(f, "0123456789", 10) != 10 || lseek(f, 5, SEEK_SET) != 5 || dup2(f, 50) != 50)
		return 64;
	close(f);
	close(10);
	if (say(getpid()))
		return 64;
	close(ready_fd);
	usr1_wait();
	int bad = 0;
	if (same_table(getpid(), getppid()))
		bad |= 1;
	if (lseek(50, 0, SEEK_CUR) != 5 || is_open(10) || is_open(70) || is_open(71))
		bad |= 2;
	return bad;
}

static int b_main(void)
{
	int st;
	pid_t d = fork();
	if (d == 0)
		_exit(d_main());
	if (d < 0 || say(getpid()))
		return 64;
	usr1_wait(); /* P opened fd 70 */
	int bad = 0;
	if (!is_open(70) || dup2(10, 71) != 71) /* 71: seen by P and Y */
		bad |= 1;
	kill(d, SIGUSR1);
	if (waitpid(d, &st, 0) != d || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 2;
	return bad;
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int c_main(void)
{
	int st;
	pthread_t th;
	if (setsid() < 0 || pthread_create(&th, NULL, idle, NULL))
		return 64;
	pid_t b = clone_files();
	if (b == 0)
		_exit(b_main());
	if (b < 0 || say(getpid()))
		return 64;
	usr1_wait();
	kill(b, SIGUSR1);
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return is_open(71) ? 0 : 2;
}

static int y_main(void)
{
	if (say(getpid()))
		return 64;
	usr1_wait();
	return is_open(70) && is_open(71) ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rp[2], st;
	pid_t ids[5]; /* Y, C, B, D in some order; which is which from kcmp and the parents */
	test_init(argc, argv);
	int f = open("files.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) || f < 0 || write(f, "0123456789", 10) != 10 ||
	    lseek(f, 3, SEEK_SET) != 3 || dup2(f, 10) != 10 || pipe(rp)) {
		fail("setup");
		return 1;
	}
	close(f);
	ready_fd = rp[1];
	usr1_block();
	pid_t a = clone_files();
	if (a == 0) {
		pid_t y = clone_files();
		if (y == 0)
			_exit(y_main());
		_exit(y < 0);
	}
	pid_t c = clone_files();
	if (c == 0)
		_exit(c_main());
	if (a < 0 || c < 0 || waitpid(a, &st, 0) != a || st) {
		fail("clone(CLONE_FILES)");
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (read_exact(rp[0], &ids[i], sizeof(pid_t), 10000)) {
			fail("the children's setup");
			return 1;
		}
	close(rp[0]);
	close(rp[1]);
	pid_t y = -1, b = -1, d = -1;
	for (int i = 0; i < 4; i++) {
		pid_t k = ids[i];
		if (k == c)
			continue;
		if (!same_table(getpid(), k))
			d = k;
		else if (kill(k, 0) == 0 && getpgid(k) == getpgid(c) && getsid(k) == c)
			b = k;
		else
			y = k;
	}
	test_daemon();
	test_waitsig();

	if (y < 0 || b < 0 || d < 0 || !same_table(getpid(), y) || !same_table(getpid(), c) ||
	    !same_table(getpid(), b) || same_table(getpid(), d))
		fail("tables: Y %d C %d B %d D %d", y, c, b, d);
	if (lseek(10, 0, SEEK_CUR) != 3 || is_open(50))
		fail("fd 10 not at 3, or D's fd 50 is in the shared table");
	if (dup2(10, 70) != 70)
		fail("dup2 70");
	kill(b, SIGUSR1);
	for (int i = 0; i < 200 && !is_open(71); i++)
		usleep(10000);
	if (!is_open(71))
		fail("the fd B opened after restore is not in the shared table");
	kill(y, SIGUSR1);
	kill(c, SIGUSR1);
	child_exit_ok(y, "1: Y does not see 70 or 71");
	child_exit_ok(c, "1: B (1: fd 70 or 71, 2: D: 1 table, 2 fds), 2: C does not see 71");
	return test_pass();
}
