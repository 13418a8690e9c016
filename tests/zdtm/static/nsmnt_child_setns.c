/* Processes that entered a nested mount namespace with setns(), not unshare: (1) P forks C, C unshares its
 * mount namespace and mounts a tmpfs (/nsmnt_se, file f), then P setns()es into C's namespace: its parent
 * in it (C descends from P); (2) Q forks C2, which unshares and mounts a tmpfs (/nsmnt_sg), and G, which
 * setns()es into C2's namespace; C2 then exits: G alone is in it. After restore P and C are in one namespace
 * other than the test's with the tmpfs and its file, G in one of its own with its tmpfs; the test sees none.
 */
#include <sys/wait.h>
#include "nsmnt.h"

static int sync_fd[2];

/* read a pid from p[0] (the writer's end closed by the caller) */
static pid_t got_pid(int fd)
{
	pid_t x = 0;
	return read(fd, &x, sizeof(x)) == sizeof(x) ? x : -1;
}

/* P: forks C (own namespace), enters it; after SIGUSR1 both check and exit. */
static void p_main(int out)
{
	int pp[2];
	if (pipe(pp))
		_exit(9);
	pid_t c = fork();
	if (c == 0) {
		close(pp[0]);
		if (nsmnt_own_tmpfs("/nsmnt_se", "/nsmnt_se/f", "c") || write(pp[1], "r", 1) != 1)
			_exit(9);
		usr1_wait();
		_exit(file_is("/nsmnt_se/f", "c") ? 0 : 1);
	}
	close(pp[1]);
	char r;
	if (c < 0 || read(pp[0], &r, 1) != 1 || nsmnt_enter(c) || !file_is("/nsmnt_se/f", "c") ||
	    write(out, &c, sizeof(c)) != sizeof(c))
		_exit(9);
	usr1_wait();
	int bad = file_is("/nsmnt_se/f", "c") ? 0 : 1, st;
	bad |= mntns_ino(c) == mntns_ino(getpid()) ? 0 : 2;
	kill(c, SIGUSR1);
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 4;
	_exit(bad);
}

/* Q: forks C2 (own namespace) and G, which enters it; C2 exits; after SIGUSR1 G checks and exits. */
static void q_main(int out)
{
	int pp[2], gp[2];
	if (pipe(pp) || pipe(gp))
		_exit(9);
	pid_t c2 = fork();
	if (c2 == 0) {
		close(pp[0]);
		if (nsmnt_own_tmpfs("/nsmnt_sg", "/nsmnt_sg/f", "g") || write(pp[1], "r", 1) != 1)
			_exit(9);
		char x;
		_exit(read(gp[0], &x, 1) == 1 ? 0 : 9); /* G is in */
	}
	close(pp[1]);
	char r;
	if (c2 < 0 || read(pp[0], &r, 1) != 1)
		_exit(9);
	pid_t g = fork();
	if (g == 0) {
		if (nsmnt_enter(c2) || write(gp[1], "r", 1) != 1)
			_exit(9);
		usr1_wait();
		_exit(file_is("/nsmnt_sg/f", "g") ? 0 : 1);
	}
	int st;
	if (g < 0 || waitpid(c2, &st, 0) != c2 || !WIFEXITED(st) || WEXITSTATUS(st) ||
	    write(out, &g, sizeof(g)) != sizeof(g))
		_exit(9);
	usr1_wait();
	kill(g, SIGUSR1);
	_exit(waitpid(g, &st, 0) == g && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_se");
	mkdirs("/nsmnt_sg");
	usr1_block();
	if (pipe(sync_fd))
		fail("pipe");
	pid_t p = test_fork();
	if (p == 0)
		p_main(sync_fd[1]);
	pid_t q = test_fork();
	if (q == 0)
		q_main(sync_fd[1]);
	close(sync_fd[1]);
	pid_t a = got_pid(sync_fd[0]), b = got_pid(sync_fd[0]);
	CHECK(a > 0 && b > 0, "children not ready");
	test_daemon();
	test_waitsig();
	pid_t c = mntns_ino(a) == mntns_ino(p) ? a : b, g = c == a ? b : a;
	CHECK(mntns_ino(p) && mntns_ino(p) != mntns_ino(getpid()) && mntns_ino(c) == mntns_ino(p),
	      "P and C are not in one namespace other than the test's");
	CHECK(mntns_ino(g) && mntns_ino(g) != mntns_ino(getpid()) && mntns_ino(g) != mntns_ino(p) &&
		  mntns_ino(q) == mntns_ino(getpid()),
	      "G is not in a namespace of its own");
	CHECK(access("/nsmnt_se/f", F_OK) < 0 && access("/nsmnt_sg/f", F_OK) < 0,
	      "the tmpfs are in the test's namespace");
	kill(p, SIGUSR1);
	kill(q, SIGUSR1);
	child_exit_ok(p, "1: P lost the tmpfs, 2: P and C apart, 4: C lost it");
	child_exit_ok(q, "1: G lost its tmpfs");
	return test_pass();
}
