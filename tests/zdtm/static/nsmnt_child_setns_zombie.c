/* A child Z of the test unshares its mount namespace and mounts a tmpfs (/nsmnt_sz, file f); another child
 * G setns()es into Z's namespace and holds fd 8 on f; Z then exits (status 7) and stays a zombie, not
 * reaped: G alone lives in the namespace. After restore G is in a namespace of its own, other than the
 * test's, with a tmpfs at /nsmnt_sz holding f, fd 8 on it; the test does not see it; Z is a zombie still
 * and waitpid gives its status 7. (G makes the namespace at restore, from the test's: a zombie has no mount
 * namespace to enter.) */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	int zp[2], zgo[2];
	siginfo_t si;
	char r;
	test_init(argc, argv);
	mkdirs("/nsmnt_sz");
	usr1_block();
	if (pipe(zp) || pipe(zgo))
		fail("pipe");
	pid_t z = test_fork();
	if (z == 0) {
		close(zgo[1]);
		if (nsmnt_own_tmpfs("/nsmnt_sz", "/nsmnt_sz/f", "z") || child_ready(zp))
			_exit(9);
		_exit(read(zgo[0], &r, 1) == 1 ? 7 : 9); /* G is in */
	}
	close(zgo[0]);
	CHECK(z > 0 && !child_started(zp), "Z not ready");
	struct nsmnt_jn j = nsmnt_joiner_fork("/nsmnt_sz/f", "z");
	nsmnt_joiner_go(&j, z);
	CHECK(write(zgo[1], "g", 1) == 1 && !waitid(P_PID, z, &si, WEXITED | WNOWAIT), "Z did not exit");
	CHECK(mntns_ino(j.pid) && mntns_ino(j.pid) != mntns_ino(getpid()), "G is not in Z's namespace");
	test_daemon();
	test_waitsig();
	CHECK(proc_state(z) == 'Z', "Z is not a zombie (state %c)", proc_state(z));
	CHECK(mntns_ino(j.pid) && mntns_ino(j.pid) != mntns_ino(getpid()),
	      "G is not in a namespace other than the test's");
	CHECK(nsmnt_dev_in(j.pid, "/nsmnt_sz") &&
		  nsmnt_dev_in(j.pid, "/nsmnt_sz") != nsmnt_dev_in(getpid(), "/nsmnt_sz") &&
		  access("/nsmnt_sz/f", F_OK) < 0,
	      "/nsmnt_sz of G is not a tmpfs of its own, or the test sees f");
	int st;
	CHECK(waitpid(z, &st, WNOHANG) == z && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "Z: not reaped with status 7 (%#x)", st);
	kill(j.pid, SIGUSR1);
	child_exit_ok(j.pid, "1: G lost f, 2: fd 8 is not on /nsmnt_sz");
	return test_pass();
}
