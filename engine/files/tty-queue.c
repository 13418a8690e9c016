/* The data queued inside a pty pair (see tty.h): taken out of the living pair at dump and put back at once
 * (before the tree runs again, so --leave-running and checkpoints see their queues unchanged), and put into
 * the new pair at restore.
 *
 * Why this way. A tty queue cannot be peeked, so the dump reads it out and puts it back.
 * - Input (written to the master, not read from the slave yet) sits in the slave's line discipline (n_tty),
 *   already processed (ICRNL, erase, echo done). It is read on an open of the slave of our own
 *   (TIOCGPTPEER, O_NONBLOCK: the tree's descriptions keep their flags). In canonical mode each read(2)
 *   gives one complete line, ended by '\n', VEOL, VEOL2 (with IEXTEN) or VEOF, whose char read(2) drops
 *   (n_tty stores it as a flagged NUL, as it does a NUL typed when VEOL is 0): each line's length is kept,
 *   and whether it ended with VEOF. The partial line cannot be read in canonical mode; switching ICANON off
 *   makes the whole buffer readable (n_tty_set_termios), and the rest is read raw.
 * - Output (written to the slave, not read by the master yet) sits in the master's n_tty, already through
 *   the slave's output processing (OPOST). The master's own termios is always raw (termios ioctls on a
 *   master act on the slave), so it is bytes as they are. It is read on the master's description (the
 *   tree's: the caller sets O_NONBLOCK for the time). In packet mode every read starts with TIOCPKT_DATA,
 *   dropped. A read that finds nothing first flushes the flip buffer into the line discipline, so bytes on
 *   their way are taken too (FIONREAD/TIOCINQ would not count those).
 * - Putting back. The slave gets a neutral termios for the time: no input processing (c_iflag 0: no ICRNL,
 *   ISTRIP, IXON, PARMRK), no ISIG, no ECHO (nothing is echoed twice: the echo of the original typing is
 *   already in the output queue), no OPOST. Input goes in with TIOCSTI on the slave: the line discipline
 *   receives each byte synchronously, so all of it is processed under the neutral termios before the saved
 *   one is set back (a write to the master is received later by a kworker, perhaps under the restored
 *   termios: ICRNL or echo would apply a second time). TIOCSTI needs CAP_SYS_ADMIN for a tty that is not
 *   our controlling one, and with it works also when dev.tty.legacy_tiocsti is 0. In canonical mode every
 *   byte of a line goes in after VLNEXT (with IEXTEN: taken literally, whatever it is) and the line's
 *   terminator unquoted ('\n', VEOL or VEOL2 itself, VEOF for a line read(2) gave without one), so the
 *   lines end where they did and the partial line stays partial. Output is written to the slave (OPOST off:
 *   byte for byte; the master's side receives it raw). Then the saved termios is set back (ICANON as in the
 *   neutral one, so the line marks stay).
 * - Packet mode. The status the master had not read is read first (a read gives it alone) and kept; the
 *   put-back leaves statuses of its own (TIOCPKT_DOSTOP/NOSTOP when IXON flips, START/STOP), so at the end
 *   (tty_pkt_status_put) packet mode is switched off and on (no status) and each bit made again by what
 *   makes it: START by TCOOFF+TCOON of a running slave; FLUSHREAD by tcflush(TCIFLUSH) of the slave, only
 *   when it has no input; FLUSHWRITE by tcflush(TCOFLUSH) of the slave, which drops output on its way to
 *   the master, so only once all of it is in the master's line discipline (at most 4095 bytes); DOSTOP/
 *   NOSTOP by a termios with the other ^S/^Q flow control, then the slave's; IOCTL (EXTPROC) by setting
 *   the termios again; STOP last, by starting and stopping the stopped slave again. What cannot be made
 *   (a flush with the queue there; DOSTOP/NOSTOP with EXTPROC, which adds IOCTL) is warned.
 * Not exact, so the dump leaves that direction in place and warns (dump-tty.c): EXTPROC or no
 * CAP_SYS_ADMIN (input); a slave that cannot be opened. Input beyond the line
 * discipline's 4095 bytes (more waits in the flip buffer) is put back by a write to the master (raw: once
 * TIOCSTI filled the line discipline; canonical: once the complete lines that fit went in) and goes through
 * the input processing again (warned). Output: the first 4095 bytes go into the master's line discipline
 * by TIOCSTI on the master (its termios is always raw), the rest is written. Such a full queue fits back
 * only when the flip buffer is packed as tightly as the writers had it: see PUT_CHUNK, write_rest. An
 * LNEXT-quoted terminator char right before a VEOF is taken for the line's terminator.
 *
 * Output flow control. The kernel keeps, per tty, "stopped" (its output is held: a pty's write gives
 * nothing, a writer waits) and "tco_stopped" (stopped by tcflow(TCOOFF)): its VSTOP char (IXON) stops it
 * alone, and then its VSTART char (or any char with IXANY), or IXON switched off, starts it; TCOOFF sets
 * both, and only TCOON starts it again (TCOON on a tty stopped by VSTOP does nothing). Neither is shown by
 * any /proc file or get ioctl (with IXON off a stop is a TCOOFF one: IXON switched off starts a VSTOP
 * one, so no probe). Read at dump, once the queues are out: a slave that does not poll
 * writable (POLLOUT) while the master's side holds less than the line discipline's buffer (so the flip
 * buffer, 64 KiB, is not full) is stopped; then TCOON tells which: it starts only a TCOOFF stop, which is
 * stopped again at once (TCOOFF). That start and stop wakes writers (the tree is frozen: none is in
 * write(2); epoll polls the slave again and finds it not writable), and in packet mode it sets the
 * master's TIOCPKT_STOP status (the status is made again after: see above). A master (its
 * termios always raw: no IXON) is stopped only by TCOOFF: it does not poll writable while the slave's
 * side holds less than a buffer. Output written while stopped is not queued by a pty: the writer waits in
 * write(2) (restarted after restore), or got EAGAIN; what the slave wrote before is in the master's queue.
 * Set again (tty_flow_stop), after the queues are in: TCOOFF; a VSTOP stop by TIOCSTI of VSTOP into the
 * slave (IXON is on), else (not capable) by writing it to the master and waiting until the slave stops.
 *
 * Held echoes. Input typed while the slave's output is stopped (ECHO) leaves its echo in n_tty's echo
 * buffer; it comes out (through OPOST) before anything else once the output runs and the slave is written
 * or gets input. At dump (tty_echo_take, the queues out) the slave is started for the time and written
 * nothing (a write of 0 bytes sends the held echoes) and the master read: those bytes are the echoes as
 * they would come out; stopped again. Put back (tty_queue_put: after the output, before the input, so that
 * n_tty_write sends none of them ahead) behind a TCOOFF stop: each byte typed by TIOCSTI under a termios
 * with ECHO alone (an ONLCR "\r\n" as the '\n' it came from) and read back, which leaves the echo alone;
 * a VSTOP stop is made again after (TCOON, VSTOP). OCRNL, ONOCR, ONLRET and XTABS would change the bytes
 * again: the dump refuses a stopped slave with ECHO under them. A slave that runs holds echoes only when
 * the master's side had no room: they go behind the master's queue. */
#define LOG_PREFIX "tty-queue: "
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "base/log.h"
#include "files/tty.h"

#define N_TTY_ROOM 4095 /* bytes n_tty's read buffer holds (N_TTY_BUF_SIZE - 1) */
#define MAX_LINES 65536 /* bound on canonical reads (each gives one line) */
/* Writes that put a queue back are this long at most: the flip buffer (the bytes beyond the line discipline's
 * buffer) is allocated by what each write asks for, and writes of 1024 bytes (into a line discipline already
 * full) pack it the tightest of those measured (6.18: 18432 bytes where writes of 2048 or more fit 11776, a
 * writer's own 1000-byte writes at most 18001): a full queue fits back. */
#define PUT_CHUNK 1024
#define WRITE_TRIES 50 /* polls of 100 ms for room before a write back gives up */

static int qb_add(struct tty_qbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8192;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np, b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int add_u32(uint32_t **a, size_t *n, uint32_t v)
{
	uint32_t *na = realloc(*a, (*n + 1) * sizeof(*na));
	if (!na)
		return -1;
	na[(*n)++] = v;
	*a = na;
	return 0;
}

void tty_queue_free(struct tty_queue *q)
{
	free(q->in.p);
	free(q->out.p);
	free(q->lines);
	free(q->eof);
	free(q->echo.p);
	*q = (struct tty_queue){0};
}

/* Read fd until nothing is left (EAGAIN; EIO: the other side is closed). skip: 1 in packet mode (the
 * leading byte of each read: TIOCPKT_DATA, or a status, which is counted in *status and dropped). */
static int drain(int fd, struct tty_qbuf *b, int skip, int *status, struct cr_err *e)
{
	uint8_t buf[4097];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EIO))
			return 0;
		if (n < 0)
			return cr_fail_sys(e, "read");
		if (n == 0)
			return 0;
		if (skip && buf[0] != 0) {
			*status |= buf[0];
			continue;
		}
		if (qb_add(b, buf + skip, (size_t)n - (size_t)skip))
			return cr_fail_errno(e, ENOMEM, "out of memory");
	}
}

/* Does a canonical read of n bytes ending with c end with its terminator (else VEOF ended it)? */
static bool ends_line(const struct termios *t, size_t n, uint8_t c)
{
	return n && (c == '\n' || (c && c == t->c_cc[VEOL]) ||
		     (c && c == t->c_cc[VEOL2] && (t->c_lflag & IEXTEN)));
}

/* Canonical mode: the complete lines, one read each, then (ICANON off) the partial line. */
static int take_lines(int s, const struct termios *t, struct tty_queue *q, struct cr_err *e)
{
	uint8_t buf[4096];
	while (q->nr_lines < MAX_LINES) {
		ssize_t n = read(s, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return cr_fail_sys(e, "read a line");
		if ((!ends_line(t, (size_t)n, n ? buf[n - 1] : 0) &&
		     add_u32(&q->eof, &q->nr_eof, (uint32_t)q->nr_lines)) ||
		    add_u32(&q->lines, &q->nr_lines, (uint32_t)n) || qb_add(&q->in, buf, (size_t)n))
			return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	struct termios raw = *t;
	raw.c_lflag &= ~(tcflag_t)ICANON;
	raw.c_cc[VMIN] = 1, raw.c_cc[VTIME] = 0;
	if (tcsetattr(s, TCSANOW, &raw))
		return cr_fail_sys(e, "tcsetattr (ICANON off)");
	int r = drain(s, &q->in, 0, NULL, e);
	if (tcsetattr(s, TCSANOW, t) && !r) /* the buffer is empty: ICANON on again changes nothing */
		r = cr_fail_sys(e, "tcsetattr (ICANON on)");
	return r;
}

int tty_queue_take(int master, int slave, const struct termios *t, bool input, bool packet,
		   struct tty_queue *q, struct cr_err *e)
{
	int status = 0;
	q->in_taken = input;
	if (input && ((t->c_lflag & ICANON) ? take_lines(slave, t, q, e) : drain(slave, &q->in, 0, NULL, e)))
		return cr_wrap(e, "the slave's input");
	q->out_taken = true;
	if (drain(master, &q->out, packet, &status, e))
		return cr_wrap(e, "the master's input");
	q->status = (uint8_t)status;
	if (status)
		pr_info("packet mode status %#x read from the master\n", status);
	return 0;
}

static bool used(const struct termios *t, uint8_t c)
{
	return c == '\n' || c == t->c_cc[VEOL] || c == t->c_cc[VEOL2] || c == 0;
}

/* The termios while the queues go back in (see the top of the file). */
static void neutral(const struct termios *t, bool input, struct termios *n)
{
	*n = *t;
	n->c_oflag &= ~(tcflag_t)OPOST;
	if (!input)
		return;
	n->c_iflag = 0;
	n->c_lflag = (t->c_lflag & ICANON) ? (ICANON | IEXTEN) : 0;
	n->c_cc[VMIN] = 1, n->c_cc[VTIME] = 0;
	if (!(t->c_lflag & ICANON))
		return;
	uint8_t pick[3], k = 0;
	for (unsigned c = 1; c < 256 && k < 3; c++)
		if (!used(t, (uint8_t)c))
			pick[k++] = (uint8_t)c;
	n->c_cc[VLNEXT] = pick[0];
	n->c_cc[VEOF] = pick[1];
	n->c_cc[VERASE] = n->c_cc[VKILL] = n->c_cc[VWERASE] = n->c_cc[VREPRINT] = pick[2];
}

static int sti(int s, uint8_t c)
{
	return ioctl(s, TIOCSTI, &c);
}

/* A line (or the partial line: term < 0) of the input into the slave's line discipline. */
static int sti_line(int s, const struct termios *n, const uint8_t *p, size_t len, int term)
{
	bool canon = n->c_lflag & ICANON;
	for (size_t i = 0; i < len; i++)
		if ((canon && sti(s, n->c_cc[VLNEXT])) || sti(s, p[i]))
			return -1;
	return term < 0 ? 0 : sti(s, (uint8_t)term);
}

/* The input, as far as the line discipline holds it; *done: the bytes of in put back. */
static int put_in(int s, const struct termios *n, const struct tty_queue *q, size_t *done)
{
	size_t off = 0, room = N_TTY_ROOM, k = 0;
	bool all = true;
	for (size_t i = 0; i < q->nr_lines && all; i++) {
		size_t len = q->lines[i];
		bool eof = k < q->nr_eof && q->eof[k] == i;
		k += eof;
		all = off + len <= q->in.len && len + eof <= room && (eof || len);
		if (!all)
			break;
		int term = eof ? n->c_cc[VEOF] : q->in.p[off + len - 1];
		if (sti_line(s, n, q->in.p + off, eof ? len : len - 1, term))
			return -1;
		off += len, room -= len + eof;
		*done = off;
	}
	size_t rest = q->in.len - off; /* raw: as much as the buffer holds (the rest waits behind it) */
	if (!all || (rest > room && (n->c_lflag & ICANON)))
		return 0;
	rest = rest < room ? rest : room;
	if (sti_line(s, n, q->in.p + off, rest, -1))
		return -1;
	*done = off + rest;
	return 0;
}

static int write_loop(int fd, const uint8_t *p, size_t len, struct cr_err *e)
{
	for (int tries = 0; len;) {
		ssize_t w = write(fd, p, len < PUT_CHUNK ? len : PUT_CHUNK);
		if (w > 0) {
			p += w, len -= (size_t)w, tries = 0;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return cr_fail_sys(e, "write");
		struct pollfd pf = {.fd = fd, .events = POLLOUT};
		if (++tries > WRITE_TRIES || poll(&pf, 1, 100) < 0)
			return cr_fail_errno(e, EAGAIN, "write: %zu bytes found no room", len);
	}
	return 0;
}

/* All of p written to fd, nonblocking for the time (a queue that found no room fails, it does not hang). */
static int write_all(int fd, const uint8_t *p, size_t len, struct cr_err *e)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK)))
		return cr_fail_sys(e, "set O_NONBLOCK");
	int r = write_loop(fd, p, len, e);
	if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl) && !r)
		r = cr_fail_sys(e, "restore the file flags");
	return r;
}

/* Until the line discipline of the pty's side fd counts n bytes (put back, on their way), bounded. */
static bool wait_inq(int fd, size_t n)
{
	for (int i = 0; i < 200; i++) {
		int v = 0;
		if (!ioctl(fd, FIONREAD, &v) && (size_t)v >= n)
			return true;
		usleep(5000);
	}
	return false;
}

/* What goes beyond the other side's line discipline (full) into the flip buffer: its last buffer, empty, is
 * freed by a kworker once another follows; the first block goes alone, and a moment is left for that (freed
 * later, it would keep the last block out: see PUT_CHUNK). len > 0. */
static int write_rest(int fd, const uint8_t *p, size_t len, struct cr_err *e)
{
	size_t one = len < PUT_CHUNK ? len : PUT_CHUNK;
	if (write_all(fd, p, one, e))
		return -1;
	usleep(20000);
	return write_all(fd, p + one, len - one, e);
}

/* b written to fd, whose other side is other: what the other side's line discipline holds goes there first
 * (TIOCSTI on the other side, which its raw termios leaves as it is: a master's is always raw; not capable: a
 * write, then a wait until a kworker moved it there), then the rest, which waits in the flip buffer. So a
 * full queue fits back: written at once, the flip buffer would still hold the bytes the line discipline
 * takes when it finds no room for the last (write_rest). All but the rest, which wakes no reader, is there
 * before the dump sets O_ASYNC again (dump-tty.c). */
/* TIOCSTI of n bytes into fd; *done: how many went in (not capable: -1). */
static int sti_bytes(int fd, const uint8_t *p, size_t n, size_t *done)
{
	for (*done = 0; *done < n; ++*done)
		if (ioctl(fd, TIOCSTI, p + *done))
			return -1;
	return 0;
}

static int write_staged(int fd, int other, const struct tty_qbuf *b, struct cr_err *e)
{
	size_t first = b->len < N_TTY_ROOM ? b->len : N_TTY_ROOM, done;
	if (sti_bytes(other, b->p, first, &done)) {
		if (write_all(fd, b->p + done, first - done, e))
			return -1;
		if (!wait_inq(other, first))
			pr_warn(
			    "the first %zu bytes put back did not reach the other side's line discipline\n",
			    first);
	}
	return b->len > first ? write_rest(fd, b->p + first, b->len - first, e) : 0;
}

bool tty_writable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

/* The other side holds less than the line discipline's buffer: its flip buffer has room. */
static bool flip_room(int other)
{
	int n = 0;
	return !ioctl(other, FIONREAD, &n) && n < N_TTY_ROOM;
}

void tty_flow_read(int master, int slave, struct tty_flow *f)
{
	struct termios t;
	*f = (struct tty_flow){0};
	if (!tty_writable(slave) && flip_room(master)) {
		if (!tcgetattr(slave, &t) && !(t.c_iflag & IXON)) {
			f->slave = TTY_FLOW_TCOOFF; /* (IXON off starts a VSTOP stop: no probe) */
		} else if (ioctl(slave, TCXONC, TCOON) || !tty_writable(slave)) {
			f->slave = TTY_FLOW_STOP_CHAR;
		} else {
			f->slave = TTY_FLOW_TCOOFF;
			if (ioctl(slave, TCXONC,
				  TCOOFF)) /* not expected: then it runs, and the dump says so */
				pr_warn("TCOOFF on the slave: %s\n", strerror(errno));
		}
	}
	f->master = !tty_writable(master) && flip_room(slave);
	if (f->slave || f->master)
		pr_info("output stopped: slave %s, master %s\n",
			f->slave == TTY_FLOW_TCOOFF	 ? "by TCOOFF"
			: f->slave == TTY_FLOW_STOP_CHAR ? "by VSTOP"
							 : "no",
			f->master ? "by TCOOFF" : "no");
}

/* Until fd stops polling writable (an input char on its way through the flip buffer), bounded. */
static bool wait_stopped(int fd)
{
	for (int i = 0; i < 200; i++) {
		if (!tty_writable(fd))
			return true;
		usleep(10000);
	}
	return false;
}

int tty_flow_stop(int master, int slave, const struct termios *t, const struct tty_flow *f, struct cr_err *e)
{
	if (f->slave == TTY_FLOW_TCOOFF || (f->slave == TTY_FLOW_STOP_CHAR && !(t->c_iflag & IXON))) {
		if (ioctl(slave, TCXONC, TCOOFF))
			return cr_fail_sys(e, "stop the slave's output (TCOOFF)");
	} else if (f->slave == TTY_FLOW_STOP_CHAR) {
		uint8_t c = t->c_cc[VSTOP];
		if (sti(slave, c) && (write(master, &c, 1) != 1 || !wait_stopped(slave)))
			return cr_fail_sys(e, "stop the slave's output (its VSTOP char)");
	}
	if (f->master && ioctl(master, TCXONC, TCOOFF))
		return cr_fail_sys(e, "stop the master's output (TCOOFF)");
	return 0;
}

/* A pair stopped as f says runs (VSTOP: TCOOFF makes it a TCOOFF stop, which TCOON starts). */
static int flow_start(int master, int slave, const struct tty_flow *f, struct cr_err *e)
{
	if ((f->slave == TTY_FLOW_STOP_CHAR && ioctl(slave, TCXONC, TCOOFF)) ||
	    (f->slave && ioctl(slave, TCXONC, TCOON)))
		return cr_fail_sys(e, "start the slave's output for the time");
	if (f->master && ioctl(master, TCXONC, TCOON))
		return cr_fail_sys(e, "start the master's output for the time");
	return 0;
}

/* The held echoes back, behind a TCOOFF stop (for a VSTOP stop too: its IXON off would start it; the caller
 * starts it then): each byte typed with ECHO alone (an ONLCR "\r\n" as '\n') and read back. */
static int put_echo(int slave, const struct termios *t, const struct termios *n, const struct tty_qbuf *echo,
		    struct cr_err *e)
{
	struct termios x = *n;
	size_t typed = 0;
	bool onlcr = (t->c_oflag & OPOST) && (t->c_oflag & ONLCR);
	x.c_iflag = 0, x.c_lflag = ECHO;
	x.c_cc[VMIN] = 1, x.c_cc[VTIME] = 0;
	if (ioctl(slave, TCXONC, TCOOFF) || tcsetattr(slave, TCSANOW, &x))
		return cr_fail_sys(e, "stop the slave, termios (echo)");
	for (size_t i = 0; i < echo->len; i++) {
		if (onlcr && echo->p[i] == '\r' && i + 1 < echo->len && echo->p[i + 1] == '\n')
			continue;
		if (sti(slave, echo->p[i]))
			return cr_fail_sys(e, "TIOCSTI into the slave (echo)");
		typed++;
	}
	uint8_t buf[4096];
	size_t got = 0; /* (the slave may block: the restore's open) */
	struct pollfd pf = {.fd = slave, .events = POLLIN};
	while (got < typed && poll(&pf, 1, 1000) == 1) {
		ssize_t k = read(slave, buf, typed - got < sizeof(buf) ? typed - got : sizeof(buf));
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (got != typed)
		return cr_fail_errno(e, EIO, "%zu bytes typed for the echoes, %zu read back", typed, got);
	return tcsetattr(slave, TCSANOW, n) ? cr_fail_sys(e, "tcsetattr (neutral)") : 0;
}

int tty_queue_put(int master, int slave, const struct termios *t, const struct tty_queue *q,
		  const struct tty_flow *fl, struct cr_err *e)
{
	struct termios n;
	size_t done = 0;
	int r = 0;
	bool in = q->in_taken && (q->in.len || q->nr_lines), echo = fl && fl->slave && q->echo.len;
	if (!in && !q->out.len && !echo)
		return 0;
	if (fl && flow_start(master, slave, fl, e))
		return -1;
	neutral(t, in, &n);
	if (tcsetattr(slave, TCSANOW, &n))
		return cr_fail_sys(e, "tcsetattr (neutral)");
	if (q->out.len && write_staged(slave, master, &q->out, e))
		r = cr_wrap(e, "the master's input back through the slave");
	if (!r && echo && put_echo(slave, t, &n, &q->echo, e))
		r = cr_wrap(e, "held echoes");
	if (!r && in && put_in(slave, &n, q, &done)) {
		if (done || (errno != EPERM && errno != EIO))
			r = cr_fail_sys(e, "TIOCSTI into the slave");
		else /* not capable in the initial user namespace: the slower way below */
			pr_warn("TIOCSTI refused (%s)\n", strerror(errno));
	}
	if (tcsetattr(slave, TCSANOW, t) && !r)
		r = cr_fail_sys(e, "tcsetattr (back)");
	if (!r && in && done < q->in.len) {
		pr_warn(
		    "%zu bytes of input go back through the master (beyond the line discipline's buffer, or "
		    "TIOCSTI refused): processed by the line discipline again\n",
		    q->in.len - done);
		r = write_rest(master, q->in.p + done, q->in.len - done, e);
	}
	struct cr_err e2 = {0}; /* (a first error stays the one said) */
	if (echo && fl->slave == TTY_FLOW_STOP_CHAR && ioctl(slave, TCXONC, TCOON) && !r) /* (put_echo's) */
		r = cr_fail_sys(e, "start the slave's output (TCOON)");
	if (fl && tty_flow_stop(master, slave, t, fl, r ? &e2 : e) && !r)
		r = -1;
	return r;
}

bool tty_echo_exact(const struct termios *t)
{
	return !(t->c_oflag & OPOST) ||
	       (!(t->c_oflag & (OCRNL | ONOCR | ONLRET)) && (t->c_oflag & TABDLY) != XTABS);
}

int tty_echo_take(int master, int slave, bool packet, const struct tty_flow *fl, struct tty_queue *q,
		  struct cr_err *e)
{
	struct tty_flow sf = {.slave = fl->slave};
	struct termios t;
	int status = 0;
	if (fl->slave && flow_start(master, slave, &sf, e))
		return -1;
	if (write(slave, "", 0) < 0) /* n_tty_write sends the held echoes first */
		return cr_fail_sys(e, "write nothing to the slave");
	int r = drain(master, fl->slave ? &q->echo : &q->out, packet, &status, e);
	struct cr_err e2 = {0};
	if (fl->slave && (tcgetattr(slave, &t) || tty_flow_stop(master, slave, &t, &sf, r ? &e2 : e)) && !r)
		r = cr_fail_sys(e, "stop the slave again");
	if (!r && q->echo.len)
		pr_info("%zu bytes of echoes held back by the stopped slave\n", q->echo.len);
	return r;
}

static bool xon_xoff(const struct termios *t)
{
	return (t->c_iflag & IXON) && t->c_cc[VSTOP] == 023 && t->c_cc[VSTART] == 021;
}

/* TIOCPKT_DOSTOP / TIOCPKT_NOSTOP: a termios whose ^S/^Q flow control differs from t's, then t. */
static int status_flow(int slave, const struct termios *t, uint8_t want, uint8_t *lost, struct cr_err *e)
{
	struct termios o = *t;
	bool on = xon_xoff(t);
	if ((t->c_lflag & EXTPROC) || ((want & TIOCPKT_DOSTOP) && !on) || ((want & TIOCPKT_NOSTOP) && on)) {
		*lost |= want & (TIOCPKT_DOSTOP | TIOCPKT_NOSTOP); /* (EXTPROC: would add TIOCPKT_IOCTL) */
		return 0;
	}
	if (on) {
		o.c_cc[VSTART] = 0;
	} else {
		o.c_iflag |= IXON;
		o.c_cc[VSTOP] = 023, o.c_cc[VSTART] = 021;
	}
	if (tcsetattr(slave, TCSANOW, &o) || tcsetattr(slave, TCSANOW, t))
		return cr_fail_sys(e, "tcsetattr (a flow control status)");
	return 0;
}

/* TIOCPKT_FLUSHREAD and _FLUSHWRITE: a flush of the slave's input (empty) and of the output on its way to the
 * master (none: all of it is in the master's line discipline). */
static int status_flush(int master, int slave, bool in_empty, size_t out_len, uint8_t want, uint8_t *lost,
			struct cr_err *e)
{
	if ((want & TIOCPKT_FLUSHREAD) && !in_empty)
		*lost |= TIOCPKT_FLUSHREAD;
	else if ((want & TIOCPKT_FLUSHREAD) && tcflush(slave, TCIFLUSH))
		return cr_fail_sys(e, "tcflush(TCIFLUSH)");
	if ((want & TIOCPKT_FLUSHWRITE) && (out_len > N_TTY_ROOM || !wait_inq(master, out_len)))
		*lost |= TIOCPKT_FLUSHWRITE;
	else if ((want & TIOCPKT_FLUSHWRITE) && tcflush(slave, TCOFLUSH))
		return cr_fail_sys(e, "tcflush(TCOFLUSH)");
	return 0;
}

int tty_pkt_status_put(int master, int slave, const struct termios *t, bool in_empty, size_t out_len,
		       const struct tty_flow *fl, uint8_t want, uint8_t *lost, struct cr_err *e)
{
	int zero = 0, one = 1;
	struct tty_flow sf = {.slave = fl->slave};
	*lost = 0;
	if (ioctl(master, TIOCPKT, &zero) || ioctl(master, TIOCPKT, &one)) /* none pending */
		return cr_fail_sys(e, "TIOCPKT");
	if ((want & TIOCPKT_START) && !fl->slave &&
	    (ioctl(slave, TCXONC, TCOOFF) || ioctl(slave, TCXONC, TCOON)))
		return cr_fail_sys(e, "stop and start the slave's output (TIOCPKT_START)");
	if (status_flush(master, slave, in_empty, out_len, want, lost, e) ||
	    ((want & (TIOCPKT_DOSTOP | TIOCPKT_NOSTOP)) && status_flow(slave, t, want, lost, e)))
		return -1;
	if ((want & TIOCPKT_IOCTL) && !(t->c_lflag & EXTPROC))
		*lost |= TIOCPKT_IOCTL;
	else if ((want & TIOCPKT_IOCTL) && tcsetattr(slave, TCSANOW, t))
		return cr_fail_sys(e, "tcsetattr (TIOCPKT_IOCTL)");
	if ((want & TIOCPKT_STOP) && fl->slave &&
	    (flow_start(master, slave, &sf, e) || tty_flow_stop(master, slave, t, &sf, e)))
		return cr_wrap(e, "TIOCPKT_STOP");
	*lost |= want & (fl->slave ? TIOCPKT_START : TIOCPKT_STOP);
	return 0;
}
