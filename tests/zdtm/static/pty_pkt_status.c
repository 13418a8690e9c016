/* Packet mode (TIOCPKT) statuses pending on a pty master at dump are kept, exactly. P: TIOCPKT_FLUSHREAD |
 * TIOCPKT_FLUSHWRITE (tcflush(TCIOFLUSH) on the slave), then the slave wrote "abc". Q: the slave (IXON, ^S
 * and ^Q: the dump must probe how it was stopped) stopped by tcflow(TCOOFF), its TIOCPKT_STOP read, then
 * TIOCPKT_FLUSHWRITE: no TIOCPKT_STOP may come back. R: the slave wrote "r", then TCOOFF: TIOCPKT_STOP
 * pending. S: TIOCPKT_DOSTOP (IXON with ^S/^Q set while in packet mode) and "s" written. After restore each
 * master reads its status byte, then its data; Q and R stay stopped until TCOON. Before, a pending status
 * was lost (and the dump's probe added TIOCPKT_STOP to Q's). */
#include "ptyq.h"

static int pkt_pair(int *m, int *s, int ixon)
{
	struct termios t;
	int one = 1;
	if (ptyq_open(m, s, O_NONBLOCK) || tcgetattr(*s, &t))
		return -1;
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_iflag &= ~(tcflag_t)(IXON | IXANY);
	if (ixon)
		t.c_iflag |= IXON;
	t.c_cc[VSTOP] = 0x13, t.c_cc[VSTART] = 0x11;
	return tcsetattr(*s, TCSANOW, &t) || ioctl(*m, TIOCPKT, &one) ? -1 : 0;
}

/* The master's next read is the status want (0: none is pending). */
static void status(int m, int want, const char *what)
{
	struct pollfd p = {.fd = m, .events = POLLPRI};
	unsigned char b[64];
	int pri = poll(&p, 1, want ? 2000 : 200) == 1 && (p.revents & POLLPRI);
	if (!want) {
		if (pri)
			fail("%s: a status is pending (%#x)", what, read(m, b, sizeof(b)) == 1 ? b[0] : 0);
		return;
	}
	ssize_t n = pri ? read(m, b, sizeof(b)) : -1;
	if (n != 1 || b[0] != want)
		fail("%s: status %#x (%zd bytes), want %#x", what, n > 0 ? b[0] : 0, n, want);
}

int main(int argc, char **argv)
{
	int pm, ps, qm, qs, rm, rs, sm, ss;
	unsigned char b[64];

	test_init(argc, argv);
	if (pkt_pair(&pm, &ps, 0) || pkt_pair(&qm, &qs, 1) || pkt_pair(&rm, &rs, 1) || pkt_pair(&sm, &ss, 0))
		return fail("pty pairs"), 1;
	if (tcflush(ps, TCIOFLUSH) || write(ps, "abc", 3) != 3)
		return fail("P"), 1;
	if (tcflow(qs, TCOOFF) || !ptyq_ready(qm, 2000) || read(qm, b, sizeof(b)) != 1 ||
	    b[0] != TIOCPKT_STOP || tcflush(qs, TCOFLUSH))
		return fail("Q"), 1;
	if (write(rs, "r", 1) != 1 || tcflow(rs, TCOOFF))
		return fail("R"), 1;
	struct termios t;
	if (tcgetattr(ss, &t))
		return fail("S"), 1;
	t.c_iflag |= IXON;
	if (tcsetattr(ss, TCSANOW, &t) || write(ss, "s", 1) != 1)
		return fail("S"), 1;
	ptyq_wait_inq(pm, 3), ptyq_wait_inq(rm, 1), ptyq_wait_inq(sm, 1);

	test_daemon();
	test_waitsig();

	status(pm, TIOCPKT_FLUSHREAD | TIOCPKT_FLUSHWRITE, "P");
	ptyq_expect(pm, "abc", 3, 1, "P's data");
	status(qm, TIOCPKT_FLUSHWRITE, "Q");
	status(qm, 0, "Q after its status");
	if (ptyq_writable(qs, 0))
		fail("Q's slave: output runs");
	if (tcflow(qs, TCOON) || !ptyq_writable(qs, 2000))
		fail("Q's slave: TCOON did not start it");
	status(qm, TIOCPKT_START, "Q after TCOON");
	status(rm, TIOCPKT_STOP, "R");
	ptyq_expect(rm, "r", 1, 1, "R's data");
	if (ptyq_writable(rs, 0) || tcflow(rs, TCOON) || !ptyq_writable(rs, 2000))
		fail("R's slave: not stopped by TCOOFF");
	status(sm, TIOCPKT_DOSTOP, "S");
	ptyq_expect(sm, "s", 1, 1, "S's data");
	pass();
	return 0;
}
