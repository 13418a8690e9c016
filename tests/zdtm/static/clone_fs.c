/* A child created with clone(CLONE_FS) shares cwd, root and umask with its parent. After restore both are
 * in the same cwd with the same umask, and they still share them: the child changes directory and umask,
 * and the parent sees both changes. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static const char *cwd_tail(char *buf, size_t len)
{
	if (!getcwd(buf, len))
		return "?";
	char *s = strrchr(buf, '/');
	return s ? s + 1 : buf;
}

int main(int argc, char **argv)
{
	char buf[4096];
	int pfd[2];
	test_init(argc, argv);
	if (mkdir("fs_a", 0755) || mkdir("fs_b", 0755) || chdir("fs_a") || pipe(pfd)) {
		fail("setup");
		return 1;
	}
	umask(027);
	usr1_block();
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FS | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0) {
		test_forked();
		if (child_ready(pfd))
			_exit(9);
		usr1_wait();
		int bad = strcmp(cwd_tail(buf, sizeof(buf)), "fs_a") ? 1 : 0;
		mode_t old = umask(077);
		if (old != 027)
			bad |= 2;
		if (chdir("../fs_b"))
			bad |= 4;
		_exit(bad);
	}
	if (ch < 0 || child_started(pfd)) {
		fail("clone");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FS, 0, 0) != 0)
		fail("the child does not share the parent's fs info any more");
	if (strcmp(cwd_tail(buf, sizeof(buf)), "fs_a"))
		fail("cwd %s, want .../fs_a", buf);
	mode_t m = umask(027);
	umask(m);
	if (m != 027)
		fail("umask %03o, want 027", m);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: cwd, 2: umask, 4: chdir");
	if (strcmp(cwd_tail(buf, sizeof(buf)), "fs_b"))
		fail("the child's chdir is not seen: cwd %s", buf);
	m = umask(0);
	if (m != 077)
		fail("the child's umask is not seen: %03o", m);
	return test_pass();
}
