/* EPOLLONESHOT entries that have fired (the kernel leaves them in the set with no event bit: disarmed until
 * EPOLL_CTL_MOD): A on a pipe's read end (its byte still unread), B (also EPOLLET) on an eventfd (always
 * writable). With them in the set: C level-triggered on a readable eventfd, D edge-triggered on a pipe with
 * data (its edge not taken yet), E an EPOLLONESHOT entry not fired yet (readable pipe). After restore the
 * interest list is the same (fdinfo: events, data), one epoll_wait gives C, D and E, the next C only; A's
 * pipe then hung up (its write end closed) wakes nothing (before, the restore armed A for
 * EPOLLERR|EPOLLHUP: epoll_wait gave A); EPOLL_CTL_MOD arms A again and it fires. */
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

static int add(int ep, int fd, uint32_t ev, uint64_t data)
{
	struct epoll_event e = {.events = ev, .data.u64 = data};
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
}

int main(int argc, char **argv)
{
	char before[1024], after[1024];
	int a[2], d[2], e[2];

	test_init(argc, argv);
	int ep = epoll_create1(0), b = eventfd(0, EFD_NONBLOCK), c = eventfd(1, EFD_NONBLOCK);
	if (ep < 0 || b < 0 || c < 0 || pipe(a) || pipe(d) || pipe(e))
		return fail("setup"), 1;
	if (write(a[1], "a", 1) != 1 || write(d[1], "d", 1) != 1 || write(e[1], "e", 1) != 1)
		return fail("write"), 1;
	if (add(ep, a[0], EPOLLIN | EPOLLONESHOT, 0xa) || add(ep, b, EPOLLOUT | EPOLLONESHOT | EPOLLET, 0xb))
		return fail("add A, B"), 1;
	if (epoll_ready(ep) != (0xa | 0xb))
		return fail("A and B did not fire"), 1;
	if (add(ep, c, EPOLLIN, 0x100) || add(ep, d[0], EPOLLIN | EPOLLET, 0x200) ||
	    add(ep, e[0], EPOLLIN | EPOLLONESHOT, 0x400))
		return fail("add C, D, E"), 1;
	if (epoll_tfds(ep, before, sizeof(before)) != 5)
		return fail("interest list: %s", before), 1;

	test_daemon();
	test_waitsig();

	if (epoll_tfds(ep, after, sizeof(after)) != 5 || strcmp(before, after))
		fail("interest list: before\n%s\nafter\n%s", before, after);
	uint64_t r = epoll_ready(ep);
	if (r != (0x100 | 0x200 | 0x400))
		fail("first epoll_wait: %#llx, want 0x700", (unsigned long long)r);
	if ((r = epoll_ready(ep)) != 0x100)
		fail("second epoll_wait: %#llx, want 0x100", (unsigned long long)r);
	close(a[1]);
	if ((r = epoll_ready(ep)) != 0x100)
		fail("A's pipe hung up: epoll_wait gives %#llx, want 0x100 (A disarmed)",
		     (unsigned long long)r);
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 0xa};
	if (epoll_ctl(ep, EPOLL_CTL_MOD, a[0], &ev) || (r = epoll_ready(ep)) != (0x100 | 0xa))
		fail("A armed again: epoll_wait gives %#llx", (unsigned long long)r);
	pass();
	return 0;
}
