/* Receive queues of datagram sockets: UDP saved and put back, the others reported (see sk-inet-queue.h). */
#define LOG_PREFIX "sk-queue: "
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "restore.h"
#include "net/sk-inet-queue.h"
#include "net/sk-inet.h"

#define PEEK_MAX 65536u	     /* a UDP datagram holds at most 65507 bytes (IPv4), 65527 (IPv6) */
#define QUEUE_MAX (1u << 20) /* datagrams: more than any receive buffer can hold */
#define INJ_TTL 233	     /* TTL / hop limit of the datagrams put back: the filter lets only them in */

uint32_t sk_rmem(int sk)
{
	uint32_t mi[SK_MEMINFO_VARS] = {0};
	socklen_t l = sizeof(mi);
	if (getsockopt(sk, SOL_SOCKET, SO_MEMINFO, mi, &l) || l <= SK_MEMINFO_RMEM_ALLOC * sizeof(mi[0]))
		return 0;
	return mi[SK_MEMINFO_RMEM_ALLOC];
}

/* ---------------------------------------------------------------- dump */

static void warn_lost(const struct cr_opts *o, int pid, int fd, const char *kind, uint32_t bytes,
		      const char *why)
{
	eng_notice(o,
		   "pid %d fd %d: %s socket: %u bytes of queued data (receive queue memory) are not saved "
		   "(%s): lost at restore",
		   pid, fd, kind, bytes, why);
}

void sk_queue_warn(const struct cr_opts *o, int pid, int fd, int cfd, const char *kind)
{
	uint32_t q = sk_rmem(cfd);
	if (q)
		warn_lost(o, pid, fd, kind, q,
			  "messages from the kernel or the network cannot be queued again");
}

static int add_dgram(InetSkEntry *ie, size_t *cap, const uint8_t *d, size_t n,
		     const struct sockaddr_storage *ss, struct cr_err *e)
{
	const void *a;
	size_t alen;
	unsigned port;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		a = &s4->sin_addr, alen = 4, port = ntohs(s4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		a = &s6->sin6_addr, alen = 16, port = ntohs(s6->sin6_port);
	} else {
		return cr_fail(e, "queued datagram from address family %d", ss->ss_family);
	}
	if (arr_room(&ie->rqueue, cap, ie->n_rqueue, sizeof(void *), 8)) /* an array of message pointers */
		return cr_fail_errno(e, ENOMEM, "out of memory");
	SkDgramEntry *g = calloc(1, sizeof(*g));
	uint8_t *data = malloc(n ? n : 1), *addr = malloc(alen);
	if (!g || !data || !addr) {
		free(g), free(data), free(addr);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	sk_dgram_entry__init(g);
	memcpy(data, d, n);
	memcpy(addr, a, alen);
	g->data.data = data, g->data.len = n, g->has_data = 1;
	g->src_addr.data = addr, g->src_addr.len = alen, g->has_src_addr = 1;
	g->src_port = port, g->has_src_port = 1;
	ie->rqueue[ie->n_rqueue++] = g;
	return 0;
}

/* One peek (MSG_TRUNC: the whole length); 0 queue end, 1 a datagram (*n bytes), -1 error (errno). */
static int peek_one(int cfd, uint8_t *buf, size_t blen, struct sockaddr_storage *ss, size_t *n)
{
	for (;;) {
		struct iovec iov = {buf, blen};
		struct msghdr mh = {
		    .msg_name = ss, .msg_namelen = sizeof(*ss), .msg_iov = &iov, .msg_iovlen = 1};
		memset(ss, 0, sizeof(*ss));
		ssize_t r = recvmsg(cfd, &mh, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? 0 : -1;
		*n = (size_t)r;
		return 1;
	}
}

static int set_peek_off(int cfd, int v)
{
	return setsockopt(cfd, SOL_SOCKET, SO_PEEK_OFF, &v, sizeof(v));
}

/* Walk the queue at growing peek offsets. A zero-length datagram that was peeked before is skipped by
 * peeks at an offset: the head one is found by a plain peek first. */
static int walk(const struct cr_opts *o, int pid, int fd, int cfd, InetSkEntry *ie, uint8_t *buf,
		struct cr_err *e)
{
	struct sockaddr_storage ss, head;
	size_t n = 0, cap = 0, head_len = 1;
	int r, errs = 0;
	if (set_peek_off(cfd, -1))
		return cr_fail_sys(e, "fd %d: SO_PEEK_OFF", fd);
	if (peek_one(cfd, buf, 0, &head, &head_len) <= 0)
		head_len = 1; /* empty, or a pending error read below */
	if (set_peek_off(cfd, 0))
		return cr_fail_sys(e, "fd %d: SO_PEEK_OFF", fd);
	while ((r = peek_one(cfd, buf, PEEK_MAX, &ss, &n)) != 0) {
		if (r < 0 && errno != EBADF && errno != ENOTSOCK && errs++ < 8) {
			/* sock_error(): the task would have read it next; it is gone now */
			eng_notice(
			    o,
			    "pid %d fd %d: UDP socket: its pending error (%s) was read while saving the "
			    "queue: the task will not see it",
			    pid, fd, strerror(errno));
			continue;
		}
		if (r < 0)
			return cr_fail_sys(e, "fd %d: peek at the receive queue", fd);
		if (n > PEEK_MAX)
			return cr_fail(e, "fd %d: queued datagram of %zu bytes (UDP_GRO?) is not supported",
				       fd, n);
		if (ie->n_rqueue == 0 && head_len == 0 && n != 0 && add_dgram(ie, &cap, buf, 0, &head, e))
			return -1;
		if (ie->n_rqueue >= QUEUE_MAX)
			return cr_fail(e, "fd %d: more than %u datagrams queued", fd, QUEUE_MAX);
		if (add_dgram(ie, &cap, buf, n, &ss, e))
			return -1;
	}
	if (ie->n_rqueue == 0 && head_len == 0 && add_dgram(ie, &cap, buf, 0, &head, e))
		return -1;
	return 0;
}

static bool is_udp(const InetSkEntry *ie)
{
	return ie->type == SOCK_DGRAM && ie->protocol == IPPROTO_UDP;
}

int sk_queue_dump_inet(const struct cr_opts *o, int pid, int fd, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	if (ie->type == SOCK_STREAM)
		return 0;
	uint32_t q = sk_rmem(cfd);
	if (!is_udp(ie)) {
		if (q)
			warn_lost(o, pid, fd, ie->type == SOCK_RAW ? "raw" : "ICMP", q,
				  "replies and packets from the network cannot be queued again");
		return 0;
	}
	uint32_t mi[SK_MEMINFO_VARS] = {0};
	socklen_t l = sizeof(mi);
	if (!q && !getsockopt(cfd, SOL_SOCKET, SO_MEMINFO, mi, &l))
		return 0; /* empty: no peek at all */
	int old = -1;
	l = sizeof(old);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEEK_OFF, &old, &l))
		return cr_fail_sys(e, "fd %d: SO_PEEK_OFF: the receive queue cannot be read", fd);
	uint8_t *buf = malloc(PEEK_MAX);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int r = walk(o, pid, fd, cfd, ie, buf, e);
	free(buf);
	if (set_peek_off(cfd, old) && !r)
		r = cr_fail_sys(e, "fd %d: SO_PEEK_OFF back to %d", fd, old);
	if (!r && ie->n_rqueue)
		pr_info("fd %d: %zu datagrams queued, saved\n", fd, ie->n_rqueue);
	return r;
}

void sk_queue_free(InetSkEntry *ie)
{
	for (size_t i = 0; i < ie->n_rqueue; i++) {
		free(ie->rqueue[i]->data.data);
		free(ie->rqueue[i]->src_addr.data);
		free(ie->rqueue[i]);
	}
	free(ie->rqueue);
	ie->rqueue = NULL;
	ie->n_rqueue = 0;
}

/* ---------------------------------------------------------------- restore */

struct ep {
	int fam;
	uint8_t a[16];
	uint16_t port;
};

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static int to_ep(const ProtobufCBinaryData *a, unsigned port, struct ep *o)
{
	memset(o, 0, sizeof(*o));
	o->port = (uint16_t)port;
	if (a->len == 4) {
		o->fam = AF_INET, memcpy(o->a, a->data, 4);
	} else if (a->len == 16 && !memcmp(a->data, v4mapped, 12)) {
		o->fam = AF_INET, memcpy(o->a, a->data + 12, 4);
	} else if (a->len == 16) {
		o->fam = AF_INET6, memcpy(o->a, a->data, 16);
	} else {
		return -1;
	}
	return 0;
}

static const char *ep_str(const struct ep *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	inet_ntop(p->fam, p->a, a, sizeof(a));
	snprintf(buf, len, p->fam == AF_INET6 ? "[%s]:%u" : "%s:%u", a, p->port);
	return buf;
}

static socklen_t ep_sa(const struct ep *p, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (p->fam == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET, s4->sin_port = htons(p->port);
		memcpy(&s4->sin_addr, p->a, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	s6->sin6_family = AF_INET6, s6->sin6_port = htons(p->port);
	memcpy(&s6->sin6_addr, p->a, 16);
	return sizeof(*s6);
}

/* Where a datagram from src goes: the socket's own address, loopback if it is bound to any address. */
static int dst_for(const InetSkEntry *ie, const struct ep *src, struct ep *dst)
{
	static const uint8_t zero[16];
	ProtobufCBinaryData any = {ie->family == AF_INET ? 4 : 16, (uint8_t *)zero};
	if (to_ep(ie->has_src_addr ? &ie->src_addr : &any, ie->src_port, dst))
		return -1;
	if (!memcmp(dst->a, zero, 16)) {
		dst->fam = src->fam;
		if (src->fam == AF_INET)
			dst->a[0] = 127, dst->a[3] = 1;
		else
			dst->a[15] = 1;
	}
	return dst->fam == src->fam ? 0 : -1;
}

static uint32_t sum16(const uint8_t *b, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

/* The whole IP packet of a datagram from src to dst (UDP checksum over the pseudo header). */
static size_t build_pkt(uint8_t *pkt, const struct ep *src, const struct ep *dst, const uint8_t *d, size_t n)
{
	size_t ih = src->fam == AF_INET ? sizeof(struct iphdr) : sizeof(struct ip6_hdr);
	uint16_t ulen = (uint16_t)(sizeof(struct udphdr) + n);
	uint32_t s;
	memset(pkt, 0, ih + sizeof(struct udphdr));
	if (src->fam == AF_INET) {
		struct iphdr *ip = (struct iphdr *)pkt;
		ip->version = 4, ip->ihl = 5, ip->ttl = INJ_TTL, ip->protocol = IPPROTO_UDP;
		ip->tot_len = htons((uint16_t)(ih + ulen));
		memcpy(&ip->saddr, src->a, 4), memcpy(&ip->daddr, dst->a, 4);
		s = sum16(src->a, 4, sum16(dst->a, 4, 0));
	} else {
		struct ip6_hdr *h = (struct ip6_hdr *)pkt;
		h->ip6_flow = htonl(6u << 28), h->ip6_plen = htons(ulen);
		h->ip6_nxt = IPPROTO_UDP, h->ip6_hlim = INJ_TTL;
		memcpy(&h->ip6_src, src->a, 16), memcpy(&h->ip6_dst, dst->a, 16);
		s = sum16(src->a, 16, sum16(dst->a, 16, 0));
	}
	struct udphdr *u = (struct udphdr *)(pkt + ih);
	u->source = htons(src->port), u->dest = htons(dst->port), u->len = htons(ulen);
	if (n) /* an empty datagram has no data (d may be NULL) */
		memcpy(pkt + ih + sizeof(*u), d, n);
	s = sum16(pkt + ih, sizeof(*u) + n, s + IPPROTO_UDP + ulen);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	u->check = htons((uint16_t)~s) ? htons((uint16_t)~s) : 0xffff;
	return ih + ulen;
}

struct inj {
	int raw[2]; /* IPv4, IPv6 raw sockets (IPPROTO_RAW: the header is ours) */
	bool noraw; /* no CAP_NET_RAW: from a bound UDP socket */
	uint8_t *pkt;
};

/* The datagrams put back pass the lock of a network namespace the restore made (netns_lock: the mark of the
 * lock's own packets); best effort (no CAP_NET_ADMIN: not marked). */
static void pass_lock(int sk)
{
	int mark = NETNS_LOCK_PASS_MARK;
	setsockopt(sk, SOL_SOCKET, SO_MARK, &mark, sizeof(mark));
}

/* Without a raw socket: from a UDP socket bound to the sender's address (free, or shared). */
static int send_bound(const struct ep *src, const struct ep *dst, const SkDgramEntry *g)
{
	__cleanup_close int t = socket(src->fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int on = 1;
	struct sockaddr_storage a, b;
	if (t < 0)
		return -1;
	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	setsockopt(t, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on));
	pass_lock(t);
	int ttl = INJ_TTL;
	if (src->fam == AF_INET) {
		setsockopt(t, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on));
		setsockopt(t, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	} else {
		setsockopt(t, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on));
		setsockopt(t, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
	}
	socklen_t al = ep_sa(src, &a), bl = ep_sa(dst, &b);
	if (bind(t, (struct sockaddr *)&a, al))
		return -1;
	ssize_t r = sendto(t, g->data.data, g->data.len, 0, (struct sockaddr *)&b, bl);
	return r == (ssize_t)g->data.len ? 0 : -1;
}

static int send_one(struct inj *j, const struct ep *src, const struct ep *dst, const SkDgramEntry *g)
{
	int k = src->fam == AF_INET ? 0 : 1;
	if (!j->noraw && j->raw[k] < 0) {
		j->raw[k] = socket(src->fam, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
		if (j->raw[k] < 0 && (errno == EPERM || errno == EACCES))
			j->noraw = true;
		else if (j->raw[k] < 0)
			return -1;
		else
			pass_lock(j->raw[k]);
	}
	if (j->noraw)
		return send_bound(src, dst, g);
	struct ep d0 = *dst;
	struct sockaddr_storage to;
	d0.port = 0; /* raw: the port field would name the protocol */
	socklen_t tl = ep_sa(&d0, &to);
	size_t n = build_pkt(j->pkt, src, dst, g->data.data, g->data.len);
	return sendto(j->raw[k], j->pkt, n, 0, (struct sockaddr *)&to, tl) == (ssize_t)n ? 0 : -1;
}

/* Wait until the datagram sent is in sk's queue (its memory grew), so that the next one comes after. */
static int wait_queued(int sk, uint32_t before)
{
	for (int i = 0; i < 3000; i++) {
		if (sk_rmem(sk) > before)
			return 0;
		if (i < 200)
			sched_yield();
		else
			usleep(1000);
	}
	return -1;
}

static int inject(int sk, const InetSkEntry *ie, struct inj *j, char *msg, size_t len)
{
	char sa[64], da[64];
	for (size_t i = 0; i < ie->n_rqueue; i++) {
		const SkDgramEntry *g = ie->rqueue[i];
		struct ep src, dst;
		errno = 0;
		if (!g->has_src_addr || to_ep(&g->src_addr, g->src_port, &src) || dst_for(ie, &src, &dst))
			return rst_errmsg(msg, len, "queued datagram %zu: bad sender address", i);
		static const uint8_t zero[16];
		if (!memcmp(src.a, zero, 16) || src.port == 0)
			return rst_errmsg(msg, len, "queued datagram %zu: sender %s cannot be reproduced", i,
					  ep_str(&src, sa, sizeof(sa)));
		if (g->data.len > 65507)
			return rst_errmsg(msg, len, "queued datagram %zu: %zu bytes: too long", i,
					  g->data.len);
		uint32_t before = sk_rmem(sk);
		if (send_one(j, &src, &dst, g))
			return rst_errmsg(msg, len, "queued datagram %zu: cannot send it again from %s%s", i,
					  ep_str(&src, sa, sizeof(sa)), j->noraw ? " (no CAP_NET_RAW)" : "");
		errno = 0;
		if (wait_queued(sk, before))
			return rst_errmsg(msg, len,
					  "queued datagram %zu (from %s) did not reach the socket at %s", i,
					  ep_str(&src, sa, sizeof(sa)), ep_str(&dst, da, sizeof(da)));
	}
	return 0;
}

/* While the queue is put back, only its datagrams get in (TTL INJ_TTL): one from the network in between
 * would come before older ones (it is dropped, as if it had come while the task was dumped). */
void sk_queue_filter(int sk, const InetSkEntry *ie)
{
	if (!ie->n_rqueue || !is_udp(ie))
		return;
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF), /* IP version */
	    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, 2),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF + 8), /* IPv4 TTL */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, INJ_TTL, 2, 3),
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF + 7), /* IPv6 hop limit */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, INJ_TTL, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};
	if (setsockopt(sk, SOL_SOCKET, SO_ATTACH_FILTER, &p, sizeof(p)))
		pr_info("SO_ATTACH_FILTER: %s: other datagrams may come in while the queue is put back\n",
			strerror(errno));
}

int sk_queue_restore(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	if (!ie->n_rqueue)
		return 0;
	errno = 0;
	if (!is_udp(ie))
		return rst_errmsg(msg, len, "queued datagrams on a socket that is not UDP");
	struct inj j = {{-1, -1}, false, malloc(PEEK_MAX + 128)};
	if (!j.pkt)
		return rst_errmsg(msg, len, "out of memory");
	/* room for the whole queue, whatever the skb sizes; the size is put back after */
	int rb = 0;
	socklen_t l = sizeof(rb);
	size_t need = 1u << 20;
	for (size_t i = 0; i < ie->n_rqueue; i++)
		need += 2 * (ie->rqueue[i]->data.len + 1024);
	int want = need > (size_t)(INT32_MAX / 4) ? INT32_MAX / 4 : (int)need;
	bool grown = !getsockopt(sk, SOL_SOCKET, SO_RCVBUF, &rb, &l) && rb < want &&
		     !sk_priv_setsockopt(sk, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want));
	int r = inject(sk, ie, &j, msg, len);
	int zero = 0; /* the filter of sk_queue_filter, if it could be attached */
	if (setsockopt(sk, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)) && errno != ENOENT && !r)
		r = rst_errmsg(msg, len, "SO_DETACH_FILTER");
	int half = rb / 2;
	if (grown && sk_priv_setsockopt(sk, SOL_SOCKET, SO_RCVBUFFORCE, &half, sizeof(half)) && !r)
		r = rst_errmsg(msg, len, "SO_RCVBUFFORCE back to %d", half);
	for (int k = 0; k < 2; k++)
		if (j.raw[k] >= 0)
			close(j.raw[k]);
	free(j.pkt);
	if (!r)
		pr_debug("%zu queued datagrams put back\n", ie->n_rqueue);
	return r;
}
