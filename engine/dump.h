/* Internal interface between the parts of dump (dump.c, dump-core.c, dump-mm.c, dump-files.c, dump-creds.c).
 */
#ifndef CRSHIM_DUMP_H
#define CRSHIM_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include <errno.h>

#include "base/fault.h"
#include "crshim.h"
#include "image/image.h"
#include "task/infect.h"
#include "base/proc.h"
#include "ns.h"
#include "task/seize.h"

#define DUMP_NSIG 64

struct dump_sigact {
	uint64_t handler, flags, restorer, mask; /* kernel struct sigaction layout (x86_64/arm64) */
};

/* A thread's sigaltstack as the kernel's stack_t (read by the thread itself). */
struct dump_sas {
	uint64_t sp;
	int32_t flags;
	int32_t pad;
	uint64_t size;
};

/* Values only the task itself can tell, read with remote syscalls. */
#define DUMP_MPOL_NODES 1024
/* A thread's NUMA memory policy (get_mempolicy): ok when it answered; nodes cut after its last set byte. */
struct dump_mpol {
	bool ok;
	int32_t mode;
	uint8_t nodes[DUMP_MPOL_NODES / 8];
	size_t len;
};

/* The NUMA memory policy of a VMA (mbind), read by get_mempolicy(MPOL_F_ADDR) in the task (mem/mpol.c). */
struct dump_vma_mpol {
	uint64_t start, end;
	struct dump_mpol pol;
};

struct dump_remote {
	struct dump_sigact sigact[DUMP_NSIG + 1]; /* by signal number */
	bool sigact_valid[DUMP_NSIG + 1];
	struct dump_sas sas;
	struct itimerval itimer[3]; /* ITIMER_REAL, _VIRTUAL, _PROF */
	struct proc_timer *timers;
	struct itimerspec *timer_val;
	struct timespec *timer_now; /* clock_gettime(its clock) in the task right before (0, -1: none) */
	int *timer_overrun;
	/* a timer on the CPU-time clock of the thread that made it, in a process with threads: the thread
	 * (dump-core.c thread_cpu_timers), TIMER_OWNER_* while not known; 0: another clock, or no threads */
	pid_t *timer_owner;
	/* a periodic timer's own pending signal: the expiries it counts missed when taken (dump-core.c
	 * pending_overruns); -1: not known */
	int *timer_pend_ov;
	/* that signal queued back by the task (dump-core.c po_again), marked as crshim's copy */
	bool *timer_pend_copy;
	/* the overrun count (timer_getoverrun) the taking of that signal set in the task, whatever came after
	 * (-1: not taken; dump.c timer_counts_changed) */
	int *timer_taken_ov;
	/* a CLOCK_REALTIME timer: armed relative or absolute (task/timer-list.h TIMER_MODE_*) */
	int *timer_mode;
	/* ns between the clock's read before the timer's (timer_now) and one after it */
	int64_t *timer_read_ns;
	size_t ntimers;
	uint64_t tid_address, brk, timerslack;
	int32_t pdeathsig, dumpable, subreaper, thp_disabled;
	int32_t tsc, mce_kill; /* PR_GET_TSC, PR_MCE_KILL_GET; -1: no answer (another architecture) */
	int32_t cpuid_fault;   /* 1: cpuid faults (arch_cpuid_get_call) */
	uint32_t mdwe;	       /* PR_GET_MDWE */
	struct dump_mpol mpol;
	uint32_t securebits;
	uint32_t membarrier; /* MEMBARRIER_CMD_REGISTER_* of the address space (dump_core_remote's probe) */
};

/* One thread other than the leader (the leader's state is in dump_ctx itself). */
struct dump_thread {
	pid_t tid;
	struct seized s;
	uint8_t regs_resume[INFECT_REGS_MAX];
	uint8_t regs_image[INFECT_REGS_MAX];
	bool regs_ok;
	int in_syscall_eintr;
	void *xstate;
	size_t xstate_len;
	struct dump_sas sas;
	uint64_t tid_address;
	uint32_t securebits;		  /* prctl(PR_GET_SECUREBITS) of the thread */
	uint64_t timerslack;		  /* prctl(PR_GET_TIMERSLACK) of the thread */
	int32_t pdeathsig, tsc, mce_kill; /* PR_GET_PDEATHSIG, PR_GET_TSC, PR_MCE_KILL_GET (-1: no answer) */
	int32_t cpuid_fault;		  /* 1: cpuid faults (arch_cpuid_get_call) */
	struct dump_mpol mpol;
};

struct dump_ctx {
	struct cr_opts *o;
	pid_t pid;
	pid_t ppid;  /* parent in the dumped tree, 0 for the root */
	bool root;   /* the root of the dumped tree (owns files.img, pstree.img, inventory.img) */
	bool zombie; /* a zombie: only its pstree entry and core (exit code) are dumped */
	bool born;   /* the tree is restored born in its user namespace (ns_dump_args.born) */
	const struct dump_ctx *tree; /* every process of the dumped tree (tree[0] is the root) */
	size_t ntree;
	/* the inodes of the sockets the tree's processes hold fds of, sorted (dump.c read_stopped; NULL: not
	 * read, e.g. a pre-dump): net/dump-sk-unix.c takes them, not reading every process's fds again */
	const uint32_t *tree_sks;
	size_t ntree_sks;
	/* dump-pidns.c: its mount namespace, read once (0: not yet, or a zombie) */
	uint64_t mnt_dev, mnt_ino;
	int exit_code;		       /* of a zombie, as waitpid reports it */
	pid_t ns_pid, ns_pgid, ns_sid; /* in the root's PID namespace when it is its init (ns/pid.c) */
	uint32_t ns_levels;	       /* dump-pidns.c: PID namespaces below ours it is in */
	int32_t *ns_tids;	       /* ... the ids of each thread (leader first) in each of them */
	bool ns_init, ns_mnt_proc;     /* PID 1 of a namespace its parent is not in (with its own mounts) */
	int32_t ns_last_pid;	       /* ... that namespace's last PID handed out (-1: not read) */
	uint32_t mntns;		       /* a mount namespace of its own with other mounts: mntns-ID.img (0) */
	bool mntns_up;	  /* in the mount namespace its parent's was made from (forked before that unshare) */
	pid_t mntns_join; /* entered (setns) the nested mount namespace of that process of the tree (0) */
	int dirfd;
	/* dump-files.c read the fdinfo of each fd: fd_locks tells whether one had a lock (else
	 * dump_locks_write has none to look for: a tree of 2000 read each fdinfo twice) */
	bool fds_read, fd_locks;
	struct seized s;
	struct infect in;
	uint8_t regs_resume[INFECT_REGS_MAX];
	uint8_t regs_image[INFECT_REGS_MAX];
	bool regs_ok; /* regs_resume holds the task's registers */
	int in_syscall_eintr;
	void *xstate;
	size_t xstate_len;
	struct proc_status st;
	struct proc_stat stat;
	/* read once the tree was stopped (dump.c read_stopped; not for a pre-dump, nor for a zombie: 0) for
	 * task/, ns/ and files/: its namespaces by inode (ns_read_task_ids), its fds with their links and
	 * stats (fds, nfds: taken by dump-files.c; NULL: read where needed) */
	uint64_t nsid[NS_TASK_IDS];
	struct proc_fd *fds;
	size_t nfds;
	struct dump_remote rem;
	struct dump_shmem *shm;	      /* tree-wide: shared memory objects (dump-shmem.c) */
	struct dump_ipc_shm *ipc_shm; /* tree-wide: System V shared memory segments (dump-ipc-shm.c) */
	struct dump_fdshare *fdsh;    /* tree-wide: open file descriptions (dump-fdshare.c) */
	uint32_t clone_share;	      /* CLONE_FILES | CLONE_FS shared with its parent (dump-share.c) */
	pid_t files_with;  /* ... or the fd table of this sibling, not the parent's (dump-share.c) */
	pid_t vm_owner;	   /* shares the address space of this earlier process (dump-sharedvm.c) */
	uint32_t vm_flags; /* clone flags relative to vm_owner */
	int exit_signal;   /* of a vm sharer (stat field 38) */
	uint32_t mlockall; /* mlockall() flags in force: MCL_FUTURE [| MCL_ONFAULT] (dump_mm_mlockall) */
	struct dump_vma_mpol *vma_mpol; /* the VMAs with a policy of their own, by address (dump_mm_mpol) */
	size_t n_vma_mpol;
	struct SeccompEntry *seccomp; /* the leader's, kept by dump_core_write for its threads' (freed) */
	struct dump_thread *th;	      /* the other threads, seized */
	size_t nth, th_cap;
	struct dump_sk *sk;	    /* sockets: pidfd, connections in repair mode (dump-sk-inet.c) */
	struct dump_ghosts *ghosts; /* unlinked files held open or mapped (dump-ghost.c) */
	struct mem_track *trk;	    /* tree-wide: dirty-page tracking and the parent images (mem/track.c) */
	struct page_xfer *px;	    /* tree-wide: --page-server, where the pages go (image/page-xfer.c) */
	struct dump_mmtree *mmt;    /* tree-wide: page buffers, files mapped (mem/dump-mm.c) */
	/* image files this dump created (removed again if it fails) */
	struct img_made created;
};

/* The root's open files are in files.img, those of the other processes in files-PID.img. */
static inline enum img_kind dump_files_kind(const struct dump_ctx *c)
{
	return c->root ? IMG_FILES : IMG_FILES_TASK;
}
static inline int dump_files_id(const struct dump_ctx *c)
{
	return c->root ? 0 : c->pid;
}

/* Remember an image file name as created by this dump. */
static inline int dump_created(struct dump_ctx *c, enum img_kind k, int id, struct cr_err *e)
{
	return img_made_add(&c->created, k, id, e);
}
/* img_write_one + dump_created (fault point dump-img-write on mm-PID.img). */
static inline int dump_write_one(struct dump_ctx *c, enum img_kind k, const ProtobufCMessage *m,
				 struct cr_err *e)
{
	int id = k == IMG_FILES || k == IMG_INVENTORY || k == IMG_PSTREE ? 0 : c->pid;
	if (k == IMG_MM && fault_injected(c->o, FI_DUMP_IMG_WRITE)) {
		img_write_one_fault(c->dirfd, k, id, m, EIO, e);
		return cr_wrap(e, "fault injected at %s", fault_name(FI_DUMP_IMG_WRITE));
	}
	if (img_write_one(c->dirfd, k, id, m, e))
		return -1;
	return dump_created(c, k, id, e);
}

/* dump-core.c: remote reads (while infected), then core-PID.img and sigacts-PID.img. The scratch's first
 * DUMP_SCR_CORE bytes hold their answers; the nmore calls more (results in more[i].ret) run in the same
 * batch. */
#define DUMP_SCR_CORE 4096
int dump_core_remote(struct dump_ctx *c, struct infect_call *more, size_t nmore, struct cr_err *e);
int dump_core_write(struct dump_ctx *c, struct cr_err *e);
/* per thread (not the leader): sigaltstack and tid address by remote syscalls (while the leader is
 * infected: its scratch page is used), then core-TID.img */
/* Before any remote syscall: a thread inside an rseq critical section is moved to its abort handler. */
void dump_rseq_cs_abort(pid_t tid, void *regs_resume, void *regs_image);
int dump_sud_refuse(pid_t tid, struct cr_err *e);
int dump_core_thread_remote(struct dump_ctx *c, struct dump_thread *t, struct cr_err *e);
int dump_core_write_thread(struct dump_ctx *c, struct dump_thread *t, struct cr_err *e);
void dump_core_free(struct dump_ctx *c);
/* dump-creds.c: creds-PID.img and fs-PID.img. */
int dump_creds_write(struct dump_ctx *c, struct cr_err *e);
/* files/dump-fs.c: fs-PID.img (cwd, root, umask). */
int dump_fs_write(struct dump_ctx *c, struct cr_err *e);
/* A thread's credentials (st: its parsed status, freed by the caller) into ce if they differ from the
 * leader's: 1 if filled, 0 if the same, -1 on error. */
int dump_creds_thread(struct dump_ctx *c, const struct dump_thread *t, CredsEntry *ce, struct proc_status *st,
		      struct cr_err *e);
/* dump-mm.c: mm-PID.img, pagemap-PID.img and pages-PID.img. */
int dump_mm_write(struct dump_ctx *c, struct cr_err *e);
/* A path that opens the object VMA v of process pid maps (src, srcsz): its /proc/PID/map_files link, or
 * where that is closed to crshim (it needs CAP_CHECKPOINT_RESTORE in the host's user namespace: rootless)
 * /proc/self/fd/N of *fd, opened once (O_PATH) on the path /proc/PID/maps names, resolved in the process's
 * root, or on an fd of the process, and checked against the VMA's device and inode: the object checked is
 * the one used. The caller closes *fd (-1 when none) after its last use of src. One line naming the
 * mapping when there is neither. */
int dump_map_src(pid_t pid, const struct proc_vma *v, char *src, size_t srcsz, int *fd, struct cr_err *e);
/* With the scratch mapped (after c->st was read): whether mlockall(MCL_FUTURE) is in force -> c->mlockall. */
int dump_mm_mlockall(struct dump_ctx *c, struct cr_err *e);
/* mem/mpol.c, with the scratch mapped: the NUMA memory policy of each VMA (mbind), get_mempolicy(MPOL_F_ADDR)
 * in the task -> c->vma_mpol (freed by dump_mm_mpol_free). dump_mm_mpol_queue lists the VMAs and queues the
 * calls of the first ones (q->calls, q->n; their answers in the scratch from DUMP_SCR_CORE on), which
 * dump_core_remote runs in its batch (one stop of the task for both); dump_mm_mpol_take then reads their
 * answers and asks the other VMAs in batches of their own. */
struct mpol_span;
#define DUMP_MPOL_Q 64
struct dump_mpol_q {
	struct infect_call calls[DUMP_MPOL_Q];
	size_t n;
	struct mpol_span *vmas;
	size_t nvmas;
	unsigned long maxnode;
	struct timespec t0;
};
int dump_mm_mpol_queue(struct dump_ctx *c, struct dump_mpol_q *q, struct cr_err *e);
int dump_mm_mpol_take(struct dump_ctx *c, struct dump_mpol_q *q, struct cr_err *e);
void dump_mm_mpol_q_free(struct dump_mpol_q *q);
void dump_mm_mpol_free(struct dump_ctx *c);
/* What dump-mm.c keeps for the whole tree: the page buffers (mapped and faulted in once, not once per task)
 * and the files mapped (read from /proc once per file, not once per VMA of each task). */
int dump_mmtree_new(struct dump_mmtree **t, struct cr_err *e);
void dump_mmtree_free(struct dump_mmtree *t);
/* dump-share.c: what each process shares with its parent (kcmp); refuses what restore cannot make. */
int dump_clone_share(struct dump_ctx *c, size_t n, struct cr_err *e);
/* dump-share.c: kcmp(type) of two processes' resources (KCMP_VM, KCMP_FILES, ...): true when the same. */
bool dump_kcmp_same(pid_t a, pid_t b, int type);
/* dump-share.c: the process pid among the n of c, or NULL. */
const struct dump_ctx *dump_ctx_find(const struct dump_ctx *c, size_t n, pid_t pid);
/* dump-sharedvm.c: the processes of the tree sharing the address space of an earlier one (vm_owner,
 * vm_flags); refuses what restore cannot make. */
int dump_sharedvm(struct dump_ctx *c, size_t n, struct cr_err *e);
/* dump-files.c: files.img and fdinfo-PID.img. */
int dump_files_write(struct dump_ctx *c, struct cr_err *e);
/* A file in flight (dump-sk-scm.c): crshim's own fd of it, filled by the per-kind code as an fd of crshim
 * into fe (id and in_flight set by the caller) and written to wf; what: its kind for a message ("a pipe").
 * cc: a copy of the task's context whose pid is crshim's (the caller ends what the kinds made in it). */
int dump_files_carried(struct dump_ctx *cc, int fd, uint32_t id, struct img_writer *wf, FileEntry *fe,
		       const char **what, struct cr_err *e);

/* dump-pidns.c: every process's place in the PID namespaces below ours (one line when it cannot be dumped);
 * the root is the init of its own (*pidns), in its own mount namespace (*mntns_proc). */
int dump_pidns(struct dump_ctx *cs, size_t n, bool *pidns, bool *mntns_proc, struct cr_err *e);
void dump_pidns_pstree(const struct dump_ctx *c, PstreeEntry *pe);
/* A file of c on mount mnt_id (fdinfo) that is not in c's mount namespace but in the one it was made from
 * (that of its nearest ancestor in another): opened there at restore (reg_file_entry.mnt_up). That
 * ancestor's pid, 0 if not so. */
pid_t dump_mnt_up(const struct dump_ctx *c, int mnt_id);
/* That ancestor of c (the nearest in another mount namespace than c's), 0 if none. */
pid_t dump_mnt_base(const struct dump_ctx *c);
/* a and b are in one mount namespace (as ns_same: also when one has none, a zombie); from what dump_pidns
 * read once for each process (the tree stands still while it is dumped), before that from /proc */
bool dump_same_mnt(const struct dump_ctx *a, const struct dump_ctx *b);

struct ns_dumped;
/* The whole tree, parents before children; the root writes it. */
struct dump_tree {
	struct dump_ctx *c;
	size_t n, cap;
	struct dump_shmem *shm;	      /* shared memory objects, dumped once for the tree */
	struct dump_ipc_shm *ipc_shm; /* System V shared memory segments, dumped once for the tree */
	struct dump_fdshare *fdsh;    /* tree-wide numbers of open file descriptions */
	struct ns_dumped *ns;	      /* ns/: what is needed once the tree is killed */
	struct mem_track *trk;	      /* dirty-page tracking, the parent images (mem/track.c) */
	struct page_xfer *px;	      /* --page-server: the connection (image/page-xfer.c) */
	struct dump_mmtree *mmt;      /* page buffers, files mapped: once for the tree (mem/dump-mm.c) */
	int ipc_tree;		      /* ns_dump_enter: the root's own IPC namespace (-1: crshim's) */
	bool pidns, mntns_proc;	      /* the root is the init of its own PID namespace (and has own mounts) */
	char *netns_lock;	      /* the lock of the tree's own network namespace (net/tcp-repair.c) */
	uint32_t *sks;		      /* dump_ctx.tree_sks of every process */
	size_t nsks;
};

bool dump_tree_has(const struct dump_tree *tr, pid_t pid);
/* A new entry at the end of the tree (realloc: pointers into tr->c do not stay valid). */
int dump_tree_add(struct dump_tree *tr, struct cr_opts *o, pid_t pid, pid_t ppid, struct cr_err *e);
/* task/seize-tree.c: seize the whole tree (parents before children, threads too) until it is stable, within a
 * bounded time; the root's entry must be there. */
int seize_tree(struct dump_tree *tr, struct cr_err *e);
/* task/dump-ctty.c: a session leader whose controlling terminal no process of the tree holds an fd of fails
 * the dump with one line (not with --shell-job). */
int dump_ctty_check(const struct dump_ctx *cs, size_t n, struct cr_err *e);
/* Let a seized task and its threads go (registers set back if they were read). */
void seize_release_task(struct dump_ctx *c);
void seize_release_threads(struct dump_ctx *c);
/* restore-check.c: once every image is written, before the tree is killed or let go: the restore's own
 * checks of them (nothing made), left out when the pages are elsewhere or the restore's options are needed
 * (the tree's own network, mount or user namespace). Its refusal fails the dump (one line). */
int eng_dump_restore_check(const struct cr_opts *o, bool pages_elsewhere, struct cr_err *e);

#endif
