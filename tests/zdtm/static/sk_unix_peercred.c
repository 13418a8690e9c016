/* SO_PEERCRED of unix sockets: a socketpair made by the test, and a connection from a child to the test's
 * listener (accepted). After restore each end still names the process that made or connected the other
 * end: the pair our pid, the accepted socket the child's, the child's socket ours. */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { PA = 10, PB = 11, LS = 12, AC = 13, CL = 14 };

static pid_t peer_pid(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) ? -1 : cr.pid;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int sp[2], ctl[2];
	pid_t ch, want_ch, want_us;
	char c;

	test_init(argc, argv);
	snprintf(a.sun_path, sizeof(a.sun_path), "peercred.sock");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || dup2(sp[0], PA) != PA || dup2(sp[1], PB) != PB ||
	    dup2(socket(AF_UNIX, SOCK_STREAM, 0), LS) != LS || bind(LS, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(LS, 1) || pipe(ctl))
		fail("setup");
	ch = fork();
	if (ch == 0) {
		test_forked();
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) || dup2(fd, CL) != CL)
			_exit(1);
		if (read(ctl[0], &c, 1) != 1) /* after restore */
			_exit(2);
		_exit(peer_pid(CL) == getppid() ? 0 : 3);
	}
	if (dup2(accept(LS, NULL, NULL), AC) != AC)
		fail("setup: accept");
	want_ch = peer_pid(AC), want_us = peer_pid(PA);
	if (want_ch != ch || want_us != getpid() || peer_pid(PB) != getpid())
		fail("setup: peer pids %d %d, want %d %d", want_ch, want_us, ch, getpid());
	test_daemon();
	test_waitsig();

	if (peer_pid(PA) != getpid() || peer_pid(PB) != getpid())
		fail("socketpair: SO_PEERCRED pids %d %d, want %d", peer_pid(PA), peer_pid(PB), getpid());
	if (peer_pid(AC) != ch)
		fail("accepted socket: SO_PEERCRED pid %d, want the child %d", peer_pid(AC), ch);
	int st;
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its socket's SO_PEERCRED does not name us (status %#x)", st);
	unlink("peercred.sock");
	if (!test_failures)
		pass();
	return 0;
}
