/* The MSS of an established TCP connection (to a server outside the tree, lib/sockpeer.c) survives
 * --tcp-established: getsockopt(TCP_MAXSEG) reads the same after restore (the test sets TCP_MAXSEG 1400
 * before its connect) (it read 524, the default of a socket connected in repair mode less the timestamp
 * option, before the fix: the MSS put back with TCP_REPAIR_OPTIONS was never applied to the size of the
 * segments sent), and data still flows both ways. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MSS 1400

int main(int argc, char **argv)
{
	uint64_t sent = 0, echoed = 0;

	test_init(argc, argv);
	int port = sockpeer_start(AF_INET, 0, NULL);
	struct sockaddr_storage ss;
	socklen_t l = lo_addr(AF_INET, port, &ss);
	int fd = socket(AF_INET, SOCK_STREAM, 0), mss = MSS;
	/* an MSS of our own (loopback's 65483 is more than the kernel lets a restore ask for), then the
	 * peer's MSS is ours less nothing: our segments are MSS - 12 (timestamps) */
	if (port < 0 || fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)) ||
	    connect(fd, (struct sockaddr *)&ss, l))
		fail("connect to the peer");
	if (sockpeer_send(fd, &sent, 100000, 0) != 100000 || sockpeer_recv(fd, &echoed, 100000))
		fail("exchange before the dump");
	int mss0 = sk_getint(fd, IPPROTO_TCP, TCP_MAXSEG);
	test_msg("TCP_MAXSEG %d\n", mss0);

	test_daemon();
	test_waitsig();

	int mss1 = sk_getint(fd, IPPROTO_TCP, TCP_MAXSEG);
	if (mss1 != mss0)
		fail("TCP_MAXSEG %d after restore, was %d", mss1, mss0);
	for (int i = 0; i < 20; i++)
		if (sockpeer_send(fd, &sent, 65536, 0) != 65536 || sockpeer_recv(fd, &echoed, 65536))
			fail("exchange after restore at byte %llu", (unsigned long long)echoed);
	test_msg("TCP_MAXSEG %d after restore, %d after an exchange\n", mss1,
		 sk_getint(fd, IPPROTO_TCP, TCP_MAXSEG));
	if (sk_getint(fd, IPPROTO_TCP, TCP_MAXSEG) != mss0)
		fail("TCP_MAXSEG %d after an exchange, was %d", sk_getint(fd, IPPROTO_TCP, TCP_MAXSEG), mss0);
	if (sockpeer_finish(fd, sent, &echoed))
		fail("the peer did not get every byte once");
	pass();
	return 0;
}
