/* Dump of inet sockets (see sk-inet.h): kind, addresses, state, options; established TCP through
 * tcp-repair.c; netlink and packet sockets through dump-sk-nlpkt.c. */
#define LOG_PREFIX "dump-sk: "
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/sockios.h>
#include <unistd.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>

#ifndef IPV6_FLOWINFO /* linux/in6.h, which glibc's netinet/in.h does not always pull in */
#define IPV6_FLOWINFO 11
#endif
#ifndef IP_LOCAL_PORT_RANGE /* Linux 6.3 */
#define IP_LOCAL_PORT_RANGE 51
#endif
#ifndef TCP_RTO_MAX_MS /* Linux 6.15 */
#define TCP_RTO_MAX_MS 44
#define TCP_RTO_MIN_US 45
#define TCP_DELACK_MAX_US 46
#endif

#ifndef SO_RCVPRIORITY /* Linux 6.14 */
#define SO_RCVPRIORITY 82
#endif
#ifndef SO_PASSRIGHTS /* Linux 6.16 */
#define SO_PASSRIGHTS 83
#endif
#ifndef IPV6_FLOWINFO_SEND /* linux/in6.h, not glibc's */
#define IPV6_FLOWINFO_SEND 33
#endif
#ifndef SOL_UDPLITE /* the kernel's net/udplite.h */
#define SOL_UDPLITE 136
#endif
#define UDPLITE_SEND_CSCOV 10
#define UDPLITE_RECV_CSCOV 11

#include "base/array.h"
#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"
#include "files/fd-kind.h"
#include "net/sk-inet.h"
#include "net/sk-inet-queue.h"
#include "ns.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif

struct dump_sk {
	int pidfd;
	int *repair; /* copies of connections in repair mode */
	size_t nrepair, cap;
	char *netlock; /* the lock of these connections (one per dump) */
	int lockfd;    /* + 1: a copy of a connecting socket locked, when no connection is (its netns) */
	struct sk_diag *diag;  /* the inet sockets of the task's net namespace (dump-sk-diag.c) */
	struct sk_mc_table mc; /* multicast interface indexes of its IPv4 sockets (sk-mc-index.c) */
	bool mc_said;	       /* ... could not be read: the user was told */
};

static struct dump_sk *sk_state(struct dump_ctx *c, struct cr_err *e)
{
	if (c->sk)
		return c->sk;
	struct dump_sk *s = calloc(1, sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory"), NULL;
	s->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (s->pidfd < 0) {
		cr_fail_sys(e, "pidfd_open(%d)", c->pid);
		free(s);
		return NULL;
	}
	c->sk = s;
	return s;
}

static int sk_copy(struct dump_ctx *c, int fd, struct cr_err *e)
{
	struct dump_sk *s = sk_state(c, e);
	if (!s)
		return -1;
	int cfd = (int)syscall(SYS_pidfd_getfd, s->pidfd, fd, 0);
	if (cfd < 0)
		return cr_fail_sys(e, "fd %d: pidfd_getfd", fd);
	return cfd;
}

static int getint(int sk, int level, int name, int *v)
{
	socklen_t l = sizeof(*v);
	return getsockopt(sk, level, name, v, &l);
}

int dump_sk_domain(struct dump_ctx *c, int fd, struct cr_err *e)
{
	__cleanup_close int cfd = sk_copy(c, fd, e);
	int dom;
	if (cfd < 0)
		return -1;
	if (getint(cfd, SOL_SOCKET, SO_DOMAIN, &dom))
		return cr_fail_sys(e, "fd %d: SO_DOMAIN", fd);
	return dom;
}

/* ---------------------------------------------------------------- options */

enum {
	O_ALL = 0,
	O_V4 = 1,
	O_V6 = 2,
	O_TCP = 4,
	O_UDP = 8,
	O_NOEST = 16,
	O_ICMP = 32,
	O_ICMP6 = 64,
	O_NOSTREAM = 128,
	O_RAW = 256,	 /* settable on raw sockets only (getsockopt reads it on any) */
	O_KEEP = 512,	 /* saved even at its default: the restore's own steps may change it (SO_BUF_LOCK) */
	O_TCPUDP = 1024, /* TCP or UDP sockets only */
	O_UXOWN = 2048,	 /* unix sockets save it themselves (unix_sk_opts), in an order their queues need */
	O_UDPLITE = 4096 /* UDP-Lite sockets only (their UDP options are at SOL_UDPLITE, not SOL_UDP) */
};

struct sk_optdef {
	int level, name, only;
};

static const struct sk_optdef optdefs[] = {
    {SOL_SOCKET, SO_BINDTODEVICE, 0},
    {SOL_SOCKET, SO_REUSEADDR, 0},
    {SOL_SOCKET, SO_REUSEPORT, 0},
    {SOL_SOCKET, SO_KEEPALIVE, 0},
    {SOL_SOCKET, SO_BROADCAST, 0},
    {SOL_SOCKET, SO_DONTROUTE, 0},
    {SOL_SOCKET, SO_OOBINLINE, 0},
    {SOL_SOCKET, SO_RCVLOWAT, O_UXOWN},
    {SOL_SOCKET, SO_LINGER, 0},
    {SOL_SOCKET, SO_RCVTIMEO, O_UXOWN},
    {SOL_SOCKET, SO_SNDTIMEO, O_UXOWN},
    {SOL_SOCKET, SO_MARK, 0},
    {SOL_SOCKET, SO_PASSCRED, O_UXOWN},
    {SOL_SOCKET, SO_TIMESTAMP, 0},
    {SOL_SOCKET, SO_TIMESTAMPNS, 0},
    {SOL_SOCKET, SO_NO_CHECK, 0},
    {SOL_SOCKET, SO_RCVMARK, 0},
    {SOL_SOCKET, SO_RCVPRIORITY, 0},
    {SOL_SOCKET, SO_PASSRIGHTS, 0},   /* 0: SCM_RIGHTS refused (unix sockets) */
    {SOL_SOCKET, SO_TIMESTAMPING, 0}, /* read as struct so_timestamping, which setsockopt takes */
    /* after it: the _NEW ones (64-bit time in the cmsg) read 1 only when set so, the old ones then 0 */
    {SOL_SOCKET, SO_TIMESTAMP_NEW, 0},
    {SOL_SOCKET, SO_TIMESTAMPNS_NEW, 0},
    {SOL_SOCKET, SO_DEBUG, 0},
    {SOL_SOCKET, SO_NOFCS, 0},
    /* clock and flags; one set with CLOCK_REALTIME and no flags reads as none set */
    {SOL_SOCKET, SO_TXTIME, 0},
    {SOL_SOCKET, SO_ZEROCOPY, O_TCPUDP},
    {SOL_SOCKET, SO_INCOMING_CPU, 0},
    {SOL_SOCKET, SO_BUSY_POLL, 0},
    {SOL_SOCKET, SO_PREFER_BUSY_POLL, 0},
    {SOL_SOCKET, SO_SELECT_ERR_QUEUE, 0},
    {SOL_SOCKET, SO_WIFI_STATUS, 0},
    {SOL_SOCKET, SO_RXQ_OVFL, 0},
    {SOL_SOCKET, SO_MAX_PACING_RATE, 0},
    {SOL_SOCKET, SO_TXREHASH, O_TCP},
    {SOL_SOCKET, SO_PEEK_OFF, O_UDP},
    {SOL_SOCKET, SO_SNDBUF, O_UXOWN},
    {SOL_SOCKET, SO_RCVBUF, O_UXOWN},
    /* after the sizes, which lock them; the restore sets it again last (rst_sk_buf_lock) */
    {SOL_SOCKET, SO_BUF_LOCK, O_KEEP | O_UXOWN},
    {IPPROTO_IP, IP_TOS, O_V4},
    {IPPROTO_IP, IP_OPTIONS, O_V4}, /* the options bytes; before TCP_MAXSEG, whose MSS they change */
    {IPPROTO_IP, IP_ROUTER_ALERT, O_V4 | O_RAW},
    {IPPROTO_IP, IP_HDRINCL, O_V4 | O_RAW},
    {IPPROTO_IP, IP_TTL, O_V4},
    {IPPROTO_IP, IP_MULTICAST_TTL, O_V4 | O_NOSTREAM},
    {IPPROTO_IP, IP_MULTICAST_LOOP, O_V4 | O_NOSTREAM},
    {IPPROTO_IP, IP_MULTICAST_ALL, O_V4},
    {IPPROTO_IP, IP_RECVERR, O_V4},
    {IPPROTO_IP, IP_PKTINFO, O_V4},
    {IPPROTO_IP, IP_RECVTOS, O_V4},
    {IPPROTO_IP, IP_RECVTTL, O_V4},
    {IPPROTO_IP, IP_RECVOPTS, O_V4},
    {IPPROTO_IP, IP_RETOPTS, O_V4},
    {IPPROTO_IP, IP_FREEBIND, O_V4},
    {IPPROTO_IP, IP_TRANSPARENT, O_V4},
    {IPPROTO_IP, IP_MTU_DISCOVER, O_V4},
    {IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, O_V4},
    {IPPROTO_IP, IP_NODEFRAG, O_V4 | O_RAW},
    {IPPROTO_IP, IP_RECVORIGDSTADDR, O_V4},
    {IPPROTO_IP, IP_MULTICAST_IF, O_V4 | O_NOSTREAM}, /* the address; with the index: mc_if_index */
    {IPPROTO_IP, IP_UNICAST_IF, O_V4},
    {IPPROTO_IP, IP_LOCAL_PORT_RANGE, O_V4},
    {IPPROTO_IP, IP_CHECKSUM, O_V4},
    {IPPROTO_IP, IP_RECVFRAGSIZE, O_V4},
    {IPPROTO_IP, IP_RECVERR_RFC4884, O_V4},
    {IPPROTO_IP, IP_MINTTL, O_V4},
    {IPPROTO_IP, IP_PASSSEC, O_V4},
    {IPPROTO_IPV6, IPV6_V6ONLY, O_V6},
    {IPPROTO_IPV6, IPV6_UNICAST_HOPS, O_V6},
    {IPPROTO_IPV6, IPV6_MULTICAST_HOPS, O_V6 | O_NOSTREAM},
    {IPPROTO_IPV6, IPV6_MULTICAST_LOOP, O_V6 | O_NOSTREAM},
    {IPPROTO_IPV6, IPV6_RECVPKTINFO, O_V6},
    {IPPROTO_IPV6, IPV6_RECVHOPLIMIT, O_V6},
    {IPPROTO_IPV6, IPV6_RECVTCLASS, O_V6},
    {IPPROTO_IPV6, IPV6_TCLASS, O_V6},
    {IPPROTO_IPV6, IPV6_RECVERR, O_V6},
    {IPPROTO_IPV6, IPV6_MTU_DISCOVER, O_V6},
    {IPPROTO_IPV6, IPV6_FREEBIND, O_V6},
    {IPPROTO_IPV6, IPV6_TRANSPARENT, O_V6},
    {IPPROTO_IPV6, IPV6_DONTFRAG, O_V6},
    {IPPROTO_IPV6, IPV6_RECVPATHMTU, O_V6},
    {IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, O_V6},
    {IPPROTO_IPV6, IPV6_HDRINCL, O_V6 | O_RAW},
    {IPPROTO_IPV6, IPV6_CHECKSUM, O_V6 | O_RAW},
    {IPPROTO_IPV6, IPV6_MULTICAST_IF, O_V6 | O_NOSTREAM},
    {IPPROTO_IPV6, IPV6_MULTICAST_ALL, O_V6},
    {IPPROTO_IPV6, IPV6_UNICAST_IF, O_V6},
    {IPPROTO_IPV6, IPV6_RECVRTHDR, O_V6},
    {IPPROTO_IPV6, IPV6_RECVHOPOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_RECVDSTOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_FLOWINFO, O_V6},
    {IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, O_V6},
    {IPPROTO_IPV6, IPV6_MINHOPCOUNT, O_V6},
    {IPPROTO_IPV6, IPV6_ADDR_PREFERENCES, O_V6},
    {IPPROTO_IPV6, IPV6_RECVFRAGSIZE, O_V6},
    {IPPROTO_IPV6, IPV6_RECVERR_RFC4884, O_V6},
    {IPPROTO_IPV6, IPV6_FLOWINFO_SEND, O_V6},
    /* the RFC 2292 receive options: bits of their own beside the RFC 3542 ones */
    {IPPROTO_IPV6, IPV6_2292PKTINFO, O_V6},
    {IPPROTO_IPV6, IPV6_2292HOPOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_2292DSTOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_2292RTHDR, O_V6},
    {IPPROTO_IPV6, IPV6_2292HOPLIMIT, O_V6},
    /* sticky extension headers (up to 2048 bytes each: OPT_MAX) */
    {IPPROTO_IPV6, IPV6_HOPOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_DSTOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_RTHDRDSTOPTS, O_V6},
    {IPPROTO_IPV6, IPV6_RTHDR, O_V6},
    {IPPROTO_IPV6, IPV6_ROUTER_ALERT, O_V6 | O_RAW},
    {IPPROTO_IPV6, IPV6_ROUTER_ALERT_ISOLATE, O_V6 | O_RAW},
    {IPPROTO_TCP, TCP_NODELAY, O_TCP},
    {IPPROTO_TCP, TCP_CORK, O_TCP},
    {IPPROTO_TCP, TCP_KEEPIDLE, O_TCP},
    {IPPROTO_TCP, TCP_KEEPINTVL, O_TCP},
    {IPPROTO_TCP, TCP_KEEPCNT, O_TCP},
    {IPPROTO_TCP, TCP_SYNCNT, O_TCP},
    {IPPROTO_TCP, TCP_LINGER2, O_TCP},
    {IPPROTO_TCP, TCP_DEFER_ACCEPT, O_TCP},
    {IPPROTO_TCP, TCP_USER_TIMEOUT, O_TCP},
    {IPPROTO_TCP, TCP_NOTSENT_LOWAT, O_TCP},
    {IPPROTO_TCP, TCP_CONGESTION, O_TCP},
    {IPPROTO_TCP, TCP_FASTOPEN, O_TCP},
    {IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, O_TCP},
    {IPPROTO_TCP, TCP_SAVE_SYN, O_TCP},
    {IPPROTO_TCP, TCP_TX_DELAY, O_TCP},
    {IPPROTO_TCP, TCP_INQ, O_TCP},
    {IPPROTO_TCP, TCP_RTO_MAX_MS, O_TCP},
    {IPPROTO_TCP, TCP_RTO_MIN_US, O_TCP},
    {IPPROTO_TCP, TCP_DELACK_MAX_US, O_TCP},
    {IPPROTO_TCP, TCP_FASTOPEN_CONNECT, O_TCP}, /* settable in state CLOSE only: the fresh socket's */
    {IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, O_TCP},
    {IPPROTO_TCP, TCP_FASTOPEN_KEY, O_TCP}, /* a listener's own keys (none: 0 bytes) */
    {IPPROTO_TCP, TCP_MAXSEG, O_TCP | O_NOEST},
    {IPPROTO_TCP, TCP_WINDOW_CLAMP, O_TCP | O_NOEST},
    {SOL_UDP, UDP_CORK, O_UDP},
    {SOL_UDP, UDP_SEGMENT, O_UDP},
    {SOL_UDP, UDP_GRO, O_UDP},
    {SOL_UDP, UDP_NO_CHECK6_TX, O_UDP | O_V6},
    {SOL_UDP, UDP_NO_CHECK6_RX, O_UDP | O_V6},
    {SOL_UDP, UDP_ENCAP, O_UDP}, /* ESP in UDP (IKE daemons' port 4500 socket) */
    {SOL_UDPLITE, UDPLITE_SEND_CSCOV, O_UDPLITE},
    {SOL_UDPLITE, UDPLITE_RECV_CSCOV, O_UDPLITE},
    {SOL_UDPLITE, UDP_SEGMENT, O_UDPLITE},
    {SOL_UDPLITE, UDP_NO_CHECK6_TX, O_UDPLITE | O_V6},
    {SOL_UDPLITE, UDP_NO_CHECK6_RX, O_UDPLITE | O_V6},
    {SOL_RAW, ICMP_FILTER, O_ICMP},
    {SOL_SOCKET, SO_PRIORITY, 0}, /* after IP_TOS, which sets the priority too */
    {IPPROTO_ICMPV6, ICMPV6_FILTER, O_ICMP6},
};

static bool opt_applies(const struct sk_optdef *d, int family, int type, int proto, bool est)
{
	int o = d->only;
	if (family == AF_UNIX && (o & O_UXOWN))
		return false;
	if ((o & O_V4) && !sk_has_v4_level(family, type))
		return false;
	if ((o & O_V6) && family != AF_INET6)
		return false;
	if ((o & O_TCP) && proto != IPPROTO_TCP)
		return false;
	if ((o & O_UDP) && proto != IPPROTO_UDP)
		return false;
	if ((o & O_TCPUDP) && proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return false;
	if ((o & O_UDPLITE) && proto != IPPROTO_UDPLITE)
		return false;
	if ((o & O_NOEST) && est)
		return false;
	if ((o & O_RAW) && type != SOCK_RAW)
		return false;
	if ((o & O_NOSTREAM) && type == SOCK_STREAM) /* set by accept() from the SYN, not settable */
		return false;
	if ((o & O_ICMP) && (type != SOCK_RAW || proto != IPPROTO_ICMP))
		return false;
	if ((o & O_ICMP6) && (type != SOCK_RAW || proto != IPPROTO_ICMPV6))
		return false;
	return true;
}

void dump_sk_opts_free(SkOptEntry **o, size_t n)
{
	for (size_t i = 0; o && i < n; i++) {
		free(o[i]->val.data);
		free(o[i]);
	}
	free(o);
}

/* The value to replay: buffer sizes read back doubled are set with the FORCE variant. */
static int opt_add(SkOptEntry **list, size_t *n, int level, int name, const uint8_t *v, socklen_t l,
		   struct cr_err *e)
{
	SkOptEntry *o = malloc(sizeof(*o));
	uint8_t *d = malloc(l ? l : 1);
	if (!o || !d) {
		free(o);
		free(d);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	sk_opt_entry__init(o);
	memcpy(d, v, l);
	if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF) && l == sizeof(int)) {
		int x;
		memcpy(&x, d, sizeof(x));
		x /= 2;
		memcpy(d, &x, sizeof(x));
		name = name == SO_SNDBUF ? SO_SNDBUFFORCE : SO_RCVBUFFORCE;
	}
	o->level = level, o->has_level = 1;
	o->name = name, o->has_name = 1;
	o->val.data = d, o->val.len = l, o->has_val = 1;
	list[(*n)++] = o;
	return 0;
}

/* A value getsockopt gives that no setsockopt set: TCP_MAXSEG of a socket without a connection reads the MSS
 * the user set, else the socket's own cached one, which is below TCP_MIN_MSS (88, the least setsockopt takes)
 * once IP_OPTIONS made the socket compute it without a route (saved, it failed the restore). */
static bool opt_not_set(const struct sk_optdef *d, const uint8_t *v, socklen_t l)
{
	int x;
	if (d->level != IPPROTO_TCP || d->name != TCP_MAXSEG || l != sizeof(x))
		return false;
	memcpy(&x, v, sizeof(x));
	return x < 88;
}

struct fresh_req {
	int family, type, proto, sk;
};

static int fresh_in(void *arg, struct cr_err *e)
{
	struct fresh_req *r = arg;
	(void)e;
	r->sk = socket(r->family, r->type | SOCK_CLOEXEC, r->proto);
	return 0;
}

int sk_fresh(int cfd, int family, int type, int proto)
{
	int sk = socket(family, type | SOCK_CLOEXEC, proto);
	if (sk >= 0 || (errno != EPERM && errno != EACCES))
		return sk;
	/* refused in crshim's network namespace (a raw or packet socket where crshim lacks CAP_NET_RAW over
	 * it: rootless) but allowed in the socket's own, owned by crshim's user namespace */
	int saved = errno;
	__cleanup_close int ns = ioctl(cfd, SIOCGSKNS);
	struct fresh_req r = {family, type, proto, -1};
	struct cr_err e;
	if (ns < 0 || ns_call(ns, CLONE_NEWNET, fresh_in, &r, &e) || r.sk < 0)
		return errno = saved, -1;
	return r.sk;
}

int dump_sk_opts(int cfd, int family, int type, int proto, bool est, SkOptEntry ***out, size_t *n,
		 struct cr_err *e)
{
	size_t nd = sizeof(optdefs) / sizeof(optdefs[0]);
	SkOptEntry **list = calloc(nd, sizeof(void *)); /* array of message pointers */
	if (!list)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*n = 0;
	/* a fresh socket of the same kind says which values are the defaults */
	__cleanup_close int fresh = sk_fresh(cfd, family, type, proto);
	if (fresh < 0)
		pr_info("fresh socket(%d, %d, %d): %s: every option is saved\n", family, type, proto,
			strerror(errno));
	for (size_t i = 0; i < nd; i++) {
		const struct sk_optdef *d = &optdefs[i];
		/* room for the longest: an IPv6 extension header (IPV6_HOPOPTS, ...) of 2048 bytes */
		uint8_t v[2048], f[2048];
		socklen_t l = sizeof(v), fl = sizeof(f);
		if (!opt_applies(d, family, type, proto, est))
			continue;
		if (getsockopt(cfd, d->level, d->name, v, &l) || opt_not_set(d, v, l))
			continue; /* not known to this kind of socket */
		if (fresh >= 0 && !(d->only & O_KEEP) && !getsockopt(fresh, d->level, d->name, f, &fl) &&
		    fl == l && !memcmp(f, v, l))
			continue;
		if (opt_add(list, n, d->level, d->name, v, l, e)) {
			dump_sk_opts_free(list, *n);
			return -1;
		}
		pr_debug("option %d/%d: %u bytes saved\n", d->level, d->name, l);
	}
	*out = list;
	return 0;
}

/* ---------------------------------------------------------------- inet */
/* IP_MULTICAST_IF of an IPv4 datagram or raw socket, or of an IPv6 datagram one (for its IPv4 traffic; an
 * IPv6 raw socket has no IPv4 level): getsockopt reads back only its address, the index (set
 * alone with a struct ip_mreqn, or the device of the address) comes from sk_mc_read and is saved with the
 * address as the ip_mreqn setsockopt takes (in place of the address alone). Without the iterator (no CAP_BPF
 * and CAP_PERFMON: a dump by a user; no BTF) an index set alone reads as address 0, as when none is set: the
 * two cannot be told apart and refusing would refuse every such socket, so the user is told, once per
 * process. An address read is saved alone: set again, it gives the index of its device, as setting it did
 * (only an ip_mreqn naming both an address and another device would differ). */
static int mc_if_index(struct dump_ctx *c, int fd, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	struct dump_sk *s = c->sk;
	struct ip_mreqn mr = {0};
	socklen_t l = sizeof(mr.imr_address);
	if (getsockopt(cfd, IPPROTO_IP, IP_MULTICAST_IF, &mr.imr_address, &l))
		return cr_fail_sys(e, "IP_MULTICAST_IF");
	if (sk_mc_read(s->pidfd, &s->mc, e))
		return -1;
	if (!s->mc.known) {
		if (!mr.imr_address.s_addr && !s->mc_said)
			eng_notice(
			    c->o,
			    "pid %d fd %d: a multicast interface set by index alone (IP_MULTICAST_IF with an "
			    "ip_mreqn) cannot be read (%s): datagram sockets whose IPv4 multicast interface "
			    "reads no address are saved without one (said once per process)",
			    c->pid, fd, s->mc.why);
		s->mc_said = true;
		return 0;
	}
	mr.imr_ifindex = (int)sk_mc_find(&s->mc, fd);
	if (!mr.imr_ifindex)
		return 0;
	pr_debug("fd %d: multicast interface %d (IP_MULTICAST_IF)\n", fd, mr.imr_ifindex);
	for (size_t i = 0; i < ie->n_opts; i++) { /* the address alone: dropped, the ip_mreqn in its place */
		SkOptEntry *o = ie->opts[i];
		if (o->level != IPPROTO_IP || o->name != IP_MULTICAST_IF)
			continue;
		free(o->val.data);
		free(o);
		// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
		memmove(&ie->opts[i], &ie->opts[i + 1], (ie->n_opts - i - 1) * sizeof(*ie->opts));
		ie->n_opts--;
		break;
	}
	return opt_add(ie->opts, &ie->n_opts, IPPROTO_IP, IP_MULTICAST_IF, (const uint8_t *)&mr, sizeof(mr),
		       e);
}

static int sk_addr(int cfd, bool peer, InetSkEntry *ie, struct cr_err *e)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	/* a closed TCP socket keeps its peer's name, which only SO_PEERNAME tells (getpeername: ENOTCONN) */
	bool closed = ie->protocol == IPPROTO_TCP && ie->state == TCP_CLOSE;
	if (closed && peer) /* SO_PEERNAME wants no more room than the name takes */
		l = ie->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if ((peer ? (closed ? getsockopt(cfd, SOL_SOCKET, SO_PEERNAME, &ss, &l)
			    : getpeername(cfd, (struct sockaddr *)&ss, &l))
		  : getsockname(cfd, (struct sockaddr *)&ss, &l))) {
		if (peer && errno == ENOTCONN)
			return 0;
		return cr_fail_sys(e, "%s", peer ? "getpeername" : "getsockname");
	}
	const void *a;
	size_t alen;
	unsigned port;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
		a = &s4->sin_addr, alen = 4, port = ntohs(s4->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
		a = &s6->sin6_addr, alen = 16, port = ntohs(s6->sin6_port);
		if (!peer && s6->sin6_scope_id)
			ie->scope_id = s6->sin6_scope_id, ie->has_scope_id = 1;
	} else {
		return peer ? 0 : cr_fail(e, "unexpected address family %d", ss.ss_family);
	}
	static const uint8_t zero[16];
	if (!peer && port == 0 && !memcmp(a, zero, alen))
		return 0; /* not bound */
	uint8_t *d = malloc(alen);
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(d, a, alen);
	if (peer) {
		ie->dst_addr.data = d, ie->dst_addr.len = alen, ie->has_dst_addr = 1;
		ie->dst_port = port, ie->has_dst_port = 1;
	} else {
		ie->src_addr.data = d, ie->src_addr.len = alen, ie->has_src_addr = 1;
		ie->src_port = port, ie->has_src_port = 1;
	}
	return 0;
}

/* An established connection needs --tcp-established and goes through repair mode. */
static int fill_tcp(struct dump_ctx *c, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	if (!c->o->tcp_established)
		return cr_fail(e, "TCP connection in state %s: dump with --tcp-established (or --tcp-close)",
			       sk_tcp_state_name(ie->state));
	struct dump_sk *s = c->sk;
	if (arr_room(&s->repair, &s->cap, s->nrepair, sizeof(*s->repair), 4))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (tcp_repair_dump(c->o, cfd, ie, &ie->tcp, e))
		return -1;
	int keep = fcntl(cfd, F_DUPFD_CLOEXEC, 0);
	if (keep < 0) {
		tcp_repair_off(cfd);
		return cr_fail_sys(e, "keep the connection's fd");
	}
	s->repair[s->nrepair++] = keep;
	if (!s->netlock && ie->tcp->netlock)
		s->netlock = strdup(ie->tcp->netlock);
	return 0;
}

/* A connecting socket (--tcp-established): locked as a connection, until the restored tree runs. */
static int lock_connecting(struct dump_ctx *c, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	struct dump_sk *s = c->sk;
	if (!ie->has_src_addr || !ie->has_dst_addr)
		return cr_fail(e, "connecting TCP socket without both addresses");
	if (tcp_lock_only(c->o, cfd, ie, &ie->tcp, e))
		return -1;
	if (!s->netlock && ie->tcp->netlock && !(s->netlock = strdup(ie->tcp->netlock)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (!s->lockfd && (s->lockfd = fcntl(cfd, F_DUPFD_CLOEXEC, 0) + 1) <= 0)
		return cr_fail_sys(e, "keep the connecting socket's fd");
	return 0;
}

/* A corked UDP socket (UDP_CORK), or one written with MSG_MORE and not yet without it, holds the datagram
 * being built in its write queue, which nothing reads or writes back: refused, as CRIU does for the cork (the
 * data would be lost silently). Without the cork SIOCOUTQ also counts datagrams sent and not yet freed by the
 * device: a queue that stays for half a second is a datagram being built. */
static int udp_corked(int cfd, const InetSkEntry *ie, struct cr_err *e)
{
	int cork = 0, outq = 0;
	if (ie->type != SOCK_DGRAM || (ie->protocol != IPPROTO_UDP && ie->protocol != IPPROTO_UDPLITE) ||
	    getint(cfd, SOL_UDP, UDP_CORK, &cork) || ioctl(cfd, SIOCOUTQ, &outq) || outq <= 0)
		return 0;
	if (cork)
		return cr_fail(
		    e,
		    "corked UDP socket (UDP_CORK) with data not yet sent (%d bytes in its write queue): "
		    "cannot be restored",
		    outq);
	for (int i = 0; i < 50 && outq > 0; i++) {
		usleep(10000);
		if (ioctl(cfd, SIOCOUTQ, &outq))
			return 0;
	}
	if (outq <= 0)
		return 0;
	return cr_fail(e,
		       "UDP socket with a datagram being built (written with MSG_MORE, %d bytes in its write "
		       "queue): cannot be restored",
		       outq);
}

static int fill_inet(struct dump_ctx *c, int fd, int cfd, int family, uint32_t fl, FileEntry *fe,
		     struct cr_err *e)
{
	int type, proto;
	InetSkEntry *ie = fe->inet_sk = fe_sub_new(fe, FILE_KIND__FILE_INETSK, &inet_sk_entry__descriptor, e);
	if (!ie)
		return -1;
	if (getint(cfd, SOL_SOCKET, SO_TYPE, &type) || getint(cfd, SOL_SOCKET, SO_PROTOCOL, &proto))
		return cr_fail_sys(e, "SO_TYPE");
	ie->family = (uint32_t)family, ie->has_family = 1;
	ie->type = (uint32_t)type, ie->has_type = 1;
	ie->protocol = (uint32_t)proto, ie->has_protocol = 1;
	ie->flags = fl & ~(uint32_t)O_CLOEXEC, ie->has_flags = 1;
	if (type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_RAW)
		return cr_fail(e, "inet socket of type %d is not supported", type);
	if (type == SOCK_STREAM && proto != IPPROTO_TCP)
		return cr_fail(e, "inet stream socket of protocol %d (not TCP) is not supported", proto);
	/* sock_diag; getsockname/getpeername for the kinds it does not know (ping, maybe raw) */
	int known = sk_diag_fill(c, &c->sk->diag, fd, cfd, ie, e);
	if (known < 0)
		return -1;
	if (known > 0 && (sk_addr(cfd, false, ie, e) || sk_addr(cfd, true, ie, e)))
		return -1;
	if (known > 0 && ie->has_dst_addr && proto != IPPROTO_TCP)
		ie->state = TCP_ESTABLISHED, ie->has_state = 1;
	if (proto == IPPROTO_TCP && tcp_keys_dump(c, fd, cfd, ie, e)) /* tcp-keys.c; MD5 keys: sk_diag_fill */
		return -1;
	if (udp_corked(cfd, ie, e))
		return -1;
	/* options before repair mode (which changes SO_REUSEADDR) */
	size_t n = 0;
	/* a connection's MSS and window clamp, also of one that ended, are the connection's (not settable) */
	bool est = proto == IPPROTO_TCP ? sk_tcp_repair_state(ie->state) || ie->has_dst_addr
					: ie->state == TCP_ESTABLISHED;
	if (dump_sk_opts(cfd, family, type, proto, est, &ie->opts, &n, e))
		return -1;
	ie->n_opts = n;
	if (sk_has_v4_level(family, type) && type != SOCK_STREAM && mc_if_index(c, fd, cfd, ie, e))
		return -1;
	if (sk_mcast_dump(c->pid, cfd, ie, e))
		return -1;
	if (proto == IPPROTO_TCP && ie->state == TCP_SYN_SENT && lock_connecting(c, cfd, ie, e))
		return -1;
	if (proto == IPPROTO_TCP && sk_tcp_repair_state(ie->state)) {
		if (c->o->tcp_close) /* not read, not locked: restored closed (restore --tcp-close) */
			pr_info("fd %d: TCP connection in state %s saved without its stream (--tcp-close)\n",
				fd, sk_tcp_state_name(ie->state));
		else if (fill_tcp(c, cfd, ie, e))
			return -1;
	}
	if (sk_queue_dump_inet(c->o, c->pid, fd, cfd, ie, e) || sk_priv_dump_check(ie, e))
		return -1;
	pr_debug("fd %d: inet socket family %d type %d proto %d state %u, %zu options\n", fd, family, type,
		 proto, ie->state, n);
	return 0;
}

int dump_sk_fill(struct dump_ctx *c, int fd, uint32_t fl, FileEntry *fe, struct cr_err *e)
{
	__cleanup_close int cfd = sk_copy(c, fd, e);
	int dom, type, proto;
	if (cfd < 0)
		return -1;
	if (getint(cfd, SOL_SOCKET, SO_DOMAIN, &dom) || getint(cfd, SOL_SOCKET, SO_TYPE, &type) ||
	    getint(cfd, SOL_SOCKET, SO_PROTOCOL, &proto))
		return cr_fail_sys(e, "fd %d: socket kind", fd);
	int ret;
	if (dom == AF_INET || dom == AF_INET6)
		ret = fill_inet(c, fd, cfd, dom, fl, fe, e);
	else if (dom == AF_NETLINK)
		ret = dump_sk_netlink(cfd, type, proto, fl, fe, e);
	else if (dom == AF_PACKET)
		ret = dump_sk_packet(c->o, c->pid, fd, cfd, type, proto, fl, fe, e);
	else
		ret = cr_fail(e, "socket of family %d is not supported yet", dom);
	if (!ret && dom == AF_NETLINK)
		ret = sk_netns_save(c, cfd, &fe->netlink_sk->netns, &fe->netlink_sk->has_netns, e);
	else if (!ret && dom == AF_PACKET)
		ret = sk_netns_save(c, cfd, &fe->packet_sk->netns, &fe->packet_sk->has_netns, e);
	if (!ret && (dom == AF_NETLINK || dom == AF_PACKET))
		sk_queue_warn(c->o, c->pid, fd, cfd, dom == AF_NETLINK ? "netlink" : "packet");
	return ret ? cr_wrap(e, "fd %d (socket, pid %d)", fd, c->pid) : 0;
}

void dump_sk_entry_free(FileEntry *fe)
{
	if (fe->inet_sk) {
		free(fe->inet_sk->src_addr.data);
		free(fe->inet_sk->dst_addr.data);
		free(fe->inet_sk->closed_rcv.data);
		sk_queue_free(fe->inet_sk);
		sk_mcast_free(fe->inet_sk);
		tcp_md5_free(fe->inet_sk);
		dump_sk_opts_free(fe->inet_sk->opts, fe->inet_sk->n_opts);
		tcp_stream_free(fe->inet_sk->tcp);
		free(fe->inet_sk);
		fe->inet_sk = NULL;
	}
	if (fe->netlink_sk) {
		free(fe->netlink_sk->groups);
		dump_sk_opts_free(fe->netlink_sk->opts, fe->netlink_sk->n_opts);
		free(fe->netlink_sk);
		fe->netlink_sk = NULL;
	}
	if (fe->packet_sk) {
		dump_sk_opts_free(fe->packet_sk->opts, fe->packet_sk->n_opts);
		dump_pkt_rings_free(fe->packet_sk);
		free(fe->packet_sk->device); /* a SOCK_PACKET socket's device (sk-nlpkt.c) */
		free(fe->packet_sk);
		fe->packet_sk = NULL;
	}
}

void dump_sk_finish(struct dump_ctx *c, enum dump_sk_end how)
{
	struct dump_sk *s = c->sk;
	if (!s)
		return;
	if (how == DUMP_SK_RESUME && s->netlock) { /* in the connections' namespace: while one is open */
		struct cr_err e2 = {0};
		if (net_unlock(s->netlock, s->nrepair ? s->repair[0] : s->lockfd - 1, &e2))
			pr_warn("network unlock: %s\n", e2.msg);
	}
	for (size_t i = 0; i < s->nrepair; i++) {
		if (how == DUMP_SK_RESUME)
			tcp_repair_off(s->repair[i]);
		close(s->repair[i]);
	}
	if (s->nrepair)
		pr_info("%zu TCP connections of task %d %s\n", s->nrepair, c->pid,
			how == DUMP_SK_RESUME ? "left repair mode"
					      : "stay in repair mode until the task is gone");
	sk_diag_free(s->diag);
	sk_mc_free(&s->mc);
	if (s->lockfd > 0)
		close(s->lockfd - 1);
	free(s->netlock);
	free(s->repair);
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s);
	c->sk = NULL;
}

/* ---------------------------------------------------------------- the kinds (sk-nlpkt.c: netlink, packet) */

static bool is_inet(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISSOCK(f->st.st_mode) && (f->domain == AF_INET || f->domain == AF_INET6);
}

int dump_sk_kind(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_sk_fill(c, f->fd, f->fi.flags, fe, e);
}

void dump_sk_kind_release(FileEntry *fe, struct fd_src *f)
{
	dump_sk_entry_free(fe);
}

int rst_sk_kind_check(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e)
{
	return rst_sk_check(f, e) ? cr_wrap(e, "fd %d", fi->fd) : 0;
}

int rst_sk_kind_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		     size_t len)
{
	return rst_sk_open(f, fi, msg, len);
}

FD_KIND(fdk_inet) = {
    .name = "inet socket",
    .kind = FILE_KIND__FILE_INETSK,
    .prio = 20,
    .is = is_inet,
    .dump = dump_sk_kind,
    .release = dump_sk_kind_release,
    .tree_desc = true,
    .check = rst_sk_kind_check,
    .open = rst_sk_kind_open,
    .make = rst_sk_make,
};

/* ---------------------------------------------------------------- sockets no kind takes */

/* Last of all kinds: an open socket (not an O_PATH fd of a socket's node: a file) that is not a unix one
 * (whose kind may pass one it cannot find on, for dump-files.c's own line) and that no kind took: of a
 * family crshim does not support, or whose family could not be read (dump-files.c's sk_domain: -1). */
static bool is_other_sk(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISSOCK(f->st.st_mode) && !(f->fi.flags & O_PATH) && f->domain != AF_UNIX;
}

/* Refused with one line: the family, or why it cannot be read (read again, for the error). */
static int dump_other_sk(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	int dom = f->domain >= 0 ? f->domain : dump_sk_domain(c, f->fd, e);
	if (dom < 0)
		return cr_wrap(e, "fd %d (socket, pid %d)", f->fd, c->pid);
	if (f->domain < 0)
		return cr_fail(e,
			       "fd %d (socket, pid %d): its family (%d) could be read on a second try only",
			       f->fd, c->pid, dom);
	return cr_fail(e, "fd %d (socket, pid %d): socket of family %d is not supported yet", f->fd, c->pid,
		       dom);
}

FD_KIND(fdk_other_sk) = {
    .name = "socket of another family",
    .kind = -1, /* no entry of its own: it only refuses */
    .prio = 99,
    .is = is_other_sk,
    .dump = dump_other_sk,
};
