/* nsmnt_child_ghostfs with a removed cwd instead of a deleted file: the child's cwd is a directory (mode
 * 0751, owner 1234:2345) of the tmpfs only its mount namespace mounts, removed. After restore its cwd is a
 * removed directory with that mode and owner on its tmpfs (st_dev), named "PATH (deleted)", and nothing can
 * be made in it. */
#include "nsmnt.h"

static int setup(void)
{
	if (ghostfs_own("/nsmnt_gc") || mkdir("/nsmnt_gc/m/d", 0751) || chmod("/nsmnt_gc/m/d", 0751) ||
	    chown("/nsmnt_gc/m/d", 1234, 2345) || chdir("/nsmnt_gc/m/d"))
		return 1;
	return rmdir("/nsmnt_gc/m/d");
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
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(argc, argv, "/nsmnt_gc", setup, check,
		      "1: its cwd not removed, 2: not on its tmpfs (st_dev), 4: not named PATH (deleted), 8: "
		      "not a directory with its mode and owner, 16: a directory made in it");
	return test_pass();
}
