/* An epoll instance with several targets, each with its own events and data: an eventfd with a counter
 * (readable), an empty eventfd (edge-triggered), the read end of a pipe with data, its write end
 * (EPOLLOUT), and a second epoll instance (nested) that has a ready target itself. After restore the
 * interest list is the same (fdinfo: fd number, events, data), epoll_wait reports the ready targets with
 * their data, and EPOLL_CTL_MOD/DEL by the original fd numbers work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NT 5

static void add(int ep, int fd, uint32_t ev, uint64_t data)
{
	struct epoll_event e = {.events = ev, .data.u64 = data};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
		fail("epoll_ctl add %d", fd);
}

int main(int argc, char **argv)
{
	char before[1024], after[1024];
	struct epoll_event evs[16];
	uint64_t one = 1, seen = 0;
	int ep, inner, ev1, ev0, p[2], n, i;

	test_init(argc, argv);
	ep = epoll_create1(EPOLL_CLOEXEC);
	inner = epoll_create1(0);
	ev1 = eventfd(1, EFD_NONBLOCK);
	ev0 = eventfd(0, EFD_NONBLOCK);
	if (ep < 0 || inner < 0 || ev1 < 0 || ev0 < 0 || pipe(p))
		fail("setup");
	if (write(p[1], "hello", 5) != 5)
		fail("write");
	add(ep, ev1, EPOLLIN, 0x1111);
	add(ep, ev0, EPOLLIN | EPOLLET, 0x2222);
	add(ep, p[0], EPOLLIN | EPOLLRDHUP, 0x3333);
	add(ep, p[1], EPOLLOUT, 0x4444);
	add(inner, ev1, EPOLLIN, 0x5555);
	add(ep, inner, EPOLLIN, 0x6666);
	if (epoll_tfds(ep, before, sizeof(before)) != NT)
		fail("interest list: %s", before);
	test_daemon();
	test_waitsig();

	if (epoll_tfds(ep, after, sizeof(after)) != NT || strcmp(before, after))
		fail("interest list %s, want %s", after, before);
	n = epoll_wait(ep, evs, 16, 0);
	for (i = 0; i < n; i++)
		seen |= 1ull << (evs[i].data.u64 >> 12);
	/* ready: ev1 (1), the pipe's read end (3) and write end (4), the inner epoll (6); not ev0 (2) */
	if (n != 4 || seen != ((1 << 1) | (1 << 3) | (1 << 4) | (1 << 6)))
		fail("epoll_wait: %d ready, set %#llx", n, (unsigned long long)seen);
	if (write(ev0, &one, sizeof(one)) != sizeof(one))
		fail("write ev0");
	n = epoll_wait(ep, evs, 16, 0);
	for (i = 0, seen = 0; i < n; i++)
		seen |= 1ull << (evs[i].data.u64 >> 12);
	if (!(seen & (1 << 2)))
		fail("the edge-triggered eventfd is not reported after a write");
	struct epoll_event m = {.events = EPOLLOUT, .data.u64 = 0x7777};
	if (epoll_ctl(ep, EPOLL_CTL_MOD, ev1, &m) || epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL))
		fail("EPOLL_CTL_MOD/DEL by the original fd numbers");
	pass();
	return 0;
}
