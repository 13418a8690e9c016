/* `crshim check --feature tcp_half_closed`: a half-closed TCP connection survives a dump and restore. On
 * loopback: a connection whose peer sent "ok" and its FIN (CLOSE_WAIT) is read in repair mode (tcp-repair.c,
 * no network lock), closed silently, made again on a new socket in repair mode (the peer's FIN sent again,
 * tcp-fin.c); the new socket must be in CLOSE_WAIT, read "ok" then the end of the stream, and what it writes
 * must reach the peer. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "net/sk-inet.h"

struct half {
	int lfd, cli, srv, nsk;
	struct sockaddr_in me, peer;
	uint32_t me_a, peer_a;
	InetSkEntry ie;
};

static int state_of(int sk)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	return getsockopt(sk, IPPROTO_TCP, TCP_INFO, &ti, &l) ? -1 : ti.tcpi_state;
}

static bool wait_state(int sk, int want)
{
	struct timespec ts = {0, 1000000};
	for (int i = 0; i < 2000 && state_of(sk) != want; i++)
		nanosleep(&ts, NULL);
	return state_of(sk) == want;
}

/* A loopback connection cli -> srv; srv sends "ok" and shuts down writing: cli in CLOSE_WAIT. */
static int half_setup(struct half *h, char *d, size_t len)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	h->cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (h->lfd < 0 || h->cli < 0 || bind(h->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(h->lfd, 1) ||
	    getsockname(h->lfd, (struct sockaddr *)&a, &l) ||
	    connect(h->cli, (struct sockaddr *)&a, sizeof(a)))
		return snprintf(d, len, "loopback connection: %s", strerror(errno)), -1;
	h->srv = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (h->srv < 0 || send(h->srv, "ok", 2, MSG_NOSIGNAL) != 2 || shutdown(h->srv, SHUT_WR))
		return snprintf(d, len, "loopback connection: %s", strerror(errno)), -1;
	if (!wait_state(h->cli, TCP_CLOSE_WAIT))
		return snprintf(d, len, "no CLOSE_WAIT (state %d)", state_of(h->cli)), -1;
	l = sizeof(h->me);
	if (getsockname(h->cli, (struct sockaddr *)&h->me, &l))
		return snprintf(d, len, "getsockname: %s", strerror(errno)), -1;
	l = sizeof(h->peer);
	if (getpeername(h->cli, (struct sockaddr *)&h->peer, &l))
		return snprintf(d, len, "getpeername: %s", strerror(errno)), -1;
	inet_sk_entry__init(&h->ie);
	h->me_a = h->me.sin_addr.s_addr, h->peer_a = h->peer.sin_addr.s_addr;
	h->ie.family = AF_INET, h->ie.protocol = IPPROTO_TCP, h->ie.state = TCP_CLOSE_WAIT;
	h->ie.src_addr.data = (uint8_t *)&h->me_a, h->ie.src_addr.len = 4, h->ie.has_src_addr = 1;
	h->ie.dst_addr.data = (uint8_t *)&h->peer_a, h->ie.dst_addr.len = 4, h->ie.has_dst_addr = 1;
	h->ie.src_port = ntohs(h->me.sin_port), h->ie.dst_port = ntohs(h->peer.sin_port);
	return 0;
}

/* Dump cli in repair mode, close it silently, restore it on nsk. */
static int half_cr(struct half *h, char *d, size_t len)
{
	struct cr_opts o;
	struct cr_err e = {0};
	eng_opts_init(&o);
	o.network_lock = "skip";
	if (tcp_repair_dump(&o, h->cli, &h->ie, &h->ie.tcp, &e))
		return snprintf(d, len, "dump in repair mode: %s", e.msg), -1;
	close(h->cli); /* in repair mode: no FIN, no RST */
	h->cli = -1;
	int on = 1;
	h->nsk = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (h->nsk < 0 || setsockopt(h->nsk, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
		return snprintf(d, len, "new socket in repair mode: %s", strerror(errno)), -1;
	char msg[256] = "";
	if (tcp_repair_restore(h->nsk, &h->ie, (struct sockaddr *)&h->me, sizeof(h->me),
			       (struct sockaddr *)&h->peer, sizeof(h->peer), msg, sizeof(msg)))
		return snprintf(d, len, "restore: %s", msg), -1;
	return 0;
}

/* The restored socket: CLOSE_WAIT, "ok" then EOF, and it still writes to the peer. */
static int half_verify(struct half *h, char *d, size_t len)
{
	char buf[8];
	struct timeval tv = {2, 0};
	setsockopt(h->nsk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(h->srv, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (state_of(h->nsk) != TCP_CLOSE_WAIT)
		return snprintf(d, len, "restored in state %d, not CLOSE_WAIT", state_of(h->nsk)), -1;
	if (recv(h->nsk, buf, sizeof(buf), 0) != 2 || memcmp(buf, "ok", 2) || recv(h->nsk, buf, 1, 0) != 0)
		return snprintf(d, len, "the restored socket does not read the data, then EOF"), -1;
	if (send(h->nsk, "x", 1, MSG_NOSIGNAL) != 1 || recv(h->srv, buf, 1, 0) != 1 || buf[0] != 'x')
		return snprintf(d, len, "the restored socket does not write to its peer"), -1;
	return 0;
}

int tcp_half_closed_probe(char *d, size_t len)
{
	struct half h = {.lfd = -1, .cli = -1, .srv = -1, .nsk = -1};
	int r = half_setup(&h, d, len) || half_cr(&h, d, len) || half_verify(&h, d, len) ? 0 : 1;
	if (r)
		snprintf(d, len,
			 "a CLOSE_WAIT connection restored in repair mode (the peer's FIN sent again)");
	tcp_stream_free(h.ie.tcp);
	int fds[] = {h.lfd, h.cli, h.srv, h.nsk};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}
