/* A deleted regular file of the tree's own mount tree held on two mounts, its directory removed too: a tmpfs
 * at /nsmnt_gfr with p/d/f, p bound at /nsmnt_gfr/b. The test holds p/d/f as fd 7 through the tmpfs (its
 * ghost is made for this first fd, on the tmpfs's mount) and b/d/f as fd 8 through the bind, at offset 3,
 * then unlinks p/d/f and removes p/d. In a tree born in its user namespace (mode cuns), where no handle may
 * be opened, fd 8 came back on the tmpfs's mount, named by the ghost's path (a warning in the dump's log):
 * the ghost is made with its directory made again and was not kept by name, so nothing reached it through the
 * bind. After restore fd 7 and fd 8 are that one inode (what one writes the other reads), still deleted, with
 * the file's data and fd 8's offset, fd 7 on the tmpfs's mount and fd 8 on the bind's (fdinfo mnt_id), each
 * named "PATH (deleted)" by its own path, neither d nor its file back. Here P (the tmpfs's) is fd 7 and B
 * (the bind's) fd 8; nsmnt_ghostfile_bindrmdir2: B is fd 7 (the ghost made at b/d/f on the bind). */
#include "nsmnt.h"

#ifndef BINDRMDIR_GHOST_ON_BIND
#define TOP "/nsmnt_gfr"
#define P 7
#define B 8
#else
#define TOP "/nsmnt_gfr2"
#define P 8
#define B 7
#endif

int main(int argc, char **argv)
{
	struct stat a, b;
	char buf[8] = "";
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	mkdirs(TOP "/p/d");
	mkdirs(TOP "/b");
	must_mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL);
	write_file(TOP "/p/d/f", "ghost");
	open_at(P, TOP "/p/d/f", O_RDWR, "open " TOP "/p/d/f");
	open_at(B, TOP "/b/d/f", O_RDWR, "open " TOP "/b/d/f");
	if (lseek(B, 3, SEEK_SET) != 3)
		fail("lseek fd %d", B);
	if (unlink(TOP "/p/d/f") || rmdir(TOP "/p/d"))
		fail("unlink " TOP "/p/d/f, rmdir " TOP "/p/d");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(P, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd %d is not a deleted file", P);
	CHECK(!fstat(B, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd %d is another inode", B);
	CHECK(lseek(B, 0, SEEK_CUR) == 3, "fd %d is at offset %lld, not 3", B,
	      (long long)lseek(B, 0, SEEK_CUR));
	CHECK(read(B, buf, 2) == 2 && !memcmp(buf, "st", 2), "fd %d lost the file's data or its offset", B);
	CHECK(pwrite(P, "seen", 4, 0) == 4 && pread(B, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd %d writes is not read through fd %d", P, B);
	CHECK(access(TOP "/p/d", F_OK) && errno == ENOENT, "the removed directory is back");
	CHECK(fd_mnt_id(P) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(P)),
	      "fd %d is on mount %d, not the tmpfs's %d", P, fd_mnt_id(P), path_mnt_id(TOP));
	CHECK(fd_mnt_id(B) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd %d is on mount %d, not the bind's %d", B, fd_mnt_id(B), path_mnt_id(TOP "/b"));
	CHECK(fd_named(P, TOP "/p/d/f (deleted)"), "fd %d is not named " TOP "/p/d/f (deleted)", P);
	CHECK(fd_named(B, TOP "/b/d/f (deleted)"), "fd %d is not named " TOP "/b/d/f (deleted)", B);
	return test_pass();
}
