/* The state of each kind of namespace: which part of ns/ dumps and restores it (net.c, ipc.c, ...) and the
 * small ones kept in ns.img itself (UTS names, time namespace offsets). */
#define LOG_PREFIX "ns-state: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "mnt-int.h"

int ns_dump_state(const struct ns_dump_args *a, const struct ns_net_set *nets, uint32_t own, NsEntry *ne,
		  struct cr_err *e)
{
	if ((own & CLONE_NEWNET) && ns_net_dump(a, nets, 0, e))
		return -1;
	if ((own & CLONE_NEWIPC) && ns_ipc_dump(a, ne, e))
		return -1;
	if ((own & CLONE_NEWNS) && ns_mnt_dump(a, a->pids[0], e))
		return -1;
	struct ns_mnt_made made = {0};
	int ret = 0;
	for (size_t i = 0; !ret && a->mntns && i < a->n; i++)
		if (a->mntns[i] && ns_mnt_nested_dump(a, a->pids[i], a->mnt_base[i], a->mntns[i], &made, e))
			ret = -1;
	free(made.v);
	return ret;
}

int ns_rst_load_state(struct ns_rst *r, struct cr_err *e)
{
	/* (--empty-ns net: the root's is the caller's to fill, read only for the veths of the tree's other
	 * network namespaces to it) */
	if ((r->own & CLONE_NEWNET) && r->join_fd[NS_NET] < 0 &&
	    (!r->empty_net || (r->ne && r->ne->n_nets)) && ns_net_load(r, e))
		return -1;
	if (r->ne && r->ne->n_nets && (ns_net_state_new(r, e) || ns_net_multi_load(r, e)))
		return -1;
	if (((r->own & CLONE_NEWNS) && ns_mnt_load(r->o, r->dirfd, &r->mnt, e)) ||
	    ns_mnt_nested_load(r->dirfd, &r->mntns, &r->n_mntns, e))
		return -1;
	return ns_user_mnt_ids(r, e); /* a root born in its user namespace makes them with its ids */
}

static int fill_uts(const struct ns_rst *r, struct cr_err *e)
{
	const char *h = r->ne ? r->ne->hostname : NULL, *d = r->ne ? r->ne->domainname : NULL;
	if (h && sethostname(h, strlen(h)))
		return cr_fail_sys(e, "sethostname %s", h);
	if (d && setdomainname(d, strlen(d)))
		return cr_fail_sys(e, "setdomainname %s", d);
	pr_info("UTS: hostname %s, domain %s\n", h ? h : "(as crshim's)", d ? d : "(as crshim's)");
	return 0;
}

int ns_time_offsets_write(const NsEntry *ne, pid_t pid)
{
	char path[64];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/timens_offsets", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/timens_offsets");
	char buf[128];
	int n =
	    snprintf(buf, sizeof(buf), "monotonic %lld %lld\nboottime %lld %lld\n", (long long)ne->mono_sec,
		     (long long)ne->mono_nsec, (long long)ne->boot_sec, (long long)ne->boot_nsec);
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 || write(fd, buf, (size_t)n) != n ? -1 : 0;
}

/* Offsets of the time namespace crshim unshared: written before any task enters it. */
static int fill_time(const struct ns_rst *r, struct cr_err *e)
{
	const NsEntry *ne = r->ne;
	if (!ne)
		return 0;
	if (ns_time_offsets_write(ne, 0))
		return cr_fail_sys(e, "write /proc/self/timens_offsets");
	pr_info("time namespace: monotonic %+lld.%09lld s, boottime %+lld.%09lld s\n",
		(long long)ne->mono_sec, (long long)ne->mono_nsec, (long long)ne->boot_sec,
		(long long)ne->boot_nsec);
	return 0;
}

int ns_rst_fill(struct ns_rst *r, int k, struct cr_err *e)
{
	if (!(r->made & (uint32_t)ns_kinds[k].flag) || r->join_fd[k] >= 0)
		return 0; /* not made, or the caller's: left as it is */
	switch (k) {
	case NS_NET:
		return r->empty_net ? 0 : ns_net_restore(r, e);
	case NS_IPC:
		return ns_ipc_restore(r, e);
	case NS_UTS:
		return fill_uts(r, e);
	case NS_TIME:
		return fill_time(r, e);
	default:
		return 0;
	}
}

void ns_rst_state_done(struct ns_rst *r, bool failed)
{
	ns_net_multi_done(r);
	ns_net_done(r, failed);
	ns_mnt_free(r->mnt);
	r->mnt = NULL;
	ns_mnt_nested_free(r->mntns, r->n_mntns);
	r->mntns = NULL, r->n_mntns = 0;
}
