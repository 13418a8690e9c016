/* The lock of the network namespaces a restore makes (CRIU's network lock at restore): each is locked whole,
 * by the dump's method (netns_lock in engine/net/tcp-repair.c), from when its devices, addresses, routes and
 * ruleset stand until the tree resumes, so that nothing reaches its sockets before their processes run. */
#ifndef CRSHIM_NET_NETNS_LOCK_H
#define CRSHIM_NET_NETNS_LOCK_H
#include "restore.h"

/* Lock each network namespace ts[0].ns made (ns_rst_net_made_each), after ns_rst_enter, before any socket:
 * by --network-lock if given (a failure fails the restore), else the method of the dump's lock (inventory
 * netns_lock), else nftables (a failure only a warning, as at dump). "skip": nothing. */
int rst_netns_lock_made(const struct cr_opts *o, const struct rst_task *ts, struct cr_err *e);
/* Remove those locks (before the tree resumes; and after a failed restore): warnings only. */
void rst_netns_unlock_made(void);

#endif
