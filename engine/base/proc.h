/* Parsers of /proc/PID files used by dump. All return < 0 and fill e on failure. */
#ifndef CRSHIM_PROC_H
#define CRSHIM_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "base/err.h"

#define PROC_NS_LEVELS 33 /* NSpid: ours and up to 32 nested PID namespaces (MAX_PID_NS_LEVEL) */
struct proc_status {
	char state; /* R, S, D, T, t, Z, ... */
	int threads;
	int ppid;
	uint32_t uid[4], gid[4]; /* real, effective, saved, fs */
	uint32_t *groups;	 /* malloc'ed */
	size_t ngroups;
	uint64_t cap_inh, cap_prm, cap_eff, cap_bnd, cap_amb;
	int no_new_privs;
	int seccomp; /* 0 none, 1 strict, 2 filter */
	int umask;   /* -1 if absent */
	uint64_t sigblk;
	uint64_t sigign, sigcgt; /* SigIgn, SigCgt: the signals ignored, caught (bit n-1 = signal n) */
	uint64_t vmlck_kb;	 /* VmLck */
	/* NSpid (its id in each PID namespace, ours first; nspid_n of them, 0 without the line), and the
	 * innermost of NSpgid and NSsid (0: a group or session outside that namespace) */
	pid_t nspid[PROC_NS_LEVELS];
	int nspid_n;
	pid_t nspgid, nssid;
};
/* The status of a stopped task is read once per dump (dump.c) and kept in its dump_ctx: what cannot change
 * while it is stopped is taken from there (not SigPnd, nor VmLck once crshim maps its scratch). */
int proc_parse_status(pid_t pid, struct proc_status *st, struct cr_err *e);
/* The same for one thread (tid 0: the process): /proc/PID/task/TID/status. */
int proc_parse_task_status(pid_t pid, pid_t tid, struct proc_status *st, struct cr_err *e);
void proc_status_free(struct proc_status *st);

/* /proc/PID/stat: f[n] is field n (1-based, as in proc(5)); field 2 (comm) and 3 (state) are not numeric.
 * comm is field 2 as /proc/PID/comm has it (the same text: a dump of a stopped task takes it from here). */
#define PROC_STAT_FIELDS 53
#define PROC_COMM_MAX 64 /* (TASK_COMM_LEN is 16; a kernel thread's name may be longer) */
struct proc_stat {
	char state;
	char comm[PROC_COMM_MAX];
	int64_t f[PROC_STAT_FIELDS];
};
int proc_parse_stat(pid_t pid, struct proc_stat *st, struct cr_err *e);

#define PROC_NR_RLIMITS 16
struct proc_rlimit {
	uint64_t cur, max; /* ~0 = unlimited */
};
int proc_parse_limits(pid_t pid, struct proc_rlimit lim[PROC_NR_RLIMITS], struct cr_err *e);

struct proc_timer {
	int id, signo, notify, notify_tid, clock;
	uint64_t sival;
};
int proc_parse_timers(pid_t pid, struct proc_timer **t, size_t *n, struct cr_err *e);

#define PROC_VMA_GD (1u << 0) /* growsdown */
#define PROC_VMA_MW (1u << 1) /* maywrite */
#define PROC_VMA_NR (1u << 2) /* noreserve (MAP_NORESERVE) */
#define PROC_VMA_UW (1u << 3) /* registered for userfaultfd write-protect (mem/track.c) */
#define PROC_VMA_DP (1u << 4) /* droppable (MAP_DROPPABLE) */
#define PROC_VMA_HT (1u << 5) /* hugetlb (MAP_HUGETLB, SHM_HUGETLB, MFD_HUGETLB) */
#define MAP_DROPPABLE_ 0x08   /* MAP_DROPPABLE (Linux 6.11), a mapping type (vma_entry.flags & 0x0f) */
struct proc_vma {
	uint64_t start, end, pgoff;
	char perms[5];
	unsigned dev_major, dev_minor;
	uint64_t ino;
	char *name;	  /* maps name column ("" for none), malloc'ed */
	uint32_t madv;	  /* VMA_F_* (vma-flags.h) */
	uint32_t vmflags; /* PROC_VMA_* */
	bool has_vmflags;
	/* smaps' Shared_Clean and Shared_Dirty, kB: pages also mapped by another process (an anonymous one,
	 * shared copy-on-write with a parent or child) */
	uint64_t shared_clean_kb, shared_dirty_kb;
};
/* Parse /proc/PID/smaps (with VmFlags). */
int proc_parse_smaps(pid_t pid, struct proc_vma **v, size_t *n, struct cr_err *e);
void proc_vmas_free(struct proc_vma *v, size_t n);
/* The [vdso] range from the text of /proc/PID/maps; 0 if found, 1 if there is none. */
int proc_find_vdso(const char *maps, uint64_t *start, uint64_t *end);

struct proc_fdinfo {
	uint64_t pos;
	uint32_t flags;
	int mnt_id;
	bool locks; /* a "lock:" line (files/dump-locks.c) */
};
int proc_parse_fdinfo(pid_t pid, int fd, struct proc_fdinfo *fi, struct cr_err *e);
/* The same, dfd: /proc/PID/fdinfo open (the file opened relative to it; -1: by its whole path). */
int proc_parse_fdinfo_at(int dfd, pid_t pid, int fd, struct proc_fdinfo *fi, struct cr_err *e);

/* An fd of a task: its link (/proc/PID/fd/N, malloc'ed) and the stat of its file. */
struct proc_fd {
	int fd;
	char *link;
	struct stat st;
};
/* The fds of task pid by number, each link and stat read once (a dump reads them once the tree is stopped,
 * for ns/ and files/: engine/dump.c); *out is not NULL, also for none; free with proc_fds_free. */
int proc_read_fds(pid_t pid, struct proc_fd **out, size_t *n, struct cr_err *e);
void proc_fds_free(struct proc_fd *f, size_t n);

/* A small /proc file (path) into buf, NUL-terminated (at most size - 1 bytes): its length, -1 when it cannot
 * be opened or read or is empty. */
ssize_t proc_read_small(const char *path, char *buf, size_t size);
/* A small value file (a sysctl, a cgroup property) into buf, NUL-terminated, its trailing newlines cut; an
 * empty file is an empty value: 0, or -1 when it cannot be opened or read. */
int proc_read_value(const char *path, char *buf, size_t size);
/* /proc/PID/stat (tid 0) or /proc/PID/task/TID/stat read into buf: the ")" that ends comm (the state is 2
 * further), NULL when it is gone or unreadable. */
const char *proc_stat_comm_end(pid_t pid, pid_t tid, char *buf, size_t size);
/* Whole file into a malloc'ed, NUL-terminated buffer. */
int proc_read(pid_t pid, const char *name, char **buf, size_t *len, struct cr_err *e);
/* readlink /proc/PID/<name> into a malloc'ed string. */
int proc_readlink(pid_t pid, const char *name, char **out, struct cr_err *e);
/* Is task pid in another user namespace than ours? (The restore makes each task of a tree in one enter it
 * last, which setns refuses to a task sharing its fs info, and after which it cannot clone with chosen ids in
 * a PID namespace ours owns.) */
bool proc_in_other_userns(pid_t pid);

/* rmdir of cgroup directory path once a killed tree's tasks have left it (each leaves as it is reaped: a
 * moment, more on a loaded machine): 0 once removed or gone, -1 (errno EBUSY) when it is still busy after 30
 * s; the log then names it with the tasks still in it. */
int cg_rmdir_wait(const char *path);

/* crshim into the mount namespace of task pid (its root and cwd that namespace's root) and back; *self and
 * *cwd: crshim's, -1 until they are open (leave does nothing when both are -1). */
int proc_mntns_enter(pid_t pid, int *self, int *cwd, struct cr_err *e);
int proc_mntns_leave(int self, int cwd, struct cr_err *e);

#endif
