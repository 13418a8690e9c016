/* Files of /proc/N of processes gone (CRIU's remap_dead_pid, remap_dead_pid_root, unhashed_proc): an fd of
 * /proc/A/mountinfo, an fd of the directory /proc/B and the cwd /proc/C, A, B and C children killed and
 * reaped before the dump. After restore the fds are still open with the same links and flags, the cwd is
 * still /proc/C (deleted) and getcwd still fails with ENOENT (crshim makes a helper with that PID for the
 * moment of the open). Before: "open /proc/N/mountinfo: No such file or directory". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { MFD = 20, DFD = 21 };

static pid_t child(void)
{
	pid_t p = fork();
	if (p == 0)
		for (;;)
			pause();
	if (p < 0)
		fail("fork");
	return p;
}

static void gone(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

static void link_of(const char *what, char *buf, size_t len)
{
	ssize_t n = readlink(what, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

int main(int argc, char **argv)
{
	char path[64], mlink[PATH_MAX], dlink[PATH_MAX], cwd[PATH_MAX], now[PATH_MAX];
	test_init(argc, argv);
	pid_t a = child(), b = child(), c = child();
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", a);
	int fd = open(path, O_RDONLY);
	if (fd < 0 || dup2(fd, MFD) != MFD || close(fd))
		fail("open %s", path);
	snprintf(path, sizeof(path), "/proc/%d", b);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dup2(fd, DFD) != DFD || close(fd))
		fail("open %s", path);
	snprintf(path, sizeof(path), "/proc/%d", c);
	if (chdir(path))
		fail("chdir %s", path);
	gone(a), gone(b), gone(c);
	link_of("/proc/self/fd/20", mlink, sizeof(mlink));
	link_of("/proc/self/fd/21", dlink, sizeof(dlink));
	link_of("/proc/self/cwd", cwd, sizeof(cwd));
	if (getcwd(now, sizeof(now)) || errno != ENOENT)
		fail("getcwd works in the cwd of a process gone");
	test_daemon();
	test_waitsig();

	if (fcntl(MFD, F_GETFD) || fcntl(DFD, F_GETFD) || (fcntl(DFD, F_GETFL) & O_ACCMODE) != O_RDONLY)
		fail("the fds of /proc files are not open as before");
	link_of("/proc/self/fd/20", now, sizeof(now));
	if (strcmp(now, mlink))
		fail("fd %d links to %s, want %s", MFD, now, mlink);
	link_of("/proc/self/fd/21", now, sizeof(now));
	if (strcmp(now, dlink))
		fail("fd %d links to %s, want %s", DFD, now, dlink);
	link_of("/proc/self/cwd", now, sizeof(now));
	if (strcmp(now, cwd))
		fail("cwd %s, want %s", now, cwd);
	if (getcwd(now, sizeof(now)) || errno != ENOENT)
		fail("getcwd works (%s) in the cwd of a process gone", now);
	pass();
	return 0;
}
