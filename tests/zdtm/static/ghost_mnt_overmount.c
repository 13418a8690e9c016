/* An unlinked file held open (fd 5, O_RDWR, offset 4096) on a tmpfs A mounted on p/q, whose mount point is
 * then covered by a tmpfs B mounted on p (in the test's mount namespace: the host's, or in modes ns and cuns
 * its own): the file's own mount is under an overmount of its parent path. After restore fd 5 is still that
 * file, unlinked: its data (a hole and 128 KiB of data past it), size, mode, offset and flags, named
 * "CWD/p/q/f (deleted)", not seen under B; once B is unmounted, on A again (the device and mount of p/q,
 * where A's other file is) and p/q/f is still not there. Its ghost is made beneath B, on A (restore-ghost.c
 * beneath_over). Before, the dump refused it ("is on another filesystem now"). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "nsmnt.h"

enum { FD = 5, HOLE = 64 << 10, LEN = 128 << 10, SEED = 203 };

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16], name[PATH_MAX + 16] = "";
	static char buf[LEN];
	struct stat st, q;
	size_t bad;

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)) || mkdir("p", 0755) || mkdir("p/q", 0755))
		fail("mkdir p/q");
	if (mount("crshim-a", "p/q", "tmpfs", 0, "size=1m"))
		fail("mount a tmpfs on p/q");
	if (close(open("p/q/keep", O_CREAT | O_WRONLY, 0600)))
		fail("make p/q/keep");
	open_at(FD, "p/q/f", O_RDWR | O_CREAT | O_EXCL, "make p/q/f");
	datagen(buf, LEN, SEED);
	if (fchmod(FD, 0640) || pwrite(FD, buf, LEN, HOLE) != LEN || lseek(FD, 4096, SEEK_SET) != 4096)
		fail("fill p/q/f");
	if (unlink("p/q/f"))
		fail("unlink p/q/f");
	if (mount("crshim-b", "p", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on p");
	test_daemon();
	test_waitsig();

	if (fstat(FD, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 0 || (st.st_mode & 07777) != 0640 ||
	    st.st_size != HOLE + LEN)
		fail("fd %d is not the unlinked p/q/f (mode %o, %lu links, size %lld)", FD, st.st_mode,
		     (unsigned long)st.st_nlink, (long long)st.st_size);
	if (lseek(FD, 0, SEEK_CUR) != 4096 || (fcntl(FD, F_GETFL) & O_ACCMODE) != O_RDWR)
		fail("fd %d: offset or flags changed", FD);
	memset(buf, 0, sizeof(buf));
	if (pread(FD, buf, LEN, HOLE) != LEN || datachk(buf, LEN, SEED, &bad))
		fail("fd %d: its data changed", FD);
	if (pread(FD, buf, 16, 0) != 16 || memcmp(buf, (char[16]){0}, 16))
		fail("fd %d: its hole has data", FD);
	snprintf(want, sizeof(want), "%s/p/q/f (deleted)", cwd);
	if (readlink("/proc/self/fd/5", name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", FD, name, want);
	if (!access("p/q", F_OK))
		fail("p/q is seen under the tmpfs on p");
	int mid = fd_mnt_id(FD);
	if (umount2("p", MNT_DETACH))
		fail("umount p");
	if (stat("p/q", &q) || q.st_dev != st.st_dev || mid < 0 || mid != path_mnt_id("p/q"))
		fail("fd %d (mount %d) is not on the tmpfs on p/q (mount %d)", FD, mid, path_mnt_id("p/q"));
	if (access("p/q/keep", F_OK) || !access("p/q/f", F_OK))
		fail("p/q/keep is not there or p/q/f is back");
	if (umount2("p/q", MNT_DETACH))
		fail("umount p/q");
	return test_pass();
}
