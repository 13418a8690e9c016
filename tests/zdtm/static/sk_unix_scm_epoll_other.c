/* An epoll instance in flight in a child's socket whose target is itself only in flight in its parent's
 * socket: the parent adds an eventfd (counter 1, fd 5) to an epoll instance and forks; the child sends the
 * epoll fd over a socketpair of its own, the parent the eventfd over another one; both close both. The
 * parent is dumped first: the child's epoll entry names the parent's file in flight. After restore the
 * parent receives the eventfd and reads it (counter 1, then 0); the child receives its epoll instance,
 * which reports nothing (the same eventfd, read), then, once the parent added 3, the eventfd (data 7). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { A = 21, B = 22, C = 23, D = 24 }; /* (above the fds socketpair() may give) */

int main(int argc, char **argv)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	int ctl[2], ack[2], ep, fd = -1, n = 0;
	char buf[8], c;
	uint64_t v = 0;

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	pid_t pid = test_fork();
	if (pid == 0) { /* sends the epoll instance to itself; once told, receives it */
		test_forked();
		if (sk_pair_send(C, D, ep, ep))
			_exit(2);
		if (write(ack[1], "s", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(3);
		if (sk_recv_fds(D, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
			_exit(4);
		if (epoll_wait(fd, &ev, 1, 0) != 0) /* the parent read the eventfd */
			_exit(5);
		if (write(ack[1], "r", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(6);
		if (epoll_wait(fd, &ev, 1, 0) != 1 || ev.data.u64 != 7)
			_exit(7);
		_exit(write(ack[1], "k", 1) == 1 ? 0 : 8);
	}
	close(ctl[0]); /* (a child that fails ends the parent's reads) */
	close(ack[1]);
	if (sk_pair_send(A, B, 5, ep))
		fail("sendmsg");
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not send");
	test_daemon();
	test_waitsig();

	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the eventfd in flight is lost");
	if (n == 1 && (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1))
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child's epoll instance is lost, or reports a target though the eventfd was read");
	v = 3;
	if (n != 1 || write(fd, &v, sizeof(v)) != sizeof(v) || write(ctl[1], "g", 1) != 1 ||
	    read(ack[0], &c, 1) != 1)
		fail("the child's epoll instance does not report the eventfd the parent wrote to");
	child_exit_ok(pid, NULL);
	return test_pass();
}
