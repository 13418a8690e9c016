/* SO_BUF_LOCK (Linux 5.14), as CRIU's sock_opts02 sets it: TCP and UDP sockets with the send, the receive or
 * both buffer sizes locked by SO_BUF_LOCK itself, or by SO_SNDBUF / SO_RCVBUF, and one with a size set and
 * its lock taken off again; two netlink and two unix sockets, one locked, one with a size set and no lock; an
 * established pair with data queued both ways and no lock (the restore grows its buffers to put the queues
 * back, which locks them). After restore each socket reads back the same locks (and buffer sizes, but the
 * pair's, which the kernel tunes as they are used). */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK 72
#endif

#define LEN 40000

struct sk {
	int dom, type, opt, val;
	int fd, lock, snd, rcv;
};

#define SK(t, o, v)                                                                                          \
	{                                                                                                    \
		.dom = AF_INET, .type = t, .opt = o, .val = v                                                \
	}
#define UX(o, v)                                                                                             \
	{                                                                                                    \
		.dom = AF_UNIX, .type = SOCK_DGRAM, .opt = o, .val = v                                       \
	}
#define NL(o, v)                                                                                             \
	{                                                                                                    \
		.dom = AF_NETLINK, .type = SOCK_RAW, .opt = o, .val = v                                      \
	}
static struct sk sks[] = {
    SK(SOCK_STREAM, SO_BUF_LOCK, 1),
    SK(SOCK_STREAM, SO_BUF_LOCK, 2),
    SK(SOCK_STREAM, SO_BUF_LOCK, 3),
    SK(SOCK_STREAM, SO_SNDBUF, 16384),
    SK(SOCK_STREAM, SO_RCVBUF, 16384),
    SK(SOCK_DGRAM, SO_BUF_LOCK, 3),
    SK(SOCK_DGRAM, SO_RCVBUF, 32768),
    SK(SOCK_STREAM, -1, 0), /* a size set, the lock then taken off */
    NL(SO_BUF_LOCK, 3),
    NL(-1, 0), /* netlink sockets */
    UX(SO_BUF_LOCK, 2),
    UX(-1, 0), /* unix sockets */
    SK(SOCK_STREAM, 0, 0),
    SK(SOCK_STREAM, 0, 0), /* the established pair */
};

static void take(struct sk *s)
{
	s->lock = sk_getint(s->fd, SOL_SOCKET, SO_BUF_LOCK);
	s->snd = sk_getint(s->fd, SOL_SOCKET, SO_SNDBUF);
	s->rcv = sk_getint(s->fd, SOL_SOCKET, SO_RCVBUF);
}

int main(int argc, char **argv)
{
	static char a[LEN], buf[LEN];
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(sa);
	size_t n = ARRAY_SIZE(sks);
	int zero = 0, sz = 20000;
	test_init(argc, argv);
	for (size_t i = 0; i < n - 2; i++) {
		struct sk *s = &sks[i];
		s->fd = socket(s->dom, s->type, 0);
		if (s->fd < 0)
			fail("socket");
		if (s->opt > 0 && setsockopt(s->fd, SOL_SOCKET, s->opt, &s->val, sizeof(s->val)))
			fail("setsockopt %d on socket %zu", s->opt, i);
		if (s->opt < 0 && (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) ||
				   setsockopt(s->fd, SOL_SOCKET, SO_BUF_LOCK, &zero, sizeof(zero))))
			fail("SO_SNDBUF then SO_BUF_LOCK 0");
	}
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, l) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &l))
		fail("listener");
	sks[n - 2].fd = socket(AF_INET, SOCK_STREAM, 0);
	if (sks[n - 2].fd < 0 || connect(sks[n - 2].fd, (struct sockaddr *)&sa, sizeof(sa)))
		fail("connect");
	sks[n - 1].fd = accept(lfd, NULL, NULL);
	close(lfd);
	datagen(a, LEN, 3);
	if (sks[n - 1].fd < 0 || write(sks[n - 2].fd, a, LEN) != LEN || write(sks[n - 1].fd, a, LEN) != LEN)
		fail("queue data");
	for (size_t i = 0; i < n; i++)
		take(&sks[i]);
	if (sks[0].lock != 1 || sks[3].lock != 1 || sks[4].lock != 2 || sks[7].lock || sks[8].lock != 3 ||
	    sks[9].lock || sks[10].lock != 2 || sks[11].lock || sks[12].lock)
		fail("SO_BUF_LOCK did not take (%d %d %d %d %d %d %d %d %d)", sks[0].lock, sks[3].lock,
		     sks[4].lock, sks[7].lock, sks[8].lock, sks[9].lock, sks[10].lock, sks[11].lock,
		     sks[12].lock);

	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < n; i++) {
		struct sk *s = &sks[i], now = *s;
		take(&now);
		if (now.lock != s->lock)
			fail("socket %zu: SO_BUF_LOCK %d, was %d", i, now.lock, s->lock);
		if (i < n - 2 && (now.snd != s->snd || now.rcv != s->rcv)) /* the pair's grow with use */
			fail("socket %zu: buffers %d/%d, were %d/%d", i, now.snd, now.rcv, s->snd, s->rcv);
	}
	for (size_t k = n - 2; k < n; k++) {
		size_t got = 0;
		while (got < LEN) {
			ssize_t r = read(sks[k].fd, buf + got, LEN - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got != LEN || memcmp(buf, a, LEN))
			fail("queued data lost on socket %zu", k);
	}
	pass();
	return 0;
}
