/* Removed directories inside removed directories, shared by several processes: the cwd is p/q, fd 20 is p
 * (mode 0750, owner 1234:2345, a fixed mtime), and both p and q were removed. A child (own fs info) has the
 * same cwd and fd 20 by fork; a child made with clone(CLONE_FS) shares our fs info. After restore: the same
 * "(deleted)" names, no links, nothing can be made in them, p's mode, owner and mtime kept, the child's cwd
 * and fd 20 the same directories as ours, the CLONE_FS child still sharing our fs info, and neither p nor
 * p/q back in the test dir. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

#define P_MTIME 1234567890

static int same_inode(const char *a, const char *b)
{
	struct stat sa, sb;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

int main(int argc, char **argv)
{
	char top[PATH_MAX - 64], q_link[PATH_MAX], p_link[PATH_MAX], a[64], b[64];
	struct timespec ts[2] = {{P_MTIME, 0}, {P_MTIME, 0}};
	struct stat st;
	pid_t kid, fskid;
	int fd;

	test_init(argc, argv);
	if (!getcwd(top, sizeof(top)) || mkdir("p", 0750) || mkdir("p/q", 0700))
		fail("setup: mkdir");
	fd = open("p", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dup2(fd, 20) != 20 || fchown(20, 1234, 2345) || fchmod(20, 0750))
		fail("setup: open p");
	close(fd);
	if (chdir("p/q") || rmdir(".") == 0 || rmdir("../q") || rmdir("../../p") || futimens(20, ts))
		fail("setup: rmdir");
	kid = tree_sleeper();
	fskid = (pid_t)syscall(SYS_clone, CLONE_FS | SIGCHLD, 0, 0, 0, 0);
	if (fskid == 0)
		tree_sleep();
	if (kid < 0 || fskid < 0)
		fail("setup: fork");
	snprintf(q_link, sizeof(q_link), "%s/p/q (deleted)", top);
	snprintf(p_link, sizeof(p_link), "%s/p (deleted)", top);
	dead_dirs_cr(q_link, p_link);
	snprintf(a, sizeof(a), "/proc/%d/cwd", kid);
	dead_dir("child cwd", a, q_link);
	if (!same_inode(a, "/proc/self/cwd"))
		fail("the child's cwd is not our cwd");
	snprintf(b, sizeof(b), "/proc/%d/fd/20", kid);
	dead_dir("child fd 20", b, p_link);
	if (!same_inode(b, "/proc/self/fd/20"))
		fail("the child's fd 20 is not our fd 20");
	if (syscall(SYS_kcmp, getpid(), fskid, KCMP_FS, 0, 0) != 0)
		fail("the CLONE_FS child does not share our fs info any more");
	if (fstat(20, &st) || (st.st_mode & 07777) != 0750 || st.st_uid != 1234 || st.st_gid != 2345 ||
	    st.st_mtim.tv_sec != P_MTIME)
		fail("fd 20: mode %o owner %u:%u mtime %ld, want 750 1234:2345 %d", st.st_mode & 07777,
		     st.st_uid, st.st_gid, (long)st.st_mtim.tv_sec, P_MTIME);
	if (chdir(top))
		fail("chdir back to the test dir");
	if (access("p", F_OK) == 0)
		fail("a removed directory is back in the test dir");
	kill(kid, SIGKILL);
	kill(fskid, SIGKILL);
	waitpid(kid, NULL, 0);
	waitpid(fskid, NULL, 0);
	return test_pass();
}
