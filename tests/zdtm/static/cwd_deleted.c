/* A cwd whose directory was removed, and a directory fd of another removed directory: after restore the
 * cwd is still that dead directory (getcwd fails with ENOENT, /proc/self/cwd says "(deleted)", "." has no
 * links and nothing can be made in it), the fd likewise, and the directories are not back. A child keeps
 * the test dir as its cwd: it must still be there. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char top[PATH_MAX - 64], cwd_link[PATH_MAX], fd_link[PATH_MAX], buf[PATH_MAX];
	int fd;

	test_init(argc, argv);
	if (!getcwd(top, sizeof(top)) || mkdir("gone_cwd", 0700) || mkdir("gone_fd", 0700))
		fail("setup: mkdir");
	fd = open("gone_fd", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dup2(fd, 20) != 20)
		fail("setup: open gone_fd");
	close(fd);
	if (chdir("gone_cwd") || rmdir("../gone_cwd") || rmdir("../gone_fd"))
		fail("setup: rmdir");
	snprintf(cwd_link, sizeof(cwd_link), "%s/gone_cwd (deleted)", top);
	snprintf(fd_link, sizeof(fd_link), "%s/gone_fd (deleted)", top);
	dead_dirs_cr(cwd_link, fd_link);
	if (getcwd(buf, sizeof(buf)) || errno != ENOENT)
		fail("getcwd works in a removed directory");
	if (chdir(top))
		fail("chdir back to the test dir");
	if (access("gone_cwd", F_OK) == 0 || access("gone_fd", F_OK) == 0)
		fail("a removed directory is back in the test dir");
	return test_pass();
}
