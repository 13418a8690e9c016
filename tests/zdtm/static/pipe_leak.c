/* Pipes whose other end belongs to another process: the task holds the read end of pipe A and the write
 * end of pipe B; a helper (not our child: forked twice, reparented) holds the other ends, wrote a message
 * into A, and answers "ping" on B with "pong" on A until B reaches EOF.
 * After a restore the message in flight reads back exactly. Then, deterministically either:
 *  - the same pipes (inode unchanged: dump --leave-running): still connected, ping -> pong;
 *  - new pipes (a restore): their other ends are closed (external pipe ends are not restored):
 *    A gives EOF after the message, a write to B fails with EPIPE.
 * Modes ns and uns: we are the init of a PID namespace, so the helper is reparented to us: it is in the tree,
 * restored with it and its pipe ends: still connected, ping -> pong, whether the pipes are new or not. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MSG "message in flight from the helper"
enum { AR = 40, BW = 41, AW = 50, BR = 51 };

static void helper(void)
{
	char buf[16];
	ssize_t n;
	syscall(SYS_close_range, 0, AW - 1, 0);
	syscall(SYS_close_range, BR + 1, ~0U, 0);
	setsid(); /* our session id must not keep the task's pid number taken (its restore needs it) */
	if (write(AW, MSG, strlen(MSG)) != (ssize_t)strlen(MSG))
		_exit(1);
	while ((n = read(BR, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n == 4 && !memcmp(buf, "ping", 4) && write(AW, "pong", 4) != 4)
			_exit(1);
	_exit(0);
}

static void place(int fd, int want)
{
	if (dup2(fd, want) != want)
		fail("dup2 %d", want);
	close(fd);
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, ms) == 1;
}

int main(int argc, char **argv)
{
	struct stat a0, b0, a1, b1;
	char buf[64];
	int a[2], b[2], n, st;
	pid_t pid;

	test_init(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(a) || pipe(b))
		fail("pipe");
	place(a[0], AR);
	place(b[1], BW);
	place(a[1], AW);
	place(b[0], BR);
	pid = fork();
	if (pid == 0) {
		if (fork() == 0)
			helper();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		fail("fork");
	close(AW);
	close(BR);
	if (!wait_readable(AR, 10000) || ioctl(AR, FIONREAD, &n) || n != (int)strlen(MSG))
		fail("the helper's message did not arrive");
	fstat(AR, &a0);
	fstat(BW, &b0);
	test_daemon();
	test_waitsig();

	n = read(AR, buf, strlen(MSG));
	if (n != (int)strlen(MSG) || memcmp(buf, MSG, n))
		fail("message in flight: read %d bytes, want %zu", n, strlen(MSG));
	if (fstat(AR, &a1) || fstat(BW, &b1))
		fail("fstat");
	if ((a1.st_ino == a0.st_ino && b1.st_ino == b0.st_ino) || getpid() == 1) {
		/* the same pipes, or the helper in the tree (our child): the helper is still there */
		if (write(BW, "ping", 4) != 4 || !wait_readable(AR, 10000) || read(AR, buf, 4) != 4 ||
		    memcmp(buf, "pong", 4))
			fail("still connected, but the helper does not answer");
	} else if (a1.st_ino != a0.st_ino && b1.st_ino != b0.st_ino) {
		if ((n = read(AR, buf, sizeof(buf))) != 0)
			fail("restored read end: read gives %d, want EOF (writer outside is gone)", n);
		if (write(BW, "ping", 4) != -1 || errno != EPIPE)
			fail("restored write end: write does not fail with EPIPE (reader outside is gone)");
	} else {
		fail("one pipe changed, the other not");
	}
	close(BW); /* lets the helper go */
	pass();
	return 0;
}
