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
	struct epoll_event ev;
	int ctl[2], ack[2], ep, fd = -1, n = 0;
	char buf[8], c;
	uint64_t v = 0;

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	pid_t pid = test_fork();
	if (pid == 0) { /* keeps the epoll instance; told, checks what it reports */
		test_forked();
		close(5);
		if (write(ack[1], "s", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(3);
		if (epoll_wait(ep, &ev, 1, 0) != 1 || ev.data.u64 != 7)
			_exit(4);
		if (write(ack[1], "r", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(5);
		if (epoll_wait(ep, &ev, 1, 0) != 0) /* the parent read the eventfd */
			_exit(6);
		if (write(ack[1], "r", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(7);
		if (epoll_wait(ep, &ev, 1, 0) != 1 || ev.data.u64 != 7)
			_exit(8);
		_exit(write(ack[1], "k", 1) == 1 ? 0 : 9);
	}
	close(ctl[0]); /* (a child that fails ends the parent's reads) */
	close(ack[1]);
	if (sk_pair_send(A, B, 5, ep))
		fail("sendmsg");
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not start");
	test_daemon();
	test_waitsig();

	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child's epoll instance does not report the eventfd in flight");
	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the eventfd in flight is lost");
	if (n == 1 && (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1))
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child's epoll instance reports a target though the eventfd was read");
	v = 3;
	if (n != 1 || write(fd, &v, sizeof(v)) != sizeof(v) || write(ctl[1], "g", 1) != 1 ||
	    read(ack[0], &c, 1) != 1)
		fail("the child's epoll instance does not report the eventfd the parent wrote to");
	child_exit_ok(pid, NULL);
	return test_pass();
}
