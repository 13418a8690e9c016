/* Packet-mode pipes (pipe2 O_DIRECT): messages of 1, 100, 4096, 7 and 512 bytes in flight keep their
 * boundaries (each read returns one message, even with a large buffer), the ends keep O_DIRECT and new
 * writes are still messages. A normal pipe beside it still merges its writes. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

static const size_t sizes[] = {1, 100, 4096, 7, 512};

int main(int argc, char **argv)
{
	int p[2], q[2];
	char buf[8192], want[8192];

	test_init(argc, argv);
	if (pipe2(p, O_DIRECT) || pipe2(q, O_NONBLOCK))
		return fail("pipe2"), 1;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(buf, 'a' + (int)i, sizes[i]);
		if (write(p[1], buf, sizes[i]) != (ssize_t)sizes[i])
			return fail("write message %zu", i), 1;
	}
	if (write(q[1], "ab", 2) != 2 || write(q[1], "cd", 2) != 2)
		return fail("write"), 1;

	test_daemon();
	test_waitsig();

	if (!(fcntl(p[1], F_GETFL) & O_DIRECT))
		fail("O_DIRECT lost: %#o %#o", fcntl(p[0], F_GETFL), fcntl(p[1], F_GETFL));
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		ssize_t n = read(p[0], buf, sizeof(buf));
		memset(want, 'a' + (int)i, sizes[i]);
		if (n != (ssize_t)sizes[i] || memcmp(buf, want, sizes[i])) {
			fail("message %zu: read %zd bytes, want %zu", i, n, sizes[i]);
			break;
		}
	}
	if (write(p[1], "xy", 2) != 2 || write(p[1], "z", 1) != 1 || read(p[0], buf, sizeof(buf)) != 2 ||
	    read(p[0], buf, sizeof(buf)) != 1)
		fail("new writes are not messages");
	ssize_t n = read(q[0], buf, sizeof(buf));
	if (n != 4 || memcmp(buf, "abcd", 4))
		fail("normal pipe: read %zd bytes", n);
	pass();
	return 0;
}
