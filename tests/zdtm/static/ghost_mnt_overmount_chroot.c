/* ghost_mnt_overmount with the test chrooted into a subdirectory r of its dir: an unlinked file held open (fd
 * 5) on a tmpfs A mounted on r/p/q, whose mount point a tmpfs B mounted on r/p covers since; then
 * chroot("r"). Its ghost is made beneath B, on A: the dump compares B's mount point as the test's mountinfo
 * has it (/p, below its root) with the ghost's path below that root, and records it in the frame of the
 * ghost's path (crshim's: CWD/r/p), which restore-ghost.c beneath_over walks. After restore fd 5 is still
 * that file, unlinked, with its data, size, mode and offset; once B is unmounted, on A (the device and mount
 * of p/q) and p/q/f is still not there; no p was made outside the root (CWD/p). Before, the dump refused it
 * ("directory / is on another filesystem now"). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ghost_overmount.h"

enum { SEED = 207 };

int main(int argc, char **argv)
{
	struct stat st;

	test_init(argc, argv);
	if (geteuid() != 0)
		test_skip("chroot needs root");
	if (mkdir("r", 0755))
		fail("mkdir r");
	gmo_make("r/", SEED);
	/* (the dir outside the root, to see that nothing was made there) */
	int out = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (out < 0 || chroot("r") || chdir("/"))
		fail("chroot r");
	test_daemon();
	test_waitsig();

	gmo_check_fd(SEED, O_RDWR, &st);
	if (!faccessat(out, "p", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("p was made outside the root");
	if (!access("/p/q", F_OK))
		fail("p/q is seen under the tmpfs on p");
	/* (no /proc in the root: statx, not fdinfo) */
	struct statx sx;
	int mid = statx(GMO_FD, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) || !(sx.stx_mask & STATX_MNT_ID)
		      ? -1
		      : (int)sx.stx_mnt_id;
	gmo_check_beneath("/p", &st, mid);
	return test_pass();
}
