/* nsmnt_ghostcwd_bind in a child of the test with a mount namespace of its own: a tmpfs at /nsmnt_gcp with
 * p/d; the child binds p (the directory's parent) at /nsmnt_gcp/b, holds p/d as fd 7 through the tmpfs and
 * has its cwd in it through its bind; then the test removes it. After restore the child's cwd is fd 7's
 * inode, still removed, on its bind's mount (statx STATX_MNT_ID of ".", as of the mount point, in its
 * mountinfo), named "/nsmnt_gcp/b/d (deleted)"; fd 7 on its mount of the tmpfs. */
#include "nsmnt.h"

#define TOP "/nsmnt_gcp"

static int setup(void)
{
	mkdirs(TOP "/b");
	if (mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL))
		return 1;
	open_at(7, TOP "/p/d", O_RDONLY | O_DIRECTORY, "open " TOP "/p/d in the child");
	return chdir(TOP "/b/d") != 0;
}

static int check(void)
{
	struct stat a, c;
	char l[PATH_MAX] = "";
	int bad = 0;
	if (fstat(7, &a) || a.st_nlink != 0 || !S_ISDIR(a.st_mode))
		bad |= 1;
	if (stat(".", &c) || c.st_dev != a.st_dev || c.st_ino != a.st_ino)
		bad |= 2;
	if (!mkdir("x", 0700) || errno != ENOENT)
		bad |= 4;
	if (fd_mnt_id(7) != path_mnt_id(TOP) || !mnt_listed(fd_mnt_id(7)))
		bad |= 8;
	if (path_mnt_id(".") != path_mnt_id(TOP "/b") || path_mnt_id(TOP "/b") == path_mnt_id(TOP) ||
	    !mnt_listed(path_mnt_id(".")))
		bad |= 16;
	if (readlink("/proc/self/cwd", l, sizeof(l) - 1) <= 0 || strcmp(l, TOP "/b/d (deleted)"))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	mkdirs(TOP "/p/d");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	if (rmdir(TOP "/p/d"))
		fail("rmdir " TOP "/p/d");
	test_daemon();
	test_waitsig();

	CHECK(access(TOP "/p/d", F_OK) && errno == ENOENT, "the removed directory is back");
	kill(ch, SIGUSR1);
	child_exit_ok(ch,
		      "1: fd 7 not a removed directory, 2: the cwd another inode, 4: a directory made in "
		      "it, 8: fd 7 not on its tmpfs's mount, 16: the cwd not on its bind, 32: the cwd not "
		      "named " TOP "/b/d (deleted)");
	return test_pass();
}
