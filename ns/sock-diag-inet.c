/* Inet socket discovery through NETLINK_SOCK_DIAG (see sock-diag.h): one dump per table (TCP, UDP, UDP-Lite,
 * raw; IPv4 and IPv6) of the net namespace of a task, sent and parsed by ns_diag_query (libnl-3); TCP with
 * INET_DIAG_INFO asked, for the MD5 keys it brings (and, when a socket has some, whether a VRF device is
 * there, through libnl-route-3). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "sock-diag.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif
#define ST_TIME_WAIT 6
#define ST_NEW_SYN_RECV 12
#define ST_BOUND_INACTIVE 13 /* Linux 6.8+: bound TCP sockets neither listening nor connected */

struct inet_q {
	struct ns_inet_table *t;
	uint8_t proto;
};

static int inet_add(const void *hdr, struct nlattr **tb, void *arg, struct cr_err *e)
{
	const struct inet_diag_msg *m = hdr;
	struct inet_q *q = arg;
	struct ns_inet_table *t = q->t;
	if (!m->idiag_inode)
		return 0;	    /* time-wait, request and not yet accepted sockets: no file */
	if (!(t->n & (t->n + 1))) { /* grow at 0, 1, 3, 7, ... entries */
		struct ns_inet_sk *n = realloc(t->sk, (t->n * 2 + 2) * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		t->sk = n;
	}
	struct ns_inet_sk *s = &t->sk[t->n++];
	memset(s, 0, sizeof(*s));
	s->ino = m->idiag_inode;
	s->family = m->idiag_family;
	s->protocol = q->proto;
	s->raw = q->proto == IPPROTO_RAW;
	s->state = m->idiag_state == ST_BOUND_INACTIVE ? 7 /* TCP_CLOSE */ : m->idiag_state;
	s->sport = ntohs(m->id.idiag_sport);
	s->dport = ntohs(m->id.idiag_dport);
	memcpy(s->src, m->id.idiag_src, 16);
	memcpy(s->dst, m->id.idiag_dst, 16);
	s->ifindex = m->id.idiag_if;
	s->rqueue = m->idiag_rqueue;
	s->wqueue = m->idiag_wqueue;
	s->uid = m->idiag_uid;
	if (tb[INET_DIAG_SHUTDOWN] && nla_len(tb[INET_DIAG_SHUTDOWN]) >= 1)
		s->shutdown = nla_get_u8(tb[INET_DIAG_SHUTDOWN]);
	if (s->raw && tb[INET_DIAG_PROTOCOL] && nla_len(tb[INET_DIAG_PROTOCOL]) >= 1)
		s->protocol = nla_get_u8(tb[INET_DIAG_PROTOCOL]);
	if (q->proto == IPPROTO_TCP && tb[INET_DIAG_MD5SIG] && nla_len(tb[INET_DIAG_MD5SIG]) > 0) {
		uint32_t n = (uint32_t)nla_len(tb[INET_DIAG_MD5SIG]);
		if (!(s->md5 = malloc(n)))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		memcpy(s->md5, nla_data(tb[INET_DIAG_MD5SIG]), n);
		s->md5_len = n;
	}
	return 0;
}

/* One table; a protocol the kernel has no sock_diag module for (ENOENT) is left out (some kernels answer
 * with an empty dump instead). */
static int inet_dump(struct ns_inet_table *t, uint8_t family, uint8_t proto, struct cr_err *e)
{
	struct inet_diag_req_v2 r;
	struct inet_q q = {t, proto};
	memset(&r, 0, sizeof(r));
	r.sdiag_family = family;
	r.sdiag_protocol = proto;
	r.idiag_states = ~0u;
	if (proto == IPPROTO_TCP)
		r.idiag_states &= ~((1u << ST_TIME_WAIT) | (1u << ST_NEW_SYN_RECV));
	if (proto == IPPROTO_RAW)
		r.pad = IPPROTO_RAW; /* sdiag_raw_protocol: raw sockets of every protocol */
	if (proto == IPPROTO_TCP)    /* with it (and CAP_NET_ADMIN) the kernel adds INET_DIAG_MD5SIG */
		r.idiag_ext = 1 << (INET_DIAG_INFO - 1);
	r.id.idiag_cookie[0] = r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	struct cr_err e2 = {0};
	if (ns_diag_query(&r, sizeof(r), true, sizeof(struct inet_diag_msg), INET_DIAG_MAX, inet_add, &q,
			  &e2)) {
		if (e2.errnum == ENOENT)
			return 0;
		*e = e2;
		return cr_wrap(e, "%s %s sockets", family == AF_INET ? "IPv4" : "IPv6",
			       proto == IPPROTO_TCP   ? "TCP"
			       : proto == IPPROTO_UDP ? "UDP"
			       : proto == IPPROTO_RAW ? "raw"
						      : "UDP-Lite");
	}
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	uint32_t x = ((const struct ns_inet_sk *)a)->ino, y = ((const struct ns_inet_sk *)b)->ino;
	return x < y ? -1 : x > y;
}

/* Is there a VRF device in the net namespace this thread is in? */
static int vrf_here(bool *vrf, struct cr_err *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cache *links = NULL;
	int r = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
	if (r >= 0)
		r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	for (struct nl_object *o = r >= 0 ? nl_cache_get_first(links) : NULL; o; o = nl_cache_get_next(o)) {
		const char *kind = rtnl_link_get_type((struct rtnl_link *)o);
		if (kind && !strcmp(kind, "vrf"))
			*vrf = true;
	}
	if (links)
		nl_cache_free(links);
	if (sk)
		nl_socket_free(sk);
	return r < 0 ? cr_fail_errno(e, EIO, "the links of the namespace: %s", nl_geterror(r)) : 0;
}

/* Every table, in the net namespace this thread is in (ns_diag_in_netns). */
static int collect_here(void *arg, struct cr_err *e)
{
	struct ns_inet_table *t = arg;
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDPLITE, IPPROTO_RAW};
	static const uint8_t fams[] = {AF_INET, AF_INET6};
	for (size_t p = 0; p < sizeof(protos); p++)
		for (size_t f = 0; f < sizeof(fams); f++)
			if (inet_dump(t, fams[f], protos[p], e))
				return -1;
	for (size_t i = 0; i < t->n; i++)
		if (t->sk[i].md5)
			return vrf_here(&t->vrf, e);
	return 0;
}

static int collected(int ret, struct ns_inet_table *t, struct cr_err *e)
{
	if (ret) {
		ns_inet_table_free(t);
		return cr_wrap(e, "inet sockets");
	}
	if (t->n)
		qsort(t->sk, t->n, sizeof(*t->sk), cmp_ino);
	return 0;
}

int ns_inet_collect(pid_t pid, struct ns_inet_table *t, struct cr_err *e)
{
	memset(t, 0, sizeof(*t));
	return collected(ns_diag_in_netns(pid, collect_here, t, e), t, e);
}

int ns_inet_collect_fd(int netns_fd, struct ns_inet_table *t, struct cr_err *e)
{
	memset(t, 0, sizeof(*t));
	return collected(ns_diag_in_netns_fd(netns_fd, collect_here, t, e), t, e);
}

const struct ns_inet_sk *ns_inet_find(const struct ns_inet_table *t, uint32_t ino)
{
	struct ns_inet_sk key = {.ino = ino};
	if (!t->n)
		return NULL;
	return bsearch(&key, t->sk, t->n, sizeof(*t->sk), cmp_ino);
}

void ns_inet_table_free(struct ns_inet_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->sk[i].md5);
	free(t->sk);
	t->sk = NULL;
	t->n = 0;
	t->vrf = false;
}
