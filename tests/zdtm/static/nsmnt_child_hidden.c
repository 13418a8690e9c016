/* A child in an unchanged copy of the test's mount namespace (unshare(CLONE_NEWNS) only), where a shared bind
 * is hidden under another mount of its peer group at the same place (CRIU's mntns_remap): /nsmnt_ch/1 a
 * private bind with 1/a a shared bind in it, 2 a tmpfs with 2/a a bind of 1/a (same group), then 2 moved
 * onto 1. After restore the child's copy still has both binds at /nsmnt_ch/1/a, and they are still peers of
 * the test's: a tmpfs the test mounts at /nsmnt_ch/1/a/p after restore shows in the child. Before, the
 * restore rebuilt the copy mount by mount and failed to put the hidden one back in its group ("join its peer
 * group: Invalid argument"). */
#include <sys/wait.h>
#include "nsmnt.h"

#define D "/nsmnt_ch"

static void must(int r, const char *what)
{
	if (r)
		fail("%s", what);
}

int main(int argc, char **argv)
{
	int pfd[2], st;
	test_init(argc, argv);
	mkdirs(D);
	must(mount("nsmnt", D, "tmpfs", 0, "size=1m"), "mount tmpfs " D);
	must(mkdir(D "/1", 0755) || mkdir(D "/2", 0755), "mkdir 1 2");
	must(mount(D "/1", D "/1", NULL, MS_BIND, NULL) || mount(NULL, D "/1", NULL, MS_PRIVATE, NULL),
	     "private bind 1");
	must(mount("nsmnt", D "/2", "tmpfs", 0, "size=1m"), "tmpfs 2");
	must(mkdir(D "/1/a", 0755) || mkdir(D "/2/a", 0755), "mkdir a");
	must(mount(D "/1/a", D "/1/a", NULL, MS_BIND, NULL) || mount(NULL, D "/1/a", NULL, MS_SHARED, NULL),
	     "shared bind 1/a");
	must(mount(D "/1/a", D "/2/a", NULL, MS_BIND, NULL), "bind 1/a on 2/a");
	must(mount(D "/2", D "/1", NULL, MS_MOVE, NULL), "move 2 onto 1");
	must(mkdir(D "/1/a/p", 0755), "mkdir p");
	usr1_block();
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		if (unshare(CLONE_NEWNS) || child_ready(pfd))
			_exit(9);
		usr1_wait();
		struct mnt_line m;
		int bad = mnt_count(D "/1/a") != 2 ? 1 : 0;
		bad |= mnt_find(D "/1/a/p", &m) || strcmp(m.type, "tmpfs") ? 2 : 0;
		_exit(bad);
	}
	if (ch < 0 || child_started(pfd))
		fail("child not ready");
	test_daemon();
	test_waitsig();

	CHECK(mnt_count(D "/1/a") == 2, "the test has %d mounts at " D "/1/a, not 2", mnt_count(D "/1/a"));
	/* propagates to the child's copies if they are still peers of ours */
	CHECK(!mount("nsmnt", D "/1/a/p", "tmpfs", 0, "size=1m"), "mount at " D "/1/a/p");
	kill(ch, SIGUSR1);
	CHECK(waitpid(ch, &st, 0) == ch && WIFEXITED(st), "child: status %#x", st);
	CHECK(!(WEXITSTATUS(st) & 1), "the child's copy lost a mount at " D "/1/a");
	CHECK(!(WEXITSTATUS(st) & 2),
	      "the child's copy no longer peers with the test's (no mount at " D "/1/a/p)");
	CHECK(!WEXITSTATUS(st), "child exit %d", WEXITSTATUS(st));
	pass();
	return 0;
}
