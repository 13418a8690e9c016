/* Epoll targets held by another process of the tree: the parent adds an eventfd (counter 1) and the read
 * end of a pipe to its epoll instance, forks, and closes both; only the child holds them now. After
 * restore the parent's epoll reports the eventfd (and the pipe, once the parent writes into it); when the
 * child has read both, nothing is ready any more: the targets are the child's files, not copies. */
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int ep, efd, data[2], ctl[2], ack[2];
	struct epoll_event e;
	uint64_t s;
	pid_t pid;
	char c;

	test_init(argc, argv);
	ep = epoll_create1(0);
	efd = eventfd(1, 0);
	if (ep < 0 || efd < 0 || pipe(data) || pipe(ctl) || pipe(ack))
		fail("setup");
	e.events = EPOLLIN, e.data.u64 = 1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, efd, &e))
		fail("add eventfd");
	e.events = EPOLLIN, e.data.u64 = 2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, data[0], &e))
		fail("add pipe");
	pid = test_fork();
	if (pid == 0) {
		close(ep);
		close(data[1]);
		close(ctl[1]);
		close(ack[0]);
		epoll_child_reads(efd, data[0], ctl[0], ack[1]);
	}
	close(efd);
	close(data[0]);
	close(ctl[0]);
	close(ack[1]);
	if ((s = epoll_ready(ep)) != 1)
		fail("before: ready set %#llx, want 1", (unsigned long long)s);
	test_daemon();
	test_waitsig();

	if ((s = epoll_ready(ep)) != 1)
		fail("after restore: ready set %#llx, want 1 (the child's eventfd)", (unsigned long long)s);
	if (write(data[1], "d", 1) != 1)
		fail("write data");
	if ((s = epoll_ready(ep)) != 3)
		fail("ready set %#llx, want 3 (the child's pipe end too)", (unsigned long long)s);
	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child did not answer");
	if ((s = epoll_ready(ep)) != 0)
		fail("ready set %#llx after the child read both, want 0: the targets are not the child's",
		     (unsigned long long)s);
	child_exit_ok(pid, NULL);
	pass();
	return 0;
}
