/* nsmnt_child_ghostfs with a removed cwd instead of a deleted file: the child's cwd is a directory (mode
 * 0751, owner 1234:2345) of the tmpfs only its mount namespace mounts, removed. After restore its cwd is a
 * removed directory with that mode and owner on its tmpfs (st_dev), named "PATH (deleted)", and nothing can
 * be made in it. nsmnt_child_ghostfs_cwdkid includes it with NSMNT_CWD_KID 1: a child of the child (forked
 * once its namespace stands) holds the directory open too (fd 8), which after restore is the inode of the
 * child's cwd (checked through /proc): made again once for both (rst_ghost_share_copies); before, each made
 * its own copy (two inodes). */
#include <sys/wait.h>

#include "nsmnt.h"

#ifndef NSMNT_CWD_KID
#define NSMNT_CWD_KID 0
#endif

static pid_t kid; /* NSMNT_CWD_KID: the child's child that holds the directory at fd 8 */

static int setup(void)
{
	if (ghostfs_own("/nsmnt_gc") || mkdir("/nsmnt_gc/m/d", 0751) || chmod("/nsmnt_gc/m/d", 0751) ||
	    chown("/nsmnt_gc/m/d", 1234, 2345) || chdir("/nsmnt_gc/m/d"))
		return 1;
	if (NSMNT_CWD_KID && (kid = nsmnt_kid_open("/nsmnt_gc/m/d", 8, O_RDONLY | O_DIRECTORY, 0, -1)) < 0)
		return 1;
	return rmdir("/nsmnt_gc/m/d");
}

/* its child's fd 8 is the inode of st (opened again through /proc) */
static int kid_same(const struct stat *st)
{
	char p[64];
	struct stat k;
	snprintf(p, sizeof(p), "/proc/%d/fd/8", (int)kid);
	int r = !stat(p, &k) && k.st_dev == st->st_dev && k.st_ino == st->st_ino;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return r;
}

static int check(void)
{
	struct stat st;
	if (stat(".", &st))
		return 8;
	int bad = ghostfs_copy(&st, "/nsmnt_gc/m", "/proc/self/cwd", "/nsmnt_gc/m/d");
	if (!S_ISDIR(st.st_mode) || (st.st_mode & 07777) != 0751 || st.st_uid != 1234 || st.st_gid != 2345)
		bad |= 8;
	if (!mkdir("x", 0700) || errno != ENOENT)
		bad |= 16;
	if (NSMNT_CWD_KID && !kid_same(&st))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, "/nsmnt_gc", setup, check,
	    "1: its cwd not removed, 2: not on its tmpfs (st_dev), 4: not named PATH (deleted), 8: "
	    "not a directory with its mode and owner, 16: a directory made in it, 32: its child's fd 8 "
	    "another inode");
	return test_pass();
}
