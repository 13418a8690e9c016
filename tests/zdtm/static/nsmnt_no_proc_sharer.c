/* A mount tree without /proc (as CRIU's clean_mntns leaves it) and a child sharing the fd table
 * (CLONE_FILES): its parent places the child's helper fds above its own highest fd, which it reads from
 * /proc/self/fd (crshim's when the task has none). After restore the child still shares the table (kcmp)
 * and sees a file the parent opens. Before, the restore failed "task N (shares the fd table):
 * /proc/self/fd: No such file or directory". */
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "nsmnt.h"

static char stack[65536] __attribute__((aligned(16)));

static int child_fn(void *arg __attribute__((unused)))
{
	while (fcntl(50, F_GETFD) < 0) /* the parent's fd 50, opened after the restore */
		usleep(10000);
	return 7;
}

int main(int argc, char **argv)
{
	int st;
	test_init(argc, argv);
	pid_t c = clone(child_fn, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	CHECK(c > 0, "clone");
	CHECK(!umount2("/proc", MNT_DETACH), "umount /proc");
	umount2("/dev/pts", MNT_DETACH); /* not every root has one */
	CHECK(access("/proc/self", F_OK), "/proc/self still there");
	test_daemon();
	test_waitsig();

	CHECK(!syscall(SYS_kcmp, getpid(), c, KCMP_FILES, 0, 0), "the child does not share the fd table");
	open_at(50, "/", O_RDONLY | O_DIRECTORY, "open / at fd 50");
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "the child did not see fd 50 (status %#x)", st);
	pass();
	return 0;
}
