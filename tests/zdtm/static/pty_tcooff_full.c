/* A stopped pty slave whose master has more than the line discipline's 4095 bytes unread (the rest waits in
 * the flip buffer). A: packet mode with a status pending (TIOCPKT_FLUSHREAD, then TIOCPKT_STOP from
 * tcflow(TCOOFF)), 5000 bytes written before the stop. B: no packet mode, 6000 bytes, then TCOOFF. After
 * restore both slaves are still stopped (not writable until TCOON), A's master reads its status and then
 * the 5000 bytes, B's the 6000. Before, A came back running without its status or data (a pending status
 * left the queues in place, and a full queue hid the stop). */
#include "ptyq.h"

static int raw_pair(int *m, int *s)
{
	struct termios t;
	if (ptyq_open(m, s, O_NONBLOCK) || tcgetattr(*s, &t))
		return -1;
	cfmakeraw(&t);
	return tcsetattr(*s, TCSANOW, &t);
}

static unsigned char data[6000];

int main(int argc, char **argv)
{
	int am, as, bm, bs, one = 1;
	unsigned char st[64];

	test_init(argc, argv);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)('a' + i % 26);
	if (raw_pair(&am, &as) || raw_pair(&bm, &bs) || ioctl(am, TIOCPKT, &one))
		return fail("pty pairs"), 1;
	if (write(as, data, 5000) != 5000 || tcflush(as, TCIFLUSH) || tcflow(as, TCOOFF))
		return fail("A"), 1;
	if (write(bs, data, 6000) != 6000 || tcflow(bs, TCOOFF))
		return fail("B"), 1;
	ptyq_wait_inq(am, 4095), ptyq_wait_inq(bm, 4095);
	if (ptyq_writable(as, 0) || ptyq_writable(bs, 0))
		return fail("not stopped"), 1;

	test_daemon();
	test_waitsig();

	if (ptyq_writable(as, 0))
		fail("A's slave: output runs");
	struct pollfd p = {.fd = am, .events = POLLPRI};
	ssize_t n = poll(&p, 1, 2000) == 1 ? read(am, st, sizeof(st)) : -1;
	if (n != 1 || st[0] != (TIOCPKT_FLUSHREAD | TIOCPKT_STOP))
		fail("A's status: %#x (%zd bytes), want %#x", n > 0 ? st[0] : 0, n,
		     TIOCPKT_FLUSHREAD | TIOCPKT_STOP);
	ptyq_expect(am, data, 5000, 1, "A's master");
	if (tcflow(as, TCOON) || !ptyq_writable(as, 2000))
		fail("A's slave: TCOON did not start it");
	if (ptyq_writable(bs, 0))
		fail("B's slave: output runs");
	ptyq_expect(bm, data, 6000, 0, "B's master");
	if (tcflow(bs, TCOON) || !ptyq_writable(bs, 2000))
		fail("B's slave: TCOON did not start it");
	pass();
	return 0;
}
