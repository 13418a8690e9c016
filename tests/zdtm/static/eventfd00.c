/* Eventfds: counters (small, above 32 bits, zero), O_NONBLOCK or not, close-on-exec, and a dup sharing
 * one counter. After restore each counter reads back exactly and the fds still work. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 9, B = 10, Z = 11, DUP = 12 };

static void place(int fd, int want, int fl)
{
	if (fd < 0 || dup3(fd, want, fl) != want)
		fail("place fd %d", want);
	close(fd);
}

static uint64_t rd(int fd)
{
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		fail("read eventfd %d", fd);
	return v;
}

int main(int argc, char **argv)
{
	uint64_t big = (1ull << 40) + 7, v = 3;
	int fl[3];

	test_init(argc, argv);
	place(eventfd(5, EFD_NONBLOCK), A, 0);
	place(eventfd(0, 0), B, O_CLOEXEC);
	place(eventfd(0, EFD_NONBLOCK), Z, 0);
	if (write(B, &big, sizeof(big)) != sizeof(big))
		fail("write big");
	if (dup2(A, DUP) != DUP)
		fail("dup");
	fl[0] = fcntl(A, F_GETFL), fl[1] = fcntl(B, F_GETFL), fl[2] = fcntl(Z, F_GETFL);
	test_daemon();
	test_waitsig();

	if (fcntl(A, F_GETFL) != fl[0] || fcntl(B, F_GETFL) != fl[1] || fcntl(Z, F_GETFL) != fl[2])
		fail("flags changed");
	if (fcntl(B, F_GETFD) != FD_CLOEXEC || fcntl(A, F_GETFD) != 0)
		fail("fd flags changed");
	if (write(DUP, &v, sizeof(v)) != sizeof(v))
		fail("write through the dup");
	if ((v = rd(A)) != 8)
		fail("counter of fd %d: %llu, want 5 + 3 (written through its dup)", A,
		     (unsigned long long)v);
	if ((v = rd(B)) != big)
		fail("counter of fd %d: %llu, want %llu", B, (unsigned long long)v, (unsigned long long)big);
	if (read(Z, &v, sizeof(v)) != -1 || errno != EAGAIN)
		fail("fd %d: not an empty non-blocking eventfd", Z);
	if (read(A, &v, sizeof(v)) != -1 || errno != EAGAIN)
		fail("fd %d: not non-blocking", A);
	pass();
	return 0;
}
