/* A deleted file held by a child on a tmpfs it mounted in its own mount namespace (CRIU's mountpoints
 * shape): the root's namespace has the directory of its path on another filesystem. After restore the fd
 * is an unlinked file with its data, owner and mode again, on the child's tmpfs (its st_dev, the process
 * makes it again there from crshim's ghost: reg_file_entry.ghost_copy) and named "PATH (deleted)"; a
 * second fd of the same file is the same inode. Before, it came back on the filesystem the root's tree has
 * there (another st_dev, a warning in the log only); before that, the dump refused it. */
#include "nsmnt.h"

#define GFD 7

static int setup(void)
{
	if (ghostfs_own("/nsmnt_gf"))
		return 1;
	ghostfs_file("/nsmnt_gf/m/d/f", GFD, O_RDWR);
	open_at(GFD + 1, "/nsmnt_gf/m/d/f", O_RDONLY, "open /nsmnt_gf/m/d/f again in the child");
	if (fchmod(GFD, 0640) || fchown(GFD, 1234, 2345))
		return 1;
	return unlink("/nsmnt_gf/m/d/f");
}

static int check(void)
{
	struct stat st, st2;
	char buf[16] = "";
	if (fstat(GFD, &st))
		return 8;
	int bad = ghostfs_copy(&st, "/nsmnt_gf/m/d", "/proc/self/fd/7", "/nsmnt_gf/m/d/f");
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != 0640 || st.st_uid != 1234 || st.st_gid != 2345)
		bad |= 8;
	if (pread(GFD, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "ghost"))
		bad |= 16;
	if (fstat(GFD + 1, &st2) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev)
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(argc, argv, "/nsmnt_gf", setup, check,
		      "1: not unlinked, 2: not on its tmpfs (st_dev), or its tmpfs not mounted again, 4: not "
		      "named PATH (deleted), 8: not a regular file with its owner and mode, 16: not its "
		      "data, 32: its second fd another inode");
	return test_pass();
}
