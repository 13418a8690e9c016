/* SO_PEERCRED of unix sockets: a socketpair made by the test, and a connection from a child (with euid
 * 1234 and egid 4321 set before it connects) to the test's listener (accepted). After restore each end
 * still names the process that made or connected the other end: the pair and the listener our pid, uid
 * and gid, the accepted socket the child's (1234, 4321), the child's socket ours (the listener's). */
#include <stdio.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sk_unix.h"

enum { PA = 10, PB = 11, LS = 12, AC = 13, CL = 14 };

static pid_t peer_pid(int fd)
{
	return sk_peer(fd).pid;
}

static void check_ids(int fd, const char *what, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if (cr.uid != uid || cr.gid != gid)
		fail("%s: SO_PEERCRED uid %u gid %u, want %u %u", what, cr.uid, cr.gid, uid, gid);
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
	ch = test_fork();
	if (ch == 0) {
		if (setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1))
			_exit(4);
		setfsuid(0); /* the test dir is ours (0700) */
		setfsgid(0);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) || dup2(fd, CL) != CL)
			_exit(1);
		if (read(ctl[0], &c, 1) != 1) /* after restore */
			_exit(2);
		struct ucred cr = sk_peer(CL);
		_exit(cr.pid == getppid() && cr.uid == 0 && cr.gid == 0 ? 0 : 3);
	}
	if (dup2(accept(LS, NULL, NULL), AC) != AC)
		fail("setup: accept");
	want_ch = peer_pid(AC), want_us = peer_pid(PA);
	if (want_ch != ch || want_us != getpid() || peer_pid(PB) != getpid() || peer_pid(LS) != getpid())
		fail("setup: peer pids %d %d, want %d %d", want_ch, want_us, ch, getpid());
	check_ids(AC, "setup: accepted socket", 1234, 4321);
	check_ids(PA, "setup: socketpair", getuid(), getgid());
	test_daemon();
	test_waitsig();

	if (peer_pid(PA) != getpid() || peer_pid(PB) != getpid())
		fail("socketpair: SO_PEERCRED pids %d %d, want %d", peer_pid(PA), peer_pid(PB), getpid());
	if (peer_pid(AC) != ch)
		fail("accepted socket: SO_PEERCRED pid %d, want the child %d", peer_pid(AC), ch);
	if (peer_pid(LS) != getpid())
		fail("listener: SO_PEERCRED pid %d, want %d", peer_pid(LS), getpid());
	check_ids(AC, "accepted socket", 1234, 4321);
	check_ids(PA, "socketpair", getuid(), getgid());
	check_ids(LS, "listener", getuid(), getgid());
	int st = 0;
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its socket's SO_PEERCRED does not name us (status %#x)", st);
	unlink("peercred.sock");
	return test_pass();
}
