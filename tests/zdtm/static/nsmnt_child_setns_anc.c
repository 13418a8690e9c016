/* A child J of the test forks C, which unshares its mount namespace and mounts a tmpfs (/nsmnt_sx, file
 * x); C's child M unshares from C's and mounts one more (/nsmnt_sd, file d); J then setns()es into M's
 * namespace (its grandchild's: J is an ancestor of the process that made it), holding fd 8 on d. After
 * restore J and M are in one namespace other than C's and the test's, /nsmnt_sx there is C's very tmpfs
 * (same device), /nsmnt_sd is M's, fd 8 on it; the test sees neither. */
#include "nsmnt.h"

/* J: forks C, enters M's namespace, opens d at fd 8; C's and M's pids to out. */
static void j_main(int out)
{
	int cp[2];
	pid_t m = 0;
	if (pipe(cp))
		_exit(9);
	pid_t c = fork();
	if (c == 0) {
		close(cp[0]);
		nsmnt_stacked(cp[1]);
	}
	close(cp[1]);
	if (c < 0 || read(cp[0], &m, sizeof(m)) != sizeof(m) || nsmnt_enter(m))
		_exit(9);
	open_at(8, "/nsmnt_sd/d", O_RDONLY, "open /nsmnt_sd/d in M's namespace");
	if (write(out, &c, sizeof(c)) != sizeof(c) || write(out, &m, sizeof(m)) != sizeof(m))
		_exit(9);
	usr1_wait();
	struct stat a, b;
	int bad = file_is("/nsmnt_sd/d", "d") && file_is("/nsmnt_sx/x", "x") ? 0 : 1;
	if (fstat(8, &a) || stat("/nsmnt_sd", &b) || a.st_dev != b.st_dev)
		bad |= 2;
	_exit(bad | usr1_reap(c));
}

int main(int argc, char **argv)
{
	int jp[2];
	pid_t c = 0, m = 0;
	test_init(argc, argv);
	mkdirs("/nsmnt_sx");
	mkdirs("/nsmnt_sd");
	usr1_block();
	if (pipe(jp))
		fail("pipe");
	pid_t j = test_fork();
	if (j == 0) {
		close(jp[0]);
		j_main(jp[1]);
	}
	close(jp[1]);
	CHECK(read(jp[0], &c, sizeof(c)) == sizeof(c) && read(jp[0], &m, sizeof(m)) == sizeof(m),
	      "J not ready");
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(j) && mntns_ino(j) == mntns_ino(m) && mntns_ino(m) != mntns_ino(c) &&
		  mntns_ino(c) != mntns_ino(getpid()),
	      "J is not in M's namespace, or M in C's or C in the test's");
	CHECK(nsmnt_dev_in(c, "/nsmnt_sx") && nsmnt_dev_in(c, "/nsmnt_sx") == nsmnt_dev_in(m, "/nsmnt_sx") &&
		  nsmnt_dev_in(j, "/nsmnt_sx") == nsmnt_dev_in(c, "/nsmnt_sx") &&
		  nsmnt_dev_in(j, "/nsmnt_sd") == nsmnt_dev_in(m, "/nsmnt_sd") &&
		  nsmnt_dev_in(c, "/nsmnt_sx") != nsmnt_dev_in(1, "/nsmnt_sx") &&
		  nsmnt_dev_in(m, "/nsmnt_sd") != nsmnt_dev_in(1, "/nsmnt_sd"),
	      "/nsmnt_sx of J and M is not C's tmpfs, or /nsmnt_sd of J not M's");
	CHECK(access("/nsmnt_sx/x", F_OK) < 0 && access("/nsmnt_sd/d", F_OK) < 0,
	      "the tmpfs are in the test's namespace");
	kill(j, SIGUSR1);
	child_exit_ok(j,
		      "1: J lost d or x, 2: fd 8 is not on M's tmpfs, 4: C lost x, sees d, or M lost them");
	return test_pass();
}
