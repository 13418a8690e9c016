/* nsmnt_child_setns_upghost one level down: a child P of the test makes a mount namespace of its own
 * (a copy of the test's), its child M one more (a copy of P's), and its other child J opens a file of the
 * test's tmpfs (on P's copy of that mount: fd 8), then enters M's namespace (setns); the test holds the
 * file too (fd 7) and unlinks it. After restore J's fd 8 is the test's inode, unlinked, with its data, and
 * J is in M's namespace. */
#include "nsmnt.h"

#define TFD 7
#define JFD 8
#define F "/nsmnt_jv/f"

/* In P: a child that unshares its mount namespace and waits; its pid to the pipe out */
static pid_t fork_m(void)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t m = fork();
	if (m == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    child_ready(p))
			_exit(9);
		usr1_wait();
		_exit(0);
	}
	return m < 0 || child_started(p) ? -1 : m;
}

/* In P: a child that opens F at JFD, enters m's namespace and waits; then its check */
static pid_t fork_j(pid_t m)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t j = fork();
	if (j == 0) {
		struct stat st;
		char buf[8] = "";
		open_at(JFD, F, O_RDWR, "open " F " in J");
		if (nsmnt_enter(m) || child_ready(p))
			_exit(9);
		usr1_wait();
		int bad = fstat(JFD, &st) || st.st_nlink ? 1 : 0;
		_exit(bad | (pread(JFD, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "ghost") ? 2 : 0));
	}
	return j < 0 || child_started(p) ? -1 : j;
}

int main(int argc, char **argv)
{
	struct stat a, b;
	char path[64];
	int pp[2];
	pid_t ids[2];
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_jv", "tmpfs", 0, "size=1m");
	write_file(F, "ghost");
	open_at(TFD, F, O_RDWR, "open " F);
	usr1_block();
	if (pipe(pp))
		fail("pipe");
	pid_t p = test_fork();
	if (p == 0) {
		close(pp[0]);
		close(TFD);
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(9);
		pid_t m = fork_m(), j = m > 0 ? fork_j(m) : -1;
		ids[0] = m, ids[1] = j;
		if (j < 0 || write(pp[1], ids, sizeof(ids)) != sizeof(ids))
			_exit(9);
		usr1_wait();
		int bad = usr1_reap(m) ? 1 : 0;
		kill(j, SIGUSR1);
		int st;
		if (waitpid(j, &st, 0) != j || !WIFEXITED(st) || WEXITSTATUS(st))
			bad |= 2 | (WIFEXITED(st) ? WEXITSTATUS(st) << 2 : 0);
		_exit(bad);
	}
	close(pp[1]);
	CHECK(p > 0 && read(pp[0], ids, sizeof(ids)) == sizeof(ids), "P not ready");
	if (unlink(F))
		fail("unlink " F);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(ids[0]) && mntns_ino(ids[1]) == mntns_ino(ids[0]) &&
		  mntns_ino(p) != mntns_ino(ids[0]) && mntns_ino(p) != mntns_ino(getpid()),
	      "J is not in M's namespace, or M in P's, or P in the test's");
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)ids[1], JFD);
	CHECK(!stat(path, &b) && !fstat(TFD, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	      "J's fd 8 is not the inode of the test's fd 7");
	kill(p, SIGUSR1);
	child_exit_ok(p, "1: M failed, 2: J failed: 4: J's fd linked, 8: not its data");
	return test_pass();
}
