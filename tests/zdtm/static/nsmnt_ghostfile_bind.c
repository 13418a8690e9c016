/* A deleted regular file of the tree's own mount tree held on two mounts: a tmpfs at /nsmnt_gfb and a bind of
 * its directory p at /nsmnt_gfb/b (a bind of the file's directory). The test holds p/f as fd 7 through the
 * tmpfs and as fd 8 through the bind (two open file descriptions), then unlinks it. After restore fd 7 and
 * fd 8 are that one inode (what is written through one is read through the other), still deleted
 * (st_nlink 0), fd 7 on the tmpfs's mount and fd 8 on the bind's (fdinfo mnt_id, as statx of the mount
 * points reads them), each named "PATH (deleted)" by its own path. */
#include "nsmnt.h"

#define TOP "/nsmnt_gfb"

int main(int argc, char **argv)
{
	struct stat a, b;
	char buf[8] = "";
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	mkdirs(TOP "/b");
	must_mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL);
	write_file(TOP "/p/f", "ghost");
	open_at(7, TOP "/p/f", O_RDWR, "open " TOP "/p/f");
	open_at(8, TOP "/b/f", O_RDWR, "open " TOP "/b/f");
	if (unlink(TOP "/p/f"))
		fail("unlink " TOP "/p/f");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(7, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd 7 is not a deleted file");
	CHECK(!fstat(8, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd 8 is another inode");
	CHECK(pread(8, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5), "fd 8 lost the file's data");
	CHECK(pwrite(7, "seen", 4, 0) == 4 && pread(8, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd 7 writes is not read through fd 8");
	CHECK(access(TOP "/p/f", F_OK) && errno == ENOENT, "the deleted file is back");
	CHECK(fd_mnt_id(7) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(7)),
	      "fd 7 is on mount %d, not the tmpfs's %d", fd_mnt_id(7), path_mnt_id(TOP));
	CHECK(fd_mnt_id(8) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd 8 is on mount %d, not the bind's %d", fd_mnt_id(8), path_mnt_id(TOP "/b"));
	CHECK(fd_named(7, TOP "/p/f (deleted)"), "fd 7 is not named " TOP "/p/f (deleted)");
	CHECK(fd_named(8, TOP "/b/f (deleted)"), "fd 8 is not named " TOP "/b/f (deleted)");
	return test_pass();
}
