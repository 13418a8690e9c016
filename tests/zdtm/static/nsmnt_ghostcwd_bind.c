/* A removed cwd reachable through two mounts of the tree's mount tree: a tmpfs at /nsmnt_gcb and a bind of
 * its directory p at /nsmnt_gcb/b (a bind of the removed directory's parent). The test holds p/d as fd 7
 * through the tmpfs (its ghost is made there) and has its cwd in it through the bind, then removes it. After
 * restore the cwd is fd 7's inode, still removed (no link, nothing can be made in it), on the bind's mount
 * (statx STATX_MNT_ID of ".", as of the mount point), named "/nsmnt_gcb/b/d (deleted)" (/proc/self/cwd); fd 7
 * on the tmpfs's mount. Before, the cwd came back on the mount of its ghost (the tmpfs's). */
#define TOP "/nsmnt_gcb"
#include "nsmnt_ghostbind.h"

static const struct gbind g = {.dirs = {"p/d"}, .src = "p"};

int main(int argc, char **argv)
{
	struct stat a, c;
	gbind_mounts(argc, argv, &g);
	open_at(7, TOP "/p/d", O_RDONLY | O_DIRECTORY, "open " TOP "/p/d");
	if (chdir(TOP "/b/d") || rmdir(TOP "/p/d"))
		fail("chdir, rmdir");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(7, &a) && a.st_nlink == 0 && S_ISDIR(a.st_mode), "fd 7 is not a removed directory");
	CHECK(!stat(".", &c) && c.st_dev == a.st_dev && c.st_ino == a.st_ino, "the cwd is another inode");
	CHECK(mkdir("x", 0700) && errno == ENOENT, "a directory made in the cwd");
	CHECK(fd_mnt_id(7) == path_mnt_id(TOP), "fd 7 is on mount %d, not the tmpfs's %d", fd_mnt_id(7),
	      path_mnt_id(TOP));
	CHECK(path_mnt_id(".") == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "the cwd is on mount %d, not the bind's %d", path_mnt_id("."), path_mnt_id(TOP "/b"));
	char l[PATH_MAX] = "";
	CHECK(readlink("/proc/self/cwd", l, sizeof(l) - 1) > 0 && !strcmp(l, TOP "/b/d (deleted)"),
	      "the cwd is named %s, not " TOP "/b/d (deleted)", l);
	return test_pass();
}
