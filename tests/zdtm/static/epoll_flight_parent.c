/* An epoll instance a child holds (its fd table) whose target is only in flight in its parent's socket: the
 * parent adds an eventfd (counter 1, fd 5) to an epoll instance and forks; the child closes fd 5 and keeps
 * the epoll instance; the parent sends the eventfd over a socketpair of its own and closes both. The parent
 * is dumped first: the child's entry names the parent's file in flight, which crshim adds to the child's
 * set. After restore the child's set reports the eventfd (data 7); once the parent received and read it,
 * nothing; once the parent added 3, the eventfd again (one file, not a copy). */
#include <stdint.h>
#include "sk_unix.h"

enum { A = 21, B = 22 };

int main(int argc, char **argv)
{
	int ctl[2], ack[2], ep;

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	pid_t pid = test_fork();
	if (pid == 0) { /* keeps the epoll instance; told, checks what it reports */
		test_forked();
		close(5);
		if (sk_step(ctl[0], ack[1]) || !sk_ep_is(ep, 1) || sk_step(ctl[0], ack[1]))
			_exit(2);
		if (!sk_ep_is(ep, 0) || sk_step(ctl[0], ack[1])) /* the parent read the eventfd */
			_exit(3);
		_exit(sk_ep_is(ep, 1) && write(ack[1], "k", 1) == 1 ? 0 : 4);
	}
	sk_parent_send(A, B, 5, ep, ctl, ack);
	test_daemon();
	test_waitsig();

	sk_go(ctl[1], ack[0], "the child's epoll instance does not report the eventfd in flight");
	sk_parent_efd(B, ctl[1], ack[0]);
	child_exit_ok(pid, NULL);
	return test_pass();
}
