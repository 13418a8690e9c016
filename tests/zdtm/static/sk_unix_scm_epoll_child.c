/* An epoll instance in flight whose targets only a child holds: the parent adds an eventfd (counter 1, fd
 * 5) and a pipe's read end (fd 6) to its epoll instance, forks, closes both, sends the epoll fd over a
 * socketpair it keeps both ends of and closes it. After restore the parent receives the epoll: the same
 * interest list (fdinfo), the eventfd ready, the pipe once the parent writes into it; when the child has
 * read both, nothing is ready any more: the targets are the child's files, not copies. */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { A = 11, B = 12, EFD = 5, PR = 6, PW = 7 };

int main(int argc, char **argv)
{
	int data[2], ctl[2], ack[2];
	char before[512], c;
	struct epoll_event e;
	uint64_t s;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	if (pipe(data))
		fail("pipe");
	sk_place(data[0], PR, 0);
	sk_place(data[1], PW, 0);
	sk_place(eventfd(1, 0), EFD, 0);
	if (pipe(ctl) || pipe(ack))
		fail("pipe");
	int ep = epoll_create1(0);
	if (ep < 0)
		fail("epoll_create1");
	e.events = EPOLLIN, e.data.u64 = 1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, EFD, &e))
		fail("add eventfd");
	e.events = EPOLLIN | EPOLLRDHUP, e.data.u64 = 2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, PR, &e))
		fail("add pipe");
	if (epoll_tfds(ep, before, sizeof(before)) != 2)
		fail("fdinfo lists %s", before);
	pid_t pid = test_fork();
	if (pid == 0) {
		close(ep);
		close(PW);
		close(ctl[1]);
		close(ack[0]);
		epoll_child_reads(EFD, PR, ctl[0], ack[1]);
	}
	close(EFD);
	close(PR);
	close(ctl[0]);
	close(ack[1]);
	if ((s = epoll_ready(ep)) != 1)
		fail("before: ready set %#llx, want 1", (unsigned long long)s);
	int fd = sk_epoll_round(A, B, ep, before);
	if ((s = epoll_ready(fd)) != 1)
		fail("after restore: ready set %#llx, want 1 (the child's eventfd)", (unsigned long long)s);
	if (write(PW, "d", 1) != 1)
		fail("write data");
	if ((s = epoll_ready(fd)) != 3)
		fail("ready set %#llx, want 3 (the child's pipe end too)", (unsigned long long)s);
	if (write(ctl[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		fail("the child did not answer");
	if ((s = epoll_ready(fd)) != 0)
		fail("ready set %#llx after the child read both, want 0: the targets are not the child's",
		     (unsigned long long)s);
	child_exit_ok(pid, NULL);
	return test_pass();
}
