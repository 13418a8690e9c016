/* An epoll instance in flight (SCM_RIGHTS in a stream socketpair's queue, the task's own fd closed) whose
 * targets the task holds: a pipe's read end (fd 5, empty), an eventfd (fd 7, counter 3: ready), the socket
 * carrying it (fd 12, the message unread: ready), and under fd number 8 twice: an eventfd since moved to
 * fd 9 (counter 0) and the pipe again (a dup left at 8). After restore the epoll received has the same
 * interest list (fd numbers, events, data: fdinfo), reports the eventfd only once the message is read,
 * then the pipe (both entries) once written, the socket once sent to, the moved eventfd once written; the
 * task's EPOLL_CTL_MOD and EPOLL_CTL_DEL by those fd numbers work. */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "sk_unix.h"

enum { A = 11, B = 12, PR = 5, PW = 6, EFD = 7, TWICE = 8, EFD2 = 9 };

static void add(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		fail("add fd %d", fd);
}

static void want_ready(int ep, uint64_t w, const char *when)
{
	uint64_t s = epoll_ready(ep);
	if (s != w)
		fail("%s: ready set %#llx, want %#llx", when, (unsigned long long)s, (unsigned long long)w);
}

int main(int argc, char **argv)
{
	char before[512];
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 32};
	uint64_t v = 0;
	int p[2];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	if (pipe(p))
		fail("pipe");
	int r = fcntl(p[0], F_DUPFD, 30), w = fcntl(p[1], F_DUPFD, 30); /* (pipe() may give 5 or 6) */
	close(p[0]);
	close(p[1]);
	sk_place(r, PR, 0);
	sk_place(w, PW, 0);
	sk_place(eventfd(3, 0), EFD, 0);
	sk_place(eventfd(0, 0), TWICE, 0);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		fail("epoll_create1");
	add(ep, PR, EPOLLIN, 1);
	add(ep, EFD, EPOLLIN, 2);
	add(ep, B, EPOLLIN | EPOLLRDHUP, 4);
	add(ep, TWICE, EPOLLIN | EPOLLET, 8);
	if (dup2(TWICE, EFD2) != EFD2 || dup2(PR, TWICE) != TWICE) /* the eventfd moves to 9, the pipe at 8 */
		fail("dup2");
	add(ep, TWICE, EPOLLIN, 16);
	if (epoll_tfds(ep, before, sizeof(before)) != 5)
		fail("fdinfo lists %s", before);
	want_ready(ep, 2, "before");
	int fd = sk_epoll_round(A, B, ep, before);
	want_ready(fd, 2, "received");
	if (write(PW, "x", 1) != 1)
		fail("write the pipe");
	want_ready(fd, 1 | 2 | 16, "pipe written");
	if (sk_send(A, "y", 1))
		fail("send");
	want_ready(fd, 1 | 2 | 4 | 16, "socket sent to");
	if (read(EFD, &v, sizeof(v)) != sizeof(v) || v != 3)
		fail("eventfd counter %llu, want 3", (unsigned long long)v);
	want_ready(fd, 1 | 4 | 16, "eventfd read");
	v = 1;
	if (write(EFD2, &v, sizeof(v)) != sizeof(v))
		fail("write the moved eventfd");
	want_ready(fd, 1 | 4 | 8 | 16, "moved eventfd written");
	if (epoll_ctl(fd, EPOLL_CTL_MOD, PR, &ev) || epoll_ctl(fd, EPOLL_CTL_DEL, EFD, NULL))
		fail("EPOLL_CTL_MOD / DEL by the fd numbers added with");
	want_ready(fd, 4 | 16 | 32, "after MOD and DEL"); /* (the ET entry reported once) */
	return test_pass();
}
