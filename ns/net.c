/* The network namespace of the tree's root, through libnl-route-3 (net.img): links (loopback, veth with its
 * other end outside, dummy), their state, MTU, MAC and queue length; IPv4/IPv6 addresses; routes; rules;
 * per-namespace sysctls; the nftables ruleset (nft -j). Dump reads them inside the root's namespace
 * (setns); restore makes them in the namespace crshim made (ns-restore.c), before any socket of the tree.
 * Links keep their ifindex (RTM_NEWLINK with ifi_index), so addresses and routes need no renumbering. */
#define LOG_PREFIX "ns-net: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_arp.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/macvlan.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "ns-int.h"

struct ns_net_state {
	NetEntry *ne;		    /* net.img */
	struct nl_sock *outer;	    /* rtnetlink in crshim's own namespace (veth ends outside, bridges) */
	char (*made_out)[IFNAMSIZ]; /* outer veth ends made (removed after a failure) */
	size_t n_made_out;
	struct moved {		     /* devices of the host moved in (--external netdev[..]), given back */
		char host[IFNAMSIZ]; /* after a failure; and macvlans made, removed then */
		int ifindex;
		bool macvlan;
		struct nl_sock *sk; /* rtnetlink in the namespace of the tree it is in */
	} * moved;
	size_t n_moved;
};

static void sk_free(struct nl_sock **sk)
{
	if (*sk)
		nl_socket_free(*sk);
}
#define __cleanup_nlsk __attribute__((cleanup(sk_free)))

static void cache_free(struct nl_cache **c)
{
	if (*c)
		nl_cache_free(*c);
}
#define __cleanup_nlcache __attribute__((cleanup(cache_free)))

static int nl_open(struct nl_sock **out, struct cr_err *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	if (!sk)
		return cr_fail_errno(e, ENOMEM, "nl_socket_alloc");
	int r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0) {
		nl_socket_free(sk);
		return cr_fail_errno(e, EIO, "rtnetlink: %s", nl_geterror(r));
	}
	*out = sk;
	return 0;
}

/* ---------------------------------------------------------------- dump */

/* What is collected while crshim is inside the namespace. */
struct net_dump {
	const struct ns_dump_args *a;
	NetEntry *ne;
	size_t veth_out;	    /* veths with their other end outside */
	const struct ns_net_set *s; /* the tree's network namespaces; this one is s->fd[id] */
	int id;
	int nsid[NS_NET_MAX]; /* ... their ids (RTM_GETNSID) as this one sees them, -1 */
};

bool ns_net_kind_ok(const char *kind)
{
	static const char *const ok[] = {"veth", "bridge", "dummy", "tun"};
	for (size_t i = 0; kind && i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(kind, ok[i]))
			return true;
	return false;
}

static void set_bytes(ProtobufCBinaryData *b, protobuf_c_boolean *has, struct nl_addr *a)
{
	if (!a || !nl_addr_get_len(a))
		return;
	b->len = nl_addr_get_len(a);
	b->data = malloc(b->len);
	if (b->data)
		memcpy(b->data, nl_addr_get_binary_addr(a), b->len), *has = 1;
	else
		b->len = 0;
}

static void *grow(void *arr, size_t n, size_t size)
{
	return realloc(arr, (n + 1) * size);
}

/* What follows "TYPE[IFNAME]:" in an --external option (type "veth", "netdev", "macvlan"), or
 * "TYPE[INO/IFNAME]:", which names the link of the network namespace that was net:[INO] at dump (ino: the
 * namespace of the link asked for) and wins; NULL if none. */
static const char *ext_link(const struct cr_opts *o, const char *type, const char *ifname, uint64_t ino)
{
	size_t l = strlen(ifname), t = strlen(type);
	const char *any = NULL;
	for (int i = 0; i < o->n_external; i++) {
		const char *x = o->external[i];
		if (strncmp(x, type, t) || x[t] != '[')
			continue;
		const char *n = x + t + 1, *end = strstr(n, "]:"), *slash = strchr(n, '/');
		bool which = end && slash && slash < end;
		char *ep;
		if (!end || (which && (strtoull(n, &ep, 10) != ino || ep != slash)))
			continue;
		if (which)
			n = slash + 1;
		if ((size_t)(end - n) == l && !strncmp(n, ifname, l)) {
			if (which)
				return end + 2;
			any = any ? any : end + 2;
		}
	}
	return any;
}

/* The kinds of links an --external TYPE[IFNAME]:X names; what the refusal calls them. */
enum { EXT_NETDEV, EXT_VETH, EXT_MACVLAN, EXT_KINDS };
static const char *const ext_type[EXT_KINDS] = {"netdev", "veth", "macvlan"};
static const char *const ext_noun[EXT_KINDS] = {"device", "veth", "macvlan"};

/* The IFNAME of --external option x when it is TYPE[IFNAME]:X with one of ext_type (no namespace said), its
 * length in *len, its type in *t; NULL. */
static const char *ext_unsaid(const char *x, int *t, size_t *len)
{
	const char *end = strstr(x, "]:");
	for (*t = 0; end && *t < EXT_KINDS; (*t)++) {
		size_t tl = strlen(ext_type[*t]);
		if (strncmp(x, ext_type[*t], tl) || x[tl] != '[')
			continue;
		const char *n = x + tl + 1; /* (end is after it: no "]:" in TYPE[) */
		if (memchr(n, '/', (size_t)(end - n)))
			return NULL;
		*len = (size_t)(end - n);
		return n;
	}
	return NULL;
}

/* The refusal of option x of type t: two namespaces of the tree, net:[a] and net:[b], have such a link. */
static int ext_which(const char *x, int t, size_t len, const char *name, uint64_t a, uint64_t b,
		     struct cr_err *e)
{
	return cr_fail(e,
		       "--external %s: network namespaces net:[%llu] and net:[%llu] of the tree both have a "
		       "%s %.*s: say which, %s[INO/%.*s]:%s",
		       x, (unsigned long long)a, (unsigned long long)b, ext_noun[t], (int)len, name,
		       ext_type[t], (int)len, name, strstr(x, "]:") + 2);
}

/* The --external veth[IFNAME]:OUTNAME[@BRIDGE] naming the outer end of veth ifname. */
static const char *ext_veth(const struct cr_opts *o, const char *ifname, uint64_t ino)
{
	return ext_link(o, "veth", ifname, ino);
}

static void set_ext(NetLinkEntry *le, const char *ext)
{
	const char *at = strchr(ext, '@');
	le->ext_name = strndup(ext, at ? (size_t)(at - ext) : strlen(ext));
	if (at && at[1])
		le->ext_bridge = strdup(at + 1);
}

static int nsid_cb(struct nl_msg *m, void *arg)
{
	struct nlattr *tb[NETNSA_MAX + 1];
	if (nlmsg_parse(nlmsg_hdr(m), sizeof(struct rtgenmsg), tb, NETNSA_MAX, NULL) >= 0 && tb[NETNSA_NSID])
		*(int *)arg = nla_get_s32(tb[NETNSA_NSID]);
	return NL_OK;
}

/* The id this namespace gives the namespace fd is (RTM_GETNSID), -1 when it has none; none: no answer. */
static int get_nsid(struct nl_sock *sk, int fd, int none)
{
	struct rtgenmsg g = {.rtgen_family = AF_UNSPEC};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETNSID, NLM_F_REQUEST);
	int nsid = none, r = m ? nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) : -NLE_NOMEM;
	if (!r)
		r = nla_put_u32(m, NETNSA_FD, (uint32_t)fd);
	if (!r)
		r = nl_send_auto(sk, m);
	if (m)
		nlmsg_free(m);
	if (r >= 0 && !nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, nsid_cb, &nsid))
		nl_recvmsgs_default(sk);
	return nsid;
}

/* The tree's network namespace (index in d->s) of link-netnsid nsid, -1: outside the tree. */
static int tree_ns(const struct net_dump *d, int nsid)
{
	for (size_t i = 0; d->s && i < d->s->n; i++)
		if ((int)i != d->id && d->nsid[i] >= 0 && d->nsid[i] == nsid)
			return (int)i;
	return -1;
}

static int tree_nsids(struct net_dump *d, struct cr_err *e)
{
	__cleanup_nlsk struct nl_sock *sk = NULL;
	for (size_t i = 0; i < NS_NET_MAX; i++)
		d->nsid[i] = -1;
	if (!d->s || d->s->n < 2)
		return 0;
	if (nl_open(&sk, e))
		return -1;
	nl_socket_disable_auto_ack(sk); /* one answer per question, no ack left behind for the next */
	for (size_t i = 0; i < d->s->n; i++) {
		int fd = d->s->fd[i] >= 0 ? d->s->fd[i] : i ? -1 : d->s->root_ext; /* (the caller's root's) */
		if ((int)i != d->id && fd >= 0)
			d->nsid[i] = get_nsid(sk, fd, -1);
	}
	return 0;
}

struct end_name {
	int ifindex;
	char name[IFNAMSIZ];
};

static int end_name_here(void *arg, struct cr_err *e)
{
	struct end_name *n = arg;
	return if_indextoname((unsigned)n->ifindex, n->name) ? 0 : cr_fail_sys(e, "link %d", n->ifindex);
}

/* The other end of veth le in the root's network namespace that the caller keeps (--external net[..], not
 * saved): its name there, in le->ext_name; it is made there again at restore (make_link). */
static int root_end(struct net_dump *d, NetLinkEntry *le, struct cr_err *e)
{
	struct end_name n = {.ifindex = (int)le->peer};
	if (ns_run_in_fd(d->s->root_ext, NS_NET, end_name_here, &n, e))
		return cr_wrap(e, "veth %s: its other end in the root's network namespace", le->name);
	if (!(le->ext_name = strdup(n.name)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("veth %s: its other end is %s (ifindex %u) of the root's network namespace, the caller's\n",
		le->name, n.name, le->peer);
	return 0;
}

static int dump_link(struct net_dump *d, struct rtnl_link *l, struct cr_err *e)
{
	const char *type = rtnl_link_get_type(l), *name = rtnl_link_get_name(l);
	bool lo = rtnl_link_get_arptype(l) == ARPHRD_LOOPBACK;
	const char *netdev = ext_link(d->a->o, "netdev", name, d->s->ino[d->id]);
	bool macvlan = type && !strcmp(type, "macvlan");
	int nsid;
	if (netdev && *netdev)
		type = "netdev"; /* the host's device, given at restore: only its setup is saved */
	else if (macvlan && rtnl_link_get_link_netnsid(l, &nsid) < 0)
		return cr_fail(
		    e,
		    "not supported yet: macvlan %s on a device of the tree's own network namespace "
		    "(its master must be outside: --external macvlan[%s]:MASTER at restore)",
		    name, name);
	else if (macvlan && tree_ns(d, nsid) >= 0)
		return cr_fail(
		    e,
		    "not supported yet: macvlan %s on a device of another network namespace of the "
		    "tree (its master must be outside)",
		    name);
	else if (!lo && !macvlan && !ns_net_kind_ok(type))
		return cr_fail(e,
			       "not supported yet: network device %s (kind %s) in the tree's network "
			       "namespace (loopback, veth, bridge, dummy, tun/tap, macvlan)",
			       name, type ? type : "?");
	NetLinkEntry *le = calloc(1, sizeof(*le));
	NetLinkEntry **nl = grow(d->ne->links, d->ne->n_links, sizeof(void *));
	if (!le || !nl) {
		free(le);
		if (nl)
			d->ne->links = nl;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	d->ne->links = nl;
	d->ne->links[d->ne->n_links++] = le;
	net_link_entry__init(le);
	le->ifindex = (uint32_t)rtnl_link_get_ifindex(l), le->has_ifindex = 1;
	le->name = strdup(name);
	le->kind = strdup(lo || !type ? "" : type);
	le->flags = rtnl_link_get_flags(l), le->has_flags = 1;
	le->mtu = rtnl_link_get_mtu(l), le->has_mtu = 1;
	le->txqlen = rtnl_link_get_txqlen(l), le->has_txqlen = 1;
	if (type && !strcmp(type, "tun") && ns_tun_dump(name, rtnl_link_get_ifindex(l), le, e))
		return -1;
	if (rtnl_link_get_master(l))
		le->master = (uint32_t)rtnl_link_get_master(l), le->has_master = 1;
	if (!lo)
		set_bytes(&le->addr, &le->has_addr, rtnl_link_get_addr(l));
	bool veth = type && !strcmp(type, "veth");
	int pns = veth && rtnl_link_get_link_netnsid(l, &nsid) >= 0 ? tree_ns(d, nsid) : -1;
	if (veth && rtnl_link_get_link_netnsid(l, &nsid) < 0 && rtnl_link_get_link(l) > 0)
		le->peer = (uint32_t)rtnl_link_get_link(l), le->has_peer = 1; /* both ends inside */
	else if (pns >= 0 && rtnl_link_get_link(l) > 0) {		      /* in another of the tree */
		le->peer = (uint32_t)rtnl_link_get_link(l), le->has_peer = 1;
		le->peer_ns = (uint32_t)pns, le->has_peer_ns = 1;
		if (!pns && d->s->fd[0] < 0 && root_end(d, le, e))
			return -1;
	} else if (veth)
		d->veth_out++;
	const char *ext = veth && !le->has_peer ? ext_veth(d->a->o, name, d->s->ino[d->id]) : NULL;
	if (ext)
		set_ext(le, ext);
	if (netdev && *netdev)
		le->ext_name = strdup(ext = netdev);
	else if (macvlan) { /* its master outside, named at restore (or here) */
		le->macvlan_mode = rtnl_link_macvlan_get_mode(l), le->has_macvlan_mode = 1;
		ext = ext_link(d->a->o, "macvlan", name, d->s->ino[d->id]);
		if (ext && *ext)
			le->ext_name = strdup(ext);
	}
	pr_info("link %u %s (%s) flags 0x%x mtu %u%s%s\n", le->ifindex, name, lo ? "loopback" : type,
		le->flags, le->mtu, ext ? ", outside: " : "", ext ? ext : "");
	return 0;
}

static int dump_addr(struct net_dump *d, struct rtnl_addr *a, struct cr_err *e)
{
	NetAddrEntry *ae = calloc(1, sizeof(*ae));
	NetAddrEntry **na = grow(d->ne->addrs, d->ne->n_addrs, sizeof(void *));
	if (!ae || !na) {
		free(ae);
		if (na)
			d->ne->addrs = na;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	d->ne->addrs = na;
	d->ne->addrs[d->ne->n_addrs++] = ae;
	net_addr_entry__init(ae);
	ae->ifindex = (uint32_t)rtnl_addr_get_ifindex(a), ae->has_ifindex = 1;
	ae->family = (uint32_t)rtnl_addr_get_family(a), ae->has_family = 1;
	ae->prefixlen = (uint32_t)rtnl_addr_get_prefixlen(a), ae->has_prefixlen = 1;
	ae->flags = (uint32_t)rtnl_addr_get_flags(a), ae->has_flags = 1;
	ae->scope = (uint32_t)rtnl_addr_get_scope(a), ae->has_scope = 1;
	set_bytes(&ae->local, &ae->has_local, rtnl_addr_get_local(a));
	struct nl_addr *peer = rtnl_addr_get_peer(a);
	if (peer && rtnl_addr_get_local(a) && nl_addr_cmp(peer, rtnl_addr_get_local(a)))
		set_bytes(&ae->peer, &ae->has_peer, peer);
	set_bytes(&ae->broadcast, &ae->has_broadcast, rtnl_addr_get_broadcast(a));
	if (rtnl_addr_get_label(a))
		ae->label = strdup(rtnl_addr_get_label(a));
	return 0;
}

/* Routes the kernel makes itself (local table, link routes of addresses, IPv6 link-local/multicast) are
 * made again by the addresses and links; the others are saved. */
static bool route_is_kernels(struct rtnl_route *r)
{
	return rtnl_route_get_table(r) == RT_TABLE_LOCAL || rtnl_route_get_protocol(r) == RTPROT_KERNEL ||
	       rtnl_route_get_type(r) == RTN_MULTICAST ||
	       (rtnl_route_get_family(r) == AF_INET6 && rtnl_route_get_type(r) == RTN_UNREACHABLE &&
		rtnl_route_get_table(r) == RT_TABLE_MAIN);
}

static int dump_route(struct net_dump *d, struct rtnl_route *r, struct cr_err *e)
{
	if (route_is_kernels(r))
		return 0;
	if (rtnl_route_get_nnexthops(r) > 1)
		return cr_fail(e,
			       "not supported yet: a route with %d next hops in the tree's network namespace",
			       rtnl_route_get_nnexthops(r));
	NetRouteEntry *re = calloc(1, sizeof(*re));
	NetRouteEntry **nr = grow(d->ne->routes, d->ne->n_routes, sizeof(void *));
	if (!re || !nr) {
		free(re);
		if (nr)
			d->ne->routes = nr;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	d->ne->routes = nr;
	d->ne->routes[d->ne->n_routes++] = re;
	net_route_entry__init(re);
	re->family = (uint32_t)rtnl_route_get_family(r), re->has_family = 1;
	re->table = rtnl_route_get_table(r), re->has_table = 1;
	re->scope = (uint32_t)rtnl_route_get_scope(r), re->has_scope = 1;
	re->protocol = (uint32_t)rtnl_route_get_protocol(r), re->has_protocol = 1;
	re->type = (uint32_t)rtnl_route_get_type(r), re->has_type = 1;
	re->priority = rtnl_route_get_priority(r), re->has_priority = 1;
	struct nl_addr *dst = rtnl_route_get_dst(r);
	if (dst)
		re->dst_len = nl_addr_get_prefixlen(dst), re->has_dst_len = 1;
	set_bytes(&re->dst, &re->has_dst, dst);
	set_bytes(&re->prefsrc, &re->has_prefsrc, rtnl_route_get_pref_src(r));
	struct rtnl_nexthop *nh = rtnl_route_get_nnexthops(r) ? rtnl_route_nexthop_n(r, 0) : NULL;
	if (nh) {
		re->oif = (uint32_t)rtnl_route_nh_get_ifindex(nh), re->has_oif = 1;
		set_bytes(&re->gateway, &re->has_gateway, rtnl_route_nh_get_gateway(nh));
	}
	return 0;
}

/* The rules a new namespace has already (local 0, main 32766, default 32767 of each family). */
static bool rule_is_default(struct rtnl_rule *r)
{
	uint32_t p = rtnl_rule_get_prio(r), t = rtnl_rule_get_table(r);
	return !rtnl_rule_get_src(r) && !rtnl_rule_get_dst(r) && !rtnl_rule_get_iif(r) &&
	       !rtnl_rule_get_oif(r) && rtnl_rule_get_action(r) == FR_ACT_TO_TBL &&
	       ((p == 0 && t == RT_TABLE_LOCAL) || (p == 32766 && t == RT_TABLE_MAIN) ||
		(p == 32767 && t == RT_TABLE_DEFAULT));
}

static int dump_rule(struct net_dump *d, struct rtnl_rule *r, struct cr_err *e)
{
	if (rule_is_default(r))
		return 0;
	NetRuleEntry *ue = calloc(1, sizeof(*ue));
	NetRuleEntry **nr = grow(d->ne->rules, d->ne->n_rules, sizeof(void *));
	if (!ue || !nr) {
		free(ue);
		if (nr)
			d->ne->rules = nr;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	d->ne->rules = nr;
	d->ne->rules[d->ne->n_rules++] = ue;
	net_rule_entry__init(ue);
	ue->family = (uint32_t)rtnl_rule_get_family(r), ue->has_family = 1;
	ue->priority = rtnl_rule_get_prio(r), ue->has_priority = 1;
	ue->table = rtnl_rule_get_table(r), ue->has_table = 1;
	ue->action = (uint32_t)rtnl_rule_get_action(r), ue->has_action = 1;
	ue->tos = rtnl_rule_get_dsfield(r), ue->has_tos = 1;
	if (rtnl_rule_get_mark(r) != UINT32_MAX)
		ue->mark = rtnl_rule_get_mark(r), ue->has_mark = 1;
	if (rtnl_rule_get_mask(r) != UINT32_MAX)
		ue->mask = rtnl_rule_get_mask(r), ue->has_mask = 1;
	struct nl_addr *s = rtnl_rule_get_src(r), *t = rtnl_rule_get_dst(r);
	if (s)
		ue->src_len = nl_addr_get_prefixlen(s), ue->has_src_len = 1;
	if (t)
		ue->dst_len = nl_addr_get_prefixlen(t), ue->has_dst_len = 1;
	set_bytes(&ue->src, &ue->has_src, s);
	set_bytes(&ue->dst, &ue->has_dst, t);
	if (rtnl_rule_get_iif(r))
		ue->iif = strdup(rtnl_rule_get_iif(r));
	if (rtnl_rule_get_oif(r))
		ue->oif = strdup(rtnl_rule_get_oif(r));
	return 0;
}

static int read_all(void *arg, struct cr_err *e)
{
	struct net_dump *d = arg;
	__cleanup_nlsk struct nl_sock *sk = NULL;
	__cleanup_nlcache struct nl_cache *links = NULL, *addrs = NULL, *routes = NULL, *rules = NULL;
	int r;
	if (nl_open(&sk, e))
		return -1;
	/* (the links first: their dump gives the namespaces of their other ends an id) */
	if ((r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links)) < 0)
		return cr_fail_errno(e, EIO, "rtnetlink dump: %s", nl_geterror(r));
	if (tree_nsids(d, e))
		return -1;
	if ((r = rtnl_addr_alloc_cache(sk, &addrs)) < 0 ||
	    (r = rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &routes)) < 0 ||
	    (r = rtnl_rule_alloc_cache(sk, AF_UNSPEC, &rules)) < 0)
		return cr_fail_errno(e, EIO, "rtnetlink dump: %s", nl_geterror(r));
	for (struct nl_object *o = nl_cache_get_first(links); o; o = nl_cache_get_next(o))
		if (dump_link(d, (struct rtnl_link *)o, e))
			return -1;
	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o))
		if (dump_addr(d, (struct rtnl_addr *)o, e))
			return -1;
	for (struct nl_object *o = nl_cache_get_first(routes); o; o = nl_cache_get_next(o))
		if (dump_route(d, (struct rtnl_route *)o, e))
			return -1;
	for (struct nl_object *o = nl_cache_get_first(rules); o; o = nl_cache_get_next(o))
		if (dump_rule(d, (struct rtnl_rule *)o, e))
			return -1;
	return ns_net_sysctl_dump(d->ne, e) || ns_nft_dump(&d->ne->nft, e) ||
	       ns_ipt_dump(d->ne, (unsigned long long)d->s->ino[d->id], e);
}

/* Link l of the namespace crshim is in (d: the tree's namespaces as it sees them) is one an --external option
 * of type t names by its name: any (netdev[..]: the host's device in its place), a veth whose other end is
 * outside the tree (veth[..]: that end's name), a macvlan (macvlan[..]: its master). */
static bool ext_names(const struct net_dump *d, struct rtnl_link *l, int t)
{
	const char *kind = rtnl_link_get_type(l);
	int nsid;
	if (t == EXT_NETDEV)
		return true;
	if (t == EXT_MACVLAN)
		return kind && !strcmp(kind, "macvlan");
	return kind && !strcmp(kind, "veth") && /* as dump_link tells them */
	       (rtnl_link_get_link(l) <= 0 ||
		(rtnl_link_get_link_netnsid(l, &nsid) >= 0 && tree_ns(d, nsid) < 0));
}

struct has_dev {
	struct net_dump d; /* (s, id: the namespace looked in) */
	int t;		   /* the option's type */
	char name[IFNAMSIZ];
	bool has;
};

static int has_dev_here(void *arg, struct cr_err *e)
{
	struct has_dev *h = arg;
	__cleanup_nlsk struct nl_sock *sk = NULL;
	struct rtnl_link *l = NULL;
	if (tree_nsids(&h->d, e) || nl_open(&sk, e))
		return -1;
	int r = rtnl_link_get_kernel(sk, 0, h->name, &l);
	if (r < 0 && r != -NLE_NODEV && r != -NLE_OBJ_NOTFOUND)
		return cr_fail_errno(e, EIO, "link %s: %s", h->name, nl_geterror(r));
	h->has = r >= 0 && ext_names(&h->d, l, h->t);
	if (l)
		rtnl_link_put(l);
	return 0;
}

/* An --external netdev[IFNAME]:HOSTDEV, veth[IFNAME]:OUTNAME or macvlan[IFNAME]:MASTER that does not say
 * which namespace, while two saved network namespaces of the tree have a link IFNAME it names: refused (it
 * would take both). */
static int ext_said_dump(const struct ns_dump_args *a, const struct ns_net_set *s, struct cr_err *e)
{
	for (int k = 0; k < a->o->n_external; k++) {
		size_t len;
		int t;
		const char *x = a->o->external[k], *name = ext_unsaid(x, &t, &len);
		uint64_t first = 0;
		for (size_t i = 0; name && len < IFNAMSIZ && i < s->n; i++) {
			struct has_dev h = {.d = {.a = a, .s = s, .id = (int)i}, .t = t, .has = false};
			memcpy(h.name, name, len);
			if (s->fd[i] < 0)
				continue; /* the root's, not saved */
			if (ns_run_in_fd(s->fd[i], NS_NET, has_dev_here, &h, e))
				return -1;
			if (h.has && first)
				return ext_which(x, t, len, name, first, s->ino[i], e);
			if (h.has)
				first = s->ino[i];
		}
	}
	return 0;
}

int ns_net_dump(const struct ns_dump_args *a, const struct ns_net_set *s, int id, struct cr_err *e)
{
	if (id == (s->fd[0] >= 0 ? 0 : 1) && ext_said_dump(a, s, e)) /* once: the first one saved */
		return -1;

	struct net_dump d = {.a = a, .ne = malloc(sizeof(NetEntry)), .s = s, .id = id};
	if (!d.ne)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	net_entry__init(d.ne);
	enum img_kind k = id ? IMG_NET_EXTRA : IMG_NET;
	int ret = ns_run_in_fd(s->fd[id], NS_NET, read_all, &d, e);
	if (!ret) {
		pr_info("network namespace net:[%llu]: %zu links, %zu addresses, %zu routes, %zu rules, %zu "
			"sysctls%s%s\n",
			(unsigned long long)s->ino[id], d.ne->n_links, d.ne->n_addrs, d.ne->n_routes,
			d.ne->n_rules, d.ne->n_sysctls, d.ne->nft ? ", an nftables ruleset" : "",
			d.ne->ipt || d.ne->ip6t ? ", iptables-legacy tables" : "");
		ret = img_write_one(a->dirfd, k, id, &d.ne->base, e) || a->created(a->created_arg, k, id, e);
	}
	protobuf_c_message_free_unpacked(&d.ne->base, NULL); /* all of it from malloc */
	return ret ? -1 : 0;
}

static int del_links(void *arg, struct cr_err *e)
{
	__cleanup_nlsk struct nl_sock *sk = NULL;
	__cleanup_nlcache struct nl_cache *links = NULL;
	int r;
	if (nl_open(&sk, e))
		return -1;
	if ((r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links)) < 0)
		return cr_fail_errno(e, EIO, "rtnetlink dump: %s", nl_geterror(r));
	for (struct nl_object *o = nl_cache_get_first(links); o; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		const char *type = rtnl_link_get_type(l);
		if (!type || (strcmp(type, "veth") && strcmp(type, "macvlan")))
			continue;
		r = rtnl_link_delete(sk, l);
		if (r < 0 && r != -NLE_NODEV && r != -NLE_OBJ_NOTFOUND)
			pr_warn("remove %s %s of the killed tree: %s\n", type, rtnl_link_get_name(l),
				nl_geterror(r));
		else
			pr_info("removed %s %s of the killed tree (a veth with its other end; a macvlan "
				"frees its MAC on its master)\n",
				type, rtnl_link_get_name(l));
	}
	return 0;
}

void ns_net_killed(int netns_fd)
{
	struct cr_err e = {0};
	if (ns_call(netns_fd, CLONE_NEWNET, del_links, NULL, &e))
		pr_warn("the killed tree's network namespace: %s\n", e.msg);
}

/* ---------------------------------------------------------------- restore */

/* The host's device to move in as link le of ne: --external netdev[IFNAME]:HOSTDEV at restore, else the one
 * named at dump. NULL: le is made. */
static const char *netdev_host(const struct ns_rst *r, const NetEntry *ne, const NetLinkEntry *le)
{
	const char *x = ext_link(r->o, "netdev", le->name, ns_net_ino_of(r, ne));
	if (x && *x)
		return x;
	return le->kind && !strcmp(le->kind, "netdev") && le->ext_name && *le->ext_name ? le->ext_name : NULL;
}

/* The master outside of macvlan le of ne: --external macvlan[IFNAME]:MASTER at restore, else the one named at
 * dump. */
static const char *macvlan_master(const struct ns_rst *r, const NetEntry *ne, const NetLinkEntry *le)
{
	if (!le->kind || strcmp(le->kind, "macvlan"))
		return NULL;
	const char *x = ext_link(r->o, "macvlan", le->name, ns_net_ino_of(r, ne));
	if (x && *x)
		return x;
	return le->ext_name && *le->ext_name ? le->ext_name : NULL;
}

/* ne has a link name (len bytes) that an --external option of type t names (ext_names, from the image). */
static bool has_link(const NetEntry *ne, const char *name, size_t len, int t)
{
	for (size_t i = 0; ne && i < ne->n_links; i++) {
		const NetLinkEntry *le = ne->links[i];
		const char *kind = le->kind ? le->kind : "";
		if (!le->name || strlen(le->name) != len || strncmp(le->name, name, len))
			continue;
		if (t == EXT_NETDEV || (t == EXT_MACVLAN && !strcmp(kind, "macvlan")) ||
		    (t == EXT_VETH && !strcmp(kind, "veth") && !le->has_peer))
			return true;
	}
	return false;
}

int ns_net_ext_check(const struct ns_rst *r, struct cr_err *e)
{
	for (int k = 0; k < r->o->n_external; k++) {
		size_t len;
		int t;
		const char *x = r->o->external[k], *name = ext_unsaid(x, &t, &len);
		uint64_t ino, first = 0;
		const NetEntry *ne;
		for (size_t i = 0; name && (ne = ns_net_nth(r, i, &ino)); i++) {
			if (!has_link(ne, name, len, t))
				continue;
			if (first)
				return ext_which(x, t, len, name, first, ino, e);
			first = ino;
		}
	}
	return 0;
}

int ns_net_check_links(struct ns_rst *r, const NetEntry *ne, struct cr_err *e)
{
	for (size_t i = 0; ne && i < ne->n_links; i++) {
		const NetLinkEntry *le = ne->links[i];
		if (r->o->live_root && le->kind &&
		    (!strcmp(le->kind, "macvlan") || !strcmp(le->kind, "netdev")))
			continue; /* the dump's check: the restore names the device outside */
		if (le->name && le->kind && !strcmp(le->kind, "macvlan") && !macvlan_master(r, ne, le))
			return cr_fail(e,
				       "net.img: link %s is a macvlan whose master is outside: name it with "
				       "--external macvlan[%s]:MASTER",
				       le->name, le->name);
		if (le->name && le->kind && !strcmp(le->kind, "netdev") && !netdev_host(r, ne, le))
			return cr_fail(e,
				       "net.img: link %s is a device of the host (external at dump): "
				       "name it with --external netdev[%s]:HOSTDEV",
				       le->name, le->name);
		if (!le->name || (le->kind && *le->kind && !ns_net_kind_ok(le->kind) &&
				  !netdev_host(r, ne, le) && !macvlan_master(r, ne, le)))
			return cr_fail_errno(e, EBADMSG, "net.img: link %s of kind %s cannot be made",
					     le->name ? le->name : "?", le->kind);
	}
	return 0;
}

int ns_net_state_new(struct ns_rst *r, struct cr_err *e)
{
	if (r->net)
		return 0;
	struct ns_net_state *s = calloc(1, sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	r->net = s;
	return nl_open(&s->outer, e); /* crshim's own namespace, for the outer ends of veths */
}

const NetEntry *ns_net_root_entry(const struct ns_rst *r)
{
	return r->net ? r->net->ne : NULL;
}

int ns_net_load(struct ns_rst *r, struct cr_err *e)
{
	ProtobufCMessage *m = NULL;
	if (ns_net_state_new(r, e))
		return -1;
	if (img_read_one(r->dirfd, IMG_NET, 0, &m, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e); /* older images: a new namespace with its loopback up */
	}
	r->net->ne = (NetEntry *)m;
	return r->empty_net ? 0 : ns_net_check_links(r, r->net->ne, e);
}

static struct nl_addr *mkaddr(uint32_t family, const ProtobufCBinaryData *b, uint32_t plen)
{
	struct nl_addr *a = nl_addr_build((int)family, b->data, b->len);
	if (a)
		nl_addr_set_prefixlen(a, (int)plen);
	return a;
}

static void addr_put(struct nl_addr **a)
{
	if (*a)
		nl_addr_put(*a);
}
#define __cleanup_nladdr __attribute__((cleanup(addr_put)))

/* --external veth[IFNAME]:OUTNAME[@BRIDGE] at restore wins over the name saved at dump. */
static void outer_name(const struct ns_rst *r, const NetEntry *ne, const NetLinkEntry *le, char *name,
		       char *bridge)
{
	const char *x = ext_veth(r->o, le->name, ns_net_ino_of(r, ne));
	const char *n = x ? x : le->ext_name, *at = x ? strchr(x, '@') : NULL;
	const char *b = x ? (at ? at + 1 : NULL) : le->ext_bridge;
	snprintf(name, IFNAMSIZ, "%.*s", n ? (at ? (int)(at - n) : (int)strlen(n)) : 0, n ? n : "");
	snprintf(bridge, IFNAMSIZ, "%s", b ? b : "");
}

static int outer_up(struct ns_net_state *s, const char *name, const char *bridge, struct cr_err *e)
{
	struct rtnl_link *cur = NULL, *ch = rtnl_link_alloc();
	int r = rtnl_link_get_kernel(s->outer, 0, name, &cur);
	if (r >= 0 && ch) {
		rtnl_link_set_flags(ch, IFF_UP);
		if (*bridge) {
			int br = 0; /* looked up by name in crshim's own namespace (s->outer) */
			struct rtnl_link *bl = NULL;
			if (rtnl_link_get_kernel(s->outer, 0, bridge, &bl) >= 0) {
				br = rtnl_link_get_ifindex(bl);
				rtnl_link_put(bl);
			}
			if (br <= 0)
				r = -NLE_OBJ_NOTFOUND;
			else
				rtnl_link_set_master(ch, br);
		}
		if (r >= 0)
			r = rtnl_link_change(s->outer, cur, ch, 0);
	}
	if (cur)
		rtnl_link_put(cur);
	if (ch)
		rtnl_link_put(ch);
	if (r < 0)
		return cr_fail_errno(e, EIO, "veth end %s outside%s%s: %s", name,
				     *bridge ? " on bridge " : "", bridge, nl_geterror(r));
	return 0;
}

/* RTM_NEWLINK on sk (the device's namespace): device ifindex to the network namespace nsfd, named name
 * there, with ifindex new_ifindex (0: any). */
static int move_link(struct nl_sock *sk, int ifindex, int nsfd, const char *name, int new_ifindex)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
	int r = m ? nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) : -NLE_NOMEM;
	if (!r)
		r = nla_put_u32(m, IFLA_NET_NS_FD, (uint32_t)nsfd);
	if (!r)
		r = nla_put_string(m, IFLA_IFNAME, name);
	if (!r && new_ifindex)
		r = nla_put_s32(m, IFLA_NEW_IFINDEX, new_ifindex);
	if (!r)
		r = nl_send_auto(sk, m);
	if (m)
		nlmsg_free(m);
	return r < 0 ? r : nl_wait_for_ack(sk);
}

int ns_net_has_link_nsid(void)
{
	struct nl_sock *sk = NULL;
	struct cr_err e;
	__cleanup_close int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || nl_open(&sk, &e))
		return 0;
	int nsid = get_nsid(sk, fd, INT_MIN); /* (a kernel with namespace ids answers, -1 for none given) */
	nl_socket_free(sk);
	return nsid != INT_MIN;
}

int ns_net_has_newifindex(void)
{
	struct nl_sock *sk = NULL;
	struct cr_err e;
	if (nl_open(&sk, &e))
		return 0;
	/* a negative IFLA_NEW_IFINDEX is refused (ERANGE) by a kernel that knows it, before the lookup of the
	 * name (no such link: ENODEV otherwise) */
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK);
	int r = m ? nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) : -NLE_NOMEM;
	if (!r)
		r = nla_put_s32(m, IFLA_NEW_IFINDEX, -1);
	if (!r)
		r = nla_put_string(m, IFLA_IFNAME, "crshim-kdat");
	if (!r)
		r = nl_send_auto(sk, m);
	if (m)
		nlmsg_free(m);
	if (r >= 0)
		r = nl_wait_for_ack(sk);
	nl_socket_free(sk);
	return r == -NLE_RANGE;
}

/* --external netdev[IFNAME]:HOSTDEV: the host's device moved into the new namespace (crshim is in it) as
 * link le, with its name and ifindex; set_link and the addresses then configure it as dumped. */
/* The next record of a device of the host moved in or a macvlan made, in the namespace crshim is in (counted
 * by the caller once it is there); NULL, e filled. */
static struct moved *inside_new(struct ns_net_state *s, const NetLinkEntry *le, struct cr_err *e)
{
	struct moved *mv = grow(s->moved, s->n_moved, sizeof(*mv));
	if (!mv)
		return cr_fail_errno(e, ENOMEM, "out of memory"), NULL;
	s->moved = mv;
	mv = &s->moved[s->n_moved];
	*mv = (struct moved){.ifindex = (int)le->ifindex};
	if (nl_open(&mv->sk, e))
		return NULL;
	return mv;
}

static int move_in(struct ns_rst *r, const NetLinkEntry *le, const char *host, struct cr_err *e)
{
	struct ns_net_state *s = r->net;
	struct rtnl_link *h = NULL;
	int ret = rtnl_link_get_kernel(s->outer, 0, host, &h);
	if (ret < 0)
		return cr_fail_errno(e, ENODEV, "--external netdev[%s]:%s: no device %s outside: %s",
				     le->name, host, host, nl_geterror(ret));
	int hidx = rtnl_link_get_ifindex(h);
	rtnl_link_put(h);
	struct moved *mv = inside_new(s, le, e);
	__cleanup_close int nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (!mv || nsfd < 0) {
		if (mv)
			nl_socket_free(mv->sk);
		return mv ? cr_fail_sys(e, "open /proc/self/ns/net") : -1;
	}
	ret = move_link(s->outer, hidx, nsfd, le->name, (int)le->ifindex);
	if (ret < 0) {
		nl_socket_free(mv->sk);
		return cr_fail_errno(e, EIO,
				     "move device %s of the host into the namespace as %s (ifindex %u): %s",
				     host, le->name, le->ifindex, nl_geterror(ret));
	}
	snprintf(mv->host, IFNAMSIZ, "%s", host);
	s->n_moved++;
	struct rtnl_link *in = NULL;
	ret = rtnl_link_get_kernel(mv->sk, (int)le->ifindex, NULL, &in);
	bool same = ret >= 0 && !strcmp(rtnl_link_get_name(in), le->name);
	if (in)
		rtnl_link_put(in);
	if (!same) /* a kernel without IFLA_NEW_IFINDEX gives it another one */
		return cr_fail(e,
			       "device %s of the host moved in as %s did not keep ifindex %u (a kernel "
			       "without IFLA_NEW_IFINDEX?)",
			       host, le->name, le->ifindex);
	pr_info("moved device %s of the host in as %s (ifindex %u)\n", host, le->name, le->ifindex);
	return 0;
}

/* A macvlan on a device of crshim's namespace (master), made from there straight into the namespace of the
 * tree crshim is in with its name, ifindex and mode; set_link and the addresses then configure it. */
static int make_macvlan(struct ns_rst *r, const NetLinkEntry *le, const char *master, struct cr_err *e)
{
	struct rtnl_link *m = NULL, *l = NULL;
	int ret = rtnl_link_get_kernel(r->net->outer, 0, master, &m);
	if (ret < 0)
		return cr_fail_errno(e, ENODEV, "macvlan %s: no master %s outside: %s", le->name, master,
				     nl_geterror(ret));
	int midx = rtnl_link_get_ifindex(m);
	rtnl_link_put(m);
	__cleanup_close int nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return cr_fail_sys(e, "open /proc/self/ns/net");
	if (!(l = rtnl_link_macvlan_alloc()))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	rtnl_link_set_name(l, le->name);
	rtnl_link_set_ifindex(l, (int)le->ifindex);
	rtnl_link_set_link(l, midx);
	rtnl_link_set_ns_fd(l, nsfd);
	if (le->has_macvlan_mode)
		rtnl_link_macvlan_set_mode(l, le->macvlan_mode);
	struct moved *mv = inside_new(r->net, le, e);
	if (!mv) {
		rtnl_link_put(l);
		return -1;
	}
	ret = rtnl_link_add(r->net->outer, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(l);
	if (ret < 0) {
		nl_socket_free(mv->sk);
		return cr_fail_errno(e, EIO, "make macvlan link %s (ifindex %u) on %s outside: %s", le->name,
				     le->ifindex, master, nl_geterror(ret));
	}
	mv->macvlan = true;
	r->net->n_moved++;
	pr_info("made macvlan link %s (ifindex %u) on %s outside\n", le->name, le->ifindex, master);
	return 0;
}

/* After a failure: the devices of the host moved in go back out, with their names; the macvlans made are
 * removed (their MACs free on their masters at once, not when the kernel frees their namespace). */
static void move_out(struct ns_net_state *s)
{
	__cleanup_close int self = s->n_moved ? open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC) : -1;
	for (size_t i = 0; self >= 0 && i < s->n_moved; i++) {
		if (s->moved[i].macvlan) {
			struct rtnl_link *l = rtnl_link_alloc();
			int ret = -NLE_NOMEM;
			if (l) {
				rtnl_link_set_ifindex(l, s->moved[i].ifindex);
				ret = rtnl_link_delete(s->moved[i].sk, l);
				rtnl_link_put(l);
			}
			if (ret < 0 && ret != -NLE_NODEV && ret != -NLE_OBJ_NOTFOUND)
				pr_warn("remove macvlan (ifindex %d): %s\n", s->moved[i].ifindex,
					nl_geterror(ret));
			continue;
		}
		int ret = move_link(s->moved[i].sk, s->moved[i].ifindex, self, s->moved[i].host, 0);
		if (ret < 0)
			pr_warn("give device %s back to the host: %s\n", s->moved[i].host, nl_geterror(ret));
		else
			pr_info("gave device %s back to the host\n", s->moved[i].host);
	}
}

static const NetLinkEntry *link_by_index(const NetEntry *ne, uint32_t ifindex)
{
	for (size_t i = 0; i < ne->n_links; i++)
		if (ne->links[i]->ifindex == ifindex)
			return ne->links[i];
	return NULL;
}

/* The other end of veth le when it is in another network namespace of the tree: its entry and that
 * namespace's fd; 0 when that end is made from there (the namespace of the lower id makes the pair, but
 * crshim fills no root's left empty for the caller). */
static int other_ns_end(struct ns_rst *r, const NetLinkEntry *le, uint32_t id, const NetLinkEntry **pe,
			int *fd, struct cr_err *e)
{
	const NetEntry *pne = ns_net_of(r, le->peer_ns, fd);
	*pe = pne ? link_by_index(pne, le->peer) : NULL;
	if (!*pe || *fd < 0 || le->peer_ns == id)
		return cr_fail_errno(e, EBADMSG,
				     "net image: veth %s: no link %u in network namespace %u, its other end",
				     le->name, le->peer, le->peer_ns);
	if (!le->peer_ns && r->empty_net)
		return 1; /* the root's is the caller's to fill (--empty-ns net): the pair is made from here
			   */
	return le->peer_ns > id;
}

static int make_link(struct ns_rst *r, struct nl_sock *sk, const NetEntry *ne, uint32_t id,
		     const NetLinkEntry *le, struct cr_err *e)
{
	struct ns_net_state *s = r->net;
	int pfd = -1;
	const char *kind = le->kind ? le->kind : "";
	char oname[IFNAMSIZ], bridge[IFNAMSIZ];
	if (!*kind)
		return 0; /* the loopback is there */
	const char *host = netdev_host(r, ne, le);
	if (host)
		return move_in(r, le, host, e);
	const char *master = macvlan_master(r, ne, le);
	if (master)
		return make_macvlan(r, le, master, e);
	if (!strcmp(kind, "tun"))
		return ns_tun_make(le, e);
	const NetLinkEntry *pe = le->has_peer && !le->has_peer_ns ? link_by_index(ne, le->peer) : NULL;
	if (le->has_peer && !le->has_peer_ns && !pe)
		return cr_fail_errno(e, EBADMSG, "net.img: veth %s: no link %u, its other end", le->name,
				     le->peer);
	if (pe && pe->ifindex < le->ifindex)
		return 0; /* made with its other end */
	NetLinkEntry rend = NET_LINK_ENTRY__INIT;
	int here = 1;
	if (le->has_peer_ns && !le->peer_ns && !ns_net_root_entry(r) && le->ext_name && r->root_net_fd >= 0) {
		/* its other end in the root's namespace, the caller's (--external net[..]): by name, ifindex
		 */
		rend.name = le->ext_name, rend.ifindex = le->peer;
		pe = &rend, pfd = r->root_net_fd;
	} else if (le->has_peer_ns) {
		here = other_ns_end(r, le, id, &pe, &pfd, e);
	}
	if (here <= 0)
		return here; /* made from the other namespace (or an error) */
	oname[0] = bridge[0] = '\0';
	struct rtnl_link *l = !strcmp(kind, "veth") ? rtnl_link_veth_alloc() : rtnl_link_alloc();
	if (!l)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (strcmp(kind, "veth"))
		rtnl_link_set_type(l, kind);
	rtnl_link_set_name(l, le->name);
	rtnl_link_set_ifindex(l, (int)le->ifindex);
	if (!strcmp(kind, "veth")) {
		struct rtnl_link *peer = rtnl_link_veth_get_peer(l);
		if (pe) { /* both ends inside, or in another namespace of the tree (pfd) */
			rtnl_link_set_name(peer, pe->name);
			rtnl_link_set_ifindex(peer, (int)pe->ifindex);
			if (pfd >= 0)
				rtnl_link_set_ns_fd(peer, pfd);
		} else {
			outer_name(r, ne, le, oname, bridge);
			if (*oname)
				rtnl_link_set_name(peer, oname);
			rtnl_link_set_ns_fd(peer, r->self_fd[NS_NET]);
		}
		rtnl_link_put(peer);
	}
	int ret = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(l);
	if (ret < 0)
		return cr_fail_errno(e, EIO, "make %s link %s (ifindex %u)%s%s: %s", kind, le->name,
				     le->ifindex,
				     !strcmp(kind, "veth") && *oname ? ", other end outside " : "",
				     !strcmp(kind, "veth") ? oname : "", nl_geterror(ret));
	if (!strcmp(kind, "veth") && *oname) {
		char(*m)[IFNAMSIZ] = grow(s->made_out, s->n_made_out, sizeof(*m));
		if (!m)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		s->made_out = m;
		snprintf(s->made_out[s->n_made_out++], IFNAMSIZ, "%s", oname);
		if (outer_up(s, oname, bridge, e))
			return -1;
	}
	pr_info("made %s link %s (ifindex %u)%s%s%s\n", kind, le->name, le->ifindex,
		!strcmp(kind, "veth") && *oname ? ", other end outside: " : "",
		!strcmp(kind, "veth") ? oname : "",
		pfd >= 0 ? ", other end in another namespace of the tree" : "");
	return 0;
}

/* MTU, MAC, queue length, then the flags (up last, after the addresses for IPv6 DAD to be quiet). */
static int set_link(struct nl_sock *sk, const NetLinkEntry *le, bool flags, struct cr_err *e)
{
	struct rtnl_link *cur = NULL, *ch = rtnl_link_alloc();
	int r = rtnl_link_get_kernel(sk, (int)le->ifindex, NULL, &cur);
	if (r >= 0 && ch) {
		if (flags) {
			if (le->flags & IFF_UP)
				rtnl_link_set_flags(ch, IFF_UP);
			else
				rtnl_link_unset_flags(ch, IFF_UP);
		} else {
			struct nl_addr *mac =
			    le->has_addr ? nl_addr_build(AF_LLC, le->addr.data, le->addr.len) : NULL;
			if (le->has_mtu && le->mtu != rtnl_link_get_mtu(cur))
				rtnl_link_set_mtu(ch, le->mtu);
			if (le->has_txqlen)
				rtnl_link_set_txqlen(ch, le->txqlen);
			if (le->has_master)
				rtnl_link_set_master(ch, (int)le->master);
			if (mac) {
				rtnl_link_set_addr(ch, mac);
				nl_addr_put(mac);
			}
		}
		r = rtnl_link_change(sk, cur, ch, 0);
	}
	if (cur)
		rtnl_link_put(cur);
	if (ch)
		rtnl_link_put(ch);
	if (r < 0)
		return cr_fail_errno(e, EIO, "link %s (ifindex %u): set %s: %s", le->name, le->ifindex,
				     flags ? "state" : "mtu/mac/txqlen", nl_geterror(r));
	return 0;
}

static int make_addr(struct nl_sock *sk, const NetAddrEntry *ae, struct cr_err *e)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	__cleanup_nladdr struct nl_addr *loc =
	    ae->has_local ? mkaddr(ae->family, &ae->local, ae->prefixlen) : NULL;
	__cleanup_nladdr struct nl_addr *peer =
	    ae->has_peer ? mkaddr(ae->family, &ae->peer, ae->prefixlen) : NULL;
	__cleanup_nladdr struct nl_addr *bc =
	    ae->has_broadcast ? mkaddr(ae->family, &ae->broadcast, 0) : NULL;
	if (!a || !loc)
		return cr_fail_errno(e, a ? EBADMSG : ENOMEM, "address of ifindex %u", ae->ifindex);
	rtnl_addr_set_ifindex(a, (int)ae->ifindex);
	rtnl_addr_set_family(a, (int)ae->family);
	rtnl_addr_set_local(a, loc);
	if (peer)
		rtnl_addr_set_peer(a, peer);
	if (bc)
		rtnl_addr_set_broadcast(a, bc);
	rtnl_addr_set_prefixlen(a, (int)ae->prefixlen);
	rtnl_addr_set_scope(a, (int)ae->scope);
	rtnl_addr_set_flags(a, ae->flags & (IFA_F_NODAD | IFA_F_HOMEADDRESS | IFA_F_NOPREFIXROUTE |
					    IFA_F_MANAGETEMPADDR | IFA_F_PERMANENT));
	if (ae->label)
		rtnl_addr_set_label(a, ae->label);
	int r = rtnl_addr_add(sk, a, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_addr_put(a);
	char buf[INET6_ADDRSTRLEN + 8];
	if (r < 0 && r != -NLE_EXIST) /* the loopback's own and IPv6 link-local ones come by themselves */
		return cr_fail_errno(e, EIO, "address %s on ifindex %u: %s",
				     nl_addr2str(loc, buf, sizeof(buf)), ae->ifindex, nl_geterror(r));
	return 0;
}

static int make_route(struct nl_sock *sk, const NetRouteEntry *re, struct cr_err *e)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	__cleanup_nladdr struct nl_addr *dst = NULL, *gw = NULL, *src = NULL;
	if (!rt || !nh) {
		if (rt)
			rtnl_route_put(rt);
		if (nh)
			rtnl_route_nh_free(nh);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	dst =
	    re->has_dst ? mkaddr(re->family, &re->dst, re->dst_len) : nl_addr_build((int)re->family, NULL, 0);
	gw = re->has_gateway ? mkaddr(re->family, &re->gateway, re->family == AF_INET ? 32 : 128) : NULL;
	src = re->has_prefsrc ? mkaddr(re->family, &re->prefsrc, re->family == AF_INET ? 32 : 128) : NULL;
	rtnl_route_set_family(rt, (uint8_t)re->family);
	rtnl_route_set_table(rt, re->table);
	rtnl_route_set_scope(rt, (uint8_t)re->scope);
	rtnl_route_set_protocol(rt, (uint8_t)re->protocol);
	rtnl_route_set_type(rt, (uint8_t)re->type);
	rtnl_route_set_priority(rt, re->priority);
	if (dst)
		rtnl_route_set_dst(rt, dst);
	if (src)
		rtnl_route_set_pref_src(rt, src);
	if (re->has_oif)
		rtnl_route_nh_set_ifindex(nh, (int)re->oif);
	if (gw)
		rtnl_route_nh_set_gateway(nh, gw);
	if (re->has_oif || gw)
		rtnl_route_add_nexthop(rt, nh);
	else
		rtnl_route_nh_free(nh);
	int r = rtnl_route_add(sk, rt, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_route_put(rt);
	char buf[INET6_ADDRSTRLEN + 8] = "default";
	if (r < 0 && r != -NLE_EXIST)
		return cr_fail_errno(e, EIO, "route to %s (table %u): %s",
				     dst && nl_addr_get_len(dst) ? nl_addr2str(dst, buf, sizeof(buf)) : buf,
				     re->table, nl_geterror(r));
	return 0;
}

static int make_rule(struct nl_sock *sk, const NetRuleEntry *ue, struct cr_err *e)
{
	struct rtnl_rule *ru = rtnl_rule_alloc();
	__cleanup_nladdr struct nl_addr *s = ue->has_src ? mkaddr(ue->family, &ue->src, ue->src_len) : NULL;
	__cleanup_nladdr struct nl_addr *d = ue->has_dst ? mkaddr(ue->family, &ue->dst, ue->dst_len) : NULL;
	if (!ru)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	rtnl_rule_set_family(ru, (int)ue->family);
	rtnl_rule_set_prio(ru, ue->priority);
	rtnl_rule_set_table(ru, ue->table);
	rtnl_rule_set_action(ru, (uint8_t)ue->action);
	if (ue->tos)
		rtnl_rule_set_dsfield(ru, (uint8_t)ue->tos);
	if (ue->has_mark)
		rtnl_rule_set_mark(ru, ue->mark);
	if (ue->has_mask)
		rtnl_rule_set_mask(ru, ue->mask);
	if (s)
		rtnl_rule_set_src(ru, s);
	if (d)
		rtnl_rule_set_dst(ru, d);
	if (ue->iif)
		rtnl_rule_set_iif(ru, ue->iif);
	if (ue->oif)
		rtnl_rule_set_oif(ru, ue->oif);
	int r = rtnl_rule_add(sk, ru, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_rule_put(ru);
	if (r < 0 && r != -NLE_EXIST)
		return cr_fail_errno(e, EIO, "rule priority %u (table %u): %s", ue->priority, ue->table,
				     nl_geterror(r));
	return 0;
}

static int lo_up(struct nl_sock *sk, struct cr_err *e)
{
	NetLinkEntry lo = NET_LINK_ENTRY__INIT;
	lo.name = (char *)"lo", lo.ifindex = 1, lo.flags = IFF_UP;
	return set_link(sk, &lo, true, e);
}

int ns_net_restore(struct ns_rst *r, struct cr_err *e)
{
	const NetEntry *ne = r->net ? r->net->ne : NULL;
	if (!ne) {
		__cleanup_nlsk struct nl_sock *sk = NULL;
		return nl_open(&sk, e) || lo_up(sk, e) ? -1 : 0; /* in the new namespace: crshim is in it */
	}
	if (ns_net_sysctl_restore(ne, NS_SYSCTL_DFLT,
				  e)) /* conf/all, conf/default: new links start with it */
		return -1;
	return ns_net_fill(r, ne, 0, e);
}

int ns_net_fill(struct ns_rst *r, const NetEntry *ne, uint32_t id, struct cr_err *e)
{
	__cleanup_nlsk struct nl_sock *sk = NULL;
	if (nl_open(&sk, e)) /* in the new namespace: crshim is in it */
		return -1;
	for (size_t i = 0; i < ne->n_links; i++)
		if (make_link(r, sk, ne, id, ne->links[i], e))
			return -1;
	if (fault_check(r->o, FI_RESTORE_NS_NET_MID, e))
		return -1;
	for (size_t i = 0; i < ne->n_links; i++)
		if (set_link(sk, ne->links[i], false, e))
			return -1;
	if (ns_net_sysctl_restore(ne, NS_SYSCTL_LINKS,
				  e)) /* before addresses: disable_ipv6, forwarding, ... */
		return -1;
	for (size_t i = 0; i < ne->n_links; i++)
		if (set_link(sk, ne->links[i], true, e))
			return -1;
	if (ns_net_sysctl_restore(ne, NS_SYSCTL_UP, e))
		return -1;
	for (size_t i = 0; i < ne->n_addrs; i++)
		if (make_addr(sk, ne->addrs[i], e))
			return -1;
	for (size_t i = 0; i < ne->n_routes; i++)
		if (make_route(sk, ne->routes[i], e))
			return -1;
	for (size_t i = 0; i < ne->n_rules; i++)
		if (make_rule(sk, ne->rules[i], e))
			return -1;
	if (ne->nft && ns_nft_restore(ne->nft, e))
		return -1;
	if (ns_ipt_restore(ne, e))
		return -1;
	pr_info("network namespace %u made: %zu links, %zu addresses, %zu routes, %zu rules\n", id,
		ne->n_links, ne->n_addrs, ne->n_routes, ne->n_rules);
	return 0;
}

void ns_net_done(struct ns_rst *r, bool failed)
{
	struct ns_net_state *s = r->net;
	if (!s)
		return;
	for (size_t i = 0; failed && s->outer && i < s->n_made_out; i++) {
		/* the pair would go with the namespace, later (the kernel frees namespaces asynchronously) */
		struct rtnl_link *l = rtnl_link_alloc();
		if (!l)
			break;
		rtnl_link_set_name(l, s->made_out[i]);
		int ret = rtnl_link_delete(s->outer, l);
		rtnl_link_put(l);
		if (ret < 0 && ret != -NLE_NODEV && ret != -NLE_OBJ_NOTFOUND)
			pr_warn("remove veth end %s: %s\n", s->made_out[i], nl_geterror(ret));
		else
			pr_info("removed veth end %s\n", s->made_out[i]);
	}
	if (failed) /* crshim is back in its own namespace */
		move_out(s);
	for (size_t i = 0; i < s->n_moved; i++)
		nl_socket_free(s->moved[i].sk);
	if (s->outer)
		nl_socket_free(s->outer);
	if (s->ne)
		protobuf_c_message_free_unpacked(&s->ne->base, NULL);
	free(s->made_out);
	free(s->moved);
	free(s);
	r->net = NULL;
}
