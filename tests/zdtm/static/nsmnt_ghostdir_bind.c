/* A removed directory of the tree's own mount tree seen on two mounts: a tmpfs at /nsmnt_gdb and a bind of
 * its directory p at /nsmnt_gdb/b (a bind of the removed directory's parent). The test holds p/d as fd 7
 * through the tmpfs, as fd 8 through the bind, and has its cwd there through the bind, then removes it.
 * After restore fd 7, fd 8 and the cwd are that one directory (same inode), still removed (no link, nothing
 * can be made in it), with its mode and owner, fd 7 on the tmpfs's mount and fd 8 on the bind's (fdinfo
 * mnt_id, as statx of the mount points reads them), each named "PATH (deleted)" by its own path, with its
 * flags (fd 8 opened without O_DIRECTORY: the runner compares fdinfo). */
#include "nsmnt.h"

#define TOP "/nsmnt_gdb"
#define FD_A 7 /* TOP/p/d */
#define FD_B 8 /* TOP/b/d */

int main(int argc, char **argv)
{
	struct stat a, b, c;
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	mkdirs(TOP "/b");
	must_mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL);
	if (mkdir(TOP "/p/d", 0751) || chmod(TOP "/p/d", 0751) || chown(TOP "/p/d", 1234, 2345))
		fail("mkdir " TOP "/p/d");
	open_at(FD_A, TOP "/p/d", O_RDONLY | O_DIRECTORY, "open " TOP "/p/d");
	open_at(FD_B, TOP "/b/d", O_RDONLY, "open " TOP "/b/d"); /* (no O_DIRECTORY: its flags kept) */
	if (chdir(TOP "/b/d") || rmdir(TOP "/p/d"))
		fail("chdir, rmdir");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(FD_A, &a) && a.st_nlink == 0 && S_ISDIR(a.st_mode) && (a.st_mode & 07777) == 0751 &&
		  a.st_uid == 1234 && a.st_gid == 2345,
	      "fd 7 is not a removed directory with its mode and owner");
	CHECK(!fstat(FD_B, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd 8 is another inode");
	CHECK(!stat(".", &c) && c.st_dev == a.st_dev && c.st_ino == a.st_ino, "the cwd is another inode");
	CHECK(openat(FD_A, "x", O_RDWR | O_CREAT, 0600) < 0 && errno == ENOENT, "a file made through fd 7");
	CHECK(openat(FD_B, "x", O_RDWR | O_CREAT, 0600) < 0 && errno == ENOENT, "a file made through fd 8");
	CHECK(mkdir("x", 0700) && errno == ENOENT, "a directory made in the cwd");
	CHECK(access(TOP "/p/d", F_OK) && errno == ENOENT, "the removed directory is back");
	CHECK(fd_mnt_id(FD_A) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(FD_A)),
	      "fd 7 is on mount %d, not the tmpfs's %d", fd_mnt_id(FD_A), path_mnt_id(TOP));
	CHECK(fd_mnt_id(FD_B) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd 8 is on mount %d, not the bind's %d", fd_mnt_id(FD_B), path_mnt_id(TOP "/b"));
	CHECK(fd_named(FD_A, TOP "/p/d (deleted)"), "fd 7 is not named " TOP "/p/d (deleted)");
	CHECK(fd_named(FD_B, TOP "/b/d (deleted)"), "fd 8 is not named " TOP "/b/d (deleted)");
	return test_pass();
}
