/* Restore of one process with the same PID (see restore.h for the steps). The parent never leaves a process
 * behind on failure: every error path after clone3 kills and reaps the child. */
#define LOG_PREFIX "restore: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/fsuid.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "base/caps.h"
#include "base/cleanup.h"
#include "base/fault.h"
#include "base/late-fds.h"
#include "base/log.h"
#include "files/ghost.h"
#include "files/pipes.h"
#include "files/procfd.h"
#include "files/evfd.h"
#include "base/proc.h"
#include "restore.h"
#include "task/seize.h"
#include "mem/ipc-shm.h"
#include "mem/memfd.h"
#include "mem/shmem.h"
#include "files/fdshare.h"
#include "net/netns-lock.h"
#include "net/sk-inet.h"
#include "files/tty.h"
#include "net/sk-unix.h"

#ifndef PTRACE_SETSIGMASK
#define PTRACE_SETSIGMASK 0x420b
#endif

/* struct clone_args (linux/sched.h), up to set_tid_size */
struct rst_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

static void kill_child(pid_t pid)
{
	int st;
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

/* Kill a restored task whose threads may be traced by us: their exits are reported to us first, and the
 * leader only after them. They are reaped in whatever order they end: the thread of a PID namespace's init
 * that exits last waits in its exit for the others to be reaped (zap_pid_ns_processes), so a wait for that
 * one first never ended (a born tree's root with threads, failed before its resume). */
static void kill_task(struct rst_task *t)
{
	kill(t->pid, SIGKILL);
	for (int pass = 0; t->thr_seized && pass < 30000; pass++) {
		size_t alive = 0;
		for (size_t i = 0; i < t->thr_seized; i++) {
			int st;
			pid_t r = waitpid(rst_htid(t, i + 1), &st, __WALL | WNOHANG);
			alive += r == 0 || (r > 0 && !WIFEXITED(st) && !WIFSIGNALED(st)) ||
				 (r < 0 && errno == EINTR);
		}
		if (!alive)
			break;
		usleep(1000);
	}
	t->thr_seized = 0;
	kill_child(t->pid);
}

/* The root of a tree born in its user namespace (ns_rst_user_born): a child of ours enters it and clones the
 * root with CLONE_PARENT (our child; with --restore-sibling that child is our parent's, and so the root),
 * which thus makes its PID, mount (and cgroup) namespaces owned by it, as a container's are. The root's pid
 * in ours comes back on a pipe. The root's, or -1 (errno). */
static long born_clone(struct rst_task *t, struct rst_clone_args *ca)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	struct rst_clone_args mid = {.flags = t->sibling ? CLONE_PARENT : 0,
				     .exit_signal = t->sibling ? 0 : SIGCHLD};
	long m = syscall(SYS_clone3, &mid, sizeof(mid));
	if (m == 0) {
		close(p[0]);
		ca->flags |= CLONE_PARENT;
		ca->exit_signal = 0; /* with CLONE_PARENT: ours (SIGCHLD, or 0 for our parent) */
		/* its cwd --root, looked up while we may (ns-restore.c: the root task builds under ".") */
		const char *root = ns_rst_root(t->ns);
		long r = (root && chdir(root)) || setns(ns_rst_user_fd(t->ns), CLONE_NEWUSER) ||
				 ns_rst_user_born_time(t->ns)
			     ? -1
			     : syscall(SYS_clone3, ca, sizeof(*ca));
		if (r == 0)
			rst_child(t);
		int v[2] = {(int)r, errno};
		_exit(write(p[1], v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : 1);
	}
	int err = errno;
	close(p[1]);
	int v[2] = {-1, err};
	if (m > 0 && read(p[0], v, sizeof(v)) != (ssize_t)sizeof(v))
		v[0] = -1, v[1] = EIO;
	close(p[0]);
	if (m > 0 && !t->sibling)
		while (waitpid((pid_t)m, NULL, 0) < 0 && errno == EINTR)
			;
	errno = v[1];
	return v[0];
}

static int spawn_child(struct rst_task *t, struct cr_err *e)
{
	sigset_t all, old;
	pid_t want[RST_PID_LEVELS]; /* inner first: a new PID namespace's init */
	uint32_t nwant = rst_pidns_set_tid(t, want);
	/* --restore-sibling: the root becomes a child of our parent (runc, a swrk client), as with CRIU */
	struct rst_clone_args ca = {
	    .flags = (t->sibling ? CLONE_PARENT : 0) | (t->ns_init ? CLONE_NEWPID : 0) |
		     (t->mntns_proc ? CLONE_NEWNS : 0) | (t->root ? ns_rst_clone_flags(t->ns) : 0),
	    .exit_signal = t->sibling ? 0 : SIGCHLD,
	    .set_tid = (uint64_t)(uintptr_t)want,
	    .set_tid_size = nwant};

	if (t->err_pipe[0] < 0 &&
	    (pipe2(t->err_pipe, O_CLOEXEC) || fcntl(t->err_pipe[0], F_SETFL, O_NONBLOCK) ||
	     pipe2(t->go_pipe, O_CLOEXEC)))
		return cr_fail_sys(e, "pipe");
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old); /* the child starts with every signal blocked */
	fflush(NULL);
	bool born = t->root && ns_rst_user_born(t->ns);
	long r = born ? born_clone(t, &ca) : syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		rst_child(t);
	int err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	rst_prefill_drop(t); /* the child has them now (or nobody does) */
	close(t->err_pipe[1]);
	close(t->go_pipe[0]);
	t->err_pipe[1] = t->go_pipe[0] = -1;
	if (r < 0) {
		if (err == EEXIST)
			return cr_fail_errno(e, EEXIST, "PID %d is already in use", t->pid);
		return cr_fail_errno(e, err, "clone3 with PID %d", t->pid);
	}
	if (t->fresh_hpid) { /* ours is the kernel's: the image's stays in ipid */
		pr_info("task %d is %ld in our PID namespace\n", t->pid, r);
		t->ipid = t->pid;
		t->pid = (pid_t)r;
	} else if (r != t->pid) {
		kill_child((pid_t)r);
		return cr_fail_errno(e, EINVAL, "clone3 gave PID %ld, not %d", r, t->pid);
	}
	return 0;
}

static int seize_child(struct rst_task *t, struct cr_err *e)
{
	if (ptrace_seize_sc(t->pid, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD))
		return cr_fail_sys(e, "PTRACE_SEIZE %d", t->pid);
	return rst_task_go(t, "start task", e);
}

/* The child died before the blob reported success: say why. Killed (SIGKILL) with its PID namespace, whose
 * init failed: the reason another process of the tree gave. */
static int child_died(struct rst_task *t, int st, struct cr_err *e)
{
	if (rst_task_reason(t, e))
		return -1;
	for (size_t i = 0; WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && i < t->ntree; i++)
		if (&t->tree[i] != t && !t->tree[i].helper && !t->tree[i].zombie &&
		    rst_task_reason(&t->tree[i], e))
			return -1;
	if (WIFSIGNALED(st))
		return cr_fail_errno(e, EFAULT, "task %d was killed by signal %d during the restore", t->pid,
				     WTERMSIG(st));
	return cr_fail_errno(e, EFAULT, "task %d exited with %d during the restore", t->pid, WEXITSTATUS(st));
}

/* A PID namespace's init that ends waits until its traced children are reaped, which only we can do: while
 * we wait for t, another process of the tree that ended is the failure. */
static int other_ended(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->ntree; i++) {
		struct rst_task *x = &t->tree[i];
		siginfo_t si = {0};
		int st;
		if (x == t || x->reaped || x->zombie || x->helper || (i && !x->seized))
			continue;
		/* a traced child's stops are reported too (and left for its own wait): only its end */
		if (waitid(P_PID, (id_t)x->pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) ||
		    si.si_pid != x->pid ||
		    (si.si_code != CLD_EXITED && si.si_code != CLD_KILLED && si.si_code != CLD_DUMPED) ||
		    waitpid(x->pid, &st, __WALL) != x->pid)
			continue;
		x->reaped = true;
		return child_died(x, st, e);
	}
	return 0;
}

static int child_crashed(struct rst_task *t, int sig, struct cr_err *e)
{
	size_t sz = arch_gpregs_size();
	__cleanup_free uint8_t *regs = calloc(1, sz);
	uint64_t ip = 0;
	if (regs && !arch_get_gpregs(t->pid, regs, e))
		ip = arch_regs_ip(regs);
	uint64_t base = (uint64_t)(uintptr_t)t->area;
	if (ip >= base && ip < base + t->area_len)
		return cr_fail_errno(e, EFAULT, "restorer crashed: signal %d at blob offset 0x%llx (step %s)",
				     sig, (unsigned long long)(ip - base),
				     t->args->err_step[0] ? t->args->err_step : "?");
	return cr_fail_errno(e, EFAULT, "task %d crashed during the restore: signal %d at 0x%llx", t->pid,
			     sig, (unsigned long long)ip);
}

/* Wait for the blob's trap (success) or the child's end (failure). */
static int wait_blob(struct rst_task *t, struct cr_err *e)
{
	int st;
	for (;;) {
		/* in a PID namespace: without waiting, to notice another task's end (other_ended) */
		pid_t r = t->ns_levels ? waitpid(t->pid, &st, __WALL | WNOHANG) : rst_svm_waitpid(t, &st);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return cr_fail_sys(e, "wait for task %d", t->pid);
		}
		if (r == 0) { /* in a PID namespace: not yet */
			if (other_ended(t, e))
				return -1;
			for (size_t i = 0; i < t->ntree;
			     i++) /* placeholders that ended (see rst_svm_waitpid) */
				if (t->tree[i].svm_ph &&
				    waitpid(t->tree[i].svm_ph, &st, WNOHANG) == t->tree[i].svm_ph)
					t->tree[i].svm_ph = 0;
			usleep(1000);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->reaped = true; /* its PID may be reused from now on: never signal it again */
			return child_died(t, st, e);
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st);
		if (st >> 16 || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			ptrace(PTRACE_CONT, t->pid, 0, 0); /* group/event stop: not ours to keep */
			continue;
		}
		if (sig == SIGTRAP && t->args->state == RST_DONE)
			return 0;
		return child_crashed(t, sig, e);
	}
}

/* A thread's trap (rst_clone3_thread's end). */
static int wait_thread_trap(struct rst_task *t, pid_t tid, struct cr_err *e)
{
	int st;
	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return cr_fail_sys(e, "wait for thread %d", tid);
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t->args->state == RST_FAILED)
				return child_died(t, st, e);
			return cr_fail_errno(e, EFAULT, "thread %d of task %d ended during the restore", tid,
					     t->pid);
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st);
		if (st >> 16 || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			ptrace(PTRACE_CONT, tid, 0, 0);
			continue;
		}
		if (sig == SIGTRAP)
			return 0;
		return cr_fail_errno(e, EFAULT, "thread %d of task %d: signal %d during the restore", tid,
				     t->pid, sig);
	}
}

/* Every thread restored its state and waits for threads_go: seize them all, let them go to their trap. */
static int park_threads(struct rst_task *t, struct cr_err *e)
{
	size_t n = t->nr_tcores;
	if (!n)
		return 0;
	if (rst_pidns_find_threads(t, e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pid_t tid = rst_htid(t, i + 1);
		if (ptrace_seize_sc(tid, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD))
			return cr_fail_sys(e, "PTRACE_SEIZE thread %d", tid);
		t->thr_seized = i + 1;
		if (ns_rst_thread_made(t->tree[0].ns, tid, t->pst->threads[i + 1], e))
			return -1;
	}
	__atomic_store_n(&t->args->threads_go, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &t->args->threads_go, 1 /* FUTEX_WAKE */, (int)n, NULL, NULL, 0);
	for (size_t i = 0; i < n; i++)
		if (wait_thread_trap(t, rst_htid(t, i + 1), e))
			return -1;
	pr_debug("task %d: %zu threads parked\n", t->pid, n);
	return 0;
}

/* Registers, FPU state and blocked signals of every other thread; then let them run. */
static int finish_threads(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_tcores; i++) {
		const CoreEntry *c = t->tcores[i];
		pid_t tid = rst_htid(t, i + 1);
		uint64_t mask = c->sigmask;
		if (c->has_xstate && c->xstate.len && arch_set_fpstate(tid, c->xstate.data, c->xstate.len, e))
			return cr_wrap(e, "thread %d: FPU state", tid);
		if (arch_set_gpregs(tid, c->gpregs.data, e))
			return cr_wrap(e, "thread %d", tid);
		if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask))
			return cr_fail_sys(e, "PTRACE_SETSIGMASK thread %d", tid);
	}
	return 0;
}

static int detach_threads(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->thr_seized; i++) {
		pid_t tid = rst_htid(t, i + 1);
		if (ptrace(PTRACE_DETACH, tid, 0, 0))
			return cr_fail_sys(e, "PTRACE_DETACH thread %d", tid);
	}
	t->thr_seized = 0;
	return 0;
}

/* A task let go with PTRACE_SYSCALL: its next syscall stop. */
static int syscall_stopped(pid_t pid, struct cr_err *e)
{
	int st;
	while (waitpid(pid, &st, __WALL) < 0)
		if (errno != EINTR)
			return cr_fail_sys(e, "wait for task %d", pid);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80))
		return cr_fail_errno(e, EFAULT, "task %d: unexpected state 0x%x in a remote syscall", pid,
				     st);
	return 0;
}

static int wait_syscall_stop(pid_t pid, struct cr_err *e)
{
	if (ptrace(PTRACE_SYSCALL, pid, 0, 0))
		return cr_fail_sys(e, "PTRACE_SYSCALL %d", pid);
	return syscall_stopped(pid, e);
}

/* A syscall executed by the task at the blob's syscall instruction (the area is still mapped). */
static int remote_syscall(struct rst_task *t, long nr, const unsigned long args[6], long *ret,
			  struct cr_err *e)
{
	size_t sz = arch_gpregs_size();
	__cleanup_free uint8_t *regs = calloc(1, sz);
	if (!regs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (arch_get_gpregs(t->pid, regs, e))
		return -1;
	arch_prep_syscall(regs, t->args->area_start + RST_OFF_SYSCALL, nr, args);
	if (arch_set_gpregs(t->pid, regs, e) || wait_syscall_stop(t->pid, e) ||
	    wait_syscall_stop(t->pid, e) || arch_get_gpregs(t->pid, regs, e))
		return -1;
	*ret = arch_syscall_result(regs);
	return 0;
}

/* The blob's final trap is a forced SIGTRAP: with SIGTRAP blocked (or ignored) the kernel resets its
 * action to SIG_DFL. Set the image's action again, from the copy in the area. */
static int fix_sigtrap(struct rst_task *t, struct cr_err *e)
{
	const struct rst_sigaction *sa = &t->args->sigact[SIGTRAP - 1];
	if (!sa->handler) /* SIG_DFL: nothing lost */
		return 0;
	unsigned long args[6] = {SIGTRAP, (unsigned long)(uintptr_t)sa, 0, sizeof(uint64_t)};
	long ret;
	if (remote_syscall(t, SYS_rt_sigaction, args, &ret, e))
		return cr_wrap(e, "set the SIGTRAP action");
	if (ret)
		return cr_fail_errno(e, (int)-ret, "task %d: set the SIGTRAP action", t->pid);
	return 0;
}

/* A pending SIGTRAP of the image: the blob's final trap would take it (a forced SIGTRAP is not queued twice,
 * and the tracer swallows the stop). Queued here, after that trap, with SIGTRAP blocked first (the force
 * unblocked it): the remote syscalls go on without its delivery, and finish() sets the image's mask. */
static int requeue_sigtrap(struct rst_task *t, struct cr_err *e)
{
	struct rst_args *a = t->args;
	const uint8_t *pv = (const uint8_t *)(uintptr_t)a->pending,
		      *sh = (const uint8_t *)(uintptr_t)a->pending_shared;
	bool blocked = false;
	for (uint32_t i = 0; i < a->nr_pending + a->nr_pending_shared; i++) {
		bool shared = i >= a->nr_pending;
		const uint8_t *si = shared ? sh + (size_t)(i - a->nr_pending) * RST_SIGINFO_SIZE
					   : pv + (size_t)i * RST_SIGINFO_SIZE;
		int32_t sig;
		memcpy(&sig, si, sizeof(sig));
		if (sig != SIGTRAP)
			continue;
		long ret;
		if (!blocked) {
			a->sigtrap_set = 1ull << (SIGTRAP - 1);
			unsigned long args[6] = {SIG_BLOCK, (unsigned long)(uintptr_t)&a->sigtrap_set, 0,
						 sizeof(uint64_t)};
			if (remote_syscall(t, SYS_rt_sigprocmask, args, &ret, e))
				return cr_wrap(e, "block SIGTRAP");
			if (ret)
				return cr_fail_errno(e, (int)-ret, "task %d: block SIGTRAP", t->pid);
			blocked = true;
		}
		unsigned long q[6] = {(unsigned long)a->pid, (unsigned long)a->pid, SIGTRAP,
				      (unsigned long)(uintptr_t)si};
		unsigned long qs[6] = {(unsigned long)a->pid, SIGTRAP, (unsigned long)(uintptr_t)si};
		if (remote_syscall(t, shared ? SYS_rt_sigqueueinfo : SYS_rt_tgsigqueueinfo, shared ? qs : q,
				   &ret, e))
			return cr_wrap(e, "queue the pending SIGTRAP");
		if (ret)
			return cr_fail_errno(e, (int)-ret, "task %d: queue the pending SIGTRAP", t->pid);
		pr_info("task %d: its pending SIGTRAP%s queued again\n", t->pid, shared ? " (shared)" : "");
	}
	return 0;
}

static bool restored(const struct rst_task *t)
{
	return !t->zombie && !t->helper;
}

/* The munmap of the restore area of every restored process, each at its blob's syscall instruction (a remote
 * syscall): all of them started, then each one's stops waited for, so that they run side by side. One
 * process after the other, a tree paid two round trips between crshim and a process per process (each a
 * wait for a CPU at load). */
static int unmap_areas_in(struct rst_task *ts, size_t n, uint8_t *regs, size_t sz, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		if (!restored(t))
			continue;
		unsigned long args[6] = {(unsigned long)t->args->area_start,
					 (unsigned long)t->args->area_len};
		uint8_t *r = regs + i * sz;
		if (arch_get_gpregs(t->pid, r, e))
			return cr_wrap(e, "unmap the restorer");
		arch_prep_syscall(r, t->args->area_start + RST_OFF_SYSCALL, SYS_munmap, args);
		if (arch_set_gpregs(t->pid, r, e))
			return cr_wrap(e, "unmap the restorer");
		if (ptrace(PTRACE_SYSCALL, t->pid, 0, 0))
			return cr_fail_sys(e, "PTRACE_SYSCALL %d", t->pid);
	}
	for (int stop = 0; stop < 2; stop++) /* its entry, then its exit */
		for (size_t i = 0; i < n; i++) {
			struct rst_task *t = &ts[i];
			if (!restored(t))
				continue;
			if (syscall_stopped(t->pid, e))
				return cr_wrap(e, "unmap the restorer");
			if (!stop && ptrace(PTRACE_SYSCALL, t->pid, 0, 0))
				return cr_fail_sys(e, "PTRACE_SYSCALL %d", t->pid);
		}
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		uint8_t *r = regs + i * sz;
		if (!restored(t))
			continue;
		if (arch_get_gpregs(t->pid, r, e))
			return cr_wrap(e, "unmap the restorer");
		long ret = arch_syscall_result(r);
		if (ret)
			return cr_fail_errno(e, (int)-ret, "task %d: unmap the restorer at 0x%llx", t->pid,
					     (unsigned long long)t->args->area_start);
	}
	return 0;
}

/* regs: the registers of every process (freed here, not by a cleanup attribute, which the analyzer took
 * for a leak once this was inlined). */
static int unmap_areas(struct rst_task *ts, size_t n, struct cr_err *e)
{
	size_t sz = arch_gpregs_size();
	uint8_t *regs = calloc(n ? n : 1, sz);
	if (!regs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = unmap_areas_in(ts, n, regs, sz, e);
	free(regs);
	return ret;
}

/* restore --lazy-pages: lazy-pages gets the task's userfaultfd (mem/lazy.c), the task loses its fd. */
static int lazy_handover(struct rst_task *t, struct cr_err *e)
{
	int fd = t->args->lazy_uffd;
	if (!t->lazy || !t->args->lazy || fd < 0)
		return 0;
	if (rst_lazy_send(t, t->tree[0].lazy_sk, e))
		return -1;
	unsigned long args[6] = {(unsigned long)fd};
	long ret;
	if (remote_syscall(t, SYS_close, args, &ret, e))
		return cr_wrap(e, "close the userfaultfd");
	if (ret)
		return cr_fail_errno(e, (int)-ret, "task %d: close the userfaultfd %d", t->pid, fd);
	if (fault_hit(t->fault, FI_RESTORE_LAZY_MID)) /* handed over, not running yet */
		return fault_fail(e, FI_RESTORE_LAZY_MID);
	return 0;
}

/* The signal that stopped a stopped task: SIGTSTP, SIGTTIN, SIGTTOU when the image says so (the parent's
 * wait reports it) and it is not blocked, else SIGSTOP. */
static int stop_signal(const CoreEntry *c)
{
	if (!c->has_stop_signo ||
	    (c->stop_signo != SIGTSTP && c->stop_signo != SIGTTIN && c->stop_signo != SIGTTOU))
		return SIGSTOP;
	return (c->sigmask & (1ull << (c->stop_signo - 1))) ? SIGSTOP : c->stop_signo;
}

/* What a task does at the blob's syscall instruction before its area goes (unmap_areas). */
static int finish_in_area(struct rst_task *t, struct cr_err *e)
{
	return fix_sigtrap(t, e) || requeue_sigtrap(t, e) || lazy_handover(t, e) ? -1 : 0;
}

/* Registers, FPU state, blocked signals; then let it run (its area is gone: unmap_areas). */
static int finish(struct rst_task *t, struct cr_err *e)
{
	const CoreEntry *c = t->core;
	uint64_t mask = c->sigmask;
	if (finish_threads(t, e))
		return -1;
	if (c->has_xstate && c->xstate.len && arch_set_fpstate(t->pid, c->xstate.data, c->xstate.len, e))
		return cr_wrap(e, "FPU state (an image from another CPU?)");
	if (arch_set_gpregs(t->pid, c->gpregs.data, e))
		return -1;
	if (ptrace(PTRACE_SETSIGMASK, t->pid, (void *)sizeof(mask), &mask))
		return cr_fail_sys(e, "PTRACE_SETSIGMASK %d", t->pid);
	if (rst_task_oom_adj(t, e) || rst_task_sched(t, e))
		return -1;
	if (fault_hit(t->fault, FI_RESTORE_BEFORE_RESUME))
		return fault_fail(e, FI_RESTORE_BEFORE_RESUME);
	/* stopped in the image: queued before the detach, it stops the task before any of its code runs */
	if (c->task_state == 1)
		kill(t->pid, stop_signal(c));
	if (detach_threads(t, e))
		return -1;
	if (ptrace(PTRACE_DETACH, t->pid, 0, 0))
		return cr_fail_sys(e, "PTRACE_DETACH %d", t->pid);
	return 0;
}

static void report_warnings(const struct rst_task *t)
{
	const struct rst_args *a = t->args;
	for (int r = 0; r < RST_NR_RLIMITS; r++)
		if (a->warn_rlimit & (1ull << r))
			pr_warn("rlimit %d: hard limit %llu could not be raised (no CAP_SYS_RESOURCE); kept "
				"the current "
				"one\n",
				r, (unsigned long long)a->rlimit[r].max);
	if (a->warn_timer_ids)
		pr_warn("PR_TIMER_CREATE_RESTORE_IDS is not available: timers created in order\n");
	if (a->warn_overrun)
		pr_warn(
		    "pid %d: the overrun count of POSIX timer %d (timer_getoverrun) reads 0 until its next "
		    "signal is taken, not as at the dump\n",
		    t->pid, a->warn_overrun - 1);
	pr_info("restorer: %llu MiB of pages through huge pages%s\n",
		(unsigned long long)(a->thp_bytes[0] + a->thp_bytes[1]) >> 20,
		a->thp_ok ? "" : " (then small pages)");
	pr_info("restorer: address space %.3f s, pages %.3f s, the rest %.3f s\n",
		(double)(a->t_ns[1] - a->t_ns[0]) / 1e9, (double)(a->t_ns[2] - a->t_ns[1]) / 1e9,
		(double)(a->t_ns[3] - a->t_ns[2]) / 1e9);
}

static int write_pidfile(const char *path, pid_t pid, struct cr_err *e)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d", pid);
	__cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		return cr_fail_sys(e, "write pidfile %s", path);
	return 0;
}

/* /proc/PID/stat says it is a zombie or gone. */
static bool task_dead(pid_t pid)
{
	char buf[256];
	const char *p = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
	return !p || p[2] == 'Z' || p[2] == 'X';
}

/* One try to seize t (not the root): 1 seized, 0 not there yet (or not seizable yet), -1 error. */
static int seize_try(struct rst_task *t, struct cr_err *e)
{
	/* fresh PIDs: find it first by its ids inside (its parent may not be known yet) */
	int there = rst_pid_known(t) ? 1 : rst_pidns_find(t, e);
	if (there <= 0)
		return there;
	if (!ptrace_seize_sc(t->pid, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD))
		return 1;
	if (errno != ESRCH && errno != EPERM)
		return cr_fail_sys(e, "PTRACE_SEIZE %d", t->pid);
	return 0;
}

/* t is not there yet: did the process that clones it fail meanwhile? With all, any task that said why (an
 * init that failed takes its namespace along): not on every try, a scan of every task per task made a big
 * tree O(n^2) in syscalls. */
static int seize_check(struct rst_task *ts, size_t n, struct rst_task *t, bool all, struct cr_err *e)
{
	struct rst_task *found = t->spawn_idx >= 0 ? &ts[t->spawn_idx] : NULL;
	struct rst_task *par = found && rst_pid_known(found) ? found : NULL;
	if (par && par->helper && rst_helper_ended(par->pid)) {
		rst_helper_died(par, e);
		return cr_wrap(e, "task %d", t->pid);
	}
	if (par && par->zombie && rst_helper_ended(par->pid)) { /* it clones before it exits */
		if (!rst_zombie_failed(par, e))
			cr_fail_errno(e, ESRCH, "zombie %d ended without creating it", par->pid);
		return cr_wrap(e, "task %d", t->pid);
	}
	/* a PID namespace's init that failed does not end before its traced children: its reason */
	if (par && par->ns_levels && !par->zombie && !par->helper && rst_task_reason(par, e))
		return -1;
	for (size_t k = 0; all && k < n; k++)
		if (!ts[k].zombie && !ts[k].helper && rst_task_reason(&ts[k], e))
			return -1;
	if (par && !par->zombie && !par->helper && task_dead(par->pid)) {
		if (wait_blob(par, e))
			return -1;
		return cr_fail_errno(e, ESRCH, "task %d: its parent %d did not create it", t->pid, par->pid);
	}
	return 0;
}

/* t is seized: into its cgroups, then its go. */
static int seize_done(struct rst_task *ts, struct rst_task *t, struct cr_err *e)
{
	t->seized = true;
	if (ns_rst_task_spawned(ts[0].ns, t->pid, rst_ipid(t), e))
		return -1;
	if (t->pst->mntns && rst_ghost_links(t) &&
	    (t->go_again = fcntl(t->go_pipe[1], F_DUPFD_CLOEXEC, 3)) < 0)
		return cr_fail_sys(e, "keep the go pipe of task %d", t->pid);
	return rst_task_go(t, "start task", e);
}

static bool waited_too_long(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec > 30;
}

/* A process other than the root: the process that clones it does so once it has its go, and puts a mark on
 * its error pipe (RST_BORN_MARK) once it is there; seize it then. */
static int seize_tree_child(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	struct timespec t0;
	bool born = false; /* its mark is there */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0;; i++) {
		int r = seize_try(t, e);
		if (r < 0)
			return -1;
		if (r)
			break;
		if (seize_check(ts, n, t, i % 16 == 15, e))
			return -1;
		if (waited_too_long(&t0))
			return cr_fail_errno(e, ETIMEDOUT, "task %d: not created by its parent %d", t->pid,
					     t->spawn_ppid);
		if (born) { /* there but not seizable yet (or just found in its PID namespace) */
			usleep(500);
			continue;
		}
		/* wait for its mark (no timer probes of its PID): the checks above run every 20 ms meanwhile
		 */
		struct pollfd pf = {.fd = t->err_pipe[0], .events = POLLIN};
		born = poll(&pf, 1, 20) > 0;
	}
	return seize_done(ts, t, e);
}

/* The tasks the tree's order makes one by one (rst_tree_order): those that make or enter a nested mount
 * namespace (join_maker, nested_sk_unix wait for them in turn). */
static bool seize_in_turn(const struct rst_task *ts, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (ts[i].pst &&
		    (ts[i].pst->mntns || ts[i].pst->mntns_join || rst_sk_unix_nested_has(&ts[i])))
			return true;
	return false;
}

/* Every other process of the tree seized, in the order they come: each one's mark (made by the process that
 * cloned it) wakes crshim, which seizes it and gives it its go at once. One by one in the tree's order, each
 * waited for in turn (its mark polled every 20 ms), a tree of 500 spent most of its restore asleep at load:
 * a task made late held those made before it (2000 polls that timed out for 500 processes). */
static int seize_tree_in(struct rst_task *ts, size_t n, const size_t *order, int ep, size_t *wait,
			 struct cr_err *e)
{
	size_t nw = 0, nretry = 0;
	for (size_t k = 1; k < n; k++) {
		struct rst_task *t = &ts[order[k]];
		if (t->zombie || t->helper || rst_svm_sharer(t) || t->seized)
			continue;
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = order[k]};
		if (epoll_ctl(ep, EPOLL_CTL_ADD, t->err_pipe[0], &ev))
			return cr_fail_sys(e, "epoll_ctl (task %d)", t->pid);
		wait[nw++] = order[k];
	}
	struct timespec t0; /* the last progress */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; nw; pass++) {
		struct epoll_event ev[64];
		int nev = epoll_wait(ep, ev, 64, nretry ? 1 : 20);
		if (nev < 0 && errno != EINTR)
			return cr_fail_sys(e, "epoll_wait");
		for (int i = 0; i < nev; i++) { /* there (or it said why): tried from now on */
			ts[ev[i].data.u64].born_seen = true;
			epoll_ctl(ep, EPOLL_CTL_DEL, ts[ev[i].data.u64].err_pipe[0], NULL);
		}
		size_t kept = 0, seized = 0;
		nretry = 0;
		for (size_t k = 0; k < nw; k++) {
			struct rst_task *t = &ts[wait[k]];
			int r = t->born_seen || (nev <= 0 && !k) ? seize_try(t, e) : 0;
			if (r < 0 || (r > 0 && seize_done(ts, t, e)))
				return -1;
			if (r > 0) {
				seized++;
				continue;
			}
			nretry += t->born_seen;
			wait[kept++] = wait[k];
		}
		nw = kept;
		if (seized) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			continue;
		}
		/* no progress: the first one waited for (its spawner, every task's reason now and then) */
		if (nw && seize_check(ts, n, &ts[wait[0]], pass % 16 == 15, e))
			return -1;
		if (nw && waited_too_long(&t0))
			return cr_fail_errno(e, ETIMEDOUT, "task %d: not created by its parent %d",
					     ts[wait[0]].pid, ts[wait[0]].spawn_ppid);
	}
	return 0;
}

/* wait: the tasks not seized, in order (freed here, not by a cleanup attribute: see unmap_areas). */
static int seize_tree(struct rst_task *ts, size_t n, const size_t *order, struct cr_err *e)
{
	__cleanup_close int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return cr_fail_sys(e, "epoll_create1");
	size_t *wait = calloc(n ? n : 1, sizeof(*wait));
	if (!wait)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = seize_tree_in(ts, n, order, ep, wait, e);
	free(wait);
	return ret;
}

bool rst_mounts_late(const struct rst_task *ts, size_t n)
{
	return n && ts[0].paths_later;
}

/* fn in the mount namespace of the tree's root task: what it opens by path is the tree's. */
static int in_tree_mnt(pid_t root, int (*fn)(char *msg, size_t len), struct cr_err *e)
{
	int self = -1, cwd = -1;
	char msg[512] = "";
	int ret = proc_mntns_enter(root, &self, &cwd, e);
	if (!ret && fn(msg, sizeof(msg)))
		ret = cr_fail(e, "%s", msg);
	struct cr_err later;
	if (proc_mntns_leave(self, cwd, ret ? &later : e))
		ret = -1;
	return ret;
}

/* A task's mark on its error pipe: its mount tree stands (the root: RST_BORN_MARK; a nested mount namespace:
 * RST_STAND_MARK, after its RST_BORN_MARK), or its reason, or its end. */
static int mounts_wait(struct rst_task *t, char mark, struct cr_err *e)
{
	char msg[600];
	for (;;) {
		struct pollfd pf = {.fd = t->err_pipe[0], .events = POLLIN};
		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			return cr_fail_sys(e, "wait for the mount tree of task %d", t->pid);
		ssize_t n = read(t->err_pipe[0], msg, sizeof(msg) - 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		ssize_t skip = 0;
		while (mark != RST_BORN_MARK && skip < n && msg[skip] == RST_BORN_MARK)
			skip++;
		if (n > 0 && skip == n)
			continue;
		if (n - skip == 1 && msg[skip] == mark)
			return 0;
		if (n <= 0)
			return cr_fail_errno(e, n ? errno : ESRCH,
					     "task %d ended before its mount tree stood", t->pid);
		msg[n] = '\0';
		skip += msg[skip] == mark;
		return cr_fail_errno(e, 0, "task %d: %s", t->pid, msg + skip);
	}
}

/* What needed the tree's mount tree is made: the root task goes on (its second go). */
static int root_go_again(const struct rst_task *root, int go, struct cr_err *e)
{
	if (write(go, "g", 1) != 1)
		return cr_fail_sys(e, "let task %d go on", root->pid);
	return 0;
}

/* What crshim makes in the mount tree of a tree born in its user namespace (ghosts, unix socket files) it
 * makes as the root task's uid and gid there: crshim's are not mapped, and making a file on the tree's
 * filesystems fails (EOVERFLOW). The files are then owned as the root task would own them; crshim keeps its
 * capabilities (setfsuid drops the file ones), to give a ghost its owner. */
struct as_root {
	bool as;
	int ou, og;
};

static void as_born_root(const struct rst_task *root, struct as_root *a)
{
	uid_t u;
	gid_t g;
	a->as = ns_rst_user_born_host_ids(root->ns, &u, &g);
	if (!a->as)
		return;
	a->ou = setfsuid(u), a->og = setfsgid(g);
	if (cr_caps_effective_all())
		pr_warn("capabilities as uid %u: %s\n", (unsigned)u, strerror(errno));
}

static void as_crshim(const struct as_root *a)
{
	if (!a->as)
		return;
	setfsgid((gid_t)a->og);
	setfsuid((uid_t)a->ou);
}

static int late_sk_unix(struct rst_task *ts, struct cr_err *e)
{
	struct as_root a;
	as_born_root(&ts[0], &a);
	int ret = rst_sk_unix_late(ts, ts[0].ns_init ? ts[0].ns_levels : 0, e);
	as_crshim(&a);
	return ret;
}

/* The unix sockets bound in the nested mount namespace task t makes, once it stands (t waits for them). */
static int nested_sk_unix(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	bool sks = rst_sk_unix_nested_has(t), links = t->go_again >= 0;
	if (!sks && !links && !rst_mntns_joined(ts, n, t))
		return 0;
	struct as_root a;
	int ret = mounts_wait(t, RST_STAND_MARK, e);
	if (ret || (!sks && !links)) { /* (only entered by another process: that one may go now) */
		if (links)
			close(t->go_again);
		t->go_again = -1;
		return ret;
	}
	as_born_root(&ts[0], &a);
	ret = sks ? rst_sk_unix_nested(ts, t, e) : 0;
	/* the ghosts it opens on its mounts, linked there (as the tree's root: crshim's ids are not mapped
	 * there); then its second go */
	if (!ret && links)
		ret = rst_ghost_link_nested(t, e);
	as_crshim(&a);
	if (!ret && links)
		ret = root_go_again(t, t->go_again, e);
	if (links) {
		close(t->go_again);
		t->go_again = -1;
	}
	return ret;
}

static int join_maker(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e);

static int not_made_before(const struct rst_task *joiner, struct cr_err *e)
{
	return cr_fail_errno(e, EBADMSG,
			     "pstree.img: task %d enters the mount namespace of task %d, which is not "
			     "made before it",
			     rst_ipid(joiner), joiner->pst->mntns_join);
}

/* t goes out of turn (it makes the namespace joiner enters), after the spawners above it that did not go
 * yet (a helper or zombie among them goes by itself once made: the one above it goes); not joiner itself,
 * which would wait for a process it has not made yet. */
static int start_early(struct rst_task *ts, size_t n, struct rst_task *t, const struct rst_task *joiner,
		       size_t hops, struct cr_err *e)
{
	bool self_going = t->zombie || t->helper; /* (go without crshim once their spawner made them) */
	if (t == &ts[0] || (!self_going && t->seized))
		return 0;
	if (t == joiner || rst_svm_sharer(t) || hops > n)
		return not_made_before(joiner, e);
	if (t->spawn_idx > 0 && start_early(ts, n, &ts[t->spawn_idx], joiner, hops + 1, e))
		return -1;
	if (self_going)
		return 0;
	return join_maker(ts, n, t, e) || seize_tree_child(ts, n, t, e) || nested_sk_unix(ts, n, t, e);
}

/* A process that enters the nested mount namespace another one makes (pstree_entry.mntns_join) goes once
 * that one made it: that one first, out of turn if need be, and the spawners above it that did not go yet
 * (it may be later in the tree, or deeper: zdtm nsmnt_child_setns_deep). */
static int join_maker(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	struct rst_task *m = t->pst->mntns_join ? rst_tree_task(ts, n, t->pst->mntns_join) : NULL;
	if (!t->pst->mntns_join || (m && m->seized))
		return 0;
	if (!m || !m->pst->mntns || m->zombie || m->helper)
		return not_made_before(t, e);
	return start_early(ts, n, m, t, 0, e);
}

/* The ghosts (restore-ghost.c), made in the tree's mount tree */
static int late_ghosts(struct rst_task *ts, size_t n, struct cr_err *e)
{
	struct as_root a;
	as_born_root(&ts[0], &a);
	int ret = rst_ghost_late(ts, n, e);
	as_crshim(&a);
	return ret;
}

/* Failure: every process of the tree goes (the traced ones are reaped here, the others by init). */
static void kill_tree(struct rst_task *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ts[i].reaped && rst_pid_known(&ts[i]) && (i == 0 || !task_dead(ts[i].pid)))
			kill(ts[i].pid, SIGKILL);
	for (size_t i = n; i-- > 0;) {
		if (ts[i].reaped || (i && !ts[i].seized) || !rst_pid_known(&ts[i]))
			continue;
		kill_task(&ts[i]);
		ts[i].reaped = true;
	}
}

static int restore_run(struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 1; i < n; i++)
		if (pipe2(ts[i].err_pipe, O_CLOEXEC) || fcntl(ts[i].err_pipe[0], F_SETFL, O_NONBLOCK) ||
		    ((!ts[i].zombie || rst_zombie_hands_over(&ts[i])) && pipe2(ts[i].go_pipe, O_CLOEXEC)))
			return cr_fail_sys(e, "pipe"); /* a zombie: its error message (and a go to exit) */
	/* what crshim makes late for the root task: how it takes them (late-fds.h) */
	if ((rst_mounts_late(ts, n) && late_fds_open(ns_rst_user_born(ts[0].ns), e)) ||
	    spawn_child(&ts[0], e))
		return -1;
	for (size_t i = 1; i < n; i++) { /* the children's ends are theirs now */
		if (ts[i].err_pipe[1] >= 0)
			close(ts[i].err_pipe[1]);
		if (ts[i].go_pipe[0] >= 0)
			close(ts[i].go_pipe[0]);
		ts[i].err_pipe[1] = ts[i].go_pipe[0] = -1;
	}
	/* a tree with its own mount tree: crshim makes what it makes in it once it stands (ghosts, unix
	 * sockets, inotify watches; see ns/README.md), then the root task has its second go */
	bool late = rst_mounts_late(ts, n);
	int late_go = late ? fcntl(ts[0].go_pipe[1], F_DUPFD_CLOEXEC, 3) : -1;
	int ret =
	    (late && late_go < 0 && cr_fail_sys(e, "keep the go pipe of task %d", ts[0].pid)) ||
	    fault_check(o, FI_RESTORE_ROOT_ONLY, e) ||
	    ns_rst_root_spawned(ts[0].ns, ts[0].pid, rst_ipid(&ts[0]), e) || seize_child(&ts[0], e) ||
	    (!late && nested_sk_unix(ts, n, &ts[0], e)) || /* (the root as its PID namespace's init) */
	    (late && (mounts_wait(&ts[0], RST_BORN_MARK, e) || late_ghosts(ts, n, e) ||
		      in_tree_mnt(ts[0].pid, rst_fdshare_flight_late, e) || late_sk_unix(ts, e) ||
		      in_tree_mnt(ts[0].pid, rst_notify_late, e) || fault_check(o, FI_RESTORE_MNT_LATE, e) ||
		      late_fds_send(e) || root_go_again(&ts[0], late_go, e))) ||
	    eng_notify(o, "setup-namespaces", ts[0].pid, -1, e) ||
	    eng_notify(o, "post-setup-namespaces", 0, -1, e);
	if (late_go >= 0)
		close(late_go);
	__cleanup_free size_t *order = ret ? NULL : rst_tree_order(ts, n); /* spawners first */
	if (!ret && !order)
		ret = cr_fail_errno(e, ENOMEM, "out of memory");
	bool in_turn = !ret && seize_in_turn(ts, n);
	for (size_t k = 1; in_turn && !ret && k < n; k++) {
		struct rst_task *t = &ts[order[k]];
		if (!t->zombie && !t->helper && !rst_svm_sharer(t) && !t->seized)
			ret = join_maker(ts, n, t, e) || seize_tree_child(ts, n, t, e) ||
			      nested_sk_unix(ts, n, t, e);
	}
	if (!ret && !in_turn)
		ret = seize_tree(ts, n, order, e);
	if (!ret)
		ret = rst_tree_release(ts, n, e);
	/* the processes sharing an address space last: their placeholders then take no PID of the tree */
	for (int sharers = 0; sharers < 2; sharers++)
		for (size_t i = 0; !ret && i < n; i++)
			if (!ts[i].zombie && !ts[i].helper && rst_svm_sharer(&ts[i]) == sharers)
				ret = (sharers && rst_svm_go(ts, n, &ts[i], e)) || wait_blob(&ts[i], e) ||
				      park_threads(&ts[i], e);
	if (!ret) /* every live process passed its clones: the zombies are there, and end */
		ret = rst_tree_zombies(ts, n, e);
	rst_svm_done(ts, n); /* the sharers have their fds: the placeholders go */
	if (!ret)	     /* every process has attached its System V segments */
		ret = rst_ipc_shm_attached(e);
	if (!ret) /* every process has its fds: epoll targets held by another process */
		ret = rst_epoll_tree(ts, n, e);
	for (size_t i = 0; !ret && i < n; i++) /* (and their ghosts' names kept for them go) */
		rst_ghost_unlink_kept(&ts[i]);
	if (!ret) { /* every thread is there: files owned by one; no more processes made in the tree's PID
		     * namespaces: their last PIDs */
		ret = rst_pidns_fown_threads(ts, n, e);
		rst_pidns_last_pid(ts, n);
	}
	if (!ret) {
		rst_tty_foreground(o, &ts[0]);
		/* the RPC client (runc) takes the restored pid from post-restore */
		ret = eng_notify(o, "post-restore", ts[0].pid, -1, e);
		if (!ret) { /* the tree resumes next */
			rst_netns_unlock_made();
			ret = eng_notify(o, "network-unlock", 0, -1, e) ||
			      eng_notify(o, "pre-resume", 0, -1, e);
		}
	}
	/* every process is in its blob, past its sockets: crshim's server of socket options (net/sk-priv.c)
	 * ends before any of them runs */
	rst_sk_priv_stop();
	for (size_t i = 0; !ret && i < n; i++)
		if (restored(&ts[i]))
			ret = finish_in_area(&ts[i], e);
	if (!ret)
		ret = unmap_areas(ts, n, e);
	/* children first: a parent that runs finds them restored */
	for (size_t i = n; !ret && i-- > 0;)
		if (restored(&ts[i]))
			ret = finish(&ts[i], e);
	if (ret) {
		kill_tree(ts, n);
		return -1;
	}
	if (fault_check(o, FI_RESTORE_AFTER_DETACH, e) || /* like a failed post-restore step: nothing stays */
	    (ts[0].lazy_sk >= 0 && rst_lazy_end(ts[0].lazy_sk, e))) {
		kill_tree(ts, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!ts[i].zombie && !ts[i].helper)
			report_warnings(&ts[i]);
	if (o->pidfile && write_pidfile(o->pidfile, ts[0].pid, e)) {
		kill_tree(ts, n);
		return -1;
	}
	struct cr_err e2; /* the tree runs: a client that fails post-resume changes nothing */
	if (eng_notify(o, "post-resume", ts[0].pid, -1, &e2))
		pr_warn("%s\n", e2.msg);
	return 0;
}

/* A tree in a user namespace of its own: each task's credentials made those of the namespace, and the
 * namespace's fd given to every task (it enters it last: restore-child.c). Threads are created by the
 * restorer, after that, with their tids: possible only when the tasks were born in it (ns_rst_user_born: its
 * PID namespace is then owned by it), where they enter nothing. */
static int rst_userns_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	bool born = ns_rst_user_born(ts[0].ns);
	int fd = born ? -1 : ns_rst_user_fd(ts[0].ns);
	if (fd < 0 && !born)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		/* a user namespace nested in the tree's: entered last, born or not */
		int tfd = t->helper ? fd : ns_rst_task_user_fd(ts[0].ns, t->pid, fd);
		if (t->zombie) /* it enters too before it exits: its exit code is then readable from in there
				*/
			t->userns_fd = tfd;
		if (t->zombie || t->helper)
			continue;
		if (t->nr_tcores && (!born || tfd != fd))
			return cr_fail(e,
				       "not supported yet: task %d has threads in a user namespace that does "
				       "not own its PID namespace",
				       t->pid);
		if (ns_rst_map_creds(ts[0].ns, t->pid, t->creds, e))
			return -1;
		for (size_t k = 0; k < t->nr_tcores; k++) /* threads' own (born: they are made in it) */
			if (t->tcores[k]->thread_creds &&
			    ns_rst_map_creds(ts[0].ns, t->pid, t->tcores[k]->thread_creds, e))
				return -1;
		t->userns_fd = tfd;
	}
	return 0;
}

/* crshim into the tree's namespaces; in each network namespace not the dump's (the root's, or another of
 * the tree's), the locks of its TCP connections made again there (their restore would meet peers not yet
 * restored). */
static int rst_ns_enter(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e)
{
	/* each network namespace made locked whole, filled, before any socket (net/netns-lock.h) */
	if (ns_rst_enter(ts[0].ns, e) || rst_netns_lock_made(o, ts, n, e) || rst_nsfile_prepare(ts, n, e))
		return -1;
	return rst_sk_relock(ts, n, e);
}

/* What crshim makes for the tree before it, in the tree's memory cgroup (with room for the pipes' data): a
 * pipe's buffer pages and what an open file description holds are charged for good to their maker's memory
 * cgroup (zdtm pipe_memcg). Shared memory enters for each object (restore-shmem.c), unix sockets later. */
static int rst_shared_make(struct rst_task *ts, size_t n, struct cr_err *e)
{
	ns_rst_memcg_enter_for(ts[0].ns, rst_pipes_share_bytes(ts, n));
	int r = rst_sk_scm_prepare(ts, n, e) || rst_pipes_share(ts, n, e) || rst_fdshare_prepare(ts, n, e);
	ns_rst_memcg_leave(ts[0].ns);
	return r ? -1 : 0;
}

static int restore_tree(struct cr_opts *o, struct rst_task **tsp, size_t *np, struct cr_err *e)
{
	struct rst_task *t = &(*tsp)[0];
	t->fault = o->fault;
	t->sibling = o->restore_sibling;
	t->detached = o->detach;
	if ((o->lazy_pages && rst_lazy_connect(o->imgdir_fd, &t->lazy_sk, e)) ||
	    fault_check(o, FI_RESTORE_BEFORE_LOAD, e) || rst_load(o, t, e) || rst_load_tree(o, tsp, np, e) ||
	    rst_ns_enter(o, *tsp, *np, e) || rst_svm_prepare(*tsp, *np, e) || rst_shared_make(*tsp, *np, e) ||
	    rst_shmem_prepare(*tsp, *np, e) || rst_ipc_shm_prepare(*tsp, *np, e) ||
	    ns_rst_ipc_ids((*tsp)[0].ns, e) || rst_memfd_tree(*tsp, *np, e) || rst_evfd_share(*tsp, *np, e) ||
	    rst_tty_prepare(o, *tsp, *np, e) || rst_sk_unix_prepare(o, *tsp, *np, e) ||
	    rst_tree_plan(o, tsp, np, e) || rst_fdtable_check(*tsp, *np, e) ||
	    rst_ghost_share_copies(*tsp, *np, e) ||
	    rst_pidns_fresh(*tsp, *np, ns_rst_user_born((*tsp)[0].ns), e) ||
	    rst_procfd_prepare(*tsp, *np, e) || rst_userns_prepare(*tsp, *np, e) ||
	    rst_sk_priv_start(*tsp, *np, e) || fault_check(o, FI_RESTORE_AFTER_LOAD, e))
		return -1;
	if (rst_areas_build(*tsp, *np, e))
		return -1;
	if (rst_svm_fill(*tsp, *np, e) || fault_check(o, FI_RESTORE_BEFORE_FORK, e))
		return -1;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = restore_run(o, *tsp, *np, e);
	if (o->stats)
		o->stats->forking_us = cr_us_since(&t0);
	return ret;
}

/* The lock of the tree's network namespace the dump left (inventory netns_lock) removed: once the tree runs,
 * crshim is in its network namespace; after a failure only a namespace that outlives it can hold the lock,
 * one given by --join-ns net:PATH. A namespace the restore made has not the dump's lock (its ruleset was
 * dumped before the lock was taken), but its own (rst_netns_lock_made), removed before the tree resumes. */
static void rst_netns_unlock(const struct cr_opts *o, const struct ns_rst *r, const InventoryEntry *inv,
			     bool failed)
{
	if (!inv || !inv->netns_lock || (!failed && !ns_rst_joined_net(r)))
		return;
	struct cr_err e = {0};
	__cleanup_close int ns = -1;
	for (int i = 0; failed && i < o->n_join_ns; i++)
		if (!strncmp(o->join_ns[i], "net:", 4)) {
			char p[4096];
			snprintf(p, sizeof(p), "%.*s", (int)strcspn(o->join_ns[i] + 4, ","),
				 o->join_ns[i] + 4);
			ns = open(p, O_RDONLY | O_CLOEXEC);
		}
	if (failed && ns < 0)
		return;
	if (netns_unlock(inv->netns_lock, ns, &e))
		pr_warn("network unlock of the tree's namespace: %s\n", e.msg);
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int eng_restore(struct cr_opts *o, pid_t *root_pid, struct cr_err *err)
{
	struct rst_task *ts = calloc(1, sizeof(*ts));
	size_t n = 1;
	struct timespec t0;
	bool own_dir = false;
	int ret = -1;

	if (!ts || eng_ext_check(o, err)) {
		free(ts);
		return ts ? -1 : cr_fail_errno(err, ENOMEM, "out of memory");
	}
	*ts = (struct rst_task){
	    .dirfd = -1, .pm = {.pages_fd = -1}, .err_pipe = {-1, -1}, .go_pipe = {-1, -1}, .lazy_sk = -1};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_caps_user_dumpable();
	if (eng_notify(o, "pre-restore", 0, -1, err)) {
		free(ts);
		return -1;
	}
	if (o->imgdir_fd < 0) {
		o->imgdir_fd = open(o->images_dir ? o->images_dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (o->imgdir_fd < 0) {
			free(ts);
			return cr_fail_sys(err, "open images dir %s", o->images_dir ? o->images_dir : ".");
		}
		own_dir = true;
	}
	ret = restore_tree(o, &ts, &n, err);
	rst_svm_done(ts, n);	/* placeholders left by a failure */
	rst_pipes_share_done(); /* the tree has its own copies of shared pipes now */
	rst_shmem_done();	/* and of shared memory */
	rst_ipc_shm_done(ret != 0);
	rst_fdshare_done(); /* and of shared open files */
	late_fds_close();   /* and what the root task took from crshim */
	rst_sk_priv_stop(); /* the tree's sockets are made */
	rst_procfd_done();
	rst_evfd_share_done();
	rst_memfd_tree_done();
	rst_tty_done(ret);
	rst_sk_unix_done(o, ret != 0); /* and of unix sockets (a failure removes their files) */
	/* the connections are back: let their packets in; or the restore failed: the connections lived only
	 * in the images (a retry needs a new dump), so no lock may stay behind either, also when the failure
	 * came before the images loaded (read from the images again) */
	rst_netns_unlock(o, ts[0].ns, ts[0].inv, ret != 0);
	rst_netns_unlock_made(); /* a failure before the tree's resume: the locks of the namespaces made */
	if (ret)
		rst_sk_unlock_dir(o->imgdir_fd);
	else
		rst_sk_unlock(ts, n);
	ns_rst_done(ts[0].ns, ret != 0); /* crshim back in its own namespaces */
	ts[0].ns = NULL;
	if (!ret) {
		double s = since(&t0);
		*root_pid = ts[0].pid;
		if (o->stats)
			o->stats->restore_us = cr_us_since(&t0);
		pr_info("restored task %d (%zu processes) in %.3f s (%llu bytes of pages of the root, %.2f "
			"GB/s)\n",
			ts[0].pid, n, s, (unsigned long long)pm_data_bytes(&ts[0].pm),
			s > 0 ? (double)pm_data_bytes(&ts[0].pm) / s / 1e9 : 0.0);
	} else {
		pr_err("restore failed: %s\n", err->msg);
	}
	for (size_t k = 0; k < n; k++) {
		struct rst_task *t = &ts[k];
		for (int i = 0; i < 2; i++) {
			if (t->err_pipe[i] >= 0)
				close(t->err_pipe[i]);
			if (t->go_pipe[i] >= 0)
				close(t->go_pipe[i]);
		}
	}
	if (ts[0].lazy_sk >= 0) /* a failure: lazy-pages sees the end without LZ_END */
		close(ts[0].lazy_sk);
	for (size_t k = n; k-- > 0;) {
		free(ts[k].own_pst);
		free(ts[k].htids);
		rst_free(&ts[k]);
	}
	free(ts);
	if (own_dir) {
		close(o->imgdir_fd);
		o->imgdir_fd = -1;
	}
	return ret;
}
