/* Restorer blob: processes that share the restored address space with its owner (clone(CLONE_VM) without
 * CLONE_THREAD). The owner's blob clones each one with clone3(set_tid) once the address space is in place;
 * the new process runs rst_svm_main on its own area's stack (its code is the blob copy in its own area):
 * it waits until crshim has seized it, joins its session/group, takes its fds from its placeholder with
 * pidfd_getfd (the placeholder is a process crshim made that restored the fd table), sets its cwd, umask,
 * name, personality, nice, then its signals, timers, creds, like any task, and stops with a trap. */
#include <stddef.h>
#include <stdint.h>
#include <linux/fcntl.h>
#include <linux/futex.h>
#include <linux/prctl.h>
#include <linux/sched.h>

#include "restorer-args.h"
#include "rst-svm.h"
#include "rst-arch.h"
#include "rst-sys.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

struct svm_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

static void ck(struct rst_args *a, long r, const char *step, uint64_t x, uint64_t y)
{
	if (RST_ISERR(r))
		rst_fail(a, step, r, x, y);
}

void rst_svm_clone_all(struct rst_args *a)
{
	for (uint32_t i = 0; i < a->nr_svm; i++) {
		struct rst_args *s = (struct rst_args *)a->svm_args[i];
		struct svm_clone_args ca = {s->svm_flags,
					    0,
					    0,
					    0,
					    (uint64_t)s->svm_exit_signal,
					    s->stack_top - RST_STACK_SIZE,
					    RST_STACK_SIZE,
					    0,
					    (uint64_t)s->svm_tid,
					    (uint64_t)s->svm_nr_tid};
		/* the same code in the sharer's own area */
		void (*fn)(void *) =
		    (void (*)(void *))((uint64_t)rst_svm_main - a->area_start + s->area_start);
		long r = rst_clone3_thread(&ca, sizeof(ca), fn, s);
		ck(a, r, "clone3 address-space sharer", (uint64_t)s->svm_tid[0], s->svm_flags);
		if (r != s->svm_tid[0])
			rst_fail(a, "clone3 address-space sharer (pid differs)", -22, (uint64_t)s->svm_tid[0],
				 (uint64_t)r);
	}
}

static void svm_session(struct rst_args *a)
{
	if (a->svm_sess == RST_SVM_SESS_SETSID)
		ck(a, sys0(__NR_setsid), "setsid", 0, 0);
	else if (a->svm_sess == RST_SVM_SESS_SETPGID)
		ck(a, sys2(__NR_setpgid, 0, a->svm_pgid), "setpgid", (uint64_t)a->svm_pgid, 0);
}

/* The fd table: everything inherited from the owner goes; the placeholder's fds come in. */
static void svm_fds(struct rst_args *a)
{
	const struct rst_svm_fd *f = (const struct rst_svm_fd *)a->svm_fds;
	int32_t hi = 0;
	if (a->svm_flags & CLONE_FILES)
		return;
	for (uint32_t i = 0; i < a->svm_nr_fds; i++)
		if (f[i].fd >= hi)
			hi = f[i].fd + 1;
	ck(a, sys3(__NR_close_range, 0, ~0u, 0), "close the owner's fds", 0, 0);
	long pfd = sys2(__NR_pidfd_open, a->svm_ph_pid, 0);
	ck(a, pfd, "pidfd_open placeholder", (uint64_t)a->svm_ph_pid, 0);
	long p = sys3(__NR_fcntl, pfd, F_DUPFD_CLOEXEC, hi);
	ck(a, p, "move the placeholder's pidfd", (uint64_t)pfd, (uint64_t)hi);
	sys1(__NR_close, pfd);
	for (uint32_t i = 0; i < a->svm_nr_fds; i++) {
		long n = sys3(__NR_pidfd_getfd, p, f[i].fd, 0);
		ck(a, n, "pidfd_getfd", (uint64_t)f[i].fd, (uint64_t)a->svm_ph_pid);
		if (n != f[i].fd) {
			ck(a, sys3(__NR_dup3, n, f[i].fd, f[i].cloexec ? O_CLOEXEC : 0), "dup3", (uint64_t)n,
			   (uint64_t)f[i].fd);
			sys1(__NR_close, n);
		} else {
			ck(a, sys3(__NR_fcntl, n, F_SETFD, f[i].cloexec ? FD_CLOEXEC : 0), "fcntl(F_SETFD)",
			   (uint64_t)n, 0);
		}
	}
	sys1(__NR_close, p);
}

static void svm_misc(struct rst_args *a)
{
	if (a->svm_cwd) {
		ck(a, sys1(__NR_chdir, a->svm_cwd), "chdir", 0, 0);
		sys1(__NR_umask, a->svm_umask);
	}
	ck(a, sys5(__NR_prctl, PR_SET_NAME, a->svm_comm, 0, 0, 0), "prctl(PR_SET_NAME)", 0, 0);
	if (a->svm_has_personality)
		ck(a, sys1(__NR_personality, a->svm_personality), "personality", a->svm_personality, 0);
	if (a->svm_has_nice)
		ck(a, sys3(__NR_setpriority, 0 /* PRIO_PROCESS */, 0, a->svm_nice), "setpriority",
		   (uint64_t)a->svm_nice, 0);
	if (a->svm_subreaper)
		ck(a, sys5(__NR_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)",
		   0, 0);
	if (a->svm_timerslack)
		ck(a, sys5(__NR_prctl, PR_SET_TIMERSLACK, a->svm_timerslack, 0, 0, 0),
		   "prctl(PR_SET_TIMERSLACK)", a->svm_timerslack, 0);
}

/* In the tree's user namespace (svm_userns_fd, svm_owner_pid): its bounding set cut down in there. */
static void svm_bounding(struct rst_args *a)
{
	for (int cap = 0; a->svm_has_bnd && cap < 64; cap++) {
		long r = sys5(__NR_prctl, PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0)
			break; /* past the last capability */
		if (r == 1 && !(a->svm_bnd_keep & (1ull << cap)))
			ck(a, sys5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0), "bounding set drop",
			   (uint64_t)cap, 0);
	}
}

void rst_svm_userns(struct rst_args *a)
{
	if (a->svm_userns_fd <= 0)
		return;
	ck(a, sys2(__NR_setns, a->svm_userns_fd, CLONE_NEWUSER), "enter the user namespace",
	   (uint64_t)a->svm_userns_fd, 0);
	sys1(__NR_close, a->svm_userns_fd);
	svm_bounding(a);
}

static void svm_owner_userns(struct rst_args *a)
{
	if (!a->svm_owner_pid)
		return;
	long p = sys2(__NR_pidfd_open, a->svm_owner_pid, 0);
	ck(a, p, "pidfd_open owner", (uint64_t)a->svm_owner_pid, 0);
	long r = sys2(__NR_setns, p, CLONE_NEWUSER);
	sys1(__NR_close, p);
	ck(a, r, "enter the user namespace of the owner", (uint64_t)a->svm_owner_pid, 0);
	svm_bounding(a);
}

void rst_svm_main(void *arg)
{
	struct rst_args *a = arg;
	rst_wait_while(&a->svm_go, 0);
	a->t_ns[0] = a->t_ns[1] = a->t_ns[2] = rst_now_ns();
	svm_session(a);
	svm_fds(a); /* (from its placeholder, outside the user namespace) */
	svm_owner_userns(a);
	svm_misc(a);
	rst_task_state(a);
	rst_task_creds(a);
	if (a->cpuid_fault)
		ck(a, rst_arch_cpuid_fault(), "cpuid faulting", (uint64_t)a->pid, 0);
	a->t_ns[3] = rst_now_ns();
	__atomic_store_n(&a->state, RST_DONE, __ATOMIC_SEQ_CST);
}
