/* Network namespace of a dumped tree. Every process must be in the root's; a root in a namespace other than
 * crshim's (unshare -n) is dumped (its sockets are read in that namespace, ns/sock-diag.c) and the namespace
 * is named in netns.img, which a restore refuses with one line: making network namespaces again is not
 * supported yet. */
#define LOG_PREFIX "dump-netns: "
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "dump.h"
#include "base/log.h"
#include "pid.h"

int dump_netns(struct dump_ctx *cs, size_t n, struct cr_err *e)
{
	char path[64];
	struct stat st;
	for (size_t i = 1; i < n; i++)
		if (!cs[i].zombie && !ns_same(cs[i].pid, "net", cs[0].pid, "net"))
			return cr_fail(
			    e,
			    "not supported yet: task %d is in another network namespace than the root "
			    "of the tree (task %d)",
			    cs[i].pid, cs[0].pid);
	if (!ns_other(cs[0].pid, "net"))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", cs[0].pid);
	if (stat(path, &st))
		return cr_fail_sys(e, "stat %s", path);
	NetnsEntry ne = NETNS_ENTRY__INIT;
	ne.ino = (uint64_t)st.st_ino, ne.has_ino = 1;
	ne.pid = cs[0].pid, ne.has_pid = 1;
	pr_info("task %d lives in a network namespace of its own (net:[%llu]): its restore is not supported "
		"yet\n",
		cs[0].pid, (unsigned long long)ne.ino);
	return dump_write_one(&cs[0], IMG_NETNS, &ne.base, e);
}
