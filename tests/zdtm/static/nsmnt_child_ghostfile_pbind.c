/* nsmnt_ghostfile_bind in a child of the test with a mount namespace of its own: a tmpfs at /nsmnt_gfp with
 * p/f ("ghost"); the child binds p (the file's directory) at /nsmnt_gfp/b, holds p/f as fd 7 through the
 * tmpfs and as fd 8 through its bind; then the test unlinks it. After restore the child's fd 7 and fd 8 are
 * one inode (what is written through one is read through the other), still deleted (st_nlink 0), fd 7 on
 * its mount of the tmpfs and fd 8 on its bind (fdinfo mnt_id as statx of the mount points reads them, both
 * in its mountinfo), each named "PATH (deleted)" by its own path. */
#define TOP "/nsmnt_gfp"
#define NAME "f"
#include "nsmnt_child_pbind.h"

static int check(void)
{
	struct stat a = {0};
	char buf[8] = "";
	int bad = pbind_removed(&a, S_IFREG, 1) | pbind_same(8, &a, 2);
	if (pread(8, buf, 5, 0) != 5 || memcmp(buf, "ghost", 5) || pwrite(7, "seen", 4, 0) != 4 ||
	    pread(8, buf, 4, 0) != 4 || memcmp(buf, "seen", 4))
		bad |= 4;
	return bad | pbind_mounts(fd_mnt_id(7), fd_mnt_id(8), 8) | pbind_named(32);
}

int main(int argc, char **argv)
{
	return pbind_test(
	    argc, argv, PB_FILE | PB_FD8, NULL, check, NULL,
	    "1: fd 7 not a deleted file, 2: fd 8 another inode, 4: data not shared, 8: fd 7 not on "
	    "its tmpfs's mount, 16: fd 8 not on its bind, 32: not named PATH (deleted)");
}
