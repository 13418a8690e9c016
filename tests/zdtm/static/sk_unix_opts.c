/* Socket options of unix sockets: SO_SNDBUF, SO_RCVBUF, SO_PASSCRED, SO_RCVTIMEO, SO_SNDTIMEO, SO_RCVLOWAT,
 * SO_PEEK_OFF and O_NONBLOCK on a stream pair, SO_PRIORITY, SO_MARK, SO_LINGER, SO_TIMESTAMP(NS),
 * SO_OOBINLINE, SO_KEEPALIVE, SO_PASSRIGHTS (Linux 6.16: 0 refuses SCM_RIGHTS) on it and a dgram socket,
 * which keeps default values otherwise: every value reads back the same after restore (and SO_PASSCRED still
 * delivers credentials). Before, SO_PRIORITY, SO_MARK, SO_LINGER, SO_TIMESTAMP(NS), SO_OOBINLINE and
 * SO_KEEPALIVE came back off, SO_PASSRIGHTS on. */
#include <sys/time.h>
#include "sk_unix.h"

enum { A = 30, B = 31, D = 32 };
static const int fds[] = {A, B, D};
#define NFD 3

struct opts {
	int snd, rcv, cred, lowat, peek, fl;
	struct timeval rto, sto;
	int more[7];
	struct linger lg;
};

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif
static const int more[7] = {SO_PRIORITY,  SO_MARK,	SO_TIMESTAMP, SO_TIMESTAMPNS,
			    SO_OOBINLINE, SO_KEEPALIVE, SO_PASSRIGHTS};

static void get(int fd, struct opts *o)
{
	socklen_t l;
	memset(o, 0, sizeof(*o));
	l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->snd, &l);
	l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcv, &l);
	l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_PASSCRED, &o->cred, &l);
	l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &o->lowat, &l);
	l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &o->peek, &l);
	l = sizeof(o->rto), getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &o->rto, &l);
	l = sizeof(o->sto), getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &o->sto, &l);
	for (int i = 0; i < 7; i++)
		l = sizeof(int), getsockopt(fd, SOL_SOCKET, more[i], &o->more[i], &l);
	l = sizeof(o->lg), getsockopt(fd, SOL_SOCKET, SO_LINGER, &o->lg, &l);
	o->fl = fcntl(fd, F_GETFL);
}

int main(int argc, char **argv)
{
	struct opts before[NFD], after;
	struct timeval rto = {3, 500000}, sto = {1, 250000};
	int v;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), D, 0);
	v = 65536, setsockopt(A, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	v = 300000, setsockopt(B, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	v = 1, setsockopt(B, SOL_SOCKET, SO_PASSCRED, &v, sizeof(v));
	v = 5, setsockopt(A, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v));
	v = 3, setsockopt(B, SOL_SOCKET, SO_PEEK_OFF, &v, sizeof(v));
	setsockopt(A, SOL_SOCKET, SO_RCVTIMEO, &rto, sizeof(rto));
	setsockopt(B, SOL_SOCKET, SO_SNDTIMEO, &sto, sizeof(sto));
	fcntl(A, F_SETFL, O_NONBLOCK);
	struct linger lg = {1, 7};
	v = 6, setsockopt(D, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v));
	v = 4321, setsockopt(D, SOL_SOCKET, SO_MARK, &v, sizeof(v));
	v = 1, setsockopt(D, SOL_SOCKET, SO_TIMESTAMPNS, &v, sizeof(v));
	setsockopt(D, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	v = 1, setsockopt(A, SOL_SOCKET, SO_TIMESTAMP, &v, sizeof(v));
	v = 1, setsockopt(A, SOL_SOCKET, SO_OOBINLINE, &v, sizeof(v));
	v = 1, setsockopt(B, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof(v));
	v = 2, setsockopt(B, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v));
	v = 0, setsockopt(D, SOL_SOCKET, SO_PASSRIGHTS, &v, sizeof(v)); /* fails before Linux 6.16 */
	if (sk_send(A, "0123456789", 10))
		fail("send");
	for (int i = 0; i < NFD; i++)
		get(fds[i], &before[i]);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NFD; i++) {
		get(fds[i], &after);
		struct opts *b = &before[i];
		if (after.snd != b->snd || after.rcv != b->rcv)
			fail("fd %d: SO_SNDBUF/SO_RCVBUF %d/%d, want %d/%d", fds[i], after.snd, after.rcv,
			     b->snd, b->rcv);
		if (after.cred != b->cred || after.lowat != b->lowat || after.peek != b->peek)
			fail("fd %d: PASSCRED %d RCVLOWAT %d PEEK_OFF %d, want %d %d %d", fds[i], after.cred,
			     after.lowat, after.peek, b->cred, b->lowat, b->peek);
		if (memcmp(&after.rto, &b->rto, sizeof(b->rto)) ||
		    memcmp(&after.sto, &b->sto, sizeof(b->sto)))
			fail("fd %d: SO_RCVTIMEO/SO_SNDTIMEO changed", fds[i]);
		for (int k = 0; k < 7; k++)
			if (after.more[k] != b->more[k])
				fail("fd %d: option %d is %d, want %d", fds[i], more[k], after.more[k],
				     b->more[k]);
		if (after.lg.l_onoff != b->lg.l_onoff || after.lg.l_linger != b->lg.l_linger)
			fail("fd %d: SO_LINGER %d %d, want %d %d", fds[i], after.lg.l_onoff,
			     after.lg.l_linger, b->lg.l_onoff, b->lg.l_linger);
		if (after.fl != b->fl)
			fail("fd %d: flags %#x, want %#x", fds[i], after.fl, b->fl);
	}
	/* the peek offset (3) still applies: a peek returns the bytes from offset 3 */
	char buf[16] = {0};
	if (recv(B, buf, 4, MSG_PEEK) != 4 || memcmp(buf, "3456", 4))
		fail("SO_PEEK_OFF 3: peeked '%.4s'", buf);
	v = -1, setsockopt(B, SOL_SOCKET, SO_PEEK_OFF, &v, sizeof(v));
	if (sk_expect(B, "0123456789", 10))
		fail("queued data");
	union {
		char b[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};
	if (sk_send(A, "c", 1) || recvmsg(B, &mh, 0) != 1 || !CMSG_FIRSTHDR(&mh) ||
	    CMSG_FIRSTHDR(&mh)->cmsg_type != SCM_CREDENTIALS)
		fail("SO_PASSCRED: no credentials with a message");
	else if (((struct ucred *)CMSG_DATA(CMSG_FIRSTHDR(&mh)))->pid != getpid())
		fail("SO_PASSCRED: credentials of pid %d",
		     ((struct ucred *)CMSG_DATA(CMSG_FIRSTHDR(&mh)))->pid);
	return test_pass();
}
