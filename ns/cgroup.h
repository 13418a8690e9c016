/* Cgroups of a tree (ns/cgroup*.c): dump (cgroup.img), restore with CRIU's --manage-cgroups modes and
 * --cgroup-root, and --freeze-cgroup. Only ns/ includes this; the pipelines go through ns.h. */
#ifndef CRSHIM_NS_CGROUP_H
#define CRSHIM_NS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ns.h"

/* One hierarchy crshim sees: its name as /proc/PID/cgroup has it ("cpu,cpuacct", "name=systemd", "" for
 * v2) and where it is mounted (the mount's root is the hierarchy's root). */
struct ns_cg_hier {
	char name[64];
	char mnt[256];
	int fd; /* a mount of crshim's own, attached nowhere (mnt is /proc/self/fd/FD), or -1 */
};
/* The hierarchies mounted in crshim's mount namespace (at most max); their number. */
size_t ns_cg_hiers(struct ns_cg_hier *h, size_t max);
/* A v1 hierarchy named name ("name=X", "cpu,cpuacct") mounted nowhere crshim sees (a tree that mounted
 * it in a mount namespace of its own, as CRIU's cgroup_stray): crshim mounts it for itself, attached
 * nowhere, as h[*n] (at most max). 0, or -1 (logged: nothing is made or entered there). */
int ns_cg_yard(struct ns_cg_hier *h, size_t *n, size_t max, const char *name);
/* Release the mounts ns_cg_yard made. */
void ns_cg_hiers_close(struct ns_cg_hier *h, size_t n);
/* The hierarchy of h named name, or NULL. */
const struct ns_cg_hier *ns_cg_hier_of(const struct ns_cg_hier *h, size_t n, const char *name);

/* cgroup-restore.c: whether crshim may join cgroup dir of the hierarchy mounted at mnt while it makes what
 * the tree is charged for (ns_cg_mem_enter; bytes: the pages and pipe data it writes there): not frozen, and
 * room left under pids.max and the memory limits (16 MiB + bytes), in it and the cgroups above it. false with
 * why (len) set when it may not. */
bool ns_cg_room_for_crshim(const char *dir, const char *mnt, uint64_t bytes, char *why, size_t len);

/* cgroup-props.c: the properties a runtime sets, of the hierarchy named hname (read: the files present
 * in dir, in the order they are written back), and writing them back. */
int ns_cg_props_read(const char *hname, const char *dir, CgDir *d, struct cr_err *e);
int ns_cg_props_write(const char *dir, const CgDir *d, struct cr_err *e);
void ns_cg_props_free(CgDir *d);

#endif
