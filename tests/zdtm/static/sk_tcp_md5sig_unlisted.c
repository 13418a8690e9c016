/* TCP MD5 signature keys (TCP_MD5SIG) on a TCP socket that was never bound: sock_diag does not list it, so
 * its keys (which no getsockopt reads) cannot be saved. The dump must say so rather than lose them silently:
 * each key is charged to the socket's option memory (SO_MEMINFO, SK_MEMINFO_OPTMEM), which names the socket
 * and the number of its keys (.desc dump-notice: "holds 2 TCP MD5 keys"). A second never-bound socket has no
 * key (no line for it). After restore both are closed TCP sockets that connect to a listener of the tree.
 * Before: the dump said nothing and the keys were gone after restore. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

static void md5_key(int fd, const char *addr, const char *key)
{
	struct tcp_md5sig m = {.tcpm_keylen = (unsigned short)strlen(key)};
	struct sockaddr_in *s = (struct sockaddr_in *)&m.tcpm_addr;
	s->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &s->sin_addr);
	memcpy(m.tcpm_key, key, strlen(key));
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m)))
		fail("TCP_MD5SIG %s", addr);
}

int main(int argc, char **argv)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(s);

	test_init(argc, argv);
	int keyed = socket(AF_INET, SOCK_STREAM, 0), plain = socket(AF_INET, SOCK_STREAM, 0);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (keyed < 0 || plain < 0 || lfd < 0)
		fail("sockets");
	md5_key(keyed, "10.1.2.3", "crshim-md5-unlisted-one");
	md5_key(keyed, "10.1.2.4", "crshim-md5-unlisted-two");
	if (bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l))
		fail("listener");

	test_daemon();
	test_waitsig();

	int fds[] = {keyed, plain};
	for (int i = 0; i < 2; i++) {
		int a;
		if (!tcp_wait_state(fds[i], 7, 0) || connect(fds[i], (struct sockaddr *)&s, sizeof(s)) ||
		    (a = accept(lfd, NULL, NULL)) < 0)
			fail("socket %d after restore: not a closed TCP socket that connects (%m)", i);
		else
			close(a);
	}
	pass();
	return 0;
}
