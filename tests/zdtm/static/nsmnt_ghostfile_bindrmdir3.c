/* A deleted regular file of the tree's own mount tree held on two mounts, its directory removed too, the
 * directory being the bind's root: a tmpfs at /nsmnt_gfr3 with d/f, d bound at /nsmnt_gfr3/b. The test holds
 * d/f as fd 7 through the tmpfs (its ghost is made for this first fd, on the tmpfs's mount) and b/f as fd 8
 * through the bind, at offset 3, then unlinks d/f and removes d (the bind's mountinfo root then reads
 * "/d//deleted"). Before, the restore removed d, made again for the bind, as soon as the bind was in place,
 * before the ghost was made: the ghost went to another d and fd 8 came back as "/ (deleted)" (cr, ns: by its
 * handle on the bind) or on the tmpfs's mount as "/nsmnt_gfr3/d/f (deleted)" (cuns). Now d is kept till
 * every process has its fds. After restore fd 7 and fd 8 are that one inode (what one writes the other
 * reads), still deleted, with the file's data and fd 8's offset, fd 7 on the tmpfs's mount and fd 8 on the
 * bind's (fdinfo mnt_id), each named "PATH (deleted)" by its own path, neither d nor its file back. */
#include "nsmnt.h"

#define TOP "/nsmnt_gfr3"

int main(int argc, char **argv)
{
	struct stat a, b;
	char buf[8] = "";
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/d");
	mkdirs(TOP "/b");
	must_mount(TOP "/d", TOP "/b", NULL, MS_BIND, NULL);
	write_file(TOP "/d/f", "ghost");
	open_at(7, TOP "/d/f", O_RDWR, "open " TOP "/d/f");
	open_at(8, TOP "/b/f", O_RDWR, "open " TOP "/b/f");
	if (lseek(8, 3, SEEK_SET) != 3)
		fail("lseek fd 8");
	if (unlink(TOP "/d/f") || rmdir(TOP "/d"))
		fail("unlink " TOP "/d/f, rmdir " TOP "/d");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(7, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd 7 is not a deleted file");
	CHECK(!fstat(8, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd 8 is another inode");
	CHECK(lseek(8, 0, SEEK_CUR) == 3, "fd 8 is at offset %lld, not 3", (long long)lseek(8, 0, SEEK_CUR));
	CHECK(read(8, buf, 2) == 2 && !memcmp(buf, "st", 2), "fd 8 lost the file's data or its offset");
	CHECK(pwrite(7, "seen", 4, 0) == 4 && pread(8, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd 7 writes is not read through fd 8");
	CHECK(access(TOP "/d", F_OK) && errno == ENOENT, "the removed directory is back");
	CHECK(fd_mnt_id(7) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(7)),
	      "fd 7 is on mount %d, not the tmpfs's %d", fd_mnt_id(7), path_mnt_id(TOP));
	CHECK(fd_mnt_id(8) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd 8 is on mount %d, not the bind's %d", fd_mnt_id(8), path_mnt_id(TOP "/b"));
	CHECK(fd_named(7, TOP "/d/f (deleted)"), "fd 7 is not named " TOP "/d/f (deleted)");
	CHECK(fd_named(8, TOP "/b/f (deleted)"), "fd 8 is not named " TOP "/b/f (deleted)");
	return test_pass();
}
