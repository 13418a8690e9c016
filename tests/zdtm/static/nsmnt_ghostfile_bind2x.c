/* A deleted regular file of the tree's own mount tree on a directory p of a tmpfs (/nsmnt_gf2) that is bound
 * twice, at b1 and at b2, held only through the binds (issue 14): fd 7 through the second bind (b2/f, the
 * first fd: its ghost is made there) and fd 8 through the first (b1/f), then unlinked. After restore fd 7 and
 * fd 8 are that one inode (what is written through one is read through the other), still deleted, with its
 * data, fd 7 on b2's mount and fd 8 on b1's (fdinfo mnt_id), each named "PATH (deleted)" by its own path,
 * and p/f is not back. */
#include "nsmnt.h"

#define TOP "/nsmnt_gf2"

int main(int argc, char **argv)
{
	struct stat a, b;
	char buf[8] = "";
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	mkdirs(TOP "/b1");
	mkdirs(TOP "/b2");
	must_mount(TOP "/p", TOP "/b1", NULL, MS_BIND, NULL);
	must_mount(TOP "/p", TOP "/b2", NULL, MS_BIND, NULL);
	write_file(TOP "/p/f", "ghost");
	open_at(7, TOP "/b2/f", O_RDWR, "open " TOP "/b2/f");
	open_at(8, TOP "/b1/f", O_RDWR, "open " TOP "/b1/f");
	if (unlink(TOP "/p/f"))
		fail("unlink " TOP "/p/f");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(7, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd 7 is not a deleted file");
	CHECK(!fstat(8, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd 8 is another inode");
	CHECK(pread(8, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5), "fd 8 lost the file's data");
	CHECK(pwrite(7, "seen", 4, 0) == 4 && pread(8, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd 7 writes is not read through fd 8");
	CHECK(access(TOP "/p/f", F_OK) && errno == ENOENT, TOP "/p/f is back");
	CHECK(fd_mnt_id(7) == path_mnt_id(TOP "/b2") && path_mnt_id(TOP "/b2") != path_mnt_id(TOP "/b1"),
	      "fd 7 is on mount %d, not b2's %d", fd_mnt_id(7), path_mnt_id(TOP "/b2"));
	CHECK(fd_mnt_id(8) == path_mnt_id(TOP "/b1"), "fd 8 is on mount %d, not b1's %d", fd_mnt_id(8),
	      path_mnt_id(TOP "/b1"));
	CHECK(fd_named(7, TOP "/b2/f (deleted)"), "fd 7 is not named " TOP "/b2/f (deleted)");
	CHECK(fd_named(8, TOP "/b1/f (deleted)"), "fd 8 is not named " TOP "/b1/f (deleted)");
	return test_pass();
}
