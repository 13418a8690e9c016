/* A child forks a grandchild, then unshares its mount namespace and mounts a tmpfs of its own
 * (/nsmnt_cb): the grandchild stays in the test's namespace, not its parent's (CRIU's tempfs_subns shape).
 * After restore the grandchild is in the test's namespace again (setns into the one its parent's was made
 * from, pstree_entry.mntns_up) without the tmpfs, the child in its own with it. Before, the dump refused the
 * child. */
#include <sys/wait.h>
#include "nsmnt.h"

static pid_t gc;

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cb", "tmpfs", 0, "size=1m"))
		return -1;
	write_file("/nsmnt_cb/f", "child");
	return 0;
}

static int check(void)
{
	struct mnt_line m;
	return mnt_find("/nsmnt_cb", &m) || !file_is("/nsmnt_cb/f", "child") ? 1 : 0;
}

int main(int argc, char **argv)
{
	int pfd[2];
	test_init(argc, argv);
	mkdirs("/nsmnt_cb");
	usr1_block();
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		gc = fork();
		if (gc == 0) {
			usr1_wait();
			struct mnt_line m;
			_exit(!mnt_find("/nsmnt_cb", &m) ? 1 : 0);
		}
		if (gc < 0 || unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    setup() || write(pfd[1], &gc, sizeof(gc)) != sizeof(gc))
			_exit(9);
		usr1_wait();
		int bad = check(), st;
		kill(gc, SIGUSR1);
		if (waitpid(gc, &st, 0) != gc || !WIFEXITED(st) || WEXITSTATUS(st))
			bad |= 2;
		_exit(bad);
	}
	close(pfd[1]);
	if (ch < 0 || read(pfd[0], &gc, sizeof(gc)) != sizeof(gc))
		fail("child not ready");
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(gc) == mntns_ino(getpid()), "the grandchild is not in the test's mount namespace");
	CHECK(mntns_ino(ch) && mntns_ino(ch) != mntns_ino(getpid()),
	      "the child is in the test's mount namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its tmpfs is gone, 2: the grandchild sees it");
	return test_pass();
}
