/* The last PID handed out in a PID namespace (/proc/sys/kernel/ns_last_pid as a process in it sees it): the
 * namespace's next fork gets the first free PID after it. A tree in a PID namespace of its own keeps it
 * across C/R (dump-pidns.c saves it, restore-pidns.c sets it once the tree's processes exist: their clone3
 * set_tid leaves it where it was, 0 in a new namespace). */
#ifndef CRSHIM_PIDNS_LAST_H
#define CRSHIM_PIDNS_LAST_H

#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/* In the PID namespace of process member (our PID): a process forked there (by a child of ours that entered
 * it) gets the PID the namespace's next fork would have got, *next, and writes set to its ns_last_pid (set <
 * 0: *next - 1, which gives the next fork that PID again once it is gone) before it ends. */
int pidns_last_pid(pid_t member, int32_t set, int32_t *next, struct cr_err *e);

#endif
