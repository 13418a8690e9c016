/* Helpers of sk_inet_tcp_last_ack_drop and sk_inet_tcp_reset_peer: a TCP connection over lo in a network
 * namespace of the test's own, where it may add nftables rules. */
#ifndef SK_TCP_NETNS_H
#define SK_TCP_NETNS_H

#include <netinet/tcp.h>
#include <signal.h>
#include "ns_world.h"

/* the lib's tcp_wait_state, or a failure naming what and the state */
static inline void tcp_must_reach(int sk, int want, const char *what)
{
	if (!tcp_wait_state(sk, want, 5000))
		fail("%s: state %d, want %d", what, tcp_state(sk), want);
}

/* test_init, a network namespace of our own with lo up (setup: shell commands run there first, or NULL),
 * then a client *clt connected to a listener on 127.0.0.1 (*s, closed once) whose accepted socket is
 * returned. */
static inline int tcp_netns_pair(int argc, char **argv, const char *setup, struct sockaddr_in *s, int *clt)
{
	socklen_t l = sizeof(*s);
	*s = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	test_init(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	if (nsw_sh("nft --version"))
		test_skip("no nft");
	nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	if (setup)
		nsw_must("%s", setup);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	*clt = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || *clt < 0 || bind(lfd, (struct sockaddr *)s, l) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)s, &l) || connect(*clt, (struct sockaddr *)s, l))
		fail("connection");
	int fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0)
		fail("accept");
	return fd;
}

#endif
