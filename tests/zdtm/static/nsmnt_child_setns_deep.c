/* A child B unshares its mount namespace and mounts a tmpfs (/nsmnt_sx, file x); its child B1 unshares from
 * B's and mounts one more (/nsmnt_sd, file d); B's elder sibling A (forked first: it comes before B in the
 * tree) then setns()es into B1's namespace, whose maker is deeper and after it in the tree, holding fd 8 on
 * x opened there. After restore A and B1 are in one namespace other than B's and the test's, both see d,
 * and /nsmnt_sx there is B's very tmpfs (same device as B's: B1 made it again from B's and A entered it;
 * before, A made it from the test's, with a tmpfs of its own there, and B1 entered that), fd 8 on it. */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	int bp[2];
	pid_t b1 = 0;
	test_init(argc, argv);
	mkdirs("/nsmnt_sx");
	mkdirs("/nsmnt_sd");
	usr1_block();
	if (pipe(bp))
		fail("pipe");
	struct nsmnt_jn j = nsmnt_joiner_fork("/nsmnt_sx/x", "x");
	pid_t a = j.pid;
	pid_t b = test_fork();
	if (b == 0) {
		close(bp[0]);
		nsmnt_stacked(bp[1]);
	}
	close(bp[1]);
	CHECK(read(bp[0], &b1, sizeof(b1)) == sizeof(b1) && b1 > 0, "B1 not ready");
	nsmnt_joiner_go(&j, b1);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(a) && mntns_ino(a) == mntns_ino(b1) && mntns_ino(b1) != mntns_ino(b) &&
		  mntns_ino(b) != mntns_ino(getpid()),
	      "A is not in B1's namespace, or B1 in B's or B in the test's");
	CHECK(nsmnt_dev_in(b, "/nsmnt_sx") && nsmnt_dev_in(b, "/nsmnt_sx") == nsmnt_dev_in(b1, "/nsmnt_sx") &&
		  nsmnt_dev_in(a, "/nsmnt_sx") == nsmnt_dev_in(b, "/nsmnt_sx") &&
		  nsmnt_dev_in(b, "/nsmnt_sx") != nsmnt_dev_in(1, "/nsmnt_sx"),
	      "/nsmnt_sx of A and B1 is not B's tmpfs");
	CHECK(access("/nsmnt_sx/x", F_OK) < 0 && access("/nsmnt_sd/d", F_OK) < 0,
	      "the tmpfs are in the test's namespace");
	kill(b, SIGUSR1);
	kill(a, SIGUSR1);
	child_exit_ok(b, "1: B lost x, 2: B sees d, 4: B1 lost d or x");
	child_exit_ok(a, "1: A lost x, 2: fd 8 is not on /nsmnt_sx");
	return test_pass();
}
