/* TCP MD5 signature keys (RFC 2385, TCP_MD5SIG / TCP_MD5SIG_EXT), which BGP speakers set on their sockets and
 * which no getsockopt reads back (sock_diag does: INET_DIAG_MD5SIG, with CAP_NET_ADMIN over the namespace).
 * An IPv4 listener with a key for 127.0.0.1 and one for the prefix 10.0.0.0/8 (TCP_MD5SIG_EXT), a client
 * with a key for 127.0.0.1 connected to it and the accepted socket (which inherited the listener's key for
 * its peer), a second such connection half-closed (the client shut down writing: the accepted socket in
 * CLOSE_WAIT, whose restore sends it the client's FIN again, unsigned, so the keys go on after it), and an
 * IPv6 listener with a key for ::1 and one for the v4-mapped prefix 127.0.0.0/24. After
 * restore (--tcp-established) every socket holds the same keys in the same order (read through sock_diag
 * before and after), data flows both ways over the connection (and from the half-closed one's accepted end,
 * which reads EOF), a client with the right key is accepted while
 * one without a key is not (its SYNs are dropped: connect times out, TCP_SYNCNT 1), the socket accepted
 * then inherited the listener's key for its peer (the same as the first accepted one), and the restored
 * connection still checks the signatures: once the client's key is changed, what it sends is dropped by the
 * accepted socket and the client's connection times out (TCP_USER_TIMEOUT). Before: the sockets came back
 * without any key, the client without a key was accepted. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include "zdtmtst.h"

#define KEY "crshim-md5-key-of-the-peer"
#define KEYLEN 300 /* room for the keys of one socket, as sock_diag lists them */

/* The MD5 keys of the TCP socket fd (family fam): the INET_DIAG_MD5SIG attribute (struct tcp_diag_md5sig
 * each, newest first) of its sock_diag entry, found by its inode among the family's TCP sockets; its length,
 * -1: no entry. */
static int diag_keys(int fd, int fam, unsigned char *out, size_t len)
{
	struct stat st;
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} q = {.h = {.nlmsg_len = sizeof(q),
		     .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		     .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
	       .r = {.sdiag_family = (unsigned char)fam,
		     .sdiag_protocol = IPPROTO_TCP,
		     .idiag_ext = 1 << (INET_DIAG_INFO - 1),
		     .idiag_states = ~0u}};
	static char buf[1 << 16];
	int nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG), found = -1;
	if (nl < 0 || fstat(fd, &st) || send(nl, &q, sizeof(q), 0) != sizeof(q)) {
		fail("sock_diag request");
		return -1;
	}
	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		if (n <= 0) {
			fail("sock_diag reply");
			return -1;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				close(nl);
				return found;
			}
			struct inet_diag_msg *m = NLMSG_DATA(h);
			if (m->idiag_inode != st.st_ino)
				continue;
			found = 0;
			int al = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, al); a = RTA_NEXT(a, al))
				if (a->rta_type == INET_DIAG_MD5SIG && (size_t)RTA_PAYLOAD(a) <= len) {
					found = (int)RTA_PAYLOAD(a);
					memcpy(out, RTA_DATA(a), (size_t)found);
				}
		}
	}
}

static void md5_key(int fd, int fam, const char *addr, int prefix, const char *key)
{
	struct tcp_md5sig m = {.tcpm_keylen = (unsigned short)strlen(key)};
	memcpy(m.tcpm_key, key, strlen(key));
	if (fam == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&m.tcpm_addr;
		s->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &s->sin_addr);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&m.tcpm_addr;
		s->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &s->sin6_addr);
	}
	if (prefix)
		m.tcpm_flags = TCP_MD5SIG_FLAG_PREFIX, m.tcpm_prefixlen = (unsigned char)prefix;
	if (setsockopt(fd, IPPROTO_TCP, prefix ? TCP_MD5SIG_EXT : TCP_MD5SIG, &m, sizeof(m)))
		fail("TCP_MD5SIG %s/%d", addr, prefix);
}

/* A client (with key: a key for the listener's address) connecting to s: the accepted socket, or -1 when
 * its connect failed (its SYNs went unanswered: ETIMEDOUT, after one retransmission). */
static int client(int lfd, const struct sockaddr_in *s, const char *key, int *cfd)
{
	int one = 1;
	*cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (*cfd < 0 || setsockopt(*cfd, IPPROTO_TCP, TCP_SYNCNT, &one, sizeof(one)))
		fail("client socket");
	if (key)
		md5_key(*cfd, AF_INET, "127.0.0.1", 0, key);
	if (connect(*cfd, (const struct sockaddr *)s, sizeof(*s))) {
		if (errno != ETIMEDOUT)
			fail("connect with key %s", key ? key : "(none)");
		close(*cfd);
		return -1;
	}
	int afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		fail("accept");
	return afd;
}

struct keys {
	int fd, fam;
	const char *what;
	unsigned char k[KEYLEN];
	int n;
};

int main(int argc, char **argv)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t l = sizeof(s);
	char buf[16];
	int one = 1, cfd, nokey;

	test_init(argc, argv);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), l6 = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0 || l6 < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		fail("sockets");
	md5_key(lfd, AF_INET, "10.0.0.0", 8, KEY "-net10");
	md5_key(lfd, AF_INET, "127.0.0.1", 0, KEY);
	md5_key(l6, AF_INET6, "::1", 0, KEY "-v6");
	md5_key(l6, AF_INET6, "::ffff:127.0.0.0", 24, KEY "-mapped"); /* kept as 127.0.0.0/24 */
	if (bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l) || bind(l6, (struct sockaddr *)&s6, sizeof(s6)) ||
	    listen(l6, 4))
		fail("listeners");
	int afd = client(lfd, &s, KEY, &cfd);
	if (afd < 0)
		fail("the client with the key was not accepted");
	if (client(lfd, &s, NULL, &nokey) >= 0)
		fail("a client without a key was accepted before the dump");
	if (write(cfd, "ping", 4) != 4 || read_exact(afd, buf, 4, -1) || memcmp(buf, "ping", 4))
		fail("exchange before the dump");
	/* a second connection whose client shut down writing: the accepted end in CLOSE_WAIT, which the
	 * restore ends by sending it the client's FIN again */
	int hc, ha = client(lfd, &s, KEY, &hc);
	if (ha < 0 || shutdown(hc, SHUT_WR) || read_exact(ha, buf, 1, -1) == 0 ||
	    !tcp_wait_state(ha, 8, 5000) || !tcp_wait_state(hc, 5, 5000))
		fail("half-closed connection (CLOSE_WAIT, FIN_WAIT2)");
	struct keys k[] = {{lfd, AF_INET, "listener", {0}, 0},
			   {cfd, AF_INET, "client", {0}, 0},
			   {afd, AF_INET, "accepted socket", {0}, 0},
			   {l6, AF_INET6, "IPv6 listener", {0}, 0}};
	int nk = sizeof(k) / sizeof(k[0]);
	for (int i = 0; i < nk; i++)
		if ((k[i].n = diag_keys(k[i].fd, k[i].fam, k[i].k, KEYLEN)) <= 0)
			fail("%s: no keys in sock_diag (%d)", k[i].what, k[i].n);

	test_daemon();
	test_waitsig();

	for (int i = 0; i < nk; i++) {
		unsigned char now[KEYLEN];
		int n = diag_keys(k[i].fd, k[i].fam, now, KEYLEN);
		if (n != k[i].n || memcmp(now, k[i].k, (size_t)n))
			fail("%s: its MD5 keys changed (%d bytes of them, %d before)", k[i].what, n, k[i].n);
	}
	if (write(cfd, "more", 4) != 4 || read_exact(afd, buf, 4, -1) || memcmp(buf, "more", 4) ||
	    write(afd, "back", 4) != 4 || read_exact(cfd, buf, 4, -1) || memcmp(buf, "back", 4))
		fail("no data over the connection after restore");
	if (read(ha, buf, 1) != 0 || write(ha, "half", 4) != 4 || read_exact(hc, buf, 4, -1) ||
	    memcmp(buf, "half", 4))
		fail("the half-closed connection after restore");
	int c2, a2 = client(lfd, &s, KEY, &c2);
	if (a2 < 0 || write(c2, "new", 3) != 3 || read_exact(a2, buf, 3, -1) || memcmp(buf, "new", 3))
		fail("a client with the key was not accepted after restore");
	unsigned char inherited[KEYLEN];
	int ni = a2 < 0 ? -1 : diag_keys(a2, AF_INET, inherited, KEYLEN);
	if (ni != k[2].n || memcmp(inherited, k[2].k, (size_t)ni))
		fail("a socket accepted after restore did not inherit the listener's key for its peer");
	if (client(lfd, &s, NULL, &nokey) >= 0)
		fail("a client without a key was accepted after restore");
	/* a wrong key on the client: the accepted socket drops its segments, nothing is acked */
	unsigned ms = 500;
	md5_key(cfd, AF_INET, "127.0.0.1", 0, "a-wrong-key");
	if (setsockopt(cfd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms)) || write(cfd, "lost", 4) != 4)
		fail("write with a wrong key");
	struct pollfd p = {.fd = afd, .events = POLLIN};
	if (read_exact(cfd, buf, 1, -1) == 0 || errno != ETIMEDOUT)
		fail("the client's connection with a wrong key did not time out (%m)");
	if (poll(&p, 1, 0) != 0)
		fail("the accepted socket took data signed with a wrong key");
	pass();
	return 0;
}
