/* Files of /proc held open: /proc/self/status (read at an offset), the /proc/PID directory of a child,
 * /proc/self/fd as a directory fd, and /proc/self/maps. After restore each names the same process (same
 * pids, restore keeps them): the status says our pid, the child's dir reads the child's stat, the fd
 * directory lists our fds, and the offset is kept. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { MAPS = 23 };

int main(int argc, char **argv)
{
	char buf[4096];
	pid_t ch;
	off_t off;
	ssize_t n;

	test_init(argc, argv);
	ch = tree_sleeper();
	if (procfds_open(ch, &off) || dup2(open("/proc/self/maps", O_RDONLY), MAPS) != MAPS)
		fail("setup: open /proc files");
	test_daemon();
	test_waitsig();

	procfds_check(off, getpid(), ch);
	if (faccessat(PROCFD_FD_DIR, "23", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("fd %d: not our /proc/self/fd", PROCFD_FD_DIR);
	n = pread(MAPS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (n <= 0 || !strstr(buf, "[stack]"))
		fail("fd %d: not our maps", MAPS);
	return tree_pass(&ch, 1);
}
