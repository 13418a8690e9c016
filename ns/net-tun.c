/* tun/tap links of the tree's network namespaces (net.c's kind "tun"): their flags, owner and group read
 * at dump from the link's IFLA_INFO_DATA (IFLA_TUN_*, rtnetlink through libnl), made again at restore by
 * opening /dev/net/tun in the namespace crshim is in, TUNSETIFINDEX and TUNSETIFF with the name and flags,
 * TUNSETOWNER, TUNSETGROUP and TUNSETPERSIST (also one that only fds held: the tree's fd, attached again,
 * clears it). */
#define LOG_PREFIX "ns-net-tun: "
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "ns-int.h"

#define TUN_KEPT (IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE)

struct tun_info {
	bool seen;
	uint32_t flags;
	bool has_owner, has_group;
	uint32_t owner, group;
};

static uint8_t u8_of(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u8(tb[a]) : 0;
}

static int tun_cb(struct nl_msg *m, void *arg)
{
	struct tun_info *ti = arg;
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1], *td[IFLA_TUN_MAX + 1];
	if (nlmsg_parse(nlmsg_hdr(m), sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 ||
	    !tb[IFLA_LINKINFO] || nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) < 0 ||
	    !li[IFLA_INFO_DATA] || nla_parse_nested(td, IFLA_TUN_MAX, li[IFLA_INFO_DATA], NULL) < 0)
		return NL_SKIP;
	ti->seen = true;
	ti->flags = (td[IFLA_TUN_TYPE] ? nla_get_u8(td[IFLA_TUN_TYPE]) : 0) & (IFF_TUN | IFF_TAP);
	ti->flags |= u8_of(td, IFLA_TUN_PI) ? 0 : IFF_NO_PI;
	ti->flags |= u8_of(td, IFLA_TUN_VNET_HDR) ? IFF_VNET_HDR : 0;
	ti->flags |= u8_of(td, IFLA_TUN_MULTI_QUEUE) ? IFF_MULTI_QUEUE : 0;
	ti->flags |= u8_of(td, IFLA_TUN_PERSIST) ? IFF_PERSIST : 0;
	if ((ti->has_owner = td[IFLA_TUN_OWNER] != NULL))
		ti->owner = nla_get_u32(td[IFLA_TUN_OWNER]);
	if ((ti->has_group = td[IFLA_TUN_GROUP] != NULL))
		ti->group = nla_get_u32(td[IFLA_TUN_GROUP]);
	return NL_OK;
}

int ns_tun_dump(const char *name, int ifindex, NetLinkEntry *le, struct cr_err *e)
{
	struct tun_info ti = {0};
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_sock *sk = nl_socket_alloc();
	int r = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
	if (!r)
		r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, tun_cb, &ti);
	if (!r)
		r = nl_send_simple(sk, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	if (r >= 0)
		r = nl_recvmsgs_default(sk);
	if (sk)
		nl_socket_free(sk);
	if (r < 0)
		return cr_fail_errno(e, EIO, "tun/tap %s: rtnetlink: %s", name, nl_geterror(r));
	if (!ti.seen || !(ti.flags & (IFF_TUN | IFF_TAP)))
		return cr_fail(e, "tun/tap %s: the kernel gave no tun attributes (IFLA_TUN_TYPE)", name);
	/* one that is not persistent is made persistent at restore; the fd of the tree attached to it
	 * clears that (engine/files/file-reg.c) */
	le->tun_flags = ti.flags, le->has_tun_flags = 1;
	le->tun_owner = ti.has_owner ? (int32_t)ti.owner : -1, le->has_tun_owner = 1;
	le->tun_group = ti.has_group ? (int32_t)ti.group : -1, le->has_tun_group = 1;
	pr_info("tun/tap %s: flags 0x%x owner %d group %d\n", name, ti.flags, le->tun_owner, le->tun_group);
	return 0;
}

int ns_tun_make(const NetLinkEntry *le, struct cr_err *e)
{
	if (!le->has_tun_flags || !(le->tun_flags & (IFF_TUN | IFF_TAP)) || strlen(le->name) >= IFNAMSIZ)
		return cr_fail_errno(e, EBADMSG, "net image: tun/tap %s without its flags", le->name);
	__cleanup_close int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "make tun/tap %s: open /dev/net/tun", le->name);
	struct ifreq ifr = {.ifr_flags = (short)(le->tun_flags & TUN_KEPT)};
	memcpy(ifr.ifr_name, le->name, strlen(le->name));
	/* its ifindex (TUNSETIFF takes the lowest free one: a gap below it in the namespace) */
	unsigned idx = le->ifindex;
	if (idx && ioctl(fd, TUNSETIFINDEX, &idx) < 0)
		return cr_fail_sys(e, "make tun/tap %s: TUNSETIFINDEX %u", le->name, le->ifindex);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		return cr_fail_sys(e, "make tun/tap %s (flags 0x%x): TUNSETIFF", le->name, le->tun_flags);
	/* until TUNSETPERSIST, closing fd removes the device again */
	if (le->has_tun_owner && le->tun_owner >= 0 &&
	    ioctl(fd, TUNSETOWNER, (unsigned long)le->tun_owner) < 0)
		return cr_fail_sys(e, "tun/tap %s: TUNSETOWNER %d", le->name, le->tun_owner);
	if (le->has_tun_group && le->tun_group >= 0 &&
	    ioctl(fd, TUNSETGROUP, (unsigned long)le->tun_group) < 0)
		return cr_fail_sys(e, "tun/tap %s: TUNSETGROUP %d", le->name, le->tun_group);
	idx = if_nametoindex(le->name);
	if (idx != le->ifindex)
		return cr_fail(e, "tun/tap %s was made with ifindex %u, not %u as dumped (not supported yet)",
			       le->name, idx, le->ifindex);
	if (ioctl(fd, TUNSETPERSIST, 1UL) < 0)
		return cr_fail_sys(e, "tun/tap %s: TUNSETPERSIST", le->name);
	pr_info("made tun/tap %s (ifindex %u, flags 0x%x)\n", le->name, le->ifindex, le->tun_flags);
	return 0;
}
