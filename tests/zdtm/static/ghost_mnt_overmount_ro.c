/* ghost_mnt_overmount with the ghost's mount read-only: an unlinked file held read-only (fd 5, offset 4096;
 * a hole, then 128 KiB of data) on a tmpfs A mounted on p/q, A then made read-only (a bind remount: the
 * mount, not its filesystem, as CRIU's ghost_on_rofs), then its mount point covered by a tmpfs B mounted on
 * p. After restore fd 5 is still that file, unlinked, read-only, with its data, size, mode and offset, named
 * "CWD/p/q/f (deleted)", not seen under B; once B is unmounted, on A again (the device and mount of p/q,
 * where A's other file is), A still read-only and p/q/f not there. Its ghost is made beneath B on a writable
 * copy of A (restore-ghost.c beneath_over, rw_copy). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include "ghost_overmount.h"

enum { SEED = 211 };

static void make(void)
{
	gmo_mount_a("p", "p/q", "p/q/keep");
	int w = open("p/q/f", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	datagen(gmo_buf, GMO_LEN, SEED);
	if (w < 0 || pwrite(w, gmo_buf, GMO_LEN, GMO_HOLE) != GMO_LEN || close(w))
		fail("make p/q/f");
	open_at(GMO_FD, "p/q/f", O_RDONLY, "open p/q/f");
	if (lseek(GMO_FD, 4096, SEEK_SET) != 4096 || unlink("p/q/f"))
		fail("unlink p/q/f");
	/* (no fd of A open for writing: the remount would be EBUSY) */
	if (mount(NULL, "p/q", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		fail("make the tmpfs on p/q read-only");
	if (mount("crshim-b", "p", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on p");
}

/* fd 5 after C/R (gmo_check_fd, read-only), named as before and not seen under B */
static void check_fd(struct stat *st)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16], name[PATH_MAX + 16] = "";
	gmo_check_fd(SEED, O_RDONLY, st);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	snprintf(want, sizeof(want), "%s/p/q/f (deleted)", cwd);
	if (readlink("/proc/self/fd/5", name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", GMO_FD, name, want);
	if (!access("p/q", F_OK))
		fail("p/q is seen under the tmpfs on p");
}

int main(int argc, char **argv)
{
	struct stat st;
	struct statvfs sv;

	test_init(argc, argv);
	make();
	test_daemon();
	test_waitsig();

	check_fd(&st);
	int mid = fd_mnt_id(GMO_FD);
	if (umount2("p", MNT_DETACH))
		fail("umount p");
	if (statvfs("p/q", &sv) || !(sv.f_flag & ST_RDONLY))
		fail("the tmpfs on p/q is not read-only any more");
	/* (gmo_check_beneath unmounts p again: B is gone, p is the test dir's) */
	struct stat qs;
	if (stat("p/q", &qs) || qs.st_dev != st.st_dev || mid < 0 || mid != path_mnt_id("p/q"))
		fail("fd %d (mount %d) is not on the tmpfs on p/q (mount %d)", GMO_FD, mid,
		     path_mnt_id("p/q"));
	if (access("p/q/keep", F_OK) || !access("p/q/f", F_OK))
		fail("p/q/keep is not there or p/q/f is back");
	if (umount2("p/q", MNT_DETACH))
		fail("umount p/q");
	return test_pass();
}
