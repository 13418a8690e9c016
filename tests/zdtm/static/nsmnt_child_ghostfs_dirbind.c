/* nsmnt_child_ghostfs with a removed directory on two mounts: the child's own tmpfs (at /nsmnt_gb/m, which
 * only its mount namespace mounts) holds p/d (mode 0751, owner 1234:2345), bound by the child's bind of p
 * (the directory's parent) at /nsmnt_gb/b; the child holds d as fd 7 through its tmpfs and as fd 8 and its
 * cwd through the bind, and removes it. After restore fd 7, fd 8 and the cwd are one removed directory with
 * its mode and owner on the child's tmpfs (st_dev), nothing can be made in it, fd 7 on the tmpfs's mount and
 * fd 8 on the bind's (fdinfo mnt_id), named "/nsmnt_gb/m/p/d (deleted)" and "/nsmnt_gb/b/d (deleted)". The
 * child makes the directory again from crshim's ghost (ghost_copy) once, on the mount of its first fd;
 * before, fd 8 opened that copy again there, on the tmpfs's mount (every mode). */
#include "nsmnt.h"

#define TOP "/nsmnt_gb"

static int setup(void)
{
	if (ghostfs_own(TOP) || mkdir(TOP "/m/p", 0755) || mkdir(TOP "/m/p/d", 0751) ||
	    chmod(TOP "/m/p/d", 0751) || chown(TOP "/m/p/d", 1234, 2345) || mkdir(TOP "/b", 0755) ||
	    mount(TOP "/m/p", TOP "/b", NULL, MS_BIND, NULL))
		return 1;
	open_at(7, TOP "/m/p/d", O_RDONLY | O_DIRECTORY, "open " TOP "/m/p/d in the child");
	open_at(8, TOP "/b/d", O_RDONLY | O_DIRECTORY, "open " TOP "/b/d in the child");
	return chdir(TOP "/b/d") || rmdir(TOP "/m/p/d");
}

static int check(void)
{
	struct stat a, b, c;
	if (fstat(7, &a) || fstat(8, &b) || stat(".", &c))
		return 8;
	int bad = ghostfs_copy(&a, TOP "/m", "/proc/self/fd/7", TOP "/m/p/d") |
		  ghostfs_copy(&b, TOP "/b", "/proc/self/fd/8", TOP "/b/d");
	if (!S_ISDIR(a.st_mode) || (a.st_mode & 07777) != 0751 || a.st_uid != 1234 || a.st_gid != 2345)
		bad |= 8;
	if (b.st_dev != a.st_dev || b.st_ino != a.st_ino || c.st_dev != a.st_dev || c.st_ino != a.st_ino)
		bad |= 16;
	if (!mkdir("x", 0700) || errno != ENOENT || openat(7, "x", O_RDWR | O_CREAT, 0600) >= 0 ||
	    errno != ENOENT)
		bad |= 32;
	if (fd_mnt_id(7) != path_mnt_id(TOP "/m") || !mnt_listed(fd_mnt_id(7)))
		bad |= 64;
	if (fd_mnt_id(8) != path_mnt_id(TOP "/b") || path_mnt_id(TOP "/b") == path_mnt_id(TOP "/m") ||
	    !mnt_listed(fd_mnt_id(8)))
		bad |= 128;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, TOP, setup, check,
	    "1: not removed, 2: not on its tmpfs (st_dev), 4: not named PATH (deleted), 8: fd 7 not "
	    "a directory with its mode and owner, 16: fd 8 or the cwd another inode, 32: something "
	    "made in it, 64: fd 7 not on its tmpfs's mount, 128: fd 8 not on its bind");
	return test_pass();
}
