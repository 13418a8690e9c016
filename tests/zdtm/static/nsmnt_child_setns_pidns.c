/* A process A of the test's PID namespace setns()es into the mount namespace of M, a process of a PID
 * namespace nested in the test's: M is PID 2 there, the child of its init P (which has a mount namespace of
 * its own with its /proc), and unshared its mount namespace from P's and mounted a tmpfs (/nsmnt_sp, file
 * f). A comes before P and M in the tree and holds fd 8 on f. After restore A and M are in one namespace,
 * other than P's and the test's, /nsmnt_sp there is M's tmpfs (same device), fd 8 on it (M makes it from
 * P's, A enters it through M's PID as it sees it). Before, the dump refused it with one line. */
#include "nsmnt.h"

/* P, init of its PID namespace: a mount namespace with its /proc, then M in one from it with the tmpfs. */
static void p_main(int out)
{
	int pp[2];
	if (pipe(pp))
		_exit(9);
	pid_t m = fork();
	if (m == 0) {
		close(out);
		/* (its stdio on the test's mounts, which P's namespace copied: not restored that deep) */
		for (int fd = 0; fd < 3; fd++)
			open_at(fd, "/dev/null", O_RDWR, "/dev/null of P's namespace");
		if (nsmnt_own_tmpfs("/nsmnt_sp", "/nsmnt_sp/f", "p") || child_ready(pp))
			_exit(9);
		usr1_wait();
		_exit(file_is("/nsmnt_sp/f", "p") ? 0 : 1);
	}
	if (m < 0 || child_started(pp) || write(out, "r", 1) != 1)
		_exit(9);
	usr1_wait();
	int bad = access("/nsmnt_sp/f", F_OK) ? 0 : 2;
	_exit(bad | usr1_reap(m));
}

int main(int argc, char **argv)
{
	int pr[2];
	char r;
	test_init(argc, argv);
	mkdirs("/nsmnt_sp");
	usr1_block();
	if (pipe(pr))
		fail("pipe");
	struct nsmnt_jn j = nsmnt_joiner_fork("/nsmnt_sp/f", "p");
	pid_t a = j.pid;
	pid_t p = nsmnt_pidns_fork();
	if (p == 0) {
		close(pr[0]);
		p_main(pr[1]);
	}
	close(pr[1]);
	CHECK(p > 0 && read(pr[0], &r, 1) == 1, "P not ready");
	pid_t m = nsmnt_first_child(p);
	nsmnt_joiner_go(&j, m);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(a) && mntns_ino(a) == mntns_ino(m) && mntns_ino(m) != mntns_ino(p) &&
		  mntns_ino(p) != mntns_ino(getpid()),
	      "A is not in M's namespace, or M in P's or P in the test's");
	CHECK(nsmnt_dev_in(m, "/nsmnt_sp") && nsmnt_dev_in(a, "/nsmnt_sp") == nsmnt_dev_in(m, "/nsmnt_sp") &&
		  nsmnt_dev_in(m, "/nsmnt_sp") != nsmnt_dev_in(getpid(), "/nsmnt_sp"),
	      "/nsmnt_sp of A is not M's tmpfs");
	kill(p, SIGUSR1);
	kill(a, SIGUSR1);
	child_exit_ok(p, "2: P sees the tmpfs, 4: M lost it");
	child_exit_ok(a, "1: A lost the tmpfs, 2: fd 8 is not on it");
	return test_pass();
}
