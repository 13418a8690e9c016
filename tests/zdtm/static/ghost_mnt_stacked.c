/* An unlinked file held open (fd 5) on a tmpfs A mounted on p/q, then a tmpfs B mounted on p/q too, stacked
 * on A: no lookup stops at A any more (nor does a clone of the mount below show it), so the restore could not
 * make the file's ghost on A. The dump must fail with one line saying so, naming p/q, and the test keep
 * running unchanged (run.sh dump-expect); after that fd 5 is still the unlinked file with its data, B still
 * on A and A's other file there once B is gone. Before: refused with a line that named three causes at once
 * ("its own mount gone, a symlink on the way, or a mount stacked on its mount point"). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ghost_overmount.h"

enum { FD = 5, LEN = 8192, SEED = 229 };

static char buf[LEN];

int main(int argc, char **argv)
{
	struct stat st, qs;
	size_t bad;

	test_init(argc, argv);
	gmo_mount_a("p", "p/q", "p/q/keep");
	open_at(FD, "p/q/f", O_RDWR | O_CREAT | O_EXCL, "make p/q/f");
	datagen(buf, LEN, SEED);
	if (pwrite(FD, buf, LEN, 0) != LEN || unlink("p/q/f"))
		fail("fill and unlink p/q/f");
	if (mount("crshim-b", "p/q", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on p/q over the first");
	int bid = path_mnt_id("p/q");
	test_daemon();
	test_waitsig();

	memset(buf, 0, sizeof(buf));
	if (fstat(FD, &st) || st.st_nlink || st.st_size != LEN || pread(FD, buf, LEN, 0) != LEN ||
	    datachk(buf, LEN, SEED, &bad))
		fail("fd %d is not the unlinked p/q/f with its data", FD);
	if (bid < 0 || path_mnt_id("p/q") != bid || !access("p/q/keep", F_OK))
		fail("p/q is not the tmpfs stacked on the first any more");
	if (umount2("p/q", MNT_DETACH) || stat("p/q", &qs) || qs.st_dev != st.st_dev ||
	    access("p/q/keep", F_OK))
		fail("under the stacked tmpfs, p/q is not the first one");
	if (umount2("p/q", MNT_DETACH))
		fail("umount p/q");
	return test_pass();
}
