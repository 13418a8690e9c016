/* A child B unshares its mount namespace and mounts a tmpfs (/nsmnt_sx, file x); its child B1 unshares from
 * B's and mounts one more (/nsmnt_sd, file d); B's elder sibling A (forked first: it comes before B in the
 * tree) then setns()es into B1's namespace, whose maker is deeper and after it in the tree, holding fd 8 on
 * x opened there. After restore A and B1 are in one namespace other than B's and the test's, both see d,
 * and /nsmnt_sx there is B's very tmpfs (same device as B's: B1 made it again from B's and A entered it;
 * before, A made it from the test's, with a tmpfs of its own there, and B1 entered that), fd 8 on it. */
#include <sys/wait.h>
#include "nsmnt.h"

static int a_check(void)
{
	struct stat a, b;
	int bad = file_is("/nsmnt_sd/d", "d") ? 0 : 1;
	if (fstat(8, &a) || stat("/nsmnt_sx", &b) || a.st_dev != b.st_dev || !file_is("/nsmnt_sx/x", "x"))
		bad |= 2;
	return bad;
}

/* A: waits for B1's pid on in, enters its namespace, opens x at fd 8; ready on out. */
static void a_main(int in, int out)
{
	pid_t b1 = 0;
	if (read(in, &b1, sizeof(b1)) != sizeof(b1) || nsmnt_enter(b1))
		_exit(9);
	open_at(8, "/nsmnt_sx/x", O_RDONLY, "open /nsmnt_sx/x in B1's namespace");
	if (write(out, "r", 1) != 1)
		_exit(9);
	usr1_wait();
	_exit(a_check());
}

/* B: its namespace with x, then B1 in one from it with d; B1's pid to out. */
static void b_main(int out)
{
	int pp[2];
	if (nsmnt_own_tmpfs("/nsmnt_sx", "/nsmnt_sx/x", "x") || pipe(pp))
		_exit(9);
	pid_t b1 = fork();
	if (b1 == 0) {
		close(out);
		if (nsmnt_own_tmpfs("/nsmnt_sd", "/nsmnt_sd/d", "d") || child_ready(pp))
			_exit(9);
		usr1_wait();
		_exit(file_is("/nsmnt_sd/d", "d") && file_is("/nsmnt_sx/x", "x") ? 0 : 1);
	}
	if (b1 < 0 || child_started(pp) || write(out, &b1, sizeof(b1)) != sizeof(b1))
		_exit(9);
	usr1_wait();
	kill(b1, SIGUSR1);
	int st, bad = access("/nsmnt_sd/d", F_OK) ? 0 : 2;
	if (waitpid(b1, &st, 0) != b1 || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 4;
	_exit(bad | (file_is("/nsmnt_sx/x", "x") ? 0 : 1));
}

static dev_t dev_in(pid_t pid, const char *path)
{
	char p[128];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/root%s", pid, path);
	return stat(p, &st) ? 0 : st.st_dev;
}

int main(int argc, char **argv)
{
	int bp[2], ap[2], ar[2];
	pid_t b1 = 0;
	char r;
	test_init(argc, argv);
	mkdirs("/nsmnt_sx");
	mkdirs("/nsmnt_sd");
	usr1_block();
	if (pipe(bp) || pipe(ap) || pipe(ar))
		fail("pipe");
	pid_t a = test_fork();
	if (a == 0) {
		close(ap[1]);
		close(ar[0]);
		a_main(ap[0], ar[1]);
	}
	close(ap[0]);
	close(ar[1]);
	pid_t b = test_fork();
	if (b == 0) {
		close(bp[0]);
		b_main(bp[1]);
	}
	close(bp[1]);
	CHECK(read(bp[0], &b1, sizeof(b1)) == sizeof(b1) && b1 > 0, "B1 not ready");
	CHECK(write(ap[1], &b1, sizeof(b1)) == sizeof(b1) && read(ar[0], &r, 1) == 1, "A not ready");
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(a) && mntns_ino(a) == mntns_ino(b1) && mntns_ino(b1) != mntns_ino(b) &&
		  mntns_ino(b) != mntns_ino(getpid()),
	      "A is not in B1's namespace, or B1 in B's or B in the test's");
	CHECK(dev_in(b, "/nsmnt_sx") && dev_in(b, "/nsmnt_sx") == dev_in(b1, "/nsmnt_sx") &&
		  dev_in(a, "/nsmnt_sx") == dev_in(b, "/nsmnt_sx") &&
		  dev_in(b, "/nsmnt_sx") != dev_in(1, "/nsmnt_sx"),
	      "/nsmnt_sx of A and B1 is not B's tmpfs");
	CHECK(access("/nsmnt_sx/x", F_OK) < 0 && access("/nsmnt_sd/d", F_OK) < 0,
	      "the tmpfs are in the test's namespace");
	kill(b, SIGUSR1);
	kill(a, SIGUSR1);
	child_exit_ok(b, "1: B lost x, 2: B sees d, 4: B1 lost d or x");
	child_exit_ok(a, "1: A lost d, 2: fd 8 or /nsmnt_sx is not B's tmpfs");
	return test_pass();
}
