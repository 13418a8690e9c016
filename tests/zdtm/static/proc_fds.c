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

enum { STATUS = 20, CHILD_DIR = 21, FD_DIR = 22, MAPS = 23 };

static int field_pid(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	return p ? atoi(p + strlen(key)) : -1;
}

int main(int argc, char **argv)
{
	char buf[4096], path[64];
	pid_t ch;
	off_t off;
	ssize_t n;
	int fd;

	test_init(argc, argv);
	ch = fork();
	if (ch == 0)
		tree_sleep();
	snprintf(path, sizeof(path), "/proc/%d", ch);
	if (dup2(open("/proc/self/status", O_RDONLY), STATUS) != STATUS ||
	    dup2(open(path, O_RDONLY | O_DIRECTORY), CHILD_DIR) != CHILD_DIR ||
	    dup2(open("/proc/self/fd", O_RDONLY | O_DIRECTORY), FD_DIR) != FD_DIR ||
	    dup2(open("/proc/self/maps", O_RDONLY), MAPS) != MAPS)
		fail("setup: open /proc files");
	if (read(STATUS, buf, 16) != 16)
		fail("setup: read status");
	off = lseek(STATUS, 0, SEEK_CUR);
	test_daemon();
	test_waitsig();

	if (lseek(STATUS, 0, SEEK_CUR) != off)
		fail("status offset %ld, want %ld", (long)lseek(STATUS, 0, SEEK_CUR), (long)off);
	n = pread(STATUS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (field_pid(buf, "\nPid:\t") != getpid())
		fail("fd %d: status of pid %d, want %d", STATUS, field_pid(buf, "\nPid:\t"), getpid());
	fd = openat(CHILD_DIR, "stat", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (atoi(buf) != ch)
		fail("fd %d: not the /proc dir of child %d (stat: %.30s)", CHILD_DIR, ch, buf);
	if (fd >= 0)
		close(fd);
	if (faccessat(FD_DIR, "21", F_OK, AT_SYMLINK_NOFOLLOW) ||
	    faccessat(FD_DIR, "23", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("fd %d: not our /proc/self/fd", FD_DIR);
	n = pread(MAPS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (n <= 0 || !strstr(buf, "[stack]"))
		fail("fd %d: not our maps", MAPS);
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	if (!test_failures)
		pass();
	return 0;
}
