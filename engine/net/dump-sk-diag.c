/* What sock_diag tells about an inet socket of the dumped task (ns/sock-diag-inet.c, the table of the task's
 * net namespace, read once per process): state, addresses and ports, bound device, backlog, shutdown; and the
 * TCP connections in flight (a listener's connections not yet accepted, a socket still connecting) that
 * fail the dump unless --skip-in-flight drops them. */
#define LOG_PREFIX "dump-sk: "
#include <errno.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <linux/sockios.h>

#include "dump.h"
#include "base/log.h"
#include "net/sk-inet.h"
#include "sock-diag.h"

struct sk_diag {
	struct ns_inet_table t;
	uint64_t ino;		/* the task's net namespace */
	struct ns_inet_table o; /* the table of another one, where the last socket made elsewhere was */
	uint64_t o_ino;		/* ... that one, 0: none */
	bool md5_said;		/* TCP MD5 keys could not be read: the user was told */
};

void sk_diag_free(struct sk_diag *d)
{
	if (!d)
		return;
	ns_inet_table_free(&d->t);
	ns_inet_table_free(&d->o);
	free(d);
}

static uint64_t ino_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* The network namespace of socket cfd (SIOCGSKNS) into *ino (task: its holder's, also when not known), and
 * its fd into *nsfd when it is not the holder's (made before the task's setns or unshare, or passed to it;
 * else -1). One of crshim's own namespace is refused, unless the root is in it too: crshim's at restore is
 * not the tree's. */
static int sk_netns_of(const struct dump_ctx *c, int cfd, uint64_t task, uint64_t *ino, int *nsfd,
		       struct cr_err *e)
{
	int ns = ioctl(cfd, SIOCGSKNS);
	struct stat st;
	*ino = task, *nsfd = -1;
	if (ns < 0 || fstat(ns, &st) || (uint64_t)st.st_ino == task) {
		if (ns >= 0)
			close(ns);
		return 0;
	}
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", c->tree && c->ntree ? (int)c->tree[0].pid : (int)c->pid);
	if ((uint64_t)st.st_ino == ino_of("/proc/self/ns/net") && (uint64_t)st.st_ino != ino_of(p)) {
		close(ns);
		return cr_fail(
		    e, "socket of crshim's own network namespace net:[%llu], outside the tree: not supported",
		    (unsigned long long)st.st_ino);
	}
	*ino = (uint64_t)st.st_ino, *nsfd = ns;
	pr_info("socket of net:[%llu], not its task's network namespace net:[%llu]\n",
		(unsigned long long)*ino, (unsigned long long)task);
	return 0;
}

static uint64_t task_net(const struct dump_ctx *c)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)c->pid);
	return ino_of(p);
}

int sk_netns_save(struct dump_ctx *c, int cfd, uint64_t *netns, protobuf_c_boolean *has, struct cr_err *e)
{
	uint64_t ino;
	int nsfd;
	if (sk_netns_of(c, cfd, task_net(c), &ino, &nsfd, e))
		return -1;
	if (nsfd >= 0)
		close(nsfd);
	if (ino)
		*netns = ino, *has = 1;
	return 0;
}

/* The table of the socket's own network namespace (ie->netns), which is not the task's when the socket was
 * made before the task's setns or unshare, or passed to it (sk_netns_of). */
static const struct ns_inet_table *own_table(struct dump_ctx *c, struct sk_diag *d, int cfd, InetSkEntry *ie,
					     struct cr_err *e)
{
	uint64_t ino;
	int nsfd;
	if (sk_netns_of(c, cfd, d->ino, &ino, &nsfd, e))
		return NULL;
	if (ino)
		ie->netns = ino, ie->has_netns = 1;
	if (nsfd < 0)
		return &d->t;
	int r = 0;
	if (d->o_ino != ino) {
		ns_inet_table_free(&d->o);
		d->o_ino = 0;
		if (!(r = ns_inet_collect_fd(nsfd, &d->o, e)))
			d->o_ino = ino;
	}
	close(nsfd);
	if (r)
		return cr_wrap(e, "net:[%llu]", (unsigned long long)ino), NULL;
	return &d->o;
}

const char *sk_tcp_state_name(unsigned s)
{
	static const char *const n[] = {"?",	     "ESTABLISHED", "SYN_SENT",	   "SYN_RECV",	 "FIN_WAIT1",
					"FIN_WAIT2", "TIME_WAIT",   "CLOSE",	   "CLOSE_WAIT", "LAST_ACK",
					"LISTEN",    "CLOSING",	    "NEW_SYN_RECV"};
	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* "127.0.0.1:80", "[::1]:80" */
static const char *show_addr(const struct ns_inet_sk *s, bool dst, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	inet_ntop(s->family, dst ? s->dst : s->src, a, sizeof(a));
	snprintf(buf, len, s->family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, dst ? s->dport : s->sport);
	return buf;
}

static bool zero(const uint8_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i])
			return false;
	return true;
}

static int set_addr(ProtobufCBinaryData *b, protobuf_c_boolean *has, const uint8_t *a, size_t len,
		    struct cr_err *e)
{
	b->data = malloc(len);
	if (!b->data)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(b->data, a, len);
	b->len = len;
	*has = 1;
	return 0;
}

/* Addresses, ports, IPv6 scope (the bound device of a link-local address, as getsockname tells it). */
static int fill_addrs(const struct ns_inet_sk *s, InetSkEntry *ie, struct cr_err *e)
{
	size_t alen = s->family == AF_INET ? 4 : 16;
	if (s->sport || !zero(s->src, alen)) {
		if (set_addr(&ie->src_addr, &ie->has_src_addr, s->src, alen, e))
			return -1;
		ie->src_port = s->sport, ie->has_src_port = 1;
		bool ll = alen == 16 && ((s->src[0] == 0xfe && (s->src[1] & 0xc0) == 0x80) ||
					 (s->src[0] == 0xff && (s->src[1] & 0x0f) == 0x02));
		if (ll && s->ifindex)
			ie->scope_id = s->ifindex, ie->has_scope_id = 1;
	}
	if (s->dport || !zero(s->dst, alen)) {
		if (set_addr(&ie->dst_addr, &ie->has_dst_addr, s->dst, alen, e))
			return -1;
		ie->dst_port = s->dport, ie->has_dst_port = 1;
	}
	return 0;
}

/* A TCP connection in flight: an error, or with --skip-in-flight dropped (noted in the log). */
static int in_flight(const struct dump_ctx *c, int fd, const struct ns_inet_sk *s, InetSkEntry *ie,
		     struct cr_err *e)
{
	char a[64], b[64];
	bool listen = s->state == TCP_LISTEN;
	if (!c->o->skip_in_flight) {
		if (listen)
			return cr_fail(e,
				       "TCP listening socket:[%u] on %s has %u connections not yet accepted "
				       "(in flight): dump with --skip-in-flight to drop them",
				       s->ino, show_addr(s, false, a, sizeof(a)), s->rqueue);
		return cr_fail(e,
			       "TCP socket:[%u] %s -> %s is in state %s (connection in flight): dump with "
			       "--skip-in-flight to drop it%s",
			       s->ino, show_addr(s, false, a, sizeof(a)), show_addr(s, true, b, sizeof(b)),
			       sk_tcp_state_name(s->state),
			       s->state == TCP_SYN_SENT ? " (or --tcp-established to connect again)" : "");
	}
	if (listen) {
		pr_warn("pid %d fd %d: TCP listening socket:[%u] on %s: %u connections not yet accepted are "
			"dropped (--skip-in-flight)\n",
			c->pid, fd, s->ino, show_addr(s, false, a, sizeof(a)), s->rqueue);
		ie->in_flight = s->rqueue, ie->has_in_flight = 1;
		return 0;
	}
	pr_warn("pid %d fd %d: TCP socket:[%u] %s -> %s in state %s: the connection is dropped, the socket "
		"is restored closed (--skip-in-flight)\n",
		c->pid, fd, s->ino, show_addr(s, false, a, sizeof(a)), show_addr(s, true, b, sizeof(b)),
		sk_tcp_state_name(s->state));
	ie->in_flight = 1, ie->has_in_flight = 1;
	ie->in_flight_state = s->state, ie->has_in_flight_state = 1;
	ie->state = TCP_CLOSE;
	ie->has_shutdown = 0;
	return 1; /* no addresses */
}

/* TCP: the state; a listener's backlog; the states we cannot restore fail. 1: restore it unbound. */
static int tcp_fill(const struct dump_ctx *c, int fd, const struct ns_inet_sk *s, InetSkEntry *ie,
		    struct cr_err *e)
{
	char a[64], b[64];
	ie->state = s->state, ie->has_state = 1;
	switch (s->state) {
	case TCP_LISTEN:
		ie->backlog = s->wqueue, ie->has_backlog = 1;
		return s->rqueue ? in_flight(c, fd, s, ie, e) : 0;
	case TCP_SYN_SENT: /* --tcp-established: connecting again at restore (restore-sk-inet.c) */
		return c->o->tcp_established ? 0 : in_flight(c, fd, s, ie, e);
	case TCP_SYN_RECV:
		return in_flight(c, fd, s, ie, e);
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT1: /* through repair mode, as established ones */
	case TCP_FIN_WAIT2:
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_CLOSING:
	case TCP_CLOSE:
		return 0;
	default:
		return cr_fail(e, "TCP socket:[%u] %s -> %s in state %s is not supported", s->ino,
			       show_addr(s, false, a, sizeof(a)), show_addr(s, true, b, sizeof(b)),
			       sk_tcp_state_name(s->state));
	}
}

/* Kinds sock_diag may not know: ping sockets have no table; raw ones only with CONFIG_INET_RAW_DIAG (the
 * kernel answers an empty dump without it), UDP-Lite ones only where UDP-Lite is built. A raw socket is
 * hashed from its creation on: not in the table means no raw table. */
static bool no_table(const InetSkEntry *ie)
{
	if (ie->type == SOCK_RAW || ie->protocol == IPPROTO_UDPLITE)
		return true;
	return ie->protocol == IPPROTO_ICMP || ie->protocol == IPPROTO_ICMPV6;
}

static int tcp_ended(int cfd, uint32_t ino, InetSkEntry *ie, struct cr_err *e);

/* A TCP socket in state CLOSE that is named (bound, or after a connection: reset, or closed both ways; out of
 * the tables, but getsockname and SO_PEERNAME still tell its addresses): 1, the addresses are read from the
 * socket (fill_inet); after a connection also what tcp_ended reads. */
static int tcp_closed(int cfd, uint32_t ino, InetSkEntry *ie, struct cr_err *e)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(cfd, IPPROTO_TCP, TCP_INFO, &ti, &l))
		return cr_fail_sys(e, "socket:[%u]: TCP_INFO", ino);
	if (ti.tcpi_state != TCP_CLOSE)
		return cr_fail_errno(e, ENOENT,
				     "TCP socket:[%u] in state %s is not in the sock_diag tables of its net "
				     "namespace",
				     ino, sk_tcp_state_name(ti.tcpi_state));
	ie->state = TCP_CLOSE, ie->has_state = 1;
	struct sockaddr_storage ss; /* SO_PEERNAME wants no more room than the name takes */
	l = ie->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERNAME, &ss, &l))
		return 1; /* bound only */
	return tcp_ended(cfd, ino, ie, e) ? -1 : 1;
}

/* A TCP connection that ended (state CLOSE, the peer's name kept): the data not yet read and whether an error
 * is pending, which poll tells without taking it (SO_ERROR would clear it). */
static int tcp_ended(int cfd, uint32_t ino, InetSkEntry *ie, struct cr_err *e)
{
	struct pollfd p = {.fd = cfd, .events = POLLRDHUP};
	if (poll(&p, 1, 0) == 1) {
		if (p.revents & POLLRDHUP)
			ie->shutdown = 3, ie->has_shutdown = 1; /* the connection's end gives both */
		if (p.revents & POLLERR)
			ie->closed_err = 1, ie->has_closed_err = 1;
	}
	int n = 0;
	if (ioctl(cfd, SIOCINQ, &n) || n < 0)
		return cr_fail_sys(e, "socket:[%u]: receive queue length", ino);
	if (n) {
		uint8_t *buf = malloc((size_t)n + 1);
		if (!buf)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ssize_t got = recv(cfd, buf, (size_t)n + 1, MSG_PEEK | MSG_DONTWAIT);
		if (got != n) {
			free(buf);
			return cr_fail_errno(e, got < 0 ? errno : EIO,
					     "socket:[%u]: peek the receive queue (%zd of %d bytes)", ino,
					     got, n);
		}
		ie->closed_rcv.data = buf, ie->closed_rcv.len = (size_t)n, ie->has_closed_rcv = 1;
	}
	pr_debug("socket:[%u]: TCP connection closed, %d bytes not read, error %s\n", ino, n,
		 ie->closed_err ? "pending" : "none");
	return 0;
}

/* A socket in no table: never bound (nor connected) is fine, it is a fresh one; a closed TCP one (tcp_closed)
 * too. */
static int not_found(int cfd, uint32_t ino, InetSkEntry *ie, struct cr_err *e)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (getsockname(cfd, (struct sockaddr *)&ss, &l))
		return cr_fail_sys(e, "getsockname");
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
	bool bound = ss.ss_family == AF_INET ? s4->sin_port || s4->sin_addr.s_addr
					     : s6->sin6_port || !zero(s6->sin6_addr.s6_addr, 16);
	if (bound && ie->protocol == IPPROTO_TCP)
		return tcp_closed(cfd, ino, ie, e);
	if (bound)
		return cr_fail_errno(
		    e, ENOENT,
		    "inet socket:[%u] (family %u, protocol %u) is not in the sock_diag tables "
		    "of its net namespace",
		    ino, ie->family, ie->protocol);
	if (ie->protocol == IPPROTO_TCP) {
		ie->state = TCP_CLOSE, ie->has_state = 1;
		/* a closed connection (e.g. restored with --tcp-close) shut down for reading gives EOF, not
		 * ENOTCONN; sock_diag does not know it, poll does (writing fails with EPIPE either way) */
		struct pollfd p = {.fd = cfd, .events = POLLRDHUP};
		if (poll(&p, 1, 0) == 1 && (p.revents & POLLRDHUP))
			ie->shutdown = 1, ie->has_shutdown = 1;
	}
	pr_debug("socket:[%u]: not bound, in no sock_diag table\n", ino);
	return 0;
}

/* A TCP listener or socket bound only whose local port another such one of the table has too. */
static bool port_shared(const struct ns_inet_table *t, const struct ns_inet_sk *s)
{
	if (s->protocol != IPPROTO_TCP || s->raw || (s->state != TCP_LISTEN && s->state != TCP_CLOSE))
		return false;
	for (size_t i = 0; i < t->n; i++) {
		const struct ns_inet_sk *o = &t->sk[i];
		if (o->ino != s->ino && o->protocol == IPPROTO_TCP && !o->raw && o->sport == s->sport &&
		    (o->state == TCP_LISTEN || (o->state == TCP_CLOSE && !o->dport)))
			return true;
	}
	return false;
}

int sk_diag_fill(struct dump_ctx *c, struct sk_diag **dp, int fd, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	struct stat st;
	if (fstat(cfd, &st))
		return cr_fail_sys(e, "fstat");
	uint32_t ino = (uint32_t)st.st_ino;
	if (!*dp) {
		struct sk_diag *d = calloc(1, sizeof(*d));
		if (!d)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		if (ns_inet_collect(c->pid, &d->t, e)) {
			free(d);
			return -1;
		}
		d->ino = task_net(c);
		pr_debug("task %d: %zu inet sockets in its net namespace\n", c->pid, d->t.n);
		*dp = d;
	}
	const struct ns_inet_table *t = own_table(c, *dp, cfd, ie, e);
	if (!t)
		return -1;
	const struct ns_inet_sk *s = ns_inet_find(t, ino);
	if (!s && no_table(ie)) {
		pr_debug("fd %d: socket:[%u] (type %u, protocol %u) in no sock_diag table: getsockname\n", fd,
			 ino, ie->type, ie->protocol);
		return 1;
	}
	if (!s)
		return not_found(cfd, ino, ie, e);
	if (s->family != ie->family)
		return cr_fail(e, "socket:[%u]: sock_diag says family %u, the socket %u", ino, s->family,
			       ie->family);
	if (s->shutdown)
		ie->shutdown = s->shutdown, ie->has_shutdown = 1;
	if (ie->protocol == IPPROTO_TCP && tcp_md5_dump(c, &(*dp)->md5_said, t, s, ie, e))
		return -1;
	if (ie->protocol == IPPROTO_TCP) {
		int r = tcp_fill(c, fd, s, ie, e);
		if (r)
			return r < 0 ? -1 : 0;
	}
	if (fill_addrs(s, ie, e))
		return -1;
	if (port_shared(t, s))
		ie->port_shared = 1, ie->has_port_shared = 1;
	/* bound still (sock_diag lists bound sockets from the bind table): a connection that ended */
	if (ie->protocol == IPPROTO_TCP && s->state == TCP_CLOSE && ie->has_dst_addr &&
	    tcp_ended(cfd, ino, ie, e))
		return -1;
	if (ie->protocol != IPPROTO_TCP && ie->has_dst_addr)
		ie->state = TCP_ESTABLISHED, ie->has_state = 1;
	pr_debug("fd %d: socket:[%u] state %u, ports %u -> %u, rqueue %u wqueue %u shutdown %u\n", fd, ino,
		 s->state, s->sport, s->dport, s->rqueue, s->wqueue, s->shutdown);
	return 0;
}
