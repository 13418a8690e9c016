/* nsmnt_ghostcwd_bind in a child of the test with a mount namespace of its own: a tmpfs at /nsmnt_gcp with
 * p/d; the child binds p (the directory's parent) at /nsmnt_gcp/b, holds p/d as fd 7 through the tmpfs and
 * has its cwd in it through its bind; then the test removes it. After restore the child's cwd is fd 7's
 * inode, still removed, on its bind's mount (statx STATX_MNT_ID of ".", as of the mount point, in its
 * mountinfo), named "/nsmnt_gcp/b/d (deleted)"; fd 7 on its mount of the tmpfs. */
#define TOP "/nsmnt_gcp"
#define NAME "d"
#include "nsmnt_child_pbind.h"

static int check(void)
{
	struct stat a = {0};
	char l[PATH_MAX] = "";
	int bad = pbind_removed(&a, S_IFDIR, 1) | pbind_same(-1, &a, 2);
	if (!mkdir("x", 0700) || errno != ENOENT)
		bad |= 4;
	if (readlink("/proc/self/cwd", l, sizeof(l) - 1) <= 0 || strcmp(l, PB_BIND " (deleted)"))
		bad |= 32;
	return bad | pbind_mounts(fd_mnt_id(7), path_mnt_id("."), 8);
}

int main(int argc, char **argv)
{
	return pbind_test(
	    argc, argv, PB_CWD, NULL, check, NULL,
	    "1: fd 7 not a removed directory, 2: the cwd another inode, 4: a directory made in it, "
	    "8: fd 7 not on its tmpfs's mount, 16: the cwd not on its bind, 32: the cwd not named " PB_BIND
	    " (deleted)");
}
