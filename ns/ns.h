/* Namespaces of a tree (ns/README.md has the order): what the dump and restore pipelines call.
 *
 * Dump: ns_dump takes every task's namespaces (by inode, read once per dump: ns_read_task_ids), checks that
 * crshim can restore them and writes ns.img plus the state of each namespace the root has apart from crshim
 * (UTS, time offsets, ...).
 * Restore: ns_rst_load reads them (before anything is made); ns_rst_enter makes the namespaces and their
 * contents in crshim itself (user first, then net devices and addresses, IPC objects, UTS, time), so that
 * the objects crshim makes before the tree (sockets, System V segments) are made inside them and the root
 * task is cloned into them; the root task calls ns_rst_root_child (cgroup namespace, then the mount tree:
 * ns_mnt_restore) before it opens any file; ns_rst_done returns crshim to its own namespaces and, after a
 * failure, removes what was made outside the new namespaces. */
#ifndef CRSHIM_NS_H
#define CRSHIM_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crshim.h"
#include "base/err.h"
#include "image/image.h"

/* ---- dump ---- */

struct proc_fd; /* base/proc.h */

/* The kinds of namespaces (ns_kinds: their names in /proc/PID/ns/), then those a task's new children get
 * (pid_for_children, time_for_children): the inodes of one task's, ns_read_task_ids. */
enum { NS_NET, NS_IPC, NS_UTS, NS_MNT, NS_PID, NS_CGROUP, NS_TIME, NS_USER, NS_KINDS };
enum { NS_PID_CHILD = NS_KINDS, NS_TIME_CHILD, NS_TASK_IDS };
/* The inodes of task pid's namespaces (/proc/PID/ns/KIND: one stat each), 0 where it has none (a zombie, a
 * kernel without that kind). The dump reads them once per task (engine/dump.c) and hands them over
 * (ns_dump_args.ids). */
int ns_read_task_ids(pid_t pid, uint64_t ino[NS_TASK_IDS], struct cr_err *e);
/* Two tasks' namespaces of a kind (ns_read_task_ids: a, b) are the same, or one of them has none (a zombie):
 * ns_same from what was read. */
static inline bool ns_ids_same(uint64_t a, uint64_t b)
{
	return !a || !b || a == b;
}

/* Tells the dump pipeline that an image was written (a failed dump removes it). */
typedef int (*ns_created_fn)(void *arg, enum img_kind k, int id, struct cr_err *e);

struct ns_dump_args {
	const struct cr_opts *o;
	int dirfd;	    /* images dir */
	const pid_t *pids;  /* the tree, pstree order (the root first) */
	const bool *zombie; /* per pid: a zombie has no namespaces left */
	size_t n;
	ns_created_fn created; /* called for every image written */
	void *created_arg;
	struct ns_dumped **kept; /* out: what ns_dump_killed needs (free with ns_dump_free) */
	bool *
	    born; /* out: the tree's user namespace owns its PID and mount namespaces (restored born in it) */
	bool *nested;  /* out, per pid (NULL: not wanted): in a user namespace nested in the tree's */
	bool *ipc_own; /* out (NULL: not wanted): the root's IPC namespace is the tree's own, not external */
	/* per pid (NULL: none): the id of its mount namespace when it has one of its own with other mounts
	 * than its parent's (engine/task/dump-pidns.c; 0: none), and that parent, against whose namespace it
	 * is saved (mntns-ID.img) */
	const uint32_t *mntns;
	const pid_t *mnt_base;
	/* per pid (NULL: read by ns_dump): its namespaces (ns_read_task_ids), its other threads (nthreads[i]
	 * ids in threads[i]; NULL: /proc/PID/task is read) and its fds with their links (fds[i], nfds[i];
	 * NULL: /proc/PID/fd is read), all read once the tree is stopped */
	const uint64_t (*ids)[NS_TASK_IDS];
	const pid_t *const *threads;
	const size_t *nthreads;
	const struct proc_fd *const *fds;
	const size_t *nfds;
};
/* Reads and checks the namespaces of the tree (one line when one cannot be restored), writes ns.img and
 * the images of the namespaces. */
int ns_dump(const struct ns_dump_args *a, struct cr_err *e);
struct ns_dumped;
/* Before anything of the dump: when the root has an IPC namespace of its own, *tree is that namespace (an fd,
 * -1 otherwise): System V shared memory is read there, and removed once the tree is killed, by engine/mem
 * through ns_call. ns_dump_leave closes it at the very end. */
int ns_dump_enter(pid_t root, int *tree, struct cr_err *e);
void ns_dump_leave(int tree);
/* fn(arg) run inside the namespace target is (an fd of it; nstype its CLONE_NEW* kind) by a child that shares
 * crshim's memory and fds (clone CLONE_VM | CLONE_FILES | CLONE_VFORK; fn's results and the fds it opens are
 * crshim's): crshim itself never leaves its own namespaces, which an unprivileged crshim could not enter
 * again (rootless: they belong to an ancestor of its user namespace). Where entering needs more than crshim
 * has in its own user namespace (EPERM), the child enters target's owning user namespace first (a crshim
 * outside it, as its owner, with file capabilities). fn must not block on this thread's locks. */
int ns_call(int target, int nstype, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e);
/* Whether crshim's user namespace owns the PID namespace its children are born in, so that it may choose
 * their PIDs there (clone3 set_tid, with CAP_CHECKPOINT_RESTORE there); not for a rootless crshim, whose PID
 * namespace is the host's. */
bool ns_pids_choosable(void);
/* Whether crshim's user namespace owns its own namespace of that kind ("pid", "net", ...: a name under
 * /proc/self/ns), so that crshim may enter it again once it left it (setns needs CAP_SYS_ADMIN over its
 * owner); not for a rootless crshim, whose PID, network, IPC and UTS namespaces are the host's. */
bool ns_self_owned(const char *kind);
/* The dumped tree was killed: the network devices of its namespace that have an end outside (veth) go now,
 * not whenever the kernel frees the namespace, so that a restore can make them again at once. */
void ns_dump_killed(struct ns_dumped *d);
void ns_dump_free(struct ns_dumped *d);

/* --freeze-cgroup PATH (ns/cgroup-freeze.c), before the tree is seized: freezes the cgroup, calls
 * preseize (PTRACE_SEIZE + PTRACE_INTERRUPT; errno set on failure) for each of its threads, thaws it:
 * the seize then finds them seized, their stops pending. *out NULL when path is NULL. */
struct ns_cg_frz;
int ns_cg_freeze(const char *path, int (*preseize)(pid_t tid), struct ns_cg_frz **out, struct cr_err *e);
/* After the dump (the tree released or killed): lets go of the cgroup's threads the dump did not take and
 * freezes the cgroup again if its owner had frozen it. NULL is fine. */
void ns_cg_freeze_done(struct ns_cg_frz *f);
/* --manage-cgroups MODE by name (none, props, soft, full, strict, ignore): enum cr_cg_mode, or -1. */
int ns_cg_mode_of(const char *name);

/* ---- restore ---- */

struct ns_rst; /* what ns.img says and what the restore made */

/* Reads ns.img (or a netns.img of older images); checks the namespace options (--join-ns, --empty-ns,
 * --external net[..] with --inherit-fd) against it. Nothing is made. *out is NULL-safe to free. */
int ns_rst_load(const struct cr_opts *o, int dirfd, struct ns_rst **out, struct cr_err *e);
/* In crshim, before any object of the tree is made: creates (or joins) the tree's namespaces except PID
 * and mount and fills them. crshim stays in them until ns_rst_done. */
int ns_rst_enter(struct ns_rst *r, struct cr_err *e);
/* The CLONE_NEW* flags the root task's clone3 adds (none today: the root inherits what ns_rst_enter made;
 * PID and mount come from the PID code). */
uint64_t ns_rst_clone_flags(const struct ns_rst *r);
/* crshim, after the root task is cloned and before it runs: it goes into its cgroups (cgroup.img). pid in
 * crshim's PID namespace, img_pid the one of the images (they differ when the root gets a new PID
 * namespace and fresh PIDs in ours). */
int ns_rst_root_spawned(struct ns_rst *r, pid_t pid, pid_t img_pid, struct cr_err *e);
/* crshim into the memory cgroup of the root task (cgroup.img: the v1 memory hierarchy, or v2 where memory is
 * one of that cgroup's controllers) and back: what crshim makes for the tree meanwhile (unix sockets) is
 * charged there, as it is to the process that makes it, not to crshim's cgroup. Best effort (the log says
 * why crshim stays in its own: a cgroup frozen or without room, ns/README.md); ns_rst_done leaves too. NULL
 * is fine. */
void ns_rst_memcg_enter(struct ns_rst *r);
/* The same for what crshim makes and fills for the tree (engine/mem: System V segments, shared anonymous
 * memory, memfds; shared pipes and their data), bytes it writes there (the pages of an object's pagemap, not
 * its size): the cgroup must have room for them too. */
void ns_rst_memcg_enter_for(struct ns_rst *r, uint64_t bytes);
void ns_rst_memcg_leave(struct ns_rst *r);
/* crshim, after another task of the tree is cloned and before it runs: into its cgroups, where its parent's
 * are not its own. */
int ns_rst_task_spawned(struct ns_rst *r, pid_t pid, pid_t img_pid, struct cr_err *e);
/* crshim, once the threads of a restored process are made and seized (before they run): a thread in other
 * cgroups than its process at dump goes back into them (tid in crshim's PID namespace, img_tid the images').
 */
int ns_rst_thread_made(struct ns_rst *r, pid_t tid, pid_t img_tid, struct cr_err *e);
/* The root task itself, first thing after crshim let it go, before it clones a child or opens a file:
 * its own cgroup namespace, then the mount tree (ns_mnt_restore). A message on failure. */
int ns_rst_root_child(const struct ns_rst *r, char *msg, size_t len);
/* crshim, once every System V object of the tree is made (shared memory last): the IPC namespace's
 * kernel.{sem,msg,shm}_next_id as they stood at dump (making an object takes and resets them). */
int ns_rst_ipc_ids(struct ns_rst *r, struct cr_err *e);
/* crshim is in a network namespace ns_rst_enter made or joined for the tree (not the one of the dump). */
bool ns_rst_new_net(const struct ns_rst *r);
/* ... and that one is the caller's (--join-ns net:, an external one): it outlives the restore. */
bool ns_rst_joined_net(const struct ns_rst *r);
/* The tree's network namespaces other than the root's (ns/net-multi.c). A task (of the images: pid; its
 * spawner's pid, 0 if none) enters its own before it clones its children or opens a file, through crshim's
 * fd of it that it inherited (0, or -1 and a message). */
int ns_rst_task_net(const struct ns_rst *r, pid_t pid, pid_t spawner, char *msg, size_t len);
/* The network namespace task pid was in at dump (its inode then; the root's when ns.img does not say). */
uint64_t ns_rst_task_net_ino(const struct ns_rst *r, pid_t pid);
/* crshim's fd of the restored namespace that was net:[ino] at dump (the root's or another of the tree), -1
 * when the tree has a single one or ino is none of them. */
int ns_rst_net_fd(const struct ns_rst *r, uint64_t ino);
/* crshim into the restored namespace of net:[ino] (0 or unknown: the root's); a no-op with a single one. */
int ns_rst_net_enter(const struct ns_rst *r, uint64_t ino, struct cr_err *e);
/* fn(nsfd, ino, arg, e) for each network namespace this restore made for the tree (the root's unless joined,
 * given or left empty by --empty-ns net; each other one of the tree), with crshim in it (back in the root's
 * after); nsfd is crshim's, valid until ns_rst_done; ino its inode at dump (as ns_rst_task_net_ino and the
 * sockets' netns give it). After ns_rst_enter: the namespaces stand filled. */
int ns_rst_net_made_each(const struct ns_rst *r,
			 int (*fn)(int nsfd, uint64_t ino, void *arg, struct cr_err *e), void *arg,
			 struct cr_err *e);
/* check --feature newifindex: the kernel takes IFLA_NEW_IFINDEX (--external netdev[..] keeps the ifindex). */
int ns_net_has_newifindex(void);
/* Whether the kernel gives network namespaces ids (RTM_GETNSID), by which a link names its peer's namespace
 */
int ns_net_has_link_nsid(void);
/* The images hold the root's mount tree (ns_rst_root_child builds it; no fresh /proc needed then). */
bool ns_rst_mounts(const struct ns_rst *r);
/* A process of the tree with a mount namespace of its own other than its parent's (pstree_entry.mntns: id),
 * cloned in its parent's: that namespace made from its parent's (ns/mnt-nested.c), before it opens a file or
 * clones a child; *parent_root and *parent_ns (closed first if open) become an O_PATH fd of its parent's
 * root and an fd of its parent's namespace. 0, or -1
 * and a message (it cannot log). ns_rst_has_mntns: mntns-ID.img was loaded. */
int ns_rst_mntns(const struct ns_rst *r, uint32_t id, int *parent_ns, int *parent_root, char *msg,
		 size_t len);
/* A process back in the namespace its parent's was made from (pstree_entry.mntns_up): it enters it
 * (*parent_ns, kept by ns_rst_mntns in its parent) and closes both. 0, or -1 and msg. */
int ns_rst_mntns_up(int *parent_ns, int *parent_root, char *msg, size_t len);
/* A process that had entered (setns) the nested mount namespace another process of the tree made
 * (pstree_entry.mntns_join): it enters it again (/proc/MAKER/ns/mnt, MAKER as it sees it), once that one made
 * it (engine/restore.c orders them), keeping its parent's root and namespace as ns_rst_mntns does. */
int ns_rst_mntns_join(pid_t maker, int *parent_ns, int *parent_root, char *msg, size_t len);
bool ns_rst_has_mntns(const struct ns_rst *r, uint32_t id);
/* The --root of a tree with a mount tree of its own (NULL: none): the paths of the images are under it. */
const char *ns_rst_root(const struct ns_rst *r);
/* crshim, before the tree (engine/files/restore-tty.c): the devpts of the images whose superblock had st_dev
 * dev at dump, made now (once, detached) so that the tree's ptys are made in it; the root task's mount tree
 * then places this very mount (the ptys' fds show their paths in the tree). The fd stays r's. -2: the images
 * have no such devpts (the ptys were in crshim's /dev/pts); -1 and e on failure. */
int ns_rst_devpts(struct ns_rst *r, uint64_t dev, struct cr_err *e);
/* Back to crshim's own namespaces; after a failure (failed) everything made outside the tree's new
 * namespaces goes too. Frees r. NULL is fine. */
void ns_rst_done(struct ns_rst *r, bool failed);
/* A tree in a user namespace of its own (ns/userns.c): the credentials of creds-*.img (as crshim saw them)
 * made those of the namespace; the fd of the namespace (-1: none), which each task enters last
 * (ns_rst_user_enter: single-threaded, its children cloned and its files opened). */
int ns_rst_map_creds(const struct ns_rst *r, pid_t pid, CredsEntry *c, struct cr_err *e);
/* ... only whether they map, c unchanged (the restore's loader, before anything is made: also the dump's
 * check). */
int ns_rst_check_creds(const struct ns_rst *r, pid_t pid, const CredsEntry *c, struct cr_err *e);
int ns_rst_user_fd(const struct ns_rst *r);
/* The user namespace task pid (of the images) enters last: the one made for it when it was in a user
 * namespace nested in the tree's (ns/userns.c), else fd. */
int ns_rst_task_user_fd(const struct ns_rst *r, pid_t pid, int fd);
bool ns_rst_has_user(const struct ns_rst *r); /* ns.img: the root had a user namespace of its own */
/* ... which owned its PID and mount namespaces (a container's): the root is born in it (engine/restore.c),
 * then makes those itself (CLONE_NEWPID | CLONE_NEWNS, and its cgroup namespace), so they are owned by it. */
bool ns_rst_user_born(const struct ns_rst *r);
/* ... and owned its time namespace: the child of crshim that clones the born root makes it, in the user
 * namespace, with its offsets (0, -1 with errno); crshim does not enter it. */
int ns_rst_user_born_time(const struct ns_rst *r);
/* ... a process that entered it takes its first uid and gid, as the root task does (0, -1 and msg) */
int ns_rst_user_born_ids(const struct ns_rst *r, char *msg, size_t len);
/* ... then the host's ids of its first uid and gid (the root task's, ns_rst_user_born_ids): true. */
bool ns_rst_user_born_host_ids(const struct ns_rst *r, uid_t *u, gid_t *g);
int ns_rst_user_enter(int fd, char *msg, size_t len);

/* The mount namespace's restore (ns/mnt*.c, helper nsmnt), called by ns_rst_root_child in the root task,
 * in its new mount namespace (clone3 CLONE_NEWNS), before any file of the tree is opened and before any
 * child is cloned: builds the tree's mount tree from the images and pivot_roots into it. imgdir_fd is the
 * images dir (open in the root task), root the --root of the restore (NULL: none). 0, or -1 and a message.
 * The default (no mount images) does nothing. */
struct ns_mnt_args {
	int imgdir_fd;
	const char *root;
	const struct cr_opts *o;
	const struct ns_mnt_state *mnt; /* the mount tree of the images, read by ns_rst_load (NULL: none) */
};
struct ns_mnt_state;
int ns_mnt_restore(const struct ns_mnt_args *a, char *msg, size_t len);
/* crshim, once every process of the tree (root: its root task) has its fds: the removed directories made
 * again for binds of them that ns_mnt_restore kept in place (so that a ghost is made in one and opened
 * through the bind) go. Once; nothing without a mount tree. */
void ns_rst_mnt_removed_drop(struct ns_rst *r, pid_t root);

#endif
