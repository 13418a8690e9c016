/* Full TCP buffers both ways across --tcp-established, in the lockstep of CRIU's zdtm socket-tcpbuf: the
 * test and a peer outside the tree (test_outside) share a data connection, whose buffers the test set large
 * (SO_RCVBUF, SO_SNDBUF: locked), and a control one. Each turn the test reads half of what the peer wrote and
 * it has not read yet, says on the control connection how much it wrote, and waits while the peer fills the
 * test's receive buffer with 17-byte writes (until they block), reads half of what the test wrote (the test's
 * send queue must flow meanwhile) and answers how much it wrote; then the test fills the peer's buffers
 * (4 KiB writes: the turns spend their time in the peer's). The dump mostly comes while the peer fills, the
 * test waiting on the control connection. After it every byte written arrives, in order, at both ends, and
 * no turn waits for ever (a 20 s read timeout). Without the restore's room in the receive buffer
 * (tcp-repair.c saved_bufs) the restored socket could run out of memory for data inside the window it had
 * offered, closed that window under the peer's segments and then dropped them as out of window with the acks
 * they carried (kernel 6.17+), so it never learned that the peer's window had opened: its data waited, the
 * peer waited for it, the test for the peer. SO_RCVBUF reads at least what the test set. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BUF (4 << 20)  /* SO_RCVBUF, SO_SNDBUF asked (FORCE): the kernel doubles it */
#define PIECE 17       /* the peer's writes */
#define OUR_PIECE 4096 /* ours: the turns spend their time in the peer's (see main) */
#define PRE 3	       /* turns before the dump may come */

struct side {
	int fd, ctl;
	uint64_t wrote, got, owed; /* owed: written by the other side, not read yet */
};

static int full_write(int fd, const void *b, size_t n)
{
	return write(fd, b, n) == (ssize_t)n ? 0 : -1;
}

static int full_read(int fd, void *b, size_t n)
{
	for (size_t d = 0; d < n;) {
		ssize_t r = read(fd, (char *)b + d, n - d);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		d += (size_t)r;
	}
	return 0;
}

/* Write pattern bytes piece at a time until the connection takes no more; the count. */
static int64_t fill(struct side *s, int piece)
{
	uint8_t p[OUR_PIECE];
	uint64_t start = s->wrote;
	fcntl(s->fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		for (int i = 0; i < piece; i++)
			p[i] = sockpeer_pat(s->wrote + (uint64_t)i);
		ssize_t w = write(s->fd, p, (size_t)piece);
		if (w < 0 && errno == EAGAIN)
			break;
		if (w <= 0)
			return -1;
		s->wrote += (uint64_t)w;
	}
	fcntl(s->fd, F_SETFL, 0);
	return (int64_t)(s->wrote - start);
}

/* Read n of the other side's bytes (0: to EOF), checking them; -1 on an error or a wrong byte. */
static int drain(struct side *s, uint64_t n)
{
	static uint8_t b[4096];
	for (uint64_t done = 0; !n || done < n;) {
		size_t want = n && n - done < sizeof(b) ? (size_t)(n - done) : sizeof(b);
		ssize_t r = read(s->fd, b, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && !n)
			return 0;
		if (r <= 0 || sockpeer_bad(b, (size_t)r, s->got) >= 0)
			return -1;
		s->got += (uint64_t)r, done += (uint64_t)r;
		s->owed = s->owed >= (uint64_t)r ? s->owed - (uint64_t)r : 0;
	}
	return 0;
}

/* One turn: fill, tell the count (-1: the end), learn the other's, read half of what is owed. */
static int turn(struct side *s, int64_t mine, int64_t *theirs)
{
	if (full_write(s->ctl, &mine, sizeof(mine)) || full_read(s->ctl, theirs, sizeof(*theirs)))
		return -1;
	if (*theirs > 0)
		s->owed += (uint64_t)*theirs;
	return 0;
}

static void peer(int lfd)
{
	struct side s = {-1, -1, 0, 0, 0};
	int64_t mine, theirs = 0;
	s.fd = accept(lfd, NULL, NULL);
	s.ctl = accept(lfd, NULL, NULL);
	close(lfd);
	if (s.fd < 0 || s.ctl < 0)
		_exit(2);
	/* each turn: fill the test's receive buffer while it waits, then read half of what it wrote (its
	 * send queue must flow to us meanwhile), then tell it how much we wrote */
	for (;;) {
		if (full_read(s.ctl, &theirs, sizeof(theirs)))
			_exit(3);
		if (theirs < 0)
			break;
		s.owed += (uint64_t)theirs;
		if ((mine = fill(&s, PIECE)) < 0 || (s.owed > 1 && drain(&s, s.owed / 2)) ||
		    full_write(s.ctl, &mine, sizeof(mine)))
			_exit(4);
	}
	/* the end: all of the test's bytes, then the totals */
	if (shutdown(s.fd, SHUT_WR) || drain(&s, 0))
		_exit(5);
	uint64_t tot[2] = {s.wrote, s.got};
	full_write(s.ctl, tot, sizeof(tot));
	_exit(0);
}

int main(int argc, char **argv)
{
	struct side s = {-1, -1, 0, 0, 0};
	struct timeval tv = {20, 0}; /* under the runner's 30 s after SIGTERM */
	int port, big = BUF;
	int64_t mine, theirs;

	test_init(argc, argv);
	int lfd = lo_listen(AF_INET, &port);
	if (lfd < 0)
		fail("listen");
	int r = sockpeer_outside(lfd);
	if (r == 0)
		peer(lfd);
	close(lfd);
	if (r < 0)
		fail("start the peer");
	s.fd = sockpeer_connect(AF_INET, port);
	s.ctl = sockpeer_connect(AF_INET, port);
	if (s.fd < 0 || s.ctl < 0)
		fail("connect to the peer");
	if (setsockopt(s.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) ||
	    setsockopt(s.fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) ||
	    setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(s.ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("setsockopt");
	int rb0 = sk_getint(s.fd, SOL_SOCKET, SO_RCVBUF);
	if ((mine = fill(&s, OUR_PIECE)) < 0)
		fail("first fill");

	/* each turn: read half of what the peer wrote, tell it how much we wrote, wait while it fills our
	 * receive buffer and reads from us, learn how much it wrote, fill again */
	int turns = 0;
	while (turns < PRE || test_go()) {
		if (turns == PRE)
			test_daemon();
		if (s.owed > 1 && drain(&s, s.owed / 2))
			fail("turn %d: read %llu bytes (of %llu owed) at %llu", turns,
			     (unsigned long long)(s.owed / 2), (unsigned long long)s.owed,
			     (unsigned long long)s.got);
		if (turn(&s, mine, &theirs))
			fail("turn %d: the peer did not answer", turns);
		if ((mine = fill(&s, OUR_PIECE)) < 0)
			fail("turn %d: fill", turns);
		turns++;
	}

	int rb1 = sk_getint(s.fd, SOL_SOCKET, SO_RCVBUF);
	if (rb1 < rb0)
		fail("SO_RCVBUF %d, was %d", rb1, rb0);
	mine = -1;
	if (full_write(s.ctl, &mine, sizeof(mine)) || shutdown(s.fd, SHUT_WR) || drain(&s, 0))
		fail("the end: read the peer's bytes (%llu so far, %llu owed)", (unsigned long long)s.got,
		     (unsigned long long)s.owed);
	uint64_t tot[2];
	if (full_read(s.ctl, tot, sizeof(tot)))
		fail("the peer's totals");
	test_msg("%d turns; SO_RCVBUF %d, then %d; wrote %llu, read %llu; the peer wrote %llu, read %llu\n",
		 turns, rb0, rb1, (unsigned long long)s.wrote, (unsigned long long)s.got,
		 (unsigned long long)tot[0], (unsigned long long)tot[1]);
	if (tot[0] != s.got || tot[1] != s.wrote)
		fail("bytes lost");
	pass();
	return 0;
}
