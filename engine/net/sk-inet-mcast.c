/* Multicast groups joined by datagram inet sockets: dump and restore (see sk-inet.h). */
#define LOG_PREFIX "sk-mcast: "
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/sockios.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "base/err.h"
#include "base/log.h"
#include "net/sk-inet.h"
#include "sock-diag.h"

#define MCAST_SRC_MAX 64 /* sources of one filter (net.ipv4.igmp_max_msf is 10 by default) */

struct mc_group {
	unsigned ifindex;
	uint8_t addr[16];
};

/* One line of /proc/PID/net/igmp: "IDX\tDEV : ..." starts an interface, "\t\t\t\tGROUP ..." is a group of it
 * (the address's bytes printed as one hex word, %08X of the __be32). */
static bool igmp_line(const char *l, unsigned *ifindex, struct mc_group *g)
{
	unsigned v;
	if (isdigit((unsigned char)l[0]))
		return (*ifindex = (unsigned)strtoul(l, NULL, 10)), false;
	if (l[0] != '\t' || !*ifindex || sscanf(l, " %8x", &v) != 1)
		return false;
	g->ifindex = *ifindex;
	memcpy(g->addr, &v, 4);
	return true;
}

/* One line of /proc/PID/net/igmp6: "IDX DEV GROUP(32 hex digits) ...". */
static bool igmp6_line(const char *l, struct mc_group *g)
{
	char hex[33];
	unsigned b;
	if (sscanf(l, "%u %*s %32[0-9a-f]", &g->ifindex, hex) != 2 || strlen(hex) != 32)
		return false;
	for (int i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return false;
		g->addr[i] = (uint8_t)b;
	}
	return true;
}

/* g (of family fam) and its filter gf into ie */
static int mcast_add(InetSkEntry *ie, int fam, const struct mc_group *g, const struct group_filter *gf,
		     struct cr_err *e)
{
	size_t alen = fam == AF_INET ? 4 : 16;
	InetMcastEntry *m = arr_append_new(&ie->mcast, &ie->n_mcast, sizeof(*m));
	if (!m)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	inet_mcast_entry__init(m);
	m->ifindex = g->ifindex, m->has_ifindex = 1;
	m->fmode = gf->gf_fmode, m->has_fmode = 1;
	m->group.data = malloc(alen);
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	m->sources = calloc(gf->gf_numsrc ? gf->gf_numsrc : 1, sizeof(*m->sources));
	if (!m->group.data || !m->sources)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(m->group.data, g->addr, alen);
	m->group.len = alen, m->has_group = 1;
	for (uint32_t i = 0; i < gf->gf_numsrc; i++) {
		const struct sockaddr_storage *ss = &gf->gf_slist[i];
		const void *src = fam == AF_INET
				      ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				      : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
		if (!(m->sources[i].data = malloc(alen)))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		memcpy(m->sources[i].data, src, alen);
		m->sources[i].len = alen;
		m->n_sources++;
	}
	return 0;
}

/* Is the socket cfd a member of g? Its filter into gf (room for MCAST_SRC_MAX sources): 1 yes, 0 no. */
static int member(int cfd, int family, const struct mc_group *g, struct group_filter *gf, struct cr_err *e)
{
	socklen_t l = (socklen_t)GROUP_FILTER_SIZE(MCAST_SRC_MAX);
	memset(gf, 0, l);
	gf->gf_interface = g->ifindex;
	gf->gf_numsrc = MCAST_SRC_MAX;
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&gf->gf_group;
		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, g->addr, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&gf->gf_group;
		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, g->addr, 16);
	}
	if (getsockopt(cfd, family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6, MCAST_MSFILTER, gf, &l))
		return errno == EADDRNOTAVAIL || errno == EINVAL ? 0 : cr_fail_sys(e, "MCAST_MSFILTER");
	if (gf->gf_numsrc > MCAST_SRC_MAX)
		return cr_fail_errno(e, E2BIG,
				     "multicast group on interface %u with a filter of %u sources "
				     "(crshim saves at most %d)",
				     g->ifindex, gf->gf_numsrc, MCAST_SRC_MAX);
	return 1;
}

struct proc_net {
	const char *name; /* "igmp", "igmp6" */
	FILE *f;
};

/* /proc/thread-self/net/NAME, of the network namespace this thread is in (ns_diag_in_netns_fd) */
static int open_here(void *arg, struct cr_err *e)
{
	struct proc_net *o = arg;
	char path[64];
	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", o->name);
	o->f = fopen(path, "re");
	return o->f || errno == ENOENT ? 0 : cr_fail_sys(e, "open %s", path);
}

/* The groups of the socket's own network namespace: its holder's, or not when it was made before the task's
 * setns or unshare, or passed to it (SIOCGSKNS). *f NULL: no multicast support in the kernel. */
static int igmp_open(int pid, int cfd, const char *name, FILE **f, struct cr_err *e)
{
	struct proc_net o = {.name = name};
	char path[64];
	struct stat sk, task;
	__cleanup_close int ns = ioctl(cfd, SIOCGSKNS);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (ns >= 0 && !fstat(ns, &sk) && !stat(path, &task) && sk.st_ino != task.st_ino) {
		pr_debug("multicast groups of net:[%llu], not the task's\n", (unsigned long long)sk.st_ino);
		int r = ns_diag_in_netns_fd(ns, open_here, &o, e);
		*f = o.f;
		return r;
	}
	snprintf(path, sizeof(path), "/proc/%d/net/%s", pid, name);
	*f = fopen(path, "re");
	return *f || errno == ENOENT ? 0 : cr_fail_sys(e, "open %s", path);
}

/* The groups of family fam (igmp, igmp6) the socket joined */
static int mcast_dump_fam(int pid, int cfd, int fam, InetSkEntry *ie, struct cr_err *e)
{
	union {
		struct group_filter f;
		char room[GROUP_FILTER_SIZE(MCAST_SRC_MAX)];
	} u;
	struct group_filter *gf = &u.f;
	__cleanup_fclose FILE *f = NULL;
	if (igmp_open(pid, cfd, fam == AF_INET ? "igmp" : "igmp6", &f, e))
		return -1;
	if (!f) /* no multicast support in the kernel: nothing joined */
		return 0;
	char line[256];
	unsigned ifindex = 0;
	struct mc_group g;
	while (fgets(line, sizeof(line), f)) {
		memset(&g, 0, sizeof(g));
		if (!(fam == AF_INET ? igmp_line(line, &ifindex, &g) : igmp6_line(line, &g)))
			continue;
		int r = member(cfd, fam, &g, gf, e);
		if (r < 0 || (r && mcast_add(ie, fam, &g, gf, e)))
			return -1;
		if (r)
			pr_debug("member of an IPv%c group on interface %u, filter mode %u, %u sources\n",
				 fam == AF_INET ? '4' : '6', g.ifindex, gf->gf_fmode, gf->gf_numsrc);
	}
	return 0;
}

int sk_mcast_dump(int pid, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	if (ie->type == SOCK_STREAM || (ie->family != AF_INET && ie->family != AF_INET6))
		return 0;
	if (ie->family == AF_INET6 && mcast_dump_fam(pid, cfd, AF_INET6, ie, e))
		return -1;
	/* an IPv6 socket's IPv4 groups too (joined at the IPv4 level: IP_ADD_MEMBERSHIP, ...) */
	return sk_has_v4_level((int)ie->family, (int)ie->type) ? mcast_dump_fam(pid, cfd, AF_INET, ie, e) : 0;
}

void sk_mcast_free(InetSkEntry *ie)
{
	for (size_t i = 0; i < ie->n_mcast; i++) {
		InetMcastEntry *m = ie->mcast[i];
		for (size_t j = 0; j < m->n_sources; j++)
			free(m->sources[j].data);
		free(m->sources);
		free(m->group.data);
		free(m);
	}
	free(ie->mcast);
	ie->mcast = NULL;
	ie->n_mcast = 0;
}

/* ---------------------------------------------------------------- restore */

static bool addr_ok(const ProtobufCBinaryData *a, int family)
{
	return a->len == (family == AF_INET ? 4u : 16u);
}

/* The family of group a of a socket of family skfam, type type: its own, or IPv4 for an IPv6 socket that has
 * the IPv4 level; -1: neither. */
static int group_family(const ProtobufCBinaryData *a, int skfam, int type)
{
	if (addr_ok(a, skfam))
		return skfam;
	return skfam == AF_INET6 && sk_has_v4_level(skfam, type) && addr_ok(a, AF_INET) ? AF_INET : -1;
}

static void mk_ss(struct sockaddr_storage *ss, int family, const ProtobufCBinaryData *a)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET)
		memcpy(&((struct sockaddr_in *)ss)->sin_addr, a->data, 4);
	else
		memcpy(&((struct sockaddr_in6 *)ss)->sin6_addr, a->data, 16);
}

int sk_mcast_restore(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	for (size_t i = 0; i < ie->n_mcast; i++) {
		const InetMcastEntry *m = ie->mcast[i];
		bool incl = m->fmode == MCAST_INCLUDE;
		int fam = group_family(&m->group, (int)ie->family, (int)ie->type);
		int level = fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		if (fam < 0 || (incl && !m->n_sources))
			return errno = EBADMSG, rst_errmsg(msg, len, "bad multicast group entry");
		struct group_source_req gs = {.gsr_interface = m->ifindex};
		mk_ss(&gs.gsr_group, fam, &m->group);
		if (!incl) {
			struct group_req gr = {.gr_interface = m->ifindex, .gr_group = gs.gsr_group};
			if (setsockopt(sk, level, MCAST_JOIN_GROUP, &gr, sizeof(gr)))
				return rst_errmsg(msg, len, "join a multicast group on interface %u",
						  m->ifindex);
		}
		for (size_t j = 0; j < m->n_sources; j++) {
			if (!addr_ok(&m->sources[j], fam))
				return errno = EBADMSG, rst_errmsg(msg, len, "bad multicast source entry");
			mk_ss(&gs.gsr_source, fam, &m->sources[j]);
			if (setsockopt(sk, level, incl ? MCAST_JOIN_SOURCE_GROUP : MCAST_BLOCK_SOURCE, &gs,
				       sizeof(gs)))
				return rst_errmsg(msg, len, "%s a multicast source on interface %u",
						  incl ? "join" : "block", m->ifindex);
		}
	}
	return 0;
}
