/* Netlink and packet sockets, the plain cases (see sk-inet.h): kind, protocol, bound port id and
 * multicast groups (netlink), bound protocol and interface (packet; SOCK_PACKET: its device), fanout group
 * (not one steered by BPF), options, the mapped rings (sk-pkt-ring.c). No queued messages. Dump and restore
 * (restore child: errors as text). */
#define LOG_PREFIX "sk-nlpkt: "
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>

#include "base/log.h"
#include "files/fd-kind.h"
#include "net/sk-inet.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nlpkt_opt {
	int level, name;
};

static const struct nlpkt_opt nl_opts[] = {
    {SOL_SOCKET, SO_SNDBUF},
    {SOL_SOCKET, SO_RCVBUF},
    {SOL_SOCKET, SO_BUF_LOCK}, /* after the sizes, which lock them; saved even at its default */
    {SOL_SOCKET, SO_PASSCRED},
    {SOL_NETLINK, NETLINK_PKTINFO},
    {SOL_NETLINK, NETLINK_BROADCAST_ERROR},
    {SOL_NETLINK, NETLINK_NO_ENOBUFS},
    {SOL_NETLINK, NETLINK_CAP_ACK},
    {SOL_NETLINK, NETLINK_EXT_ACK},
    {SOL_NETLINK, NETLINK_GET_STRICT_CHK},
    {SOL_NETLINK, NETLINK_LISTEN_ALL_NSID},
};

static const struct nlpkt_opt pkt_opts[] = {
    {SOL_SOCKET, SO_SNDBUF},	  {SOL_SOCKET, SO_RCVBUF},	   {SOL_SOCKET, SO_BUF_LOCK},
    {SOL_SOCKET, SO_PRIORITY},	  {SOL_SOCKET, SO_MARK},	   {SOL_PACKET, PACKET_AUXDATA},
    {SOL_PACKET, PACKET_ORIGDEV}, {SOL_PACKET, PACKET_VNET_HDR},   {SOL_PACKET, PACKET_VERSION},
    {SOL_PACKET, PACKET_RESERVE}, {SOL_PACKET, PACKET_TIMESTAMP},  {SOL_PACKET, PACKET_QDISC_BYPASS},
    {SOL_PACKET, PACKET_LOSS},	  {SOL_PACKET, PACKET_TX_HAS_OFF}, {SOL_PACKET, PACKET_IGNORE_OUTGOING},
}; /* the ones a ring depends on (version, reserve, loss, tx offset) come before it: the kernel refuses them
    * once a ring is set */

/* Options of cfd that differ from a fresh socket of its kind (ints only). */
static int opts(int cfd, int dom, int type, int proto, const struct nlpkt_opt *t, size_t nt,
		SkOptEntry ***out, size_t *n, struct cr_err *e)
{
	SkOptEntry **list = calloc(nt, sizeof(void *)); /* array of message pointers */
	if (!list)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*n = 0;
	int fresh = sk_fresh(cfd, dom, type, proto);
	for (size_t i = 0; i < nt; i++) {
		int v = 0, f = 0;
		socklen_t l = sizeof(v), fl = sizeof(f);
		if (getsockopt(cfd, t[i].level, t[i].name, &v, &l) || l != sizeof(v))
			continue;
		if (fresh >= 0 && !(t[i].level == SOL_SOCKET && t[i].name == SO_BUF_LOCK) &&
		    !getsockopt(fresh, t[i].level, t[i].name, &f, &fl) && f == v)
			continue;
		SkOptEntry *o = malloc(sizeof(*o));
		void *d = malloc(sizeof(v));
		if (!o || !d) {
			free(o);
			free(d);
			if (fresh >= 0)
				close(fresh);
			dump_sk_opts_free(list, *n);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		sk_opt_entry__init(o);
		int name = t[i].name;
		if (t[i].level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF)) {
			v /= 2;
			name = name == SO_SNDBUF ? SO_SNDBUFFORCE : SO_RCVBUFFORCE;
		}
		memcpy(d, &v, sizeof(v));
		o->level = t[i].level, o->has_level = 1;
		o->name = name, o->has_name = 1;
		o->val.data = d, o->val.len = sizeof(v), o->has_val = 1;
		list[(*n)++] = o;
	}
	if (fresh >= 0)
		close(fresh);
	*out = list;
	return 0;
}

int dump_sk_netlink(int cfd, int type, int proto, uint32_t fl, FileEntry *fe, struct cr_err *e)
{
	NetlinkSkEntry *ne = fe->netlink_sk =
	    fe_sub_new(fe, FILE_KIND__FILE_NETLINKSK, &netlink_sk_entry__descriptor, e);
	if (!ne)
		return -1;
	ne->type = (uint32_t)type, ne->has_type = 1;
	ne->protocol = (uint32_t)proto, ne->has_protocol = 1;
	ne->flags = fl & ~(uint32_t)O_CLOEXEC, ne->has_flags = 1;
	struct sockaddr_nl a = {0};
	socklen_t l = sizeof(a);
	if (getsockname(cfd, (struct sockaddr *)&a, &l))
		return cr_fail_sys(e, "netlink getsockname");
	ne->portid = a.nl_pid, ne->has_portid = 1;
	l = sizeof(a);
	memset(&a, 0, sizeof(a));
	if (!getpeername(cfd, (struct sockaddr *)&a, &l) && (a.nl_pid || a.nl_groups)) {
		ne->dst_portid = a.nl_pid, ne->has_dst_portid = 1;
		ne->dst_group = a.nl_groups, ne->has_dst_group = 1;
	}
	uint32_t groups[32] = {0}; /* the first 1024 groups; words not filled in stay 0 */
	l = sizeof(groups);
	if (getsockopt(cfd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups, &l))
		memset(groups, 0, sizeof(groups));
	size_t bits = 0;
	for (size_t w = 0; w < 32; w++)
		bits += (size_t)__builtin_popcount(groups[w]);
	ne->groups = calloc(bits + 1, sizeof(uint32_t));
	if (!ne->groups)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t w = 0; w < 32; w++)
		for (unsigned b = 0; b < 32; b++)
			if (groups[w] & (1u << b))
				ne->groups[ne->n_groups++] = (uint32_t)(w * 32 + b + 1);
	size_t n = 0;
	if (opts(cfd, AF_NETLINK, type, proto, nl_opts, sizeof(nl_opts) / sizeof(nl_opts[0]), &ne->opts, &n,
		 e))
		return -1;
	ne->n_opts = n;
	pr_debug("netlink socket proto %d port id %u, %zu groups\n", proto, a.nl_pid, ne->n_groups);
	return 0;
}

int dump_sk_packet(const struct cr_opts *o, pid_t pid, int fd, int cfd, int type, int proto, uint32_t fl,
		   FileEntry *fe, struct cr_err *e)
{
	PacketSkEntry *pe = fe->packet_sk =
	    fe_sub_new(fe, FILE_KIND__FILE_PACKETSK, &packet_sk_entry__descriptor, e);
	if (!pe)
		return -1;
	struct sockaddr_ll a = {0};
	socklen_t l = sizeof(a);
	if (getsockname(cfd, (struct sockaddr *)&a, &l))
		return cr_fail_sys(e, "packet getsockname");
	pe->type = (uint32_t)type, pe->has_type = 1;
	/* the bound protocol, network byte order as socket() takes it (SO_PROTOCOL says 0) */
	pe->protocol = a.sll_protocol ? a.sll_protocol : (uint32_t)proto, pe->has_protocol = 1;
	pe->flags = fl & ~(uint32_t)O_CLOEXEC, pe->has_flags = 1;
	if (type == SOCK_PACKET) { /* its name is a sockaddr_pkt: a device name */
		struct sockaddr_pkt pk;
		_Static_assert(sizeof(pk) <= sizeof(a), "sockaddr_pkt in sockaddr_ll");
		memcpy(&pk, &a, sizeof(pk));
		const struct sockaddr_pkt *k = &pk;
		pe->protocol = k->spkt_protocol ? k->spkt_protocol : (uint32_t)proto;
		pe->ifindex = 0, pe->has_ifindex = 1;
		if (k->spkt_device[0] &&
		    !(pe->device = strndup((const char *)k->spkt_device, sizeof(k->spkt_device))))
			return cr_fail_errno(e, ENOMEM, "out of memory");
	} else {
		pe->ifindex = a.sll_ifindex, pe->has_ifindex = 1;
	}
	int fo = 0;
	l = sizeof(fo);
	if (type != SOCK_PACKET && !getsockopt(cfd, SOL_PACKET, PACKET_FANOUT, &fo, &l) && fo) {
		unsigned mode = ((unsigned)fo >> 16) & 0xff;
		if (mode == PACKET_FANOUT_CBPF || mode == PACKET_FANOUT_EBPF)
			return cr_fail(
			    e,
			    "a packet socket in a fanout group steered by a BPF program (mode %u): not "
			    "supported",
			    mode);
		pe->fanout = (uint32_t)fo, pe->has_fanout = 1;
	}
	size_t n = 0;
	if (opts(cfd, AF_PACKET, type, proto, pkt_opts, sizeof(pkt_opts) / sizeof(pkt_opts[0]), &pe->opts, &n,
		 e))
		return -1;
	pe->n_opts = n;
	return type == SOCK_PACKET ? 0 : dump_pkt_rings(o, pid, fd, cfd, pe, e);
}

static int nl_open(const NetlinkSkEntry *ne, char *msg, size_t len)
{
	int nb = (ne->flags & O_NONBLOCK) ? SOCK_NONBLOCK : 0;
	int sk = socket(AF_NETLINK, (int)ne->type | nb, (int)ne->protocol);
	if (sk < 0)
		return sk_errmsg(msg, len, "netlink socket(%u, %u)", ne->type, ne->protocol);
	if (rst_sk_opts(sk, ne->opts, ne->n_opts, msg, len))
		goto fail;
	if (ne->portid) {
		struct sockaddr_nl a = {.nl_family = AF_NETLINK, .nl_pid = ne->portid};
		if (bind(sk, (struct sockaddr *)&a, sizeof(a))) {
			sk_errmsg(msg, len, "netlink bind to port id %u", ne->portid);
			goto fail;
		}
	}
	for (size_t i = 0; i < ne->n_groups; i++) {
		int g = (int)ne->groups[i];
		if (setsockopt(sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g))) {
			sk_errmsg(msg, len, "netlink join group %d", g);
			goto fail;
		}
	}
	if (ne->has_dst_portid) {
		struct sockaddr_nl a = {
		    .nl_family = AF_NETLINK, .nl_pid = ne->dst_portid, .nl_groups = ne->dst_group};
		if (connect(sk, (struct sockaddr *)&a, sizeof(a))) {
			sk_errmsg(msg, len, "netlink connect");
			goto fail;
		}
	}
	return sk;
fail:
	close(sk);
	return -1;
}

static int pkt_open(const PacketSkEntry *pe, char *msg, size_t len)
{
	int nb = (pe->flags & O_NONBLOCK) ? SOCK_NONBLOCK : 0;
	/* a ring whose position is walked first (sk-pkt-ring.c) takes no packet of its own before its bind */
	bool walk = rst_pkt_ring_walks(pe);
	int sk = socket(AF_PACKET, (int)pe->type | nb, walk ? 0 : (int)pe->protocol);
	if (sk < 0)
		return sk_errmsg(msg, len, "packet socket(%u, %#x)", pe->type, pe->protocol);
	if (rst_sk_opts(sk, pe->opts, pe->n_opts, msg, len) || rst_pkt_rings(sk, pe, msg, len))
		goto fail;
	if (pe->device && pe->type == SOCK_PACKET) {
		struct sockaddr_pkt k = {.spkt_family = AF_PACKET, .spkt_protocol = (uint16_t)pe->protocol};
		snprintf((char *)k.spkt_device, sizeof(k.spkt_device), "%s", pe->device);
		if (bind(sk, (struct sockaddr *)&k,
			 sizeof(struct sockaddr))) { /* the kernel wants that size */
			sk_errmsg(msg, len, "SOCK_PACKET bind to device %s", pe->device);
			goto fail;
		}
	} else if (pe->ifindex || walk) {
		struct sockaddr_ll a = {.sll_family = AF_PACKET,
					.sll_protocol = (uint16_t)pe->protocol,
					.sll_ifindex = pe->ifindex};
		if (bind(sk, (struct sockaddr *)&a, sizeof(a))) {
			sk_errmsg(msg, len, "packet bind to interface %d", pe->ifindex);
			goto fail;
		}
	}
	/* its fanout group: joined again (the other members of the tree join the same id); a unique id the
	 * kernel chose is asked for by number */
	int fo = (int)(pe->fanout & ~((uint32_t)PACKET_FANOUT_FLAG_UNIQUEID << 16));
	if (pe->has_fanout && pe->fanout && setsockopt(sk, SOL_PACKET, PACKET_FANOUT, &fo, sizeof(fo))) {
		sk_errmsg(msg, len, "join packet fanout group %u (mode %u)", pe->fanout & 0xffff,
			  (pe->fanout >> 16) & 0xff);
		goto fail;
	}
	return sk;
fail:
	close(sk);
	return -1;
}

int rst_sk_nlpkt_open(const FileEntry *f, char *msg, size_t len)
{
	if (f->kind == FILE_KIND__FILE_NETLINKSK)
		return nl_open(f->netlink_sk, msg, len);
	return pkt_open(f->packet_sk, msg, len);
}

/* ---------------------------------------------------------------- the kinds */

static bool is_netlink(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISSOCK(f->st.st_mode) && f->domain == AF_NETLINK;
}

static bool is_packet(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISSOCK(f->st.st_mode) && f->domain == AF_PACKET;
}

FD_KIND(fdk_netlink) = {
    .name = "netlink socket",
    .kind = FILE_KIND__FILE_NETLINKSK,
    .prio = 21,
    .is = is_netlink,
    .dump = dump_sk_kind,
    .release = dump_sk_kind_release,
    .tree_desc = true,
    .check = rst_sk_kind_check,
    .open = rst_sk_kind_open,
    .make = rst_sk_make,
};

FD_KIND(fdk_packet) = {
    .name = "packet socket",
    .kind = FILE_KIND__FILE_PACKETSK,
    .prio = 22,
    .is = is_packet,
    .dump = dump_sk_kind,
    .release = dump_sk_kind_release,
    .tree_desc = true,
    .check = rst_sk_kind_check,
    .open = rst_sk_kind_open,
    .make = rst_sk_make,
};
