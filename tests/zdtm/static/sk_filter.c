/* Classic BPF socket filters (SO_ATTACH_FILTER: drop datagrams shorter than 4 bytes): on a unix datagram
 * socket, and locked (SO_LOCK_FILTER) on a UDP socket holding a queued datagram. After restore each has
 * the same instructions, still drops the short datagram and lets the long one in, and the lock is still
 * there (SO_DETACH_FILTER refused with EPERM); the queued datagram is still there too. */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef SO_LOCK_FILTER
#define SO_LOCK_FILTER 44
#endif

/* [1].k: the least length let in: 4 on the unix socket; on UDP the length counts its 8-byte header */
static struct sock_filter code[2][4] = {
    {
	BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 4, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
	BPF_STMT(BPF_RET | BPF_K, 0),
    },
    {
	BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 8 + 4, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
	BPF_STMT(BPF_RET | BPF_K, 0),
    },
};

static void check_filter(int r, int w, int udp, const char *what)
{
	struct sock_filter got[8];
	socklen_t n = 0;
	char buf[16];
	if (getsockopt(r, SOL_SOCKET, SO_GET_FILTER, NULL, &n) || n != 4)
		fail("%s: SO_GET_FILTER: %u blocks, want 4", what, (unsigned)n);
	n = 8;
	if (getsockopt(r, SOL_SOCKET, SO_GET_FILTER, got, &n) || n != 4 ||
	    memcmp(got, code[udp], sizeof(code[udp])))
		fail("%s: the filter changed", what);
	if (send(w, "ab", 2, 0) != 2 || send(w, "abcdef", 6, 0) != 6)
		fail("%s: send", what);
	ssize_t k = recv(r, buf, sizeof(buf), 0);
	if (k != 6)
		fail("%s: received %zd bytes, want the 6-byte datagram (the short one filtered)", what, k);
}

int main(int argc, char **argv)
{
	struct sock_fprog prog = {.len = 4, .filter = code[0]}, uprog = {.len = 4, .filter = code[1]};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int sv[2], one = 1, locked = 0;
	char buf[16];
	test_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		fail("socketpair");
	if (setsockopt(sv[0], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		fail("SO_ATTACH_FILTER");
	int ur = socket(AF_INET, SOCK_DGRAM, 0), uw = socket(AF_INET, SOCK_DGRAM, 0);
	if (ur < 0 || uw < 0 || bind(ur, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(ur, (struct sockaddr *)&a, &al) || connect(uw, (struct sockaddr *)&a, sizeof(a)))
		fail("udp sockets");
	if (setsockopt(ur, SOL_SOCKET, SO_ATTACH_FILTER, &uprog, sizeof(uprog)) ||
	    setsockopt(ur, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)))
		fail("SO_ATTACH_FILTER / SO_LOCK_FILTER (udp)");
	if (send(uw, "queued", 6, 0) != 6)
		fail("send the queued datagram");
	test_daemon();
	test_waitsig();

	check_filter(sv[0], sv[1], 0, "unix");
	ssize_t k = recv(ur, buf, sizeof(buf), MSG_DONTWAIT);
	if (k != 6 || memcmp(buf, "queued", 6))
		fail("udp: the queued datagram: %zd bytes", k);
	check_filter(ur, uw, 1, "udp");
	socklen_t ll = sizeof(locked);
	if (getsockopt(ur, SOL_SOCKET, SO_LOCK_FILTER, &locked, &ll) || !locked)
		fail("udp: the filter is not locked any more");
	if (!setsockopt(ur, SOL_SOCKET, SO_DETACH_FILTER, &one, sizeof(one)) || errno != EPERM)
		fail("udp: SO_DETACH_FILTER of a locked filter was not refused with EPERM");
	ll = sizeof(locked);
	if (getsockopt(sv[0], SOL_SOCKET, SO_LOCK_FILTER, &locked, &ll) || locked)
		fail("unix: its filter came back locked");
	return test_pass();
}
