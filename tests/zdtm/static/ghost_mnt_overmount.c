/* An unlinked file held open (fd 5, O_RDWR, offset 4096) on a tmpfs A mounted on p/q, whose mount point is
 * then covered by a tmpfs B mounted on p (in the test's mount namespace: the host's, or in modes ns and cuns
 * its own): the file's own mount is under an overmount of its parent path. After restore fd 5 is still that
 * file, unlinked: its data (a hole and 128 KiB of data past it), size, mode, offset and flags, named
 * "CWD/p/q/f (deleted)", not seen under B; once B is unmounted, on A again (the device and mount of p/q,
 * where A's other file is) and p/q/f is still not there. Its ghost is made beneath B, on A (restore-ghost.c
 * beneath_over). Before, the dump refused it ("is on another filesystem now"). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ghost_overmount.h"

enum { SEED = 203 };

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16], name[PATH_MAX + 16] = "";
	struct stat st;

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	gmo_make("", SEED);
	test_daemon();
	test_waitsig();

	gmo_check_fd(SEED, O_RDWR, &st);
	snprintf(want, sizeof(want), "%s/p/q/f (deleted)", cwd);
	if (readlink("/proc/self/fd/5", name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", GMO_FD, name, want);
	if (!access("p/q", F_OK))
		fail("p/q is seen under the tmpfs on p");
	gmo_check_beneath("p", &st, fd_mnt_id(GMO_FD));
	return test_pass();
}
