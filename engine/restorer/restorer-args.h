/* The ONE argument struct shared by crshim (engine/restore*.c) and the freestanding restorer blob.
 *
 * The parent maps the "restore area" (MAP_SHARED, at an address no target VMA and no vDSO/vvar uses) before
 * clone3, so the child inherits it at the same address:
 *   [blob code][struct rst_args + arrays][vDSO parking][stack]
 * Every pointer in here is an absolute address inside the area. The blob writes its result into `state`
 * (shared memory: the parent reads it directly). Only <stdint.h> types: both sides include this header. */
#ifndef CRSHIM_RESTORER_ARGS_H
#define CRSHIM_RESTORER_ARGS_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define RST_MAGIC 0x3153475241545352ull /* "RSTARGS1" */
#define RST_VERSION 1

/* Fixed offsets in the blob (arch/<ARCH>/restorer-entry.S places code there). */
#define RST_OFF_ENTRY 0	   /* entry(args) on the blob stack */
#define RST_OFF_SYSCALL 16 /* a syscall instruction for the parent's remote munmap of the area */

#define RST_STACK_SIZE (256u << 10) /* also the child's scratch buffer for /proc/self/maps */
#define RST_NSIG 64
#define RST_NR_RLIMITS 16
#define RST_SIGINFO_SIZE 128
/* si_signo of a pending siginfo that stands for a POSIX timer's own signal, its index in timers at si_errno:
 * the timer queues it again at that place of its queue (restorer.c queue_walk) */
#define RST_SI_TIMER 0
/* A POSIX timer's signal queued by crshim in place of the kernel's own (restorer.c timer_sig_queue: a plain
 * siginfo, si_code SI_TIMER, which stands for the expiries it counts, not for its timer): these 8 bytes at
 * this offset, in the part of the siginfo union the kernel leaves 0 in a timer's own (past si_sys_private).
 * The kernel keeps them, so the dump tells such a copy from the timer's own (engine/task/dump-core.c). They
 * are within the siginfo the program gets: one that reads those bytes of a timer's signal sees them. */
#define RST_SI_COPY_AT 40
#define RST_SI_COPY_MAGIC 0x79706f636d696873ull /* "shimcopy" */

#define RST_AUXV_MAX 128	     /* u64 words */
#define RST_MAX_UNMAP 4096	     /* mappings of the child to remove */
#define RST_NR_SPECIAL 3	     /* [vvar] [vvar_vclock] [vdso] */
#define RST_THP_MIN_RUN (4ull << 20) /* runs of page data at least this long may use huge pages */
#define RST_THP_SIZE (2ull << 20)
#define RST_THP_WIN (32ull << 20)

#ifndef __ASSEMBLER__
enum rst_state { RST_RUNNING = 0, RST_DONE = 1, RST_FAILED = 2 };

/* rst_args.pre_fd[] */
enum { RST_PRE_THP_UFFD, RST_PRE_AIO_EFD, RST_PRE_LAZY_UFFD, RST_PRE_FDS };

/* Kinds of rst_vma (the blob needs only these). */
enum rst_vma_kind {
	RST_VMA_ANON = 0,
	RST_VMA_ANON_SHARED = 1,
	RST_VMA_FILE = 2,
	RST_VMA_SYSV = 3,
	RST_VMA_AIO = 4 /* an AIO ring: mapped private anonymous and filled with the saved ring, then replaced
			 * by the ring of a new io_setup(aio_nr) brought to its head, tail and events */
};
/* RST_VMA_SYSV: mfile is the shmid, flags the shmat flags (the attach is made by the VMA at offset 0 and
 * covers the whole segment; the VMAs after it at offsets > 0 are parts of it). */
#define RST_SHM_RDONLY 010000
#define RST_SHM_REMAP 040000
#define RST_SHM_EXEC 0100000

struct rst_range {
	uint64_t start, len;
};
_Static_assert(sizeof(struct rst_range) == 16, "rst_range");

struct rst_vma {
	uint64_t start, end, pgoff; /* pgoff in bytes */
	uint32_t prot;		    /* final PROT_* */
	uint32_t flags;		    /* MAP_* for mmap (without MAP_FIXED) */
	uint32_t kind;		    /* enum rst_vma_kind */
	int32_t mfile;		    /* RST_VMA_FILE: index into mfd[] */
	uint32_t madv;		    /* VMA_F_* (vma-flags.h) */
	uint32_t first_block;	    /* page blocks [first_block, first_block + nr_blocks) lie inside */
	uint32_t nr_blocks;
	uint32_t thp;	    /* 1: has runs that may be filled through huge pages */
	uint32_t prefilled; /* 1: already mapped (private anon, rw) and filled by crshim */
	int32_t shm_lead;   /* shared anon object in several VMAs or at an offset: index of its first
			     * VMA (which has shm_size), -1 otherwise */
	uint64_t shm_size;  /* bytes of the whole object (in the lead) */
	uint32_t lazy;	    /* 1: registered with the lazy-pages userfaultfd at the end (mem/lazy.md) */
	uint32_t aio_nr;    /* RST_VMA_AIO: the nr_events to give io_setup for a ring of the same size */
};
_Static_assert(sizeof(struct rst_vma) == 80, "rst_vma");

struct rst_pblock {
	uint64_t vaddr, len, off; /* off: in the pages file */
	uint32_t prot;		  /* of the VMA while it is filled (rst_vma prot | PROT_WRITE) */
	uint8_t thp;		  /* 1: may be filled through huge pages moved in with UFFDIO_MOVE */
	uint8_t lazy;		  /* 1: not read by the blob: lazy-pages fills it on demand */
	uint16_t src; /* 0: pages_fd; k: mfd[src_mfile + k - 1] (a parent's pages, chained restore) */
};
_Static_assert(sizeof(struct rst_pblock) == 32, "rst_pblock");

/* Kernel struct sigaction (rt_sigaction) layout. */
struct rst_sigaction {
	uint64_t handler, flags, restorer, mask;
};
_Static_assert(sizeof(struct rst_sigaction) == 32, "rst_sigaction");

struct rst_special {
	uint64_t cur; /* where it is in the child now (filled by the child) */
	uint64_t len;
	uint64_t park;	 /* parking spot inside the area */
	uint64_t target; /* where the image had it; 0 = the image has none: unmap */
};
_Static_assert(sizeof(struct rst_special) == 32, "rst_special");

struct rst_timer {
	int32_t id, clock_id, notify, signo, notify_tid;
	int32_t pending; /* 1: its own signal was pending (an RST_SI_TIMER mark in its list: the timer queues
			    it) */
	uint64_t sival;
	int64_t isec, insec, vsec, vnsec;
	int32_t overrun; /* timer_getoverrun() at the dump: the blob makes it so (restorer.c timer_overrun) */
	int32_t gone;	 /* 1: deleted since it queued its (pending, stale) signal: made for it, then deleted;
			  * 2: so, and a timer of the image has its id: made before that one */
	int32_t redo;	 /* the blob's: its overrun to be given back (again) by the thread dancing now */
	int32_t pend_overrun; /* its own signal pending: the expiries missed it counts (restorer.c
				 timer_fire_now); -1: it is stale (timer_requeue) */
	int64_t
	    at; /* its expiry (ns of its clock) the dump read, armed there (TIMER_ABSTIME); 0: the value */
	/* 1: on CLOCK_REALTIME, armed relative: armed so again, to expire at at (restorer.c timer_arm) */
	int32_t rel, pad;
};
_Static_assert(sizeof(struct rst_timer) == 96, "rst_timer");

struct rst_itimer {
	int64_t isec, iusec, vsec, vusec;
};

struct rst_rlimit {
	uint64_t cur, max;
};

/* struct prctl_mm_map (linux/prctl.h) */
struct rst_mm_map {
	uint64_t start_code, end_code, start_data, end_data, start_brk, brk, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t auxv;
	uint32_t auxv_size;
	uint32_t exe_fd;
};
_Static_assert(sizeof(struct rst_mm_map) == 104, "rst_mm_map");

struct rst_creds {
	uint32_t uid, euid, suid, fsuid, gid, egid, sgid, fsgid;
	uint64_t cap_inh, cap_prm, cap_eff, cap_amb;
	uint32_t securebits, nr_groups;
	uint64_t groups; /* uint32_t[nr_groups] */
};
/* nr_groups: the restoring child's groups are already the task's (setgroups needs CAP_SETGID even then) */
#define RST_GROUPS_KEEP 0xffffffffu
_Static_assert(sizeof(struct rst_creds) == 80, "rst_creds");

/* PID namespace levels a restored task can have, ours included (clone3 set_tid, innermost first). */
#define RST_PID_LEVELS 8

/* A thread's NUMA memory policy: set_mempolicy(mode, nodes) when has. */
#define RST_MPOL_NODES 1024
struct rst_mpol {
	int32_t has, mode;
	uint64_t nodes[RST_MPOL_NODES / 64];
};
_Static_assert(sizeof(struct rst_mpol) == 136, "rst_mpol");

/* A VMA's NUMA memory policy: mbind(start, len, mode, nodes) once the VMAs stand, before their pages are
 * read; late: an AIO ring's, set once aio_restore moved the new ring there. */
struct rst_vma_mpol {
	uint64_t start, len;
	int32_t mode, late;
	uint64_t nodes[RST_MPOL_NODES / 64];
};
_Static_assert(sizeof(struct rst_vma_mpol) == 152, "rst_vma_mpol");

/* A thread other than the leader: created by the blob with clone3(set_tid) on its own stack. */
struct rst_thread {
	int32_t tid, has_sas;
	uint64_t stack_top;
	uint64_t sas_sp, sas_size;
	int32_t sas_flags, has_rseq;
	uint64_t rseq_ptr;
	uint32_t rseq_len, rseq_sig;
	uint32_t has_robust, nr_pending;
	uint64_t robust_list, robust_len;
	uint64_t tid_address;
	uint64_t pending; /* 128-byte siginfo[] for this thread */
	char comm[16];
	uint64_t args;			 /* struct rst_args * */
	int32_t set_tid[RST_PID_LEVELS]; /* its tid in each PID namespace, innermost (= tid) first */
	uint32_t set_tid_size, pad;	 /* 0: just tid */
	uint64_t creds;			 /* struct rst_creds * of its own, 0: the leader's */
	uint64_t cap_bnd_drop;		 /* capabilities to drop from its bounding set (with creds) */
	uint64_t seccomp; /* struct rst_seccomp[nr_seccomp]: its filters past the shared ones */
	uint32_t nr_seccomp, pad2;
	/* its own task flags: no_new_privs and the parent death signal (set after its creds), the timer
	 * slack (0: the leader's), PR_SET_TSC (0: keep) and PR_MCE_KILL (has_mce) */
	int32_t no_new_privs, pdeathsig, tsc, has_mce, mce_kill;
	int32_t cpuid_fault; /* 1: cpuid faulting on, the thread's last step (rst-arch.h) */
	uint64_t timerslack;
	struct rst_mpol mpol;
};
_Static_assert(sizeof(struct rst_thread) == 360, "rst_thread");

/* A seccomp filter a thread installs itself (seccomp(SECCOMP_SET_MODE_FILTER)): the filters all threads
 * share are installed by the restoring child before the blob and inherited; the rest differ by thread. */
struct rst_seccomp {
	uint64_t insns; /* struct sock_filter[len] */
	uint32_t len, flags;
};
_Static_assert(sizeof(struct rst_seccomp) == 16, "rst_seccomp");

#define RST_THREAD_STACK (32u << 10)

#define RST_MAX_SVM 16 /* processes sharing one restored address space with its owner */
enum rst_svm_sess { RST_SVM_SESS_KEEP = 0, RST_SVM_SESS_SETSID = 1, RST_SVM_SESS_SETPGID = 2 };

/* A sharer's fd, taken from its placeholder with pidfd_getfd (restore-sharedvm.c). */
struct rst_svm_fd {
	int32_t fd, cloexec;
};

struct rst_args {
	uint64_t magic;
	uint32_t version, size; /* RST_VERSION, sizeof(struct rst_args) */

	/* ---- result, written by the blob ---- */
	volatile int32_t state;	 /* enum rst_state */
	int32_t err_errno;	 /* positive errno of the failed step */
	uint64_t err_a, err_b;	 /* addresses or numbers of the failed step */
	char err_step[64];	 /* name of the failed step */
	uint64_t warn_rlimit;	 /* bit r: rlimit r could not be raised (kept at the current hard limit) */
	uint32_t warn_timer_ids; /* 1: timers created without PR_TIMER_CREATE_RESTORE_IDS */
	int32_t warn_overrun; /* 1 + the id of a timer whose overrun count could not be given back; 0: none */
	volatile int32_t helper_tid; /* page-reading helper thread: cleared by the kernel when it exits */
	uint64_t t_ns[4];	     /* CLOCK_MONOTONIC: start, vmas mapped, pages read, done (for the log) */
	uint64_t helper_from, helper_to; /* byte range of all page data the helper thread reads */
	int32_t use_thp;		 /* the parent allows huge pages + UFFDIO_MOVE */
	int32_t uffd;			 /* userfaultfd for UFFDIO_MOVE of huge pages, -1 if not used */
	volatile int32_t thp_ok;	 /* cleared when a huge-page fill fails: the rest uses small pages */
	uint64_t win[2], win_raw[2];	 /* per thread: 2 MiB aligned window for filling huge pages */
	uint64_t thp_bytes[2];		 /* bytes moved in as huge pages, per thread (for the log) */

	/* ---- the area ---- */
	uint64_t area_start, area_len;
	uint64_t stack_top;

	/* ---- address space ---- */
	struct rst_special special[RST_NR_SPECIAL];
	uint64_t unmap; /* struct rst_range[], filled by the child */
	uint32_t nr_unmap;
	uint32_t nr_guards; /* guard regions (MADV_GUARD_INSTALL) to install once the VMAs stand */
	uint64_t guards;    /* struct rst_range[nr_guards] */
	uint32_t nr_vmas;
	uint64_t vmas;	 /* struct rst_vma[], sorted */
	uint64_t blocks; /* struct rst_pblock[], sorted */
	uint32_t nr_blocks;
	int32_t pages_fd;   /* filled by the child */
	uint32_t src_mfile; /* a chained restore: mfd[src_mfile...] are the parents' pages files */
	uint64_t mfd;	    /* int32_t[nr_mfiles]: fds of mapped files (child) */
	uint32_t nr_mfiles;
	int32_t helper_fd_lo; /* the child's helper fds are all >= this: closed after PR_SET_MM_MAP */
	struct rst_mm_map mm; /* exe_fd filled by the child */
	uint64_t auxv[RST_AUXV_MAX];

	/* ---- signals ---- */
	struct rst_sigaction sigact[RST_NSIG]; /* index signo-1 */
	uint64_t sas_sp, sas_size;
	int32_t sas_flags, has_sas;
	uint64_t pending; /* 128-byte siginfo[] for this thread */
	uint32_t nr_pending, nr_pending_shared;
	uint64_t pending_shared; /* 128-byte siginfo[] for the process */
	uint64_t sigtrap_set;	 /* the parent's scratch: the set {SIGTRAP} it blocks in the task by a remote
				    syscall */

	/* ---- task ---- */
	int32_t pid;
	int32_t has_rseq;
	uint64_t rseq_ptr;
	uint32_t rseq_len, rseq_flags, rseq_sig;
	uint32_t has_robust;
	uint64_t robust_list, robust_len;
	uint64_t tid_address;
	struct rst_itimer itimer[3]; /* ITIMER_REAL, _VIRTUAL, _PROF */
	uint64_t timers;	     /* struct rst_timer[] */
	uint32_t nr_timers;
	uint32_t nr_rlimits;
	struct rst_rlimit rlimit[RST_NR_RLIMITS];
	uint32_t has_rlimit[RST_NR_RLIMITS];
	int32_t pdeathsig, dumpable, no_new_privs;
	int32_t fault; /* fault point of the run (engine/fault-ids.h), 0 = none */

	/* ---- creds (last) ---- */
	int32_t has_creds, pad2;
	struct rst_creds creds;

	/* ---- threads other than the leader ---- */
	uint64_t threads; /* struct rst_thread[nr_threads] */
	uint64_t
	    seccomp; /* struct rst_seccomp[nr_seccomp]: the leader's own filters, after the threads' clone */
	uint32_t nr_seccomp, pad_seccomp;
	uint32_t nr_threads;
	volatile int32_t threads_ready; /* threads that restored their state and wait for threads_go */
	volatile int32_t threads_go;	/* set (and futex-woken) by crshim once it has seized them all */
	/* the overrun dances (restorer.c timer_dances), one thread at a time: the leader's first, then each
	 * thread's with a timer of its own to dance (n-th such: its turn n + 1) */
	volatile int32_t timer_turn;
	int32_t pad_turn;
	int32_t helper_fd_hi; /* last helper fd to close; 0: all from helper_fd_lo on (restore-fdtable.c) */
	/* a sharer of an fd table: the fds the blob would make for itself, made before its turn ended and
	 * kept in its range (restore-fdtable.c pre_blob_fds): userfaultfd for huge pages, eventfd for AIO
	 * rings, userfaultfd for lazy pages; 0: none, the blob makes its own. The blob closes none of them
	 * itself (its helper range goes at the end). */
	int32_t pre_fd[RST_PRE_FDS];

	/* ---- processes sharing the address space (restore-sharedvm.c, restorer/sharedvm.c) ---- */
	uint64_t svm_args[RST_MAX_SVM]; /* the owner: struct rst_args * of each sharer it clones */
	uint32_t nr_svm;
	uint32_t svm;			 /* 1: a sharer: cloned by the owner's blob, maps nothing itself */
	uint64_t svm_flags;		 /* clone flags (CLONE_VM | ...) */
	int32_t svm_exit_signal;	 /* 0 with CLONE_PARENT */
	int32_t svm_nr_tid;		 /* set_tid_size */
	int32_t svm_tid[RST_PID_LEVELS]; /* set_tid: the PID in its own PID namespace first */
	volatile int32_t svm_go;	 /* set (and futex-woken) by crshim once it has seized the sharer */
	int32_t svm_ph_pid;		 /* its placeholder that holds its fds (written by the placeholder) */
	int32_t svm_sess;		 /* enum rst_svm_sess */
	int32_t svm_pgid;		 /* RST_SVM_SESS_SETPGID: the group (0: its own) */
	uint32_t svm_nr_fds;		 /* struct rst_svm_fd[] at svm_fds */
	int32_t svm_pad;
	uint64_t svm_fds; /* in the area's unmap space (a sharer unmaps nothing) */
	uint64_t svm_cwd; /* char *, 0: shares the fs info (CLONE_FS) */
	int32_t svm_umask, svm_has_personality;
	uint32_t svm_personality, svm_subreaper;
	int32_t svm_has_nice, svm_nice;
	uint64_t svm_timerslack; /* 0: keep */
	char svm_comm[16];
	/* a tree in a user namespace that does not own its PID namespace (the sharers are cloned with their
	 * pids from outside it): the owner enters it once it cloned them, through its fd svm_userns_fd (0: it
	 * entered before the blob, or none); a sharer once it took its fds, as its owner's (svm_owner_pid, as
	 * it sees it; 0: none); each then drops from its bounding set what svm_bnd_keep lacks (svm_has_bnd)
	 */
	int32_t svm_userns_fd, svm_owner_pid;
	uint64_t svm_bnd_keep;
	int32_t svm_has_bnd, svm_pad2;

	/* ---- restore --lazy-pages (mem/lazy.md) ---- */
	int32_t lazy;		    /* 1: make the userfaultfd and register the lazy VMAs */
	volatile int32_t lazy_uffd; /* written by the blob: its fd of that userfaultfd, -1 none */

	uint32_t mlockall;	   /* mlockall() flags set at the end (MCL_FUTURE [| MCL_ONFAULT]); 0: none */
	int32_t tsc;		   /* PR_SET_TSC at the end (0: keep) */
	int32_t has_mce, mce_kill; /* PR_MCE_KILL_SET */
	int32_t ksm_merge_any;	   /* PR_SET_MEMORY_MERGE before the VMAs are mapped */
	int32_t cpuid_fault;	   /* 1: cpuid faulting on, the leader's last step (rst-arch.h) */
	uint32_t mdwe, pad_mdwe;   /* PR_SET_MDWE flags, set after the last mapping (0: none) */
	struct rst_mpol mpol;	   /* the leader's, set at the end */
	uint64_t vma_mpols;	   /* struct rst_vma_mpol[nr_vma_mpols]: the VMAs' policies (mbind) */
	uint32_t nr_vma_mpols, pad_mpol;
};
_Static_assert(sizeof(struct rst_args) % 8 == 0, "rst_args alignment");
_Static_assert(sizeof(struct rst_args) < 16384, "rst_args size");
#endif /* __ASSEMBLER__ */

#endif
