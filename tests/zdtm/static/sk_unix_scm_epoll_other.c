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
	int ctl[2], ack[2], ep, fd = -1, n = 0;
	char buf[8];

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	pid_t pid = test_fork();
	if (pid == 0) { /* sends the epoll instance to itself; once told, receives it */
		test_forked();
		if (sk_pair_send(C, D, ep, ep) || sk_step(ctl[0], ack[1]))
			_exit(2);
		if (sk_recv_fds(D, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
			_exit(3);
		if (!sk_ep_is(fd, 0) || sk_step(ctl[0], ack[1])) /* the parent read the eventfd */
			_exit(4);
		_exit(sk_ep_is(fd, 1) && write(ack[1], "k", 1) == 1 ? 0 : 5);
	}
	sk_parent_send(A, B, 5, ep, ctl, ack);
	test_daemon();
	test_waitsig();

	sk_parent_efd(B, ctl[1], ack[0]);
	child_exit_ok(pid, NULL);
	return test_pass();
}
