/* A removed directory held open (fd 5, a "kept" directory; issue 14) whose parent p is then mounted over by a
 * tmpfs (in the test's mount namespace: the host's, or in modes ns and cuns its own). After restore fd 5 is
 * still a removed directory of the test dir's filesystem (not of the tmpfs on p), named "CWD/p/d (deleted)",
 * and p/d is not back under the tmpfs nor under it once the tmpfs is gone. Its ghost is made beneath the
 * tmpfs, on the test dir's mount (restore-ghost.c beneath_over). Before, the dump refused it ("is on another
 * filesystem now"); before that, the restore made it on the tmpfs. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { FD = 5 };

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16], name[PATH_MAX + 16] = "";
	struct stat st, top;

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)) || mkdir("p", 0755) || mkdir("p/d", 0710))
		fail("mkdir p/d");
	open_at(FD, "p/d", O_RDONLY | O_DIRECTORY, "open p/d");
	if (rmdir("p/d"))
		fail("rmdir p/d");
	if (mount("crshim-ovm", "p", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on p");
	test_daemon();
	test_waitsig();

	if (fstat(FD, &st) || stat(".", &top) || !S_ISDIR(st.st_mode) || st.st_nlink != 0 ||
	    (st.st_mode & 07777) != 0710)
		fail("fd %d is not the removed directory p/d (mode %o, %lu links)", FD, st.st_mode,
		     (unsigned long)st.st_nlink);
	if (st.st_dev != top.st_dev)
		fail("fd %d is on device %#lx, not the test dir's %#lx", FD, (unsigned long)st.st_dev,
		     (unsigned long)top.st_dev);
	snprintf(want, sizeof(want), "%s/p/d (deleted)", cwd);
	if (readlink("/proc/self/fd/5", name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", FD, name, want);
	if (!access("p/d", F_OK))
		fail("p/d is there on the tmpfs");
	if (umount2("p", MNT_DETACH))
		fail("umount p");
	if (!access("p/d", F_OK))
		fail("p/d is back under the tmpfs");
	return test_pass();
}
