/* TCP connections whose peer (lib/sockhalf.c, outside the tree, paused before reading) sent its data and its
 * FIN: one in CLOSE_WAIT (part of the peer's data read, some of ours sent), one in LAST_ACK (we shut down
 * writing too, megabytes queued behind a zero window, our FIN after them), one in CLOSING (we shut down
 * first, the same queue, then the peer's FIN came). After restore (--tcp-established) each is in the same
 * state with the same addresses; reading gives the rest of the peer's data, each byte once and in order, then
 * the end of the stream; writing still works in CLOSE_WAIT and fails with EPIPE in the others. Once the peers
 * go on, each gets every byte we sent once and in order and our FIN (its verdict), and the LAST_ACK and
 * CLOSING connections finish closing (state CLOSE). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif
#define NSEND 20000 /* the peer's data: fits in our receive queue */
#define NREAD 1000  /* read before the dump (CLOSE_WAIT) */

enum { CW, LA, CL, N };
static const int want[N] = {TCP_CLOSE_WAIT, TCP_LAST_ACK, TCP_CLOSING};
static const char *const sname[N] = {"CLOSE_WAIT", "LAST_ACK", "CLOSING"};

static void touch(const char *path)
{
	int g = open(path, O_CREAT | O_WRONLY, 0600);
	close(g);
}

static char gofile[N][32], finfile[32], result[N][32];

static int conn(int i)
{
	struct timeval tv = {60, 0};
	snprintf(gofile[i], sizeof(gofile[i]), "half.go%d", i);
	snprintf(result[i], sizeof(result[i]), "half.res%d", i);
	unlink(gofile[i]);
	int port = sockhalf_start(FAMILY, NSEND, i == CL ? finfile : NULL, gofile[i], result[i]);
	int fd = port < 0 ? -1 : sockpeer_connect(FAMILY, port);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("connect to a peer");
	return fd;
}

/* Fill the send queue until the peer's window (it does not read) and our buffer are full. */
static void fill(int fd, uint64_t *sent)
{
	while (sockpeer_send(fd, sent, 65536, MSG_DONTWAIT) > 0)
		;
}

/* The rest of the peer's data, then the end of the stream. */
static int read_rest(int fd, uint64_t *got)
{
	char c;
	if (sockpeer_recv(fd, got, (size_t)(NSEND - *got)))
		return -1;
	return read(fd, &c, 1) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage me[N], peer[N], a;
	socklen_t l;
	uint64_t sent[N] = {0}, got[N] = {0};
	int fd[N];

	test_init(argc, argv);
	snprintf(finfile, sizeof(finfile), "half.fin");
	unlink(finfile);
	for (int i = 0; i < N; i++)
		fd[i] = conn(i);
	/* CLOSE_WAIT: some of the peer's data read, some of ours sent (the peer keeps it unread) */
	if (sockpeer_recv(fd[CW], &got[CW], NREAD) || sockpeer_send(fd[CW], &sent[CW], 3000, 0) != 3000)
		fail("CLOSE_WAIT: exchange data");
	/* LAST_ACK: the peer's FIN, then ours behind a full queue */
	if (!tcp_wait_state(fd[LA], TCP_CLOSE_WAIT, 5000))
		fail("state %d, want CLOSE_WAIT before LAST_ACK", tcp_state(fd[LA]));
	fill(fd[LA], &sent[LA]);
	if (shutdown(fd[LA], SHUT_WR))
		fail("shutdown");
	/* CLOSING: ours first (queued behind a full queue), then the peer's */
	fill(fd[CL], &sent[CL]);
	if (shutdown(fd[CL], SHUT_WR) || tcp_state(fd[CL]) != TCP_FIN_WAIT1)
		fail("state %d, want FIN_WAIT1 before CLOSING", tcp_state(fd[CL]));
	touch(finfile);
	for (int i = 0; i < N; i++) {
		if (!tcp_wait_state(fd[i], want[i], 5000))
			fail("connection %d: state %d, want %s", i, tcp_state(fd[i]), sname[i]);
		l = sizeof(me[i]), getsockname(fd[i], (struct sockaddr *)&me[i], &l);
		l = sizeof(peer[i]), getpeername(fd[i], (struct sockaddr *)&peer[i], &l);
	}
	test_msg("LAST_ACK with %llu bytes sent, CLOSING with %llu\n", (unsigned long long)sent[LA],
		 (unsigned long long)sent[CL]);

	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		if (tcp_state(fd[i]) != want[i])
			fail("%s: state %d after restore", sname[i], tcp_state(fd[i]));
		l = sizeof(a);
		if (getsockname(fd[i], (struct sockaddr *)&a, &l) || memcmp(&a, &me[i], l))
			fail("%s: local address changed", sname[i]);
		l = sizeof(a);
		if (getpeername(fd[i], (struct sockaddr *)&a, &l) || memcmp(&a, &peer[i], l))
			fail("%s: peer address changed", sname[i]);
		if (read_rest(fd[i], &got[i]))
			fail("%s: the peer's data (%llu of %d bytes) or the end of the stream lost: %m",
			     sname[i], (unsigned long long)got[i], NSEND);
	}
	if (sockpeer_send(fd[CW], &sent[CW], 2000, 0) != 2000)
		fail("CLOSE_WAIT: writing after restore");
	for (int i = LA; i < N; i++)
		if (send(fd[i], "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != -1 || errno != EPIPE)
			fail("%s: writing is not shut down", sname[i]);
	/* our FIN: LAST_ACK until the peer acks it (at once: it is not paused for that) */
	if (shutdown(fd[CW], SHUT_WR) ||
	    (tcp_state(fd[CW]) != TCP_LAST_ACK && tcp_state(fd[CW]) != TCP_CLOSE))
		fail("CLOSE_WAIT: shutdown does not go to LAST_ACK (state %d)", tcp_state(fd[CW]));
	for (int i = 0; i < N; i++)
		touch(gofile[i]);
	for (int i = 0; i < N; i++) {
		if (sockhalf_verdict(result[i], sent[i]))
			fail("%s: the peer did not get the %llu bytes and the FIN", sname[i],
			     (unsigned long long)sent[i]);
		if (!tcp_wait_state(fd[i], TCP_CLOSE, 5000))
			fail("%s: the connection did not finish closing (state %d)", sname[i],
			     tcp_state(fd[i]));
	}
	pass();
	return 0;
}
