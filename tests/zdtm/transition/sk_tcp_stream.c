/* Data keeps flowing over a TCP connection to a server outside the tree (lib/sockpeer.c) while the dump
 * runs: the loop sends pattern bytes (non-blocking) and reads the echo as it comes, checking each byte.
 * After restore (--tcp-established) and SIGTERM the rest of the echo is read and the server confirms it
 * got every byte once and in order. */
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uint64_t sent = 0, echoed = 0;
	struct timeval tv = {60, 0};
	test_init(argc, argv);
	int port = sockpeer_start(AF_INET, 0, NULL);
	if (port < 0)
		fail("start the peer");
	int fd = sockpeer_connect(AF_INET, port);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("connect to the peer");

	test_daemon();
	while (test_go()) {
		struct pollfd p = {fd, POLLIN | (sent - echoed < (1 << 20) ? POLLOUT : 0), 0};
		if (poll(&p, 1, 10) < 0)
			continue;
		if ((p.revents & POLLOUT) && sockpeer_send(fd, &sent, 4000, MSG_DONTWAIT) < 0 &&
		    errno != EAGAIN) {
			fail("send at byte %llu", (unsigned long long)sent);
			break;
		}
		if (p.revents & POLLIN) {
			int avail = 0;
			char c;
			if (recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) {
				fail("connection closed or reset at echo byte %llu",
				     (unsigned long long)echoed);
				break;
			}
			avail = (int)(sent - echoed);
			int inq = 0;
			if (!ioctl(fd, FIONREAD, &inq) && inq < avail)
				avail = inq;
			if (avail > 0 && sockpeer_recv(fd, &echoed, (size_t)avail)) {
				fail("echo wrong at byte %llu", (unsigned long long)echoed);
				break;
			}
		}
		if (p.revents & (POLLERR | POLLHUP)) {
			fail("connection error at byte %llu", (unsigned long long)sent);
			break;
		}
	}
	if (!test_failures && sockpeer_finish(fd, sent, &echoed))
		fail("the peer did not get every byte once (sent %llu)", (unsigned long long)sent);
	test_msg("%llu bytes each way\n", (unsigned long long)sent);
	pass();
	return 0;
}
