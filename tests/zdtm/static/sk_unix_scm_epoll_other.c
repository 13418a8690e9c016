/* An epoll instance in flight in a child's socket whose target is itself only in flight in its parent's
 * socket: the parent adds an eventfd (counter 1, fd 5) to an epoll instance and forks; the child sends the
 * epoll fd over a socketpair of its own, the parent the eventfd over another one; both close both. crshim
 * makes a target in flight only when the same process's sockets carry it: a dump of the tree must fail with
 * one line naming the child's socket (fd 24), the kind and the target's fd (.desc dump-expect); the tree
 * keeps running (the child receives the epoll, the parent the eventfd, which the child's epoll still
 * reports). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { A = 21, B = 22, C = 23, D = 24 }; /* (above the fds socketpair() may give) */

int main(int argc, char **argv)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	int ctl[2], ack[2], fd = -1, n = 0;
	char buf[8], c;
	uint64_t v = 0;

	test_init(argc, argv);
	sk_place_new(eventfd(1, 0), 5);
	int ep = epoll_create1(0), efd = 5;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) || pipe(ctl) || pipe(ack))
		fail("setup");
	pid_t pid = test_fork();
	if (pid == 0) { /* sends the epoll instance to itself; once told, receives it: the eventfd is ready */
		test_forked();
		sk_pair(SOCK_STREAM, C, D);
		if (sk_send_fds(C, "ep", 2, &ep, 1))
			_exit(2);
		close(ep);
		close(efd);
		if (write(ack[1], "s", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(3);
		if (sk_recv_fds(D, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
			_exit(4);
		if (epoll_wait(fd, &ev, 1, 0) != 1 || ev.data.u64 != 7)
			_exit(5);
		_exit(write(ack[1], "k", 1) == 1 ? 0 : 6);
	}
	sk_pair(SOCK_STREAM, A, B);
	if (sk_send_fds(A, "ev", 2, &efd, 1))
		fail("sendmsg");
	close(ep);
	close(efd);
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not send");
	test_daemon();
	test_waitsig();

	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child did not receive its epoll instance");
	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the eventfd in flight is lost");
	if (n == 1 && (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1))
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	child_exit_ok(pid, NULL);
	return test_pass();
}
