/* Datagrams waiting in the receive queues of UDP sockets: one on 127.0.0.1, one on ::1, one IPv6 socket on
 * the wildcard address that takes IPv4 too (v4-mapped senders). The datagrams come from two senders of the
 * test (different ports), per family, and from a sender outside the dumped tree that keeps its port busy;
 * among them an empty one and big ones. The IPv4 socket has SO_PEEK_OFF set past its first datagram.
 * After restore every queue gives the same datagrams in the same order, with the same data and the same
 * sender address and port, and nothing more; the peek offset is the same and a peek sees the second one. */
#include "sk_udp.h"

enum { S4A, S4B, S6A, S6B, OUT4, OUT6, NSEND };

struct step {
	int who;
	size_t len;
};

static const struct step q4[] = {{S4A, 7},     {S4B, 1000}, {OUT4, 20}, {S4A, 0},
				 {S4B, 40000}, {OUT4, 3},   {S4A, 1}};
static const struct step q6[] = {{S6A, 9}, {OUT6, 500}, {S6B, 0}, {S6B, 20000}, {S6A, 2}, {OUT6, 1}};
static const struct step qw[] = {{S4A, 11}, {S6A, 12}, {OUT4, 13}, {S6B, 0}, {S4B, 14}, {OUT6, 15}};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct sockaddr_storage sa[NSEND];
static int sfd[NSEND];
static struct udp_out outs[16];
static size_t nouts;

/* Where a datagram of sender who goes to reach a socket at to (wildcard: loopback of who's family). */
static struct sockaddr_storage dest(int who, const struct sockaddr_storage *to, int wild)
{
	struct sockaddr_storage d = *to;
	if (wild && sa[who].ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&d;
		in_port_t port = ((const struct sockaddr_in6 *)to)->sin6_port;
		memset(&d, 0, sizeof(d));
		s4->sin_family = AF_INET, s4->sin_port = port, s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (wild) {
		((struct sockaddr_in6 *)&d)->sin6_addr = in6addr_loopback;
	}
	return d;
}

static struct sockaddr_storage dests[3][16];

/* Plan the datagrams to the socket at to; the outsider's go into outs. */
static void plan(int q, const struct step *s, size_t n, const struct sockaddr_storage *to, int wild,
		 struct udp_dg *want)
{
	for (size_t i = 0; i < n; i++) {
		dests[q][i] = dest(s[i].who, to, wild);
		want[i].len = s[i].len;
		want[i].seed = (uint64_t)(q * 100 + (int)i + 1);
		want[i].from = wild ? udp_as6(&sa[s[i].who]) : sa[s[i].who];
		if (s[i].who == OUT4 || s[i].who == OUT6)
			outs[nouts++] = (struct udp_out){sfd[s[i].who], &dests[q][i], s[i].len, want[i].seed};
	}
}

static void sendall(int q, const struct step *s, size_t n, const struct udp_dg *want, int go, int ack,
		    unsigned char *k)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i].who == OUT4 || s[i].who == OUT6)
			udp_outsider_send(go, ack, (*k)++);
		else
			udp_send(sfd[s[i].who], &dests[q][i], want[i].len, want[i].seed);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ra4, ra6, raw;
	struct udp_dg w4[N(q4)], w6[N(q6)], ww[N(qw)];
	char buf[2048];
	int ack;
	test_init(argc, argv);
	sfd[OUT4] = udp_bound(AF_INET, "127.0.0.1", &sa[OUT4]);
	sfd[OUT6] = udp_bound(AF_INET6, "::1", &sa[OUT6]);
	int r4 = udp_bound(AF_INET, "127.0.0.1", &ra4), r6 = udp_bound(AF_INET6, "::1", &ra6);
	int rw = udp_bound(AF_INET6, "::", &raw);
	sfd[S4A] = udp_bound(AF_INET, "127.0.0.1", &sa[S4A]);
	sfd[S4B] = udp_bound(AF_INET, "127.0.0.1", &sa[S4B]);
	sfd[S6A] = udp_bound(AF_INET6, "::1", &sa[S6A]);
	sfd[S6B] = udp_bound(AF_INET6, "::1", &sa[S6B]);
	plan(0, q4, N(q4), &ra4, 0, w4);
	plan(1, q6, N(q6), &ra6, 0, w6);
	plan(2, qw, N(qw), &raw, 1, ww);
	int go = udp_outsider(outs, nouts, &ack);
	unsigned char k = 0;
	sendall(0, q4, N(q4), w4, go, ack, &k);
	sendall(1, q6, N(q6), w6, go, ack, &k);
	sendall(2, qw, N(qw), ww, go, ack, &k);
	close(go), close(ack);
	udp_wait(r4), udp_wait(r6), udp_wait(rw);
	int off = 0;
	if (setsockopt(r4, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)) ||
	    recv(r4, buf, sizeof(buf), MSG_PEEK) != (ssize_t)w4[0].len)
		fail("peek at the first datagram");

	test_daemon();
	test_waitsig();

	socklen_t l = sizeof(off);
	if (getsockopt(r4, SOL_SOCKET, SO_PEEK_OFF, &off, &l) || off != (int)w4[0].len)
		fail("SO_PEEK_OFF is %d, not %zu", off, w4[0].len);
	struct sockaddr_storage from;
	l = sizeof(from);
	ssize_t n = recvfrom(r4, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT, (struct sockaddr *)&from, &l);
	if (n != (ssize_t)w4[1].len || datachk(buf, (size_t)n, w4[1].seed, NULL) ||
	    !udp_same(&from, &w4[1].from))
		fail("a peek at offset %d gives %zd bytes from %s, not the second datagram", off, n,
		     udp_str(&from));
	off = -1;
	if (setsockopt(r4, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)))
		fail("SO_PEEK_OFF off");
	udp_check("127.0.0.1", r4, w4, N(w4));
	udp_check("::1", r6, w6, N(w6));
	udp_check("::", rw, ww, N(ww));
	/* let the outsider go */
	udp_send(sfd[S4A], &sa[OUT4], 3, 1);
	pass();
	return 0;
}
