/* ghost_mnt_overmount with the test chrooted into a subdirectory r of its dir: an unlinked file held open (fd
 * 5) on a tmpfs A mounted on r/p/q, whose mount point a tmpfs B mounted on r/p covers since; then
 * chroot("r"). Its ghost is made beneath B, on A: the dump compares B's mount point as the test's mountinfo
 * has it (/p, below its root) with the ghost's path below that root, and records it in the frame of the
 * ghost's path (crshim's: CWD/r/p), which restore-ghost.c beneath_over walks. After restore fd 5 is still
 * that file, unlinked, with its data, size, mode and offset; once B is unmounted, on A (the device and mount
 * of p/q) and p/q/f is still not there; no p was made outside the root (CWD/p). Before, the dump refused it
 * ("directory / is on another filesystem now"). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "nsmnt.h"

enum { FD = 5, HOLE = 64 << 10, LEN = 128 << 10, SEED = 207 };

int main(int argc, char **argv)
{
	static char buf[LEN];
	struct stat st, q;
	size_t bad;

	test_init(argc, argv);
	if (geteuid() != 0)
		test_skip("chroot needs root");
	if (mkdir("r", 0755) || mkdir("r/p", 0755) || mkdir("r/p/q", 0755))
		fail("mkdir r/p/q");
	if (mount("crshim-a", "r/p/q", "tmpfs", 0, "size=1m"))
		fail("mount a tmpfs on r/p/q");
	if (close(open("r/p/q/keep", O_CREAT | O_WRONLY, 0600)))
		fail("make r/p/q/keep");
	open_at(FD, "r/p/q/f", O_RDWR | O_CREAT | O_EXCL, "make r/p/q/f");
	datagen(buf, LEN, SEED);
	if (fchmod(FD, 0640) || pwrite(FD, buf, LEN, HOLE) != LEN || lseek(FD, 4096, SEEK_SET) != 4096)
		fail("fill r/p/q/f");
	if (unlink("r/p/q/f"))
		fail("unlink r/p/q/f");
	if (mount("crshim-b", "r/p", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on r/p");
	/* (the dir outside the root, to see that nothing was made there) */
	int out = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (out < 0 || chroot("r") || chdir("/"))
		fail("chroot r");
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
	if (!faccessat(out, "p", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("p was made outside the root");
	if (!access("/p/q", F_OK))
		fail("p/q is seen under the tmpfs on p");
	/* (no /proc in the root: statx, not fdinfo) */
	struct statx sx;
	int mid = statx(FD, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) || !(sx.stx_mask & STATX_MNT_ID)
		      ? -1
		      : (int)sx.stx_mnt_id;
	if (umount2("/p", MNT_DETACH))
		fail("umount p");
	if (stat("/p/q", &q) || q.st_dev != st.st_dev || mid < 0 || mid != path_mnt_id("/p/q"))
		fail("fd %d (mount %d) is not on the tmpfs on p/q (mount %d)", FD, mid, path_mnt_id("/p/q"));
	if (access("/p/q/keep", F_OK) || !access("/p/q/f", F_OK))
		fail("p/q/keep is not there or p/q/f is back");
	if (umount2("/p/q", MNT_DETACH))
		fail("umount p/q");
	return test_pass();
}
