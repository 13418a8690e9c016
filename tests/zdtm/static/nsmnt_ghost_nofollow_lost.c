/* A removed directory held by an O_RDONLY | O_DIRECTORY | O_NOFOLLOW fd (fd 7) on a ramfs of the tree's own
 * mount tree, a filesystem without file handles: its ghost is opened through crshim's /proc magic link,
 * which refuses O_NOFOLLOW, and it can be opened again with it neither by a name (a removed directory keeps
 * none) nor by its handle. The dump says so on stderr (.desc dump-notice); after restore fd 7 is that
 * removed directory on the ramfs with its flags but O_NOFOLLOW (issue 14: a path that loses it). */
#include "nsmnt.h"

#define TOP "/nsmnt_gnl"

int main(int argc, char **argv)
{
	struct stat mp, st;
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "ramfs", 0, NULL);
	mkdirs(TOP "/d");
	open_at(7, TOP "/d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "open " TOP "/d");
	long before = fdinfo_field(7, "flags:", 8, -1);
	if (before < 0 || !(before & O_NOFOLLOW) || rmdir(TOP "/d"))
		fail("fd 7: flags 0%lo without O_NOFOLLOW, or rmdir " TOP "/d", before);
	test_daemon();
	test_waitsig();

	long after = fdinfo_field(7, "flags:", 8, -1);
	/* (mode checkpoint: not restored, O_NOFOLLOW still there) */
	CHECK((after | O_NOFOLLOW) == before, "fd 7: flags 0%lo, before 0%lo (only O_NOFOLLOW may go)", after,
	      before);
	CHECK(!stat(TOP, &mp) && !fstat(7, &st) && S_ISDIR(st.st_mode) && st.st_nlink == 0 &&
		  st.st_dev == mp.st_dev,
	      "fd 7 is not a removed directory on the ramfs");
	CHECK(fd_named(7, TOP "/d (deleted)"), "fd 7 is not named " TOP "/d (deleted)");
	return test_pass();
}
