/* A deleted regular file of the tree's own mount tree held on two mounts through two of its links: a tmpfs at
 * /nsmnt_gfl with p/f and q/g (one inode), q bound at /nsmnt_gfl/b. The test holds p/f through the tmpfs
 * (fd P) and b/g through the bind (fd B), then unlinks both names. Here P is fd 7, B fd 8 (the ghost is made
 * for the first fd, at p/f on the tmpfs's mount); nsmnt_ghostfile_bindlink2: B is fd 7 (made at b/g on the
 * bind). The other fd's directory is not the ghost's, so it is opened again neither by the ghost's name nor,
 * in a tree born in its user namespace (mode cuns), by its handle: it came back on the ghost's mount, named
 * by the ghost's path (a warning in the dump's log). crshim now finds a directory of one seen on the other's
 * mount (reg_file_entry.ghost_via): /nsmnt_gfl/q on the tmpfs's, where the process links the ghost for its
 * open through the bind, or the ghost's /nsmnt_gfl/q on the tmpfs's, where it opens it by its name. After
 * restore P and B are that one inode (what one writes the other reads), still deleted, P on the tmpfs's
 * mount and B on the bind's (fdinfo mnt_id), each named "PATH (deleted)" by its own path, neither name back.
 */
#include "nsmnt.h"

#ifndef BINDLINK_GHOST_ON_BIND
#define TOP "/nsmnt_gfl"
#define P 7
#define B 8
#else
#define TOP "/nsmnt_gfl2"
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
	mkdirs(TOP "/q");
	mkdirs(TOP "/b");
	must_mount(TOP "/q", TOP "/b", NULL, MS_BIND, NULL);
	write_file(TOP "/p/f", "ghost");
	if (link(TOP "/p/f", TOP "/q/g"))
		fail("link " TOP "/p/f " TOP "/q/g");
	open_at(P, TOP "/p/f", O_RDWR, "open " TOP "/p/f");
	open_at(B, TOP "/b/g", O_RDWR, "open " TOP "/b/g");
	if (unlink(TOP "/p/f") || unlink(TOP "/q/g"))
		fail("unlink " TOP "/p/f, " TOP "/q/g");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(P, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd %d is not a deleted file", P);
	CHECK(!fstat(B, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd %d is another inode", B);
	CHECK(pread(B, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5), "fd %d lost the file's data", B);
	CHECK(pwrite(P, "seen", 4, 0) == 4 && pread(B, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd %d writes is not read through fd %d", P, B);
	CHECK(access(TOP "/p/f", F_OK) && access(TOP "/q/g", F_OK), "a deleted name is back");
	CHECK(fd_mnt_id(P) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(P)),
	      "fd %d is on mount %d, not the tmpfs's %d", P, fd_mnt_id(P), path_mnt_id(TOP));
	CHECK(fd_mnt_id(B) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd %d is on mount %d, not the bind's %d", B, fd_mnt_id(B), path_mnt_id(TOP "/b"));
	CHECK(fd_named(P, TOP "/p/f (deleted)"), "fd %d is not named " TOP "/p/f (deleted)", P);
	CHECK(fd_named(B, TOP "/b/g (deleted)"), "fd %d is not named " TOP "/b/g (deleted)", B);
	return test_pass();
}
