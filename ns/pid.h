/* PID namespaces (ns/pid.c): ids of a task in every PID namespace level, and the fresh /proc of a restored
 * PID namespace's init. */
#ifndef CRSHIM_NS_PID_H
#define CRSHIM_NS_PID_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

/* The ids of a task as /proc/PID/status NSpid/NSpgid/NSsid list them (our namespace first): the number of
 * levels and the innermost pid, pgid and sid (0 for a group/session outside that namespace). */
struct ns_pid_ids {
	int levels;
	pid_t pid, pgid, sid;
};
int ns_pid_ids(pid_t pid, struct ns_pid_ids *out, struct cr_err *e);
/* The NSpid line of task (or thread) tid: its id in every PID namespace, ours first; the number of levels. */
int ns_pid_chain(pid_t tid, pid_t *ids, int max, struct cr_err *e);
/* Is namespace link ka of task a ("pid", "mnt", "pid_for_children") the same namespace as link kb of b?
 * True when either has none left (a zombie). */
bool ns_same(pid_t a, const char *ka, pid_t b, const char *kb);
/* Is task pid in another namespace of this kind ("mnt", "pid", ...) than we are? */
bool ns_other(pid_t pid, const char *kind);
/* Child side, in a new mount namespace: / private (recursively), a fresh proc on /proc for the
 * PID namespace we are in. A message on failure. */
int ns_pid_mount_proc(char *msg, size_t len);

#endif
