/* Restore of one process (engine-internal). eng_restore (restore.c) drives:
 *   rst_load (restore-load.c)      verify every image, load the root task's images, check files / PID / vDSO
 *   rst_areas_build (restore-mm.c) map the shared restore areas, copy the blob, fill struct rst_args
 *   clone3(set_tid) -> child:      rst_child (restore-child.c: session, fds (restore-files.c), fs, jump)
 *   blob (engine/restorer/)        address space, signals, timers, creds; trap
 *   rst_finish (restore.c)         remote munmap of the area, registers, sigmask, detach */
#ifndef CRSHIM_RESTORE_H
#define CRSHIM_RESTORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/fd.h"
#include "crshim.h"
#include "image/image.h"
#include "restorer/restorer-args.h"
#include "ns.h"

/* A file the blob maps (distinct path + access mode). */
struct rst_mfile {
	const char *path; /* points into the mm image */
	int oflags;	  /* O_RDONLY / O_RDWR */
	int fd;		  /* >= 0: not opened by path but inherited from crshim's fd (shared memory) */
	int task_fd1; /* > 0: a packet socket's rings: the task's own fd task_fd1 - 1, once its fds are open
		       */
	bool reopen;  /* task_fd1's file opened again through /proc/self/fd with oflags, not a copy of the fd
		       * (a ghost the task made again on its own mount: rst_ghost_copy_fd) */
	const VmaEntry *copy; /* a ghost the task makes again on its own mount for its mappings (no fd of it
			       * does: vma_entry.ghost_mnt), from crshim's ghost at path */
};

/* The vDSO-related mappings of this (and so the child's) process: arch_vdso_names order. */
struct rst_cur_special {
	uint64_t start, len;
};

struct rst_task {
	/* 8-byte members first, then 4-byte, then flags (no padding: clang-tidy's excessive-padding check) */
	struct rst_task *tree; /* every process of the images, parents first (tree[0] is the root) */
	size_t ntree;
	PstreeEntry **all_pst; /* root only: every pstree entry */
	size_t n_all_pst;
	InventoryEntry *inv;
	struct ns_rst *ns; /* root only: the tree's namespaces (ns/ns.h) */
	PstreeEntry *pst;
	CoreEntry *core;
	CoreEntry **tcores; /* threads other than the leader: pst->threads[1..] */
	size_t nr_tcores;
	CredsEntry *creds; /* NULL: keep the restorer's */
	FsEntry *fs;
	MmEntry *mm;
	SigactionEntry **sigacts;
	size_t nr_sigacts;
	FileEntry **files;
	size_t nr_files;
	FdinfoEntry **fdinfo;
	size_t nr_fdinfo;
	struct rst_fid *fids; /* files by id (restore-load.c, in farena): rst_file_by_id; NULL: few files */
	struct page_map pm;
	/* core, tcores, creds, fs, mm and sigacts are unpacked here (restore-load.c), not in the heap: a
	 * clone3 copies only the arenas of the child's own line (restore-child.c); the arrays too */
	struct img_arena *arena;
	/* files and fdinfo (and their arrays), the same way, unless the tree's processes read each other's
	 * (files_everywhere): then every process has every one of them */
	struct img_arena *farena;
	/* root of a tree: where every process's arenas (apool) and farenas (fpool) are carved from, next to
	 * each other (image.h img_pool): a clone3 that copies them all copies one mapping of each, the blob
	 * unmaps one (not one per process, for each of them: O(n^2) for a tree) */
	struct img_pool *apool, *fpool;

	struct rst_ghost *ghosts; /* unlinked files made again (restore-ghost.c) */
	FileLockEntry **locks;	  /* file locks to take again (restore-locks.c) */
	size_t nr_locks;
	size_t nr_ghosts;
	struct rst_mfile *mfiles;
	size_t nr_mfiles;
	int *vma_mfile;	     /* per mm->vmas[i]: index into mfiles or -1 */
	bool *vma_prefilled; /* per mm->vmas[i]: mapped and filled by the parent before clone3 */
	bool *blk_lazy;	     /* restore --lazy-pages: per pm.blocks[i], left to lazy-pages (mem/lazy.c) */
	struct rst_cur_special cur_special[RST_NR_SPECIAL];

	/* the restore area (MAP_SHARED; the child inherits it at the same address) */
	void *area;
	size_t area_len;
	struct rst_args *args;
	size_t thr_seized;    /* threads pst->threads[1..thr_seized] are ptrace-attached */
	PstreeEntry *own_pst; /* restore-tree.c: a helper's pst (ours to free) */
	pid_t *htids;	      /* fresh_hpid: the threads' tids in crshim's namespace (threads[1..]) */

	pid_t pid;  /* in crshim's namespace: the image's, or (fresh_hpid) the kernel's once created */
	pid_t ipid; /* fresh_hpid, once created: the image's pid (0: pid is the image's); see rst_ipid */
	int dirfd;
	int err_pipe[2]; /* child -> parent: error message of the C stage */
	int go_pipe[2];	 /* parent -> child: seized, go on */
	int go_again; /* crshim's copy of go_pipe[1] for a second go (its nested mount namespace stands, what
			 crshim makes in it is there: rst_ghost_links), -1 */
	int fdt_turn[2], fdt_done[2], fdt_pidfd; /* a sharer of its parent's fd table (restore-fdtable.c) */
	int maps_fd;   /* a sharer's /proc/self/maps, in its range (rst_child_fill_unmap); 0: none */
	int userns_fd; /* the tree's user namespace (ns/userns.c), entered last; -1: none */
	int fault;     /* fault point of this run (engine/fault.h), 0 = none */
	int lazy_sk;   /* the root, restore --lazy-pages: the connection to lazy-pages, else -1 */
	/* restore-tree.c: who creates the task and when (sessions and groups) */
	pid_t spawn_ppid; /* the process that clones it (its parent, or a sibling / helper) */
	long spawn_idx;	  /* that process's index in tree, -1: crshim clones it (the root) */
	pid_t vpid;	  /* the PID inside the tree's PID namespace (inventory pidns), 0 without one */
	pid_t svm_ph; /* restore-sharedvm.c: the placeholder holding its fds (crshim's child), 0 if none */
	pid_t ns_ids[RST_PID_LEVELS]; /* restore-pidns.c: its PID in each namespace below ours, outermost
					 first */
	uint32_t ns_levels;	      /* ... how many (0: in ours); vpid is the last one */

	bool root;		/* the root of the tree: files.img, owns inv and the pstree list */
	bool files_everywhere;	/* the root: some process reads another's files records in its child
				   (restore-load.c files_local): every clone3 copies every farena */
	bool lazy;		/* restore --lazy-pages: private anonymous memory is filled by lazy-pages */
	bool zombie;		/* core task_state 2: created, then exits with core->exit_code */
	bool no_prefill;	/* a tree: every process has its own layout, nothing is prefilled in crshim */
	struct cr_stats *stats; /* the run's (cr_opts.stats), NULL for a check-only load */
	bool shell_job;
	bool prefill_mapped; /* the parent still has those mappings */
	bool reaped;	     /* the child ended and was waited for */
	bool seized;	     /* not the root: ptrace-attached by crshim */
	bool born_seen;	     /* not the root: its mark (RST_BORN_MARK) came (restore.c seize_tree) */
	bool clone_parent;   /* CLONE_PARENT: its parent is the parent of spawn_ppid */
	bool before_setsid;  /* cloned before spawn_ppid's setsid: born in that one's old session */
	bool helper;	     /* not in the images: leads a session/group whose leader is gone, then exits */
	bool
	    handover;	 /* a helper of a living session leader: clones its members and exits at once, which
			  * hands them to their PID namespace's init (restore-tree.c); PID not known to crshim */
	bool adopter;	 /* restore-tree.c: adopts the orphans of a helper that exits (PR_SET_CHILD_SUBREAPER
			    before it clones); one that is no subreaper in the images clears it once every child
			    of its is its own and says so (RST_ADOPTED_MARK) */
	bool adopt_done; /* crshim: that mark was read */
	bool orphaner;	 /* a helper whose own children (not CLONE_PARENT) are adopted when it exits: released
			    alone, deepest first, once the adopters above it are ready (rst_tree_release) */
	bool sibling;	 /* the root, --restore-sibling: cloned with CLONE_PARENT */
	bool detached;	 /* the root, restore -d: crshim, its parent, exits at once (no pdeathsig then) */
	bool mntns_proc; /* the root: a new mount namespace with a fresh /proc (ns/pid.c) */
	bool paths_later; /* the tree's own mount tree is restored: its paths exist only after pivot_root */
	bool ns_init;	  /* PID 1 of a namespace below its parent's: cloned with CLONE_NEWPID */
	bool svm_any;	  /* rst_tree_plan: some process of the tree shares another's address space */
	bool fresh_hpid;  /* restore-pidns.c: the root is PID 1 of a new PID namespace; only the ids
			     inside it are given back, the kernel chooses those in crshim's */
	bool dry;	  /* restore-check.c: loaded to be checked only: nothing is made (no prefill, the
			     ghosts only named), the tree's PIDs are checked only if !dry_dump */
	bool dry_dump;	  /* ... by the dump that just wrote the images: its page blocks are not checksummed
			     again, what only the restore's options and fds give (inherited files) is not
			     checked, the PIDs are the live tree's */
	bool live_paths;  /* ... of a tree with its own mount tree (paths_later): its paths are looked up in
			     the live tree, under live_root (rst_path_stat) */
	int live_root;	  /* ... /proc/PID/root of the task (O_PATH), its mount namespace's root */
};

/* The pid of t in the images (what other images name it by). */
static inline pid_t rst_ipid(const struct rst_task *t)
{
	return t->ipid ? t->ipid : t->pid;
}
/* t->pid names t in our namespace: not a task of fresh PIDs that crshim has not found yet (its image PID
 * may be another process's, e.g. the original's). */
static inline bool rst_pid_known(const struct rst_task *t)
{
	return !t->handover && (!t->fresh_hpid || t->ipid);
}
/* Thread k (1..) of t in crshim's namespace. */
static inline pid_t rst_htid(const struct rst_task *t, size_t k)
{
	return t->htids ? t->htids[k - 1] : t->pst->threads[k];
}

/* restore-load.c: rst_load loads the root (and reads the whole pstree), rst_load_task one other process
 * (t->pid, t->pst, t->tree set by the caller; t->pst belongs to the root). */
int rst_load(struct cr_opts *o, struct rst_task *t, struct cr_err *e);
int rst_load_task(struct cr_opts *o, struct rst_task *t, struct cr_err *e);
/* ... and the other processes of the tree (*tsp grows to every pstree entry, *np counts those loaded). */
int rst_load_tree(struct cr_opts *o, struct rst_task **tsp, size_t *np, struct cr_err *e);
/* restore-check.c: the restore's own loading and checks over the images dir of o, making nothing: for
 * restore --check-only (at_dump false) and for the dump once its images are written (at_dump true: what the
 * dump cannot know, the restore's options and fds and the page blocks' checksums, is left out). */
int rst_dry_run(const struct cr_opts *o, bool at_dump, struct cr_err *e);
void rst_free(struct rst_task *t);
/* files[idx] has this id; sorted by id, then idx (the first of equal ids wins, as in the list) */
struct rst_fid {
	uint32_t id, idx;
};
static inline const FileEntry *rst_file_by_id(const struct rst_task *t, uint32_t id)
{
	if (!t->fids) {
		for (size_t i = 0; i < t->nr_files; i++)
			if (t->files[i]->id == id)
				return t->files[i];
		return NULL;
	}
	size_t lo = 0, hi = t->nr_files; /* the first with fids[].id >= id */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->fids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr_files && t->fids[lo].id == id ? t->files[t->fids[lo].idx] : NULL;
}
/* files/inherit-fd.c: entry f of task t becomes FILE_INHERIT of crshim's fd (made once for the whole tree, or
 * given with --inherit-fd), desc naming it in messages (a copy in t's farena). */
int rst_file_inherit(const struct rst_task *t, FileEntry *f, int fd, const char *desc, struct cr_err *e);
/* engine/files/nsfile.c, crshim once the namespaces are made: an open file of a network namespace of a tree
 * with several becomes FILE_INHERIT of crshim's fd of the restored one (ns_rst_net_fd). */
int rst_nsfile_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* files/file-reg.c: fd, a new open of /dev/net/tun, attached again to r's device in the network namespace
 * the caller is in (by the task, or by crshim for a description of several processes): flags, vnet header
 * size, send buffer, a detached queue detached again, the persist flag the restore set cleared when only
 * fds held the device. Errors as text in msg. */
int rst_tun_attach(int fd, const RegFileEntry *r, char *msg, size_t len);

/* restore-pages.c: load the root task's pagemap and verify every block with all CPUs; large private
 * anonymous VMAs are mapped and filled here already ("prefilled"), the child inherits them. */
int rst_pages_load(struct rst_task *t, struct cr_err *e);
void rst_prefill_drop(struct rst_task *t);
/* pread len bytes at off, all of them (EIO at the end of the file): 0 or -1 with errno */
int rst_pread_all(int fd, void *buf, uint64_t len, uint64_t off);
/* restore --lazy-pages (mem/lazy.c, mem/lazy.md) */
bool *rst_lazy_plan(const struct rst_task *t); /* per pm block: lazy (all false without t->lazy) */
int rst_lazy_connect(int dirfd, int *sk, struct cr_err *e);
int rst_lazy_send(struct rst_task *t, int sk, struct cr_err *e); /* after the blob's trap */
/* The blocks of the task's own pages file it fills itself: lazy-pages --page-server fetches them (LZ_FETCH).
 */
int rst_lazy_fetch(const struct rst_task *t, struct cr_err *e);
int rst_lazy_end(int sk, struct cr_err *e);

/* restore-mm.c */
/* every live task's area (not the zombies' and helpers') */
int rst_areas_build(struct rst_task *ts, size_t n, struct cr_err *e);
void rst_area_free(struct rst_task *t);
int rst_self_specials(struct rst_cur_special cur[RST_NR_SPECIAL], struct cr_err *e);
/* child: list the mappings of this process that the blob removes (everything but the area and vDSO). */
int rst_child_fill_unmap(struct rst_task *t, char *msg, size_t msglen);

/* restore-cow.c (child side, before it clones its children): its private anonymous VMAs that a child has
 * too are mapped and filled in place, those inherited from its spawner get only the pages that differ, so
 * that clone3 shares them (copy on write) as the fork did before the dump; the blob keeps them. */
int rst_cow_fill(struct rst_task *t, bool may_log, char *msg, size_t len);

/* restore-sig.c: signals, timers, rlimits, task scalars, creds into args; the variable parts (timers,
 * pending siginfos, groups) go to buf, which has rst_task_bytes(t) bytes inside the area. */
size_t rst_task_bytes(const struct rst_task *t);
/* How many seccomp filters the leader and every thread of t share (the restoring child installs them). */
size_t rst_task_seccomp_common(const struct rst_task *t);
/* task/restore-creds.c: can crshim set these creds (one line naming the capability it lacks)? Are these
 * groups crshim's own (then the blob leaves them: setgroups needs CAP_SETGID even for the same list)? */
int rst_creds_check(pid_t pid, const CredsEntry *c, bool in_user, struct cr_err *e);
bool rst_groups_are_own(const uint32_t *groups, size_t n);
int rst_args_task(struct rst_task *t, void *buf, struct cr_err *e);
/* task/restore-procfs.c: crshim writes the image's oom_score_adj to /proc/PID (its mount tree may have no
 * /proc), once the process exists. */
int rst_task_oom_adj(const struct rst_task *t, struct cr_err *e);
/* task/restore-sched.c: each thread's CPU affinity and I/O priority, the other threads' policy and nice. */
int rst_task_sched(const struct rst_task *t, struct cr_err *e);

/* restore-files.c (child side; errors as a message for the error pipe) */
int rst_child_files(struct rst_task *t, char *msg, size_t msglen);
/* The soft limit of open files raised to the hard one: the task may use fd numbers above crshim's soft limit,
 * and its helper fds go above those (the blob restores its own limits). */
void rst_nofile_max(void);

/* restore-tree.c: plan who creates whom (sessions, groups) and add helper tasks for sessions and groups
 * whose leader is gone; after every task got its go, wait for them to be in their groups and let the
 * helpers exit (their parents reap them before their blob). */
int rst_tree_plan(struct cr_opts *o, struct rst_task **tsp, size_t *np, struct cr_err *e);
int rst_tree_release(struct rst_task *ts, size_t n, struct cr_err *e);
/* The order in which crshim seizes the tasks and gives them their go (indexes into ts, the root first):
 * every task after the one that clones it. NULL: out of memory. */
size_t *rst_tree_order(const struct rst_task *ts, size_t n);
struct rst_task *rst_tree_task(struct rst_task *ts, size_t n, pid_t pid);
/* A process in a mount namespace of its own (ns/mnt-nested.c) and those it clones in it: the root of the
 * namespace it was made from (O_PATH, kept among the helper fds), where its files with mnt_up are opened;
 * -1. */
extern int rst_mnt_up_root, rst_mnt_up_ns; /* (and that namespace) */
/* The way in to crshim's server of the socket options only it may set (net/sk-priv.c), -1: none; a helper
 * fd (restore-files.c). */
extern int rst_sk_priv_fd;
/* task/restore-tree.c: why task t failed, if it said so already (read without waiting): -1 with e filled,
 * else 0. */
int rst_task_reason(struct rst_task *t, struct cr_err *e);
/* A tree with its own mount tree: once the root task has built it, it says so (RST_BORN_MARK on its error
 * pipe) and waits for a second go, while crshim makes what it makes in that tree (ghosts, unix sockets). */
bool rst_mounts_late(const struct rst_task *ts, size_t n);
/* Does another process of the tree enter the nested mount namespace t makes (pstree_entry.mntns_join)? Then
 * t says it stands (RST_STAND_MARK) once made, and crshim lets that one go only after (restore.c). */
bool rst_mntns_joined(const struct rst_task *ts, size_t n, const struct rst_task *t);
int rst_task_go(struct rst_task *t, const char *what, struct cr_err *e);
int rst_helper_died(struct rst_task *h, struct cr_err *e); /* a helper ended early: why */
bool rst_helper_ended(pid_t pid);
int rst_zombie_failed(struct rst_task *z, struct cr_err *e); /* a zombie's message before its exit */
int rst_tree_zombies(struct rst_task *ts, size_t n, struct cr_err *e); /* every zombie ended as planned */
bool rst_zombie_hands_over(const struct rst_task *z); /* it exits on a go: its children get reparented */
/* child: a helper's life (session/group, its children, wait for the release, exit) */
__attribute__((noreturn)) void rst_helper_child(struct rst_task *t);
/* restore-fdtable.c: processes that share their parent's fd table (CLONE_FILES). rst_files_shared: t is one
 * (it restores no fd); rst_files_sharer_of: c is such a child of t. rst_fdtable_clone_prep: the pipes of c's
 * turn, made by its parent right before it clones c (with CLONE_PIDFD into c->fdt_pidfd). rst_fdtable_turns:
 * t (restoring the table, or a sharer in its turn) gives each sharer child its turn: their fds go at or above
 * max(lo, the highest fd open + 1) + extra; range: the fds they took (-1 -1: none). rst_fdtable_self: a
 * sharer's turn, once it cloned its children. rst_fdtable_late: the restoring process, once its fds are open:
 * the copies of packet sockets its sharers map the rings of, in their slots; then it wakes them.
 * rst_fdtable_check (after rst_tree_plan): a process sharing the table of its sibling (files_with) is cloned
 * by that one with CLONE_PARENT; what a sharer cannot be. */
/* The status flags of an image's file that open() must not be given again: creation ones, O_CLOEXEC (fd
 * flags are set on their own), and O_ASYNC: open() keeps it among the flags without arming the signal, and
 * F_SETFL, seeing no change, then never arms it (no SIGIO at all): rst_fown_apply sets it, through the
 * task's own number. */
#define RST_OPEN_DROP_FLAGS (O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC | O_ASYNC)
#define RST_SHARER_ENDED "(shares the fd table) ended before it kept its fds" /* rst_task_reason: its own */
bool rst_files_shared(const struct rst_task *t);
bool rst_files_sharer_of(const struct rst_task *t, const struct rst_task *c);
int rst_fdtable_clone_prep(struct rst_task *c, char *msg, size_t len);
int rst_fdtable_turns(struct rst_task *t, int lo, int extra, int range[2], char *msg, size_t len);
int rst_fdtable_self(struct rst_task *t, char *msg, size_t len);
int rst_fdtable_late(char *msg, size_t len);
int rst_fdtable_check(struct rst_task *ts, size_t n, struct cr_err *e);
int rst_fd_top(void); /* the highest open fd, -1 if /proc/self/fd cannot be read; no malloc */

/* restore-sharedvm.c: processes sharing the address space of an earlier one (pstree vm_owner). They are not
 * cloned by their parent: the owner's blob clones them (restorer/sharedvm.c); a placeholder process made by
 * crshim restores their fd table first. rst_svm_load stands for rst_pages_load (the memory is the owner's);
 * rst_svm_prepare checks the tree; rst_svm_fill (areas built) fills the owner's and the sharers' args;
 * rst_svm_go (owner trapped, every other process made) makes the sharer's placeholder, seizes the sharer and
 * lets it go on; rst_svm_done ends the placeholders. rst_svm_keep (child side): a sharer's area the owner
 * keeps. */
static inline bool rst_svm_sharer(const struct rst_task *t)
{
	return t->pst && t->pst->has_vm_owner && t->pst->vm_owner > 0;
}
int rst_svm_mm_id(const struct rst_task *t);
int rst_svm_load(struct rst_task *t, struct cr_err *e);
int rst_svm_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
int rst_svm_fill(struct rst_task *ts, size_t n, struct cr_err *e);
int rst_svm_go(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e);
void rst_svm_done(struct rst_task *ts, size_t n);
/* waitpid(t->pid, st, __WALL) that reaps placeholders that ended meanwhile: a PID namespace's init cannot
 * finish its exit while one of them (crshim's child inside the namespace) is not reaped. */
pid_t rst_svm_waitpid(struct rst_task *t, int *st);
bool rst_svm_keep(const struct rst_args *a, uint64_t start, uint64_t end);
/* Child side, an owner of sharers in a tree whose user namespace does not own its PID namespace: instead of
 * entering it now, keep its fd for the blob, which enters it once it cloned them (their pids are chosen
 * from outside it). 1: deferred, 0: not such an owner, -1 and msg. */
int rst_svm_userns_later(struct rst_task *t, char *msg, size_t len);

/* rst_fd_above: base/fd.h */
__attribute__((noreturn)) void rst_child(struct rst_task *t);
/* The process that clones a task crshim seizes writes this byte on the task's error pipe as soon as clone3
 * returned (the task is there): crshim waits for it instead of probing the PID on a timer; the root writes it
 * itself when its mount tree stands (rst_mounts_late); rst_task_reason skips it. */
#define RST_BORN_MARK '\1'
/* ... and this one when its nested mount namespace stands and it waits for what crshim makes in it (the
 * unix sockets bound there: rst_sk_unix_nested_take); rst_task_reason skips it too. */
#define RST_STAND_MARK '\2'
/* ... and this one when, an adopter (restore-tree.c) that is no subreaper in the images, it has every child
 * and cleared its flag; rst_task_reason skips it too (and notes it: adopt_done). */
#define RST_ADOPTED_MARK '\3'

/* restore-pidns.c: the tasks' ids in the PID namespaces below ours (pstree ns_levels/ns_tids, or the
 * inventory pidns of older images); rst_pidns_helpers: the same for helper tasks (after rst_tree_plan added
 * them). */
int rst_pidns_plan(struct rst_task *ts, size_t n, struct cr_err *e);
int rst_pidns_helpers(struct rst_task *ts, size_t n, struct cr_err *e);
/* set_tid for clone3 (innermost first) and its size. */
uint32_t rst_pidns_set_tid(const struct rst_task *t, pid_t set_tid[RST_PID_LEVELS]);
/* The pid of t as it sees itself (getpid() in it). */
static inline pid_t rst_pidns_self(const struct rst_task *t)
{
	return t->ns_levels ? t->ns_ids[t->ns_levels - 1] : rst_ipid(t);
}
/* A pid or tid of the images (crshim's view) as task t sees it (0: not visible in its namespace). */
pid_t rst_pidns_vid(const struct rst_task *t, pid_t id);
/* The ids of thread k (1..) of t for the blob: its tid as t sees it and the set_tid array. */
void rst_pidns_thread(const struct rst_task *t, size_t k, struct rst_thread *th);
/* fresh_hpid: may the root be restored with fresh PIDs in crshim's namespace (from the pstree, at load)?
 * rst_pidns_fresh (after the plan): keep it only for a tree crshim can follow then (no shared address
 * spaces), else check that every image PID is free as without it. born: the tree is born
 * in its user namespace (ns_rst_user_born): fresh PIDs, or one line. */
bool rst_pidns_fresh_maybe(const struct rst_task *root);
int rst_pidns_fresh(struct rst_task *ts, size_t n, bool born, struct cr_err *e);
int rst_check_pids(struct rst_task *t, struct cr_err *e); /* task/restore-pidns.c: its PIDs are free */
/* fresh_hpid: task t (not the root), created by its parent inside the namespace: its pid in ours (t->pid
 * becomes it, t->ipid the image's); 0 when not there yet. Its threads' likewise (t->htids). */
int rst_pidns_find(struct rst_task *t, struct cr_err *e);
int rst_pidns_find_threads(struct rst_task *t, struct cr_err *e);
/* fresh_hpid: the zombies and helpers (never seized) found in our namespace among their parents' children,
 * once those are known; how many are not found yet. */
size_t rst_pidns_find_unseized(struct rst_task *ts, size_t n);
/* Once every thread is there: file owners that are threads other than a leader (F_OWNER_TID). */
int rst_pidns_fown_threads(struct rst_task *ts, size_t n, struct cr_err *e);
/* Then the last PID handed out in each PID namespace the tree owns, as at the dump (pstree ns_last_pid), so
 * that its next fork gets the PID it would have got; what fails is said (the tree restored all the same). */
void rst_pidns_last_pid(const struct rst_task *ts, size_t n);

#endif
