/* A pipe filled to its size through non-blocking ends: after restore it is still full (a write gives
 * EAGAIN), the data reads back exactly, then it is empty (EAGAIN) and takes data again. */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MAX (1 << 20)
enum { R = 105, W = 106 };

int main(int argc, char **argv)
{
	static char data[MAX], buf[MAX];
	int size, total = 0, n;

	test_init(argc, argv);
	pipe_at(R, W, O_NONBLOCK);
	size = fcntl(W, F_GETPIPE_SZ);
	if (size <= 0 || size > MAX)
		fail("pipe size %d", size);
	datagen(data, MAX, 7);
	/* page-sized writes, then byte by byte (nothing more fits). Odd-sized writes would leave gaps in the
	 * kernel's page buffers (a write that does not fit the last page starts a new one): such a pipe is
	 * "full" below its size, and the restore packs its data, leaving room for more. */
	for (int chunk = 4096; chunk; chunk = chunk == 4096 ? 1 : 0) {
		while ((n = write(W, data + total, chunk)) > 0)
			total += n;
	}
	if (errno != EAGAIN || total != size)
		fail("filled %d bytes of a %d byte pipe", total, size);
	test_daemon();
	test_waitsig();

	if (fcntl(W, F_GETPIPE_SZ) != size)
		fail("pipe size %d, want %d", fcntl(W, F_GETPIPE_SZ), size);
	if (write(W, "x", 1) != -1 || errno != EAGAIN)
		fail("the full pipe took more data");
	if (ioctl(R, FIONREAD, &n) || n != total)
		fail("%d bytes in flight, want %d", n, total);
	n = read(R, buf, MAX);
	if (n != total || memcmp(buf, data, total))
		fail("read %d bytes back, want %d%s", n, total, n == total ? " (different)" : "");
	if (read(R, buf, 1) != -1 || errno != EAGAIN)
		fail("the drained pipe is not empty");
	if (write(W, "again", 5) != 5 || read(R, buf, 16) != 5 || memcmp(buf, "again", 5))
		fail("the pipe does not carry data any more");
	pass();
	return 0;
}
