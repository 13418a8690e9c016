/* nsmnt_child_setns_zombie with the maker's parent in a namespace of its own: a child B unshares and mounts
 * a tmpfs (/nsmnt_sx, file x), its child B1 unshares from B's and mounts one more (/nsmnt_sd, file d); B's
 * elder sibling A setns()es into B1's namespace, holding fd 8 on x there; B1 exits (status 7) and stays a
 * zombie, B does not reap it. A alone in B1's namespace would make it again from its parent's, the test's,
 * with a tmpfs of its own at /nsmnt_sx, another than B's (a zombie has no namespace to make it from): the
 * dump refuses it with one line (.desc dump-expect) and the tree keeps running: A's /nsmnt_sx is B's very
 * tmpfs (same device), fd 8 on it, B1 is B's zombie still, status 7. Before, the restore made the two.
 * With NSMNT_SX_REAPED (nsmnt_child_setns_reaped_deep): B reaps B1 at once (status 7), which is gone, not a
 * zombie, at dump: refused all the same. */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	int bp[2], go[2];
	pid_t b1 = 0;
	char r;
	test_init(argc, argv);
	mkdirs("/nsmnt_sx");
	mkdirs("/nsmnt_sd");
	usr1_block();
	if (pipe(bp) || pipe(go))
		fail("pipe");
	struct nsmnt_jn j = nsmnt_joiner_fork("/nsmnt_sx/x", "x");
	pid_t b = test_fork();
	if (b == 0) {
		int st, pp[2];
		close(bp[0]);
		close(go[1]);
		if (nsmnt_own_tmpfs("/nsmnt_sx", "/nsmnt_sx/x", "x") || pipe(pp))
			_exit(9);
		pid_t ch = fork();
		if (ch == 0) {
			if (nsmnt_own_tmpfs("/nsmnt_sd", "/nsmnt_sd/d", "d") || child_ready(pp))
				_exit(9);
			_exit(read(go[0], &r, 1) == 1 ? 7 : 9);
		}
		if (ch < 0 || child_started(pp) || write(bp[1], &ch, sizeof(ch)) != sizeof(ch))
			_exit(9);
#ifdef NSMNT_SX_REAPED
		int reaped = waitpid(ch, &st, 0) == ch && WIFEXITED(st) && WEXITSTATUS(st) == 7;
		usr1_wait();
		int bad = file_is("/nsmnt_sx/x", "x") && access("/nsmnt_sd/d", F_OK) ? 0 : 1;
		if (!reaped)
			bad |= 2;
#else
		usr1_wait();
		int bad = file_is("/nsmnt_sx/x", "x") && access("/nsmnt_sd/d", F_OK) ? 0 : 1;
		if (waitpid(ch, &st, WNOHANG) != ch || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			bad |= 2;
#endif
		_exit(bad);
	}
	close(bp[1]);
	close(go[0]);
	CHECK(read(bp[0], &b1, sizeof(b1)) == sizeof(b1) && b1 > 0, "B1 not ready");
	nsmnt_joiner_go(&j, b1);
	CHECK(write(go[1], "z", 1) == 1, "write");
#ifdef NSMNT_SX_REAPED
	for (int i = 0; i < 2000 && !(kill(b1, 0) && errno == ESRCH); i++)
		usleep(1000);
	CHECK(kill(b1, 0) && errno == ESRCH, "B1 is not gone");
	test_daemon();
	test_waitsig();
#else
	for (int i = 0; i < 2000 && proc_state(b1) != 'Z'; i++)
		usleep(1000);
	CHECK(proc_state(b1) == 'Z', "B1 is not a zombie");
	test_daemon();
	test_waitsig();
	CHECK(proc_state(b1) == 'Z', "B1 is not a zombie after restore (state %c)", proc_state(b1));
#endif
	CHECK(mntns_ino(j.pid) && mntns_ino(j.pid) != mntns_ino(b) && mntns_ino(b) != mntns_ino(getpid()),
	      "A is in B's namespace, or B in the test's");
	CHECK(nsmnt_dev_in(b, "/nsmnt_sx") &&
		  nsmnt_dev_in(j.pid, "/nsmnt_sx") == nsmnt_dev_in(b, "/nsmnt_sx") &&
		  nsmnt_dev_in(b, "/nsmnt_sx") != nsmnt_dev_in(getpid(), "/nsmnt_sx"),
	      "/nsmnt_sx of A is not B's tmpfs");
	CHECK(nsmnt_dev_in(j.pid, "/nsmnt_sd") &&
		  nsmnt_dev_in(j.pid, "/nsmnt_sd") != nsmnt_dev_in(getpid(), "/nsmnt_sd"),
	      "A has no tmpfs at /nsmnt_sd");
	kill(b, SIGUSR1);
	kill(j.pid, SIGUSR1);
	child_exit_ok(b, "1: B lost x or sees d, 2: B1 not reaped with status 7");
	child_exit_ok(j.pid, "1: A lost x, 2: fd 8 is not on /nsmnt_sx");
	return test_pass();
}
