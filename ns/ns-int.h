/* Inside ns/: the kinds of namespaces and what the parts of ns/ share (see ns.h for the pipelines' side). */
#ifndef CRSHIM_NS_INT_H
#define CRSHIM_NS_INT_H

#include "ns.h"

struct ns_kind {
	const char *name; /* as in /proc/PID/ns/ */
	int flag;	  /* CLONE_NEW* */
};
extern const struct ns_kind ns_kinds[NS_KINDS];
int ns_kind_of(const char *name);

/* The inodes of task pid's namespaces (pid 0: crshim's own); 0 where there is none (a zombie). */
int ns_read_ids(pid_t pid, uint64_t ino[NS_KINDS], struct cr_err *e);
void ns_ids_from_msg(const NsIds *m, uint64_t ino[NS_KINDS]);
/* --external KIND[INO]:KEY: the key naming that namespace, or NULL. */
const char *ns_ext_key(const struct cr_opts *o, const char *kind, uint64_t ino);
/* fn(arg) run inside task pid's namespace of kind k (setns), crshim back in its own afterwards. */
int ns_run_in(pid_t pid, int k, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e);
/* ... inside the namespace of kind k that fd is. */
/* ns-call.c: a single-threaded process with a fs of its own enters the user namespace that owns namespace
 * target (with own_mnt, then a copy of its mount namespace owned by it): its owner's capabilities there. */
int ns_enter_owner(int target, bool own_mnt);
int ns_run_in_fd(int fd, int k, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e);

struct ns_net_set;
/* ns-state.c: the state of the root's namespaces of the kinds in own (CLONE_NEW* flags) into their images
 * (net.img, ipc-sem.img, ...). */
int ns_dump_state(const struct ns_dump_args *a, const struct ns_net_set *nets, uint32_t own, NsEntry *ne,
		  struct cr_err *e);

struct ns_rst {
	const struct cr_opts *o;
	int dirfd;
	NsEntry *ne;		      /* ns.img; NULL for older images */
	uint32_t own;		      /* CLONE_NEW* the root had of its own */
	uint32_t made;		      /* ... the ones ns_rst_enter made or joined (crshim is in them) */
	int self_fd[NS_KINDS];	      /* crshim's own namespaces, -1 */
	int join_fd[NS_KINDS];	      /* --join-ns / --inherit-fd of an external one, -1 */
	bool empty_net;		      /* --empty-ns net: a new netns left empty */
	uint64_t ids[NS_KINDS];	      /* the root's at dump */
	struct ns_net_state *net;     /* net.c */
	struct ns_mnt_state *mnt;     /* mnt-restore.c: mnt.img and the tmpfs contents */
	struct ns_mnt_nested **mntns; /* mnt-nested.c: mntns-ID.img of the other processes (ID - 1) */
	size_t n_mntns;
	struct ns_cg_state *cg;	    /* cgroup-restore.c: cgroup.img and the cgroups made */
	int user_fd;		    /* userns.c: the user namespace made (own & CLONE_NEWUSER), -1 */
	int user_made_fd[NS_KINDS]; /* ... the namespaces made in it, which crshim joins, -1 */
	struct ns_user_lvl *lvl;    /* userns.c: [0] the tree's user namespace, then those nested in it */
	size_t n_lvl;
	struct ns_net_x *xnet; /* net-multi.c: the tree's other network namespaces */
	size_t n_xnet;
	int root_net_fd;	   /* ... with them: the root's network namespace (crshim's fd), -1 */
	uint64_t root_net_new_ino; /* ... its inode */
};
/* userns.c: the root's user namespace (maps, setgroups, which kinds it owns) into ne; at restore the
 * check of ns.img (ns_user_load) and the namespace made with the kinds it owns (ns_user_make). */
int ns_user_dump(const struct ns_dump_args *a, const uint64_t self[NS_KINDS], uint64_t (*ids)[NS_KINDS],
		 NsEntry *ne, struct cr_err *e);
void ns_user_dump_free(NsEntry *ne);
int ns_user_load(struct ns_rst *r, struct cr_err *e);
int ns_user_make(struct ns_rst *r, struct cr_err *e);
void ns_user_done(struct ns_rst *r); /* the fds and maps of the user namespaces */
/* Write sysctl path (of crshim's namespace of kind k) as the root of the user namespace that owns it. */
int ns_sysctl_as_owner(int k, const char *path, const char *val);

/* cgroup.c, cgroup-restore.c: the tree's cgroups (cgroup.img). own_cgns: the root has a cgroup
 * namespace of its own (its root is saved). */
int ns_cg_dump(const struct ns_dump_args *a, bool own_cgns, struct cr_err *e);
struct ns_cg_state;
int ns_cg_load(const struct cr_opts *o, int dirfd, struct ns_cg_state **out, struct cr_err *e);
/* Before any task: the cgroups made and their properties written, as the --manage-cgroups mode says. */
int ns_cg_prepare(struct ns_cg_state *s, struct cr_err *e);
/* A task just cloned (not yet run) into its cgroups. */
int ns_cg_attach(struct ns_cg_state *s, pid_t pid, pid_t img_pid, struct cr_err *e);
int ns_cg_attach_thread(struct ns_cg_state *s, pid_t tid, pid_t img_tid, struct cr_err *e);
/* ns_rst_memcg_enter(_for: bytes), ns_rst_memcg_leave (ns_cg_done leaves too) */
void ns_cg_mem_enter(struct ns_cg_state *s, uint64_t bytes);
void ns_cg_mem_leave(struct ns_cg_state *s);
/* The root task itself, in its cgroups (ns_cg_attach): its cgroup namespace made (unshare) with the root it
 * had at dump, which may be above its cgroup (s NULL: at its cgroup). -1 with msg set if it cannot. */
int ns_cg_unshare(const struct ns_cg_state *s, char *msg, size_t len);
/* A cgroup namespace owned by the user namespace user_fd, for the root task of a tree not born in it: a
 * helper joins the root task's cgroups and makes it there as ns_cg_unshare would, from inside the user
 * namespace; *fd: the namespace, which the root task enters (ns_rst_root_child). */
int ns_cg_make_owned(struct ns_cg_state *s, int user_fd, int *fd, struct cr_err *e);
/* failed: the cgroups made are removed. Frees s (NULL is fine). */
void ns_cg_done(struct ns_cg_state *s, bool failed);

/* ns-state.c: the restore side of each kind: load its images (ns_rst_load), fill the namespace of kind k
 * crshim just made (ns_rst_fill, also when it joined one: nothing then), drop what is left (failed: what a
 * failure leaves outside the new namespaces). */
int ns_rst_load_state(struct ns_rst *r, struct cr_err *e);
int ns_rst_fill(struct ns_rst *r, int k, struct cr_err *e);
void ns_rst_state_done(struct ns_rst *r, bool failed);

/* net-multi.c: the network namespaces of the tree at dump: [0] the root's (fd -1 when it is not saved:
 * crshim's or external), then the others, each held by an fd of crshim. */
#define NS_NET_MAX 64
struct ns_net_set {
	size_t n;
	uint64_t ino[NS_NET_MAX];
	int fd[NS_NET_MAX];
	int root_ext; /* the root's when it is the caller's (--external net[..]: fd[0] -1, not saved), -1 */
};
int ns_net_collect(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], uint64_t self, bool own_mnt,
		   bool root_saved, struct ns_net_set *s, struct cr_err *e);
/* Restore, crshim once they are made: a bind mount of one of them (mnt.img nsfs_net) made detached from the
 * restored namespace, for the root task to attach (ns_mnt_state pre). */
int ns_net_mnt_premake(struct ns_rst *r, struct cr_err *e);
void ns_net_set_close(struct ns_net_set *s);
/* ... the others into ne->nets and net-ID.img (ns_net_dump_extra_free frees ne->nets). */
int ns_net_dump_extra(const struct ns_dump_args *a, const struct ns_net_set *s, uint64_t self_user,
		      NsEntry *ne, struct cr_err *e);
void ns_net_dump_extra_free(NsEntry *ne);
/* Restore: net-ID.img read (ns_rst_load); the namespaces made, their interface defaults written, before the
 * root's is filled (which makes the veths to them); then each filled; the fds closed. */
int ns_net_multi_load(struct ns_rst *r, struct cr_err *e);
int ns_net_multi_make(struct ns_rst *r, struct cr_err *e);
int ns_net_multi_fill(struct ns_rst *r, struct cr_err *e);
void ns_net_multi_done(struct ns_rst *r);
/* The image and namespace fd (-1: none) of the tree's network namespace id (0: the root's). */
const NetEntry *ns_net_of(const struct ns_rst *r, uint32_t id, int *fd);
/* userns.c: the fd of the user namespace of inode ino that ns_user_make made (the tree's or nested), -1 */
int ns_user_fd_of(const struct ns_rst *r, uint64_t ino);

/* net.c (libnl-route-3): the network namespace crshim is in. */
struct ns_net_state;
/* Network namespace s->fd[id] into net.img (id 0) or net-ID.img; a veth whose other end is in another of s
 * is saved as such (peer_ns). */
int ns_net_dump(const struct ns_dump_args *a, const struct ns_net_set *s, int id, struct cr_err *e);
/* The links of ne: kinds crshim makes, the outside devices they need named. */
int ns_net_check_links(struct ns_rst *r, const NetEntry *ne, struct cr_err *e);
/* net-multi.c: the inode at dump of the tree's network namespace whose image is ne; the image of the i-th
 * one of the tree (0: the root's, when read), its inode in *ino, NULL past the last. */
uint64_t ns_net_ino_of(const struct ns_rst *r, const NetEntry *ne);
const NetEntry *ns_net_nth(const struct ns_rst *r, size_t i, uint64_t *ino);
/* An --external netdev[IFNAME]:HOSTDEV, veth[IFNAME]:OUTNAME or macvlan[IFNAME]:MASTER that does not say
 * which namespace (TYPE[INO/IFNAME]) while two of the tree's network namespaces had a link IFNAME it names
 * (any, a veth with its other end outside, a macvlan): refused with one line. After every image is read. */
int ns_net_ext_check(const struct ns_rst *r, struct cr_err *e);
/* Fill the namespace crshim is in with ne (the tree's network namespace id; 0: the root's). */
int ns_net_fill(struct ns_rst *r, const NetEntry *ne, uint32_t id, struct cr_err *e);
bool ns_net_kind_ok(const char *kind);
/* net-tun.c: tun/tap link ifindex (name) into le (flags, owner, group; a persistent one only), made again
 * with crshim in its namespace. */
int ns_tun_dump(const char *name, int ifindex, NetLinkEntry *le, struct cr_err *e);
int ns_tun_make(const NetLinkEntry *le, struct cr_err *e);
/* The tree of network namespace netns_fd was killed: its veths go now (see ns_dump_killed). */
void ns_net_killed(int netns_fd); /* a kind of link crshim makes again (besides the loopback) */
int ns_net_load(struct ns_rst *r, struct cr_err *e);
int ns_net_state_new(struct ns_rst *r, struct cr_err *e);  /* r->net with no image (extras only) */
const NetEntry *ns_net_root_entry(const struct ns_rst *r); /* net.img, NULL */
int ns_net_restore(struct ns_rst *r, struct cr_err *e);
void ns_net_done(struct ns_rst *r, bool failed);
/* ipc.c, ipc-mq.c: the IPC namespace's System V semaphores and message queues, POSIX message queues, its
 * sysctls (into ne->ipc_sysctls, freed by ns_ipc_dump_free); restore with crshim in the new namespace. */
int ns_ipc_dump(const struct ns_dump_args *a, NsEntry *ne, struct cr_err *e);
void ns_ipc_dump_free(NsEntry *ne);
int ns_ipc_restore(struct ns_rst *r, struct cr_err *e);
int ns_mq_dump(const struct ns_dump_args *a, size_t *n, struct cr_err *e);
int ns_mq_restore(int dirfd, struct cr_err *e);
/* net-sysctl.c: per-namespace sysctls and the nftables ruleset, crshim inside the namespace. */
int ns_net_sysctl_dump(NetEntry *ne, struct cr_err *e);
/* The phases of the restore: the interface settings of all and default (before the links are made); the
 * others (each link's own once it is made, and the rest); the IPv6 MTU of the links (once they are up). */
enum { NS_SYSCTL_DFLT, NS_SYSCTL_LINKS, NS_SYSCTL_UP };
int ns_net_sysctl_restore(const NetEntry *ne, int phase, struct cr_err *e);
int ns_nft_dump(char **out, struct cr_err *e);
int ns_nft_restore(const char *js, struct cr_err *e);
int ns_ipt_dump(NetEntry *ne, unsigned long long ino, struct cr_err *e);
int ns_ipt_restore(const NetEntry *ne, struct cr_err *e);

/* userns.c: a tree born in its user namespace (ns_rst_user_born): the ids of its mount options made the
 * namespace's (they were crshim's view), or one line for one it does not map. */
int ns_user_mnt_ids(struct ns_rst *r, struct cr_err *e);
/* ... the root task, born in it, takes its first uid and gid (ns_rst_root_child). */
/* ... whose time namespace it owns (made by ns_rst_user_born_time). */
bool ns_rst_user_time(const struct ns_rst *r);
/* userns.c: two pipes (up: helper to crshim, down: crshim to helper), O_CLOEXEC; and the end of a helper: our
 * ends closed (EOF on down: it exits), then reaped. */
int ns_helper_pipes(int up[2], int down[2], struct cr_err *e);
void ns_helper_end(int up, int down, pid_t pid);
/* ns-state.c: the time offsets of ne written for the time namespace of the children of pid (0: ours; 0, -1
 * with errno). */
int ns_time_offsets_write(const NsEntry *ne, pid_t pid);

#endif
