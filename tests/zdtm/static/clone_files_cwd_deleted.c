/* A child made with clone(CLONE_FILES) shares its parent's fd table but not its fs info, and its cwd is a
 * removed directory (the parent's is the test dir). After restore the table is still one (kcmp), the
 * child's cwd is still that dead directory (getcwd fails with ENOENT, /proc/self/cwd says "(deleted)",
 * nothing can be made in it), the parent's is the test dir, and the directory is not back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static int child_check(void)
{
	char buf[PATH_MAX];
	int bad = 0;
	if (getcwd(buf, sizeof(buf)) || errno != ENOENT)
		bad |= 1;
	ssize_t n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
	if (n < 0)
		bad |= 2;
	else {
		buf[n] = '\0';
		if (n < 10 || strcmp(buf + n - 10, " (deleted)"))
			bad |= 2;
	}
	if (mkdir("x", 0700) == 0 || errno != ENOENT)
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	char top[PATH_MAX], here[PATH_MAX];
	int rp[2];
	test_init(argc, argv);
	if (!getcwd(top, sizeof(top)) || mkdir("gone_cwd", 0700) || pipe(rp)) {
		fail("setup");
		return 1;
	}
	usr1_block();
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0) { /* no test_forked(): it would close the parent's ready pipe, the table is one */
		if (chdir("gone_cwd") || write(rp[1], "r", 1) != 1)
			_exit(9);
		usr1_wait();
		_exit(child_check());
	}
	char c;
	if (ch < 0 || read(rp[0], &c, 1) != 1 || rmdir("gone_cwd")) {
		fail("clone, chdir or rmdir");
		return 1;
	}
	close(rp[0]);
	close(rp[1]);
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILES, 0, 0) != 0)
		fail("the child does not share the parent's fd table any more");
	if (!getcwd(here, sizeof(here)) || strcmp(here, top))
		fail("the parent's cwd is not the test dir any more");
	if (access("gone_cwd", F_OK) == 0)
		fail("the removed directory is back in the test dir");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: getcwd works, 2: cwd not \"(deleted)\", 4: mkdir in it");
	return test_pass();
}
