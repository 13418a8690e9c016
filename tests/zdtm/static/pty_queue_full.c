/* Full pty queues, both ways (raw, O_NONBLOCK): A's master wrote 1000-byte blocks until EAGAIN (about 22 KiB
 * queued for the slave: its line discipline's 4095 bytes and the flip buffer's), B's slave wrote until
 * EAGAIN (the same for the master). After C/R (and after a dump that leaves the test running) A's slave and
 * B's master read every byte in order, and nothing more. Before, the dump took the queues out and could not
 * put them back (written back in large blocks, the flip buffer held less: "found no room"): the dump failed
 * and the bytes were lost. */
#include "ptyq.h"

static unsigned char data[1 << 18], back[1 << 18];

/* Write 1000-byte blocks of data to fd until it stays unwritable: how many bytes. */
static size_t fill(int fd)
{
	size_t n = 0;
	while (n + 1000 <= sizeof(data)) {
		ssize_t w = write(fd, data + n, 1000);
		if (w > 0)
			n += (size_t)w;
		else if (w < 0 && errno == EAGAIN && !ptyq_writable(fd, 100))
			return n;
		else if (w < 0 && errno != EAGAIN)
			return 0;
	}
	return 0;
}

static void check(int fd, size_t n, const char *what)
{
	int k = ptyq_readn(fd, back, n);
	if ((size_t)k != n || memcmp(back, data, n) || ptyq_ready(fd, 200))
		fail("%s: %d bytes read of %zu, or other bytes", what, k, n);
}

int main(int argc, char **argv)
{
	int am, as, bm, bs;
	size_t an, bn;
	struct termios t;

	test_init(argc, argv);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	if (ptyq_open(&am, &as, O_NONBLOCK) || ptyq_open(&bm, &bs, O_NONBLOCK) || tcgetattr(as, &t))
		return fail("pty pairs"), 1;
	cfmakeraw(&t);
	if (tcsetattr(as, TCSANOW, &t) || tcsetattr(bs, TCSANOW, &t) ||
	    fcntl(as, F_SETFL, O_RDWR | O_NONBLOCK) || fcntl(bs, F_SETFL, O_RDWR | O_NONBLOCK))
		return fail("termios, flags"), 1;
	an = fill(am);
	bn = fill(bs);
	if (an <= 4095 || bn <= 4095)
		return fail("filled %zu and %zu bytes", an, bn), 1;
	test_msg("%zu bytes queued for A's slave, %zu for B's master\n", an, bn);

	test_daemon();
	test_waitsig();

	if (ptyq_writable(am, 0) || ptyq_writable(bs, 0))
		fail("a full side is writable");
	check(as, an, "A's slave");
	check(bm, bn, "B's master");
	pass();
	return 0;
}
