/* The lock of the network namespaces a restore makes (CRIU's network lock at restore): each with a socket of
 * the tree is locked whole, by the dump's method (netns_lock in engine/net/tcp-repair.c), from when its
 * devices, addresses, routes and ruleset stand until the tree resumes, so that nothing reaches its sockets
 * before their processes run. */
#ifndef CRSHIM_NET_NETNS_LOCK_H
#define CRSHIM_NET_NETNS_LOCK_H
#include "restore.h"

/* Lock each network namespace ts[0].ns made (ns_rst_net_made_each) that holds an inet or packet socket of the
 * tree (ts[0..n-1]; one without any has nothing to keep traffic from: left unlocked, which saves the two nft
 * runs), after ns_rst_enter, before any socket: by --network-lock if given (a failure fails the restore),
 * else the method of the dump's lock (inventory netns_lock), else nftables (a failure only a warning, as at
 * dump). "skip": nothing. */
int rst_netns_lock_made(const struct cr_opts *o, const struct rst_task *ts, size_t n, struct cr_err *e);
/* Remove those locks (before the tree resumes; and after a failed restore): warnings only. */
void rst_netns_unlock_made(void);

#endif
