/* Connected UDP sockets (IPv4 and IPv6) with datagrams queued: some came before connect() from other
 * senders (one of the test, one outside the dumped tree), the rest from the peer (one empty). After
 * restore the queue gives them all in order with their data and senders, the socket is still connected to
 * its peer (getpeername), takes a new datagram from the peer and none from another sender. */
#include "sk_udp.h"

struct side {
	const char *name;
	int c, peer, other;
	struct sockaddr_storage ca, pa, oa, xa;
	struct udp_dg want[4];
};

static struct udp_out outs[2];

static void setup(struct side *s, int fam, const char *lo, int k)
{
	s->name = lo;
	s->c = udp_bound(fam, lo, &s->ca);
	s->peer = udp_bound(fam, lo, &s->pa);
	s->other = udp_bound(fam, lo, &s->oa);
	outs[k].fd = udp_bound(fam, lo, &s->xa);
	outs[k].to = &s->ca;
	outs[k].len = 300;
	outs[k].seed = (uint64_t)k * 10 + 2;
	s->want[0] = (struct udp_dg){77, (uint64_t)k * 10 + 1, s->oa};
	s->want[1] = (struct udp_dg){300, outs[k].seed, s->xa};
	s->want[2] = (struct udp_dg){1200, (uint64_t)k * 10 + 3, s->pa};
	s->want[3] = (struct udp_dg){0, (uint64_t)k * 10 + 4, s->pa};
}

static void fill(struct side *s, int go, int ack, unsigned char k)
{
	udp_send(s->other, &s->ca, s->want[0].len, s->want[0].seed);
	udp_outsider_send(go, ack, k);
	udp_wait(s->c);
	if (connect(s->c, (struct sockaddr *)&s->pa, udp_len(&s->pa)))
		fail("%s: connect", s->name);
	udp_send(s->peer, &s->ca, s->want[2].len, s->want[2].seed);
	udp_send(s->peer, &s->ca, s->want[3].len, s->want[3].seed);
	udp_send(s->other, &s->ca, 5, 99); /* not from the peer: dropped */
}

static void check(struct side *s)
{
	struct sockaddr_storage p;
	socklen_t l = sizeof(p);
	char buf[16];
	if (getpeername(s->c, (struct sockaddr *)&p, &l) || !udp_same(&p, &s->pa))
		fail("%s: not connected to its peer any more", s->name);
	udp_check(s->name, s->c, s->want, 4);
	udp_send(s->other, &s->ca, 5, 98);
	udp_send(s->peer, &s->ca, 4, 97);
	udp_wait(s->c);
	ssize_t n = recv(s->c, buf, sizeof(buf), MSG_DONTWAIT);
	if (n != 4 || datachk(buf, 4, 97, NULL))
		fail("%s: after restore: %zd bytes, not the peer's new datagram", s->name, n);
}

int main(int argc, char **argv)
{
	struct side s4, s6;
	int ack;
	test_init(argc, argv);
	setup(&s4, AF_INET, "127.0.0.1", 0);
	setup(&s6, AF_INET6, "::1", 1);
	int go = udp_outsider(outs, 2, &ack);
	fill(&s4, go, ack, 0);
	fill(&s6, go, ack, 1);
	close(go), close(ack);

	test_daemon();
	test_waitsig();

	check(&s4);
	check(&s6);
	udp_send(s4.other, &s4.xa, 3, 1); /* let the outsider go */
	pass();
	return 0;
}
