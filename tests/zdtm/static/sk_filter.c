/* A classic BPF socket filter (SO_ATTACH_FILTER, drop datagrams shorter than 4 bytes) on a unix datagram
 * socket: refused at dump (.desc); the filter is still there and still drops after the refused dump. */
#include <linux/filter.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 4, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, 0xffff),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {.len = 4, .filter = code};
	char buf[16];
	int sv[2];
	test_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		fail("socketpair");
	int r = sv[0], w = sv[1];
	if (setsockopt(r, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		fail("SO_ATTACH_FILTER");
	test_daemon();
	test_waitsig();
	socklen_t n = 0;
	if (getsockopt(r, SOL_SOCKET, SO_GET_FILTER, NULL, &n) || n != 4)
		fail("SO_GET_FILTER: %u blocks after restore, want 4", (unsigned)n);
	struct sock_filter got[8];
	n = 8;
	if (getsockopt(r, SOL_SOCKET, SO_GET_FILTER, got, &n) || n != 4 || memcmp(got, code, sizeof(code)))
		fail("the filter changed");
	if (send(w, "ab", 2, 0) != 2 || send(w, "abcdef", 6, 0) != 6)
		fail("send");
	ssize_t k = recv(r, buf, sizeof(buf), 0);
	if (k != 6)
		fail("received %zd bytes, want the 6-byte datagram (the short one filtered)", k);
	return test_pass();
}
