/* A child unshares its mount namespace and mounts a tmpfs of its own (/nsmnt_ss); its sibling setns()es into
 * that namespace while the child lives: crshim makes a nested namespace in the process that made it and its
 * descendants only, so the dump refuses the sibling with one line (.desc dump-expect) and the tree keeps
 * running, both still in that namespace (nsmnt_child_setns: the shapes that are restored). */
#include "nsmnt.h"

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_ss", "tmpfs", 0, "size=1m"))
		return -1;
	write_file("/nsmnt_ss/f", "c");
	return 0;
}

static int check(void)
{
	return file_is("/nsmnt_ss/f", "c") ? 0 : 1;
}

int main(int argc, char **argv)
{
	int pfd[2];
	test_init(argc, argv);
	mkdirs("/nsmnt_ss");
	usr1_block();
	pid_t c = nsmnt_child(setup, check);
	if (pipe(pfd))
		fail("pipe");
	pid_t s = test_fork();
	if (s == 0) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", c);
		int fd = open(p, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWNS) || chdir("/") || child_ready(pfd))
			_exit(9);
		usr1_wait();
		_exit(check());
	}
	if (s < 0 || child_started(pfd))
		fail("sibling not ready");
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(s) && mntns_ino(s) == mntns_ino(c) && mntns_ino(c) != mntns_ino(getpid()),
	      "the sibling is not in the child's namespace");
	kill(c, SIGUSR1);
	kill(s, SIGUSR1);
	child_exit_ok(c, "1: its tmpfs is gone");
	child_exit_ok(s, "1: the child's tmpfs is gone");
	return test_pass();
}
