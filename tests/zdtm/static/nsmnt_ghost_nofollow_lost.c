/* Removed directories held by O_RDONLY | O_DIRECTORY | O_NOFOLLOW fds on a ramfs of the tree's own mount
 * tree, a filesystem without file handles: a ghost is opened through crshim's /proc magic link, which
 * refuses O_NOFOLLOW, and a removed directory can be opened again with it neither by a name (it keeps none)
 * nor by its handle, only by "." in itself, which needs search permission there. fd 7 (mode 0755: every
 * user may search it) keeps O_NOFOLLOW, without a notice; fd 8 (mode 0644: only a restore with
 * CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE may) keeps it or not, and the dump says so on stderr (.desc
 * dump-notice: "if the restore may not search it"). After restore each fd is its removed directory on the
 * ramfs with its flags (fd 8's but O_NOFOLLOW). Issue 14: a path that loses it; before, the dump warned
 * for fd 7 too, which was restored with O_NOFOLLOW all the same (since aa81489). */
#include <stdbool.h>

#include "nsmnt.h"

#define TOP "/nsmnt_gnl"

/* fd is the removed directory name on the ramfs (mp), with flags before (but O_NOFOLLOW when may_lose) */
static void check(int fd, const char *name, long before, bool may_lose, const struct stat *mp)
{
	struct stat st;
	long after = fdinfo_field(fd, "flags:", 8, -1);
	/* (mode checkpoint: not restored, O_NOFOLLOW still there) */
	CHECK(after == before || (may_lose && (after | O_NOFOLLOW) == before),
	      "fd %d: flags 0%lo, before 0%lo", fd, after, before);
	CHECK(!fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_nlink == 0 && st.st_dev == mp->st_dev,
	      "fd %d is not a removed directory on the ramfs", fd);
	CHECK(fd_named(fd, name), "fd %d is not named %s", fd, name);
}

int main(int argc, char **argv)
{
	struct stat mp;
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "ramfs", 0, NULL);
	mkdirs(TOP "/d");
	mkdirs(TOP "/e");
	open_at(7, TOP "/d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "open " TOP "/d");
	open_at(8, TOP "/e", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "open " TOP "/e");
	long b7 = fdinfo_field(7, "flags:", 8, -1), b8 = fdinfo_field(8, "flags:", 8, -1);
	if (b7 < 0 || !(b7 & O_NOFOLLOW) || b8 < 0 || !(b8 & O_NOFOLLOW) || chmod(TOP "/e", 0644) ||
	    rmdir(TOP "/d") || rmdir(TOP "/e"))
		fail("flags 0%lo, 0%lo without O_NOFOLLOW, or chmod, rmdir " TOP "/d, e", b7, b8);
	test_daemon();
	test_waitsig();

	if (stat(TOP, &mp))
		fail("stat " TOP);
	check(7, TOP "/d (deleted)", b7, false, &mp);
	check(8, TOP "/e (deleted)", b8, true, &mp);
	return test_pass();
}
