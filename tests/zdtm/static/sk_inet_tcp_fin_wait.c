/* TCP connections to servers outside the tree (lib/sockpeer.c, paused before reading anything) that the
 * test shut down for writing: one in FIN_WAIT2 (1000 bytes and the FIN acked), one in FIN_WAIT1 (its send
 * queue full behind a zero window, the FIN waiting after it). After restore (--tcp-established) each is
 * still half-closed (FIN_WAIT1/2, writing fails with EPIPE) with the same addresses; once the servers go on,
 * each gets every byte once and in order and the FIN (the server's verdict), and the echo comes back. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif
#define GOFILE "sockpeer.go"

static int conn(void)
{
	struct timeval tv = {60, 0};
	int port = sockpeer_start(FAMILY, 0, GOFILE);
	int fd = port < 0 ? -1 : sockpeer_connect(FAMILY, port);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("connect to a peer");
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage me[2], peer[2], a;
	socklen_t l;
	uint64_t sent[2] = {0, 0}, echoed[2] = {0, 0};

	test_init(argc, argv);
	unlink(GOFILE);
	int fd[2] = {conn(), conn()};
	if (sockpeer_send(fd[0], &sent[0], 1000, 0) != 1000 || shutdown(fd[0], SHUT_WR))
		fail("send and shut down");
	if (!tcp_wait_state(fd[0], TCP_FIN_WAIT2, 3000))
		fail("state %d, want FIN_WAIT2", tcp_state(fd[0]));
	while (sockpeer_send(fd[1], &sent[1], 65536, MSG_DONTWAIT) > 0)
		;
	if (shutdown(fd[1], SHUT_WR) || tcp_state(fd[1]) != TCP_FIN_WAIT1)
		fail("state %d, want FIN_WAIT1", tcp_state(fd[1]));
	for (int i = 0; i < 2; i++) {
		l = sizeof(me[i]), getsockname(fd[i], (struct sockaddr *)&me[i], &l);
		l = sizeof(peer[i]), getpeername(fd[i], (struct sockaddr *)&peer[i], &l);
	}
	test_msg("FIN_WAIT1 with %llu bytes sent\n", (unsigned long long)sent[1]);

	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++) {
		int st = tcp_state(fd[i]);
		if (st != TCP_FIN_WAIT1 && st != TCP_FIN_WAIT2)
			fail("connection %d: state %d, not FIN_WAIT1/2", i, st);
		l = sizeof(a);
		if (getsockname(fd[i], (struct sockaddr *)&a, &l) || memcmp(&a, &me[i], l))
			fail("connection %d: local address changed", i);
		l = sizeof(a);
		if (getpeername(fd[i], (struct sockaddr *)&a, &l) || memcmp(&a, &peer[i], l))
			fail("connection %d: peer address changed", i);
		if (send(fd[i], "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != -1 || errno != EPIPE)
			fail("connection %d: writing is not shut down", i);
	}
	int g = open(GOFILE, O_CREAT | O_WRONLY, 0600);
	close(g);
	for (int i = 0; i < 2; i++)
		if (sockpeer_finish(fd[i], sent[i], &echoed[i]))
			fail("connection %d: the peer did not get the %llu bytes and the FIN (echo %llu)", i,
			     (unsigned long long)sent[i], (unsigned long long)echoed[i]);
	pass();
	return 0;
}
