/* A removed directory held by fds, as a cwd, on two mounts and in two mount namespaces: a tmpfs at
 * /nsmnt_gp with p/d (mode 0751, owner 1234:2345); the test's cwd is p/d; its child, in a mount namespace of
 * its own, binds p (the directory's parent) at /nsmnt_gp/b, holds p/d as fd 7 through the tmpfs and as fd 8
 * through its bind, and has its cwd there through the bind; then the test removes it. After restore the
 * test's cwd, the child's fds and cwd are one inode, still removed (no link, nothing can be made in it),
 * with its mode and owner; the child's fd 7 is on its mount of the tmpfs, fd 8 on its bind (fdinfo mnt_id
 * as statx of the mount points reads them, both in its mountinfo), each named "PATH (deleted)". Before, mode
 * cuns refused it at dump ("held by another fd or cwd of the tree too"): the child made the directory again
 * itself, another inode; now it opens it by its handle on each of its mounts. */
#define TOP "/nsmnt_gp"
#define NAME "d"
#include "nsmnt_child_pbind.h"

static int check(void)
{
	struct stat a = {0};
	int bad = pbind_removed(&a, S_IFDIR, 1) | pbind_same(8, &a, 2) | pbind_same(-1, &a, 4);
	if ((a.st_mode & 07777) != 0751 || a.st_uid != 1234 || a.st_gid != 2345)
		bad |= 1;
	if (openat(7, "x", O_RDWR | O_CREAT, 0600) >= 0 || errno != ENOENT ||
	    openat(8, "x", O_RDWR | O_CREAT, 0600) >= 0 || errno != ENOENT)
		bad |= 8;
	return bad | pbind_mounts(fd_mnt_id(7), fd_mnt_id(8), 16) | pbind_named(64);
}

/* what the child holds at p (/proc/CH/...) is the inode of st */
static int kid_same(pid_t ch, const char *p, const struct stat *st)
{
	char at[64];
	struct stat k;
	snprintf(at, sizeof(at), "/proc/%d/%s", (int)ch, p);
	return !stat(at, &k) && k.st_dev == st->st_dev && k.st_ino == st->st_ino;
}

static void make(void)
{
	if (mkdir(PB_PATH, 0751) || chmod(PB_PATH, 0751) || chown(PB_PATH, 1234, 2345))
		fail("mkdir " PB_PATH);
}

static void after(pid_t ch)
{
	struct stat st;
	CHECK(!stat(".", &st) && st.st_nlink == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0751,
	      "the test's cwd is not the removed directory");
	CHECK(mkdir("x", 0700) && errno == ENOENT, "a directory made in the test's cwd");
	CHECK(kid_same(ch, "fd/7", &st) && kid_same(ch, "fd/8", &st) && kid_same(ch, "cwd", &st),
	      "the child's fds or cwd are another inode than the test's cwd");
}

int main(int argc, char **argv)
{
	return pbind_test(
	    argc, argv, PB_FD8 | PB_CWD | PB_TEST_CWD, make, check, after,
	    "1: fd 7 not a removed directory with its mode and owner, 2: fd 8 another inode, 4: its "
	    "cwd another inode, 8: a file made in it, 16: fd 7 not on its tmpfs's mount, 32: fd 8 "
	    "not on its bind, 64: not named PATH (deleted)");
}
