/* ghost_nofollow's file shared: one open file description (O_RDWR | O_NOFOLLOW) of an unlinked file held by
 * the test and a forked child (fd 50). After restore, in both, its flags (F_GETFL, fdinfo "flags:") are
 * those it had, O_NOFOLLOW among them, and it is still unlinked with its data. The description is opened
 * once for both (restore-fdshare.c) through its ghost, whose /proc magic link refuses O_NOFOLLOW. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { S = 50 };

/* fd S has flags gs and fdinfo flags fs, is unlinked, and has its data */
static int same(int gs, long fs)
{
	struct stat st;
	char buf[8] = "";
	return fcntl(S, F_GETFL) == gs && fdinfo_field(S, "flags:", 8, -1) == fs && !fstat(S, &st) &&
	       st.st_nlink == 0 && pread(S, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int a = open("ghost_nofollow_shared.f", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (a < 0 || write(a, "ghost", 5) != 5 || close(a))
		fail("make ghost_nofollow_shared.f");
	open_at(S, "ghost_nofollow_shared.f", O_RDWR | O_NOFOLLOW, "open ghost_nofollow_shared.f");
	if (unlink("ghost_nofollow_shared.f"))
		fail("unlink ghost_nofollow_shared.f");
	long fs = fdinfo_field(S, "flags:", 8, -1);
	int gs = fcntl(S, F_GETFL);
	if (fs < 0 || !(fs & O_NOFOLLOW))
		fail("flags 0%lo without O_NOFOLLOW", fs);
	pid_t ch = test_fork();
	if (ch == 0) {
		test_waitsig();
		_exit(!same(gs, fs));
	}
	test_daemon();
	test_waitsig();

	if (!same(gs, fs))
		fail("fd %d: F_GETFL %#o fdinfo %#lo, want %#o %#lo (or not unlinked, or lost its data)", S,
		     fcntl(S, F_GETFL), fdinfo_field(S, "flags:", 8, -1), gs, fs);
	kill(ch, SIGTERM);
	child_exit_ok(ch, "the child's view of the shared description (flags, unlinked, data)");
	return test_pass();
}
