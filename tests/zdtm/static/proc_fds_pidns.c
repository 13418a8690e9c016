/* proc_fds in a PID namespace of its own with its own /proc (as under `unshare --pid --fork --mount-proc`):
 * the root (PID 1) holds /proc/self/status at an offset, the /proc/PID directory of its child (PID 2) and
 * /proc/self/fd as a directory. After restore they are files of that namespace's /proc again: the status
 * says PID 1 (not the PID outside), the child's directory reads the child's stat, the offset is kept. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { STATUS = 20, CHILD_DIR = 21, FD_DIR = 22 };

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

	test_init_pidns(argc, argv);
	ch = fork();
	if (ch == 0)
		tree_sleep();
	snprintf(path, sizeof(path), "/proc/%d", ch);
	if (getpid() != 1 || dup2(open("/proc/self/status", O_RDONLY), STATUS) != STATUS ||
	    dup2(open(path, O_RDONLY | O_DIRECTORY), CHILD_DIR) != CHILD_DIR ||
	    dup2(open("/proc/self/fd", O_RDONLY | O_DIRECTORY), FD_DIR) != FD_DIR)
		fail("setup: open /proc files (pid %d)", getpid());
	if (read(STATUS, buf, 16) != 16)
		fail("setup: read status");
	off = lseek(STATUS, 0, SEEK_CUR);
	test_daemon();
	test_waitsig();

	if (lseek(STATUS, 0, SEEK_CUR) != off)
		fail("status offset %ld, want %ld", (long)lseek(STATUS, 0, SEEK_CUR), (long)off);
	n = pread(STATUS, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (field_pid(buf, "\nPid:\t") != 1)
		fail("fd %d: status of pid %d, want 1", STATUS, field_pid(buf, "\nPid:\t"));
	fd = openat(CHILD_DIR, "stat", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (atoi(buf) != ch)
		fail("fd %d: not the /proc dir of child %d (stat: %.30s)", CHILD_DIR, ch, buf);
	if (fd >= 0)
		close(fd);
	if (faccessat(FD_DIR, "21", F_OK, AT_SYMLINK_NOFOLLOW))
		fail("fd %d: not our /proc/self/fd", FD_DIR);
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	if (!test_failures)
		pass();
	return 0;
}
