/* Epoll targets whose fd was closed after EPOLL_CTL_ADD while the file lives on under another fd: an
 * eventfd added as fd 10, then moved to fd 20 (dup2 + close 10), and a pipe read end added as fd 11 and
 * kept also as fd 21. After restore the interest list still names fds 10 and 11 with their events and
 * data (fdinfo), and epoll_wait reports the eventfd (through fd 20) and the pipe. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char before[512], after[512];
	struct epoll_event e, evs[8];
	uint64_t v;
	int ep, fd, p[2], n, i, got_ev = 0, got_pipe = 0;

	test_init(argc, argv);
	ep = epoll_create1(0);
	fd = eventfd(3, EFD_NONBLOCK);
	if (ep < 0 || fd < 0 || pipe(p) || dup2(fd, 10) != 10 || dup2(p[0], 11) != 11)
		fail("setup");
	close(fd);
	close(p[0]);
	e.events = EPOLLIN, e.data.u64 = 0xe7;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, 10, &e))
		fail("add 10");
	e.events = EPOLLIN | EPOLLET, e.data.u64 = 0xb1b1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, 11, &e))
		fail("add 11");
	if (dup2(10, 20) != 20 || dup2(11, 21) != 21)
		fail("dup2");
	close(10);
	if (write(p[1], "x", 1) != 1)
		fail("write");
	if (epoll_tfds(ep, before, sizeof(before)) != 2)
		fail("interest list: %s", before);
	test_daemon();
	test_waitsig();

	if (epoll_tfds(ep, after, sizeof(after)) != 2 || strcmp(before, after))
		fail("interest list %s, want %s", after, before);
	if (fcntl(10, F_GETFD) != -1)
		fail("fd 10 is open again");
	n = epoll_wait(ep, evs, 8, 0);
	for (i = 0; i < n; i++) {
		got_ev += evs[i].data.u64 == 0xe7;
		got_pipe += evs[i].data.u64 == 0xb1b1;
	}
	if (n != 2 || got_ev != 1 || got_pipe != 1)
		fail("epoll_wait: %d ready (eventfd %d, pipe %d)", n, got_ev, got_pipe);
	if (read(20, &v, sizeof(v)) != sizeof(v) || v != 3)
		fail("eventfd through fd 20");
	if (epoll_wait(ep, evs, 8, 0) != 0)
		fail("the eventfd is still ready after its counter was read through fd 20 (another file?)");
	pass();
	return 0;
}
