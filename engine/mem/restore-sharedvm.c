/* Restore of processes that share the address space of an earlier process of the tree, its "owner"
 * (clone(CLONE_VM) without CLONE_THREAD; dump-sharedvm.c). Such a process can only be made by a clone with
 * CLONE_VM from a task already in the final address space: the owner's restorer blob clones it, with
 * clone3(set_tid) and the flags of the image (restorer/sharedvm.c). It has no memory images of its own and
 * no C stage; what the C stage does for others:
 *  - its fd table is restored by a placeholder: a child of crshim with a temporary PID that runs the normal
 *    fd restore (rst_child_files) for it and stops; the sharer takes every fd with pidfd_getfd. Then the
 *    placeholder is killed and reaped. A sharer of the owner's fd table (CLONE_FILES) needs none. The
 *    placeholder is made once the rest of the tree is (the sharers are let go last), in the owner's PID and
 *    mount namespaces and, in a tree born in its user namespace (ns/userns.c), in that one too (ph_enter).
 *  - its PID: clone3's set_tid from the owner's blob; in a tree of fresh PIDs in crshim's namespace (one
 *    born in its user namespace) only its ids inside, and crshim finds it by them (rst_pidns_find).
 *  - session/group, cwd, umask, name, personality, nice: set by the sharer in the blob.
 * crshim seizes a sharer once its owner's blob is done (the sharer waits for that), then handles it like
 * any task: wait for its trap, registers, signal mask, detach. */
#define LOG_PREFIX "restore-sharedvm: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "files/fdshare.h"
#include "restore.h"
#include "task/seize.h"

#define SVM_FLAGS (CLONE_VM | CLONE_SIGHAND | CLONE_FILES | CLONE_FS | CLONE_PARENT)

int rst_svm_mm_id(const struct rst_task *t)
{
	return rst_svm_sharer(t) ? t->pst->vm_owner : t->pid;
}

/* In place of rst_pages_load: no pages (they are the owner's); a page fd for the fd restore's helpers. */
int rst_svm_load(struct rst_task *t, struct cr_err *e)
{
	t->vma_prefilled = calloc(t->mm->n_vmas + 1, sizeof(bool));
	if (!t->vma_prefilled)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	t->pm.pages_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (t->pm.pages_fd < 0)
		return cr_fail_sys(e, "open /dev/null");
	return 0;
}

static struct rst_task *owner_of(struct rst_task *ts, size_t n, const struct rst_task *t)
{
	for (size_t i = 0; i < n && &ts[i] != t; i++)
		if (rst_ipid(&ts[i]) == t->pst->vm_owner)
			return &ts[i];
	return NULL;
}

int rst_svm_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i], *own;
		if (!rst_svm_sharer(t))
			continue;
		own = owner_of(ts, n, t);
		if (t->root || t->zombie || !own || own->zombie || rst_svm_sharer(own) || t->nr_tcores ||
		    !(t->pst->vm_flags & CLONE_VM))
			return cr_fail_errno(e, EBADMSG,
					     "pstree.img: task %d shares the address space of %d, which is "
					     "not an earlier living process of the tree",
					     t->pid, t->pst->vm_owner);
		if (t->pst->sid != t->pid && t->pst->sid != own->pst->sid)
			return cr_fail_errno(e, EBADMSG,
					     "pstree.img: task %d shares the address space of %d but is in "
					     "another session",
					     t->pid, own->pid);
		t->nr_mfiles = 0; /* it maps nothing: the placeholder opens no mapped file */
	}
	return 0;
}

static pid_t vid(struct rst_task *ts, size_t n, pid_t id)
{
	const struct rst_task *x = rst_tree_task(ts, n, id);
	return x && x->vpid ? x->vpid : id;
}

/* The sharer's fd list and cwd go into its area's unmap space (a sharer unmaps nothing). */
static int fill_files(struct rst_task *t, struct cr_err *e)
{
	struct rst_args *a = t->args;
	char *space = (char *)(uintptr_t)a->unmap;
	size_t room = RST_MAX_UNMAP * sizeof(struct rst_range), used = 0;
	if (!(t->pst->vm_flags & CLONE_FILES)) {
		struct rst_svm_fd *f = (struct rst_svm_fd *)space;
		used = t->nr_fdinfo * sizeof(*f);
		if (used > room / 2)
			return cr_fail_errno(e, E2BIG, "task %d: %zu fds, too many for a sharer", t->pid,
					     t->nr_fdinfo);
		for (size_t i = 0; i < t->nr_fdinfo; i++)
			f[i] =
			    (struct rst_svm_fd){t->fdinfo[i]->fd, (t->fdinfo[i]->fd_flags & FD_CLOEXEC) != 0};
		a->svm_fds = (uint64_t)(uintptr_t)f;
		a->svm_nr_fds = (uint32_t)t->nr_fdinfo;
	}
	if (!(t->pst->vm_flags & CLONE_FS)) {
		const char *cwd = t->fs->cwd ? t->fs->cwd : "/";
		if (strlen(cwd) + 1 > room - used)
			return cr_fail_errno(e, E2BIG, "task %d: cwd too long", t->pid);
		memcpy(space + used, cwd, strlen(cwd) + 1);
		a->svm_cwd = (uint64_t)(uintptr_t)(space + used);
		a->svm_umask = t->fs->has_umask ? (int32_t)t->fs->umask : 022;
	}
	return 0;
}

/* The bounding set the blob leaves it in the user namespace (svm_bnd_keep). */
static void bounding(const struct rst_task *t, struct rst_args *a)
{
	a->svm_has_bnd = t->creds && t->creds->has_cap_bnd;
	a->svm_bnd_keep = a->svm_has_bnd ? t->creds->cap_bnd : ~0ull;
}

int rst_svm_userns_later(struct rst_task *t, char *msg, size_t len)
{
	struct rst_args *a = t->args;
	if (t->userns_fd < 0 || !a->nr_svm)
		return 0;
	int top = rst_fd_top(), fd = top < 0 ? -1 : fcntl(t->userns_fd, F_DUPFD_CLOEXEC, top + 1);
	if (fd < 0)
		return rst_errmsg(msg, len, "keep the user namespace's fd for the restorer");
	if (!a->helper_fd_hi) /* it closes its helper fds up to here, not this one */
		a->helper_fd_hi = fd - 1;
	a->svm_userns_fd = fd;
	bounding(t, a);
	return 1;
}

static void fill_task(struct rst_task *ts, size_t n, struct rst_task *t, const struct rst_task *own)
{
	struct rst_args *a = t->args;
	const PstreeEntry *p = t->pst;
	const CoreEntry *c = t->core;
	a->svm = 1;
	a->svm_flags = p->vm_flags & SVM_FLAGS;
	/* with CLONE_PARENT the kernel gives it the owner's exit signal */
	a->svm_exit_signal = (p->vm_flags & CLONE_PARENT) ? 0 : p->exit_signal;
	pid_t tid[RST_PID_LEVELS]; /* (fresh_hpid: only the ids inside, ours is the kernel's) */
	a->svm_nr_tid = (int32_t)rst_pidns_set_tid(t, tid);
	for (int32_t l = 0; l < a->svm_nr_tid; l++)
		a->svm_tid[l] = tid[l];
	if (p->sid == t->pid) {
		a->svm_sess = RST_SVM_SESS_SETSID;
	} else if (p->pgid != own->pst->pgid) {
		a->svm_sess = RST_SVM_SESS_SETPGID;
		a->svm_pgid = p->pgid == t->pid ? 0 : vid(ts, n, p->pgid);
	}
	if (t->userns_fd >= 0) /* its pid was chosen from outside: in the user namespace after that */
		a->svm_owner_pid = rst_pidns_self(own);
	bounding(t, a);
	if (c->comm)
		snprintf(a->svm_comm, sizeof(a->svm_comm), "%s", c->comm);
	a->svm_has_personality = c->has_personality;
	a->svm_personality = c->personality;
	a->svm_has_nice = c->has_nice;
	a->svm_nice = c->nice;
	a->svm_subreaper = c->child_subreaper;
	a->svm_timerslack = c->has_timerslack_ns ? c->timerslack_ns : 0;
}

int rst_svm_fill(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		if (!rst_svm_sharer(t))
			continue;
		for (size_t k = 0; k < n; k++) /* the tree plan may want it to clone others (sessions) */
			if (ts[k].spawn_ppid == t->pid && &ts[k] != t)
				return cr_fail_errno(e, ENOTSUP,
						     "not supported yet: task %d shares an address space and "
						     "would have to create task %d",
						     t->pid, ts[k].pid);
		struct rst_task *own = owner_of(ts, n, t);
		struct rst_args *oa = own->args;
		if (oa->nr_svm == RST_MAX_SVM)
			return cr_fail_errno(e, E2BIG,
					     "task %d: more than %d processes share the address space of %d",
					     t->pid, RST_MAX_SVM, own->pid);
		if (fill_files(t, e))
			return -1;
		fill_task(ts, n, t, own);
		oa->svm_args[oa->nr_svm++] = (uint64_t)(uintptr_t)t->args;
		pr_info("task %d: cloned by the blob of %d (flags %#x)\n", t->pid, own->pid,
			(unsigned)t->args->svm_flags);
	}
	return 0;
}

bool rst_svm_keep(const struct rst_args *a, uint64_t start, uint64_t end)
{
	for (uint32_t i = 0; i < a->nr_svm; i++) {
		const struct rst_args *s = (const struct rst_args *)(uintptr_t)a->svm_args[i];
		if (start >= s->area_start && end <= s->area_start + s->area_len)
			return true;
	}
	return false;
}

/* The placeholder, in the namespaces of its sharer: its mount namespace (the tree's own mount tree, where
 * the files are opened by path; the descriptions the root task opened there crshim took from the tree,
 * rst_fdshare_take_late, and one no other process holds the placeholder opens again: rst_fdshare_reopen),
 * and in a tree born in its user namespace that namespace, as its first uid and gid (the sharer, a task of
 * it, must be able to take its fds). */
static int ph_enter(const struct rst_task *t, const struct rst_task *own, char *msg, size_t len)
{
	const struct rst_task *root = &t->tree[0];
	bool born = ns_rst_user_born(root->ns);
	if (root->paths_later || root->mntns_proc || born) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)own->pid);
		__cleanup_close int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNS))
			return rst_errmsg(msg, len, "placeholder: enter the mount namespace of task %d",
					  rst_ipid(own));
	}
	if (born && setns(ns_rst_user_fd(root->ns), CLONE_NEWUSER))
		return rst_errmsg(msg, len, "placeholder: enter the user namespace");
	if (born && ns_rst_user_born_ids(root->ns, msg, len))
		return -1;
	return root->paths_later ? rst_fdshare_reopen(msg, len) : 0;
}

/* The placeholder (crshim's child): restore the fd table, report, stop until it is killed. */
__attribute__((noreturn)) static void placeholder(struct rst_task *t, const struct rst_task *own, int wfd)
{
	char msg[512] = "";
	t->args->svm_ph_pid = getpid(); /* as the sharer sees it */
	raise(SIGSTOP);			/* crshim checks that it took no PID of the tree */
	t->err_pipe[1] = wfd;
	if (ph_enter(t, own, msg, sizeof(msg)) || rst_child_files(t, msg, sizeof(msg))) {
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	for (;;)
		raise(SIGSTOP);
}

/* struct clone_args (linux/sched.h), up to set_tid_size */
struct svm_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

static int wait_placeholder(struct rst_task *t, int rfd, struct cr_err *e)
{
	int st;
	char msg[600];
	while (waitpid(t->svm_ph, &st, WUNTRACED) < 0)
		if (errno != EINTR)
			return cr_fail_sys(e, "wait for the placeholder of task %d", rst_ipid(t));
	if (WIFSTOPPED(st))
		return 0;
	t->svm_ph = 0; /* reaped */
	ssize_t r = read(rfd, msg, sizeof(msg) - 1);
	if (r > 0) {
		msg[r] = '\0';
		return cr_fail_errno(e, EFAULT, "task %d: %s", rst_ipid(t), msg);
	}
	return cr_fail_errno(e, EFAULT, "task %d: its placeholder ended with status %#x", rst_ipid(t), st);
}

/* A PID the tree needs (in crshim's PID namespace or, as the placeholder sees it, in its sharer's). Every
 * process of the tree is made by now (the sharers are let go last), but a thread of one may not be yet. */
static bool pid_of_tree(const struct rst_task *t, pid_t pid, pid_t nspid)
{
	uint32_t lv = t->ns_levels;
	for (size_t i = 0; i < t->ntree; i++) {
		const struct rst_task *x = &t->tree[i];
		const PstreeEntry *p = x->pst;
		if (x->pid == pid ||
		    (lv ? x->ns_levels >= lv && x->ns_ids[lv - 1] == nspid : x->pid == nspid))
			return true;
		for (size_t k = 1; !x->helper && k < p->n_threads; k++)
			if (rst_htid(x, k) == pid ||
			    (lv && p->n_ns_tids >= p->n_threads * x->ns_levels && x->ns_levels >= lv &&
			     p->ns_tids[k * x->ns_levels + lv - 1] == nspid))
				return true;
	}
	return false;
}

static void kill_reap(pid_t pid)
{
	int st;
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* A placeholder stopped before its work, with a PID the tree does not need (else another one). */
static int clone_placeholder(struct rst_task *t, const struct rst_task *own, int pfd[2], struct cr_err *e)
{
	for (int tries = 0; tries < 64; tries++) {
		sigset_t all, old;
		struct svm_clone_args ca = {.exit_signal = SIGCHLD};
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		fflush(NULL);
		long r = syscall(SYS_clone3, &ca, sizeof(ca));
		if (r == 0) {
			close(pfd[0]);
			placeholder(t, own, pfd[1]);
		}
		int err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (r < 0)
			return cr_fail_errno(e, err, "clone3 the placeholder of task %d", rst_ipid(t));
		t->svm_ph = (pid_t)r;
		if (wait_placeholder(t, pfd[0], e))
			return -1;
		if (!pid_of_tree(t, (pid_t)r, t->args->svm_ph_pid))
			return 0;
		kill_reap((pid_t)r);
		t->svm_ph = 0;
	}
	return cr_fail_errno(e, EAGAIN, "task %d: no free PID for its placeholder", rst_ipid(t));
}

static int spawn_one(struct rst_task *t, const struct rst_task *own, struct cr_err *e)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return cr_fail_sys(e, "pipe");
	int ret = clone_placeholder(t, own, pfd, e);
	close(pfd[1]);
	if (!ret) { /* now its fds */
		kill(t->svm_ph, SIGCONT);
		ret = wait_placeholder(t, pfd[0], e);
	}
	close(pfd[0]);
	if (!ret)
		pr_debug("task %d: placeholder %d holds its fds\n", rst_ipid(t), t->svm_ph);
	return ret;
}

/* In the owner's PID namespace, so that the sharer can see its placeholder. */
static int spawn_placeholder(struct rst_task *t, const struct rst_task *own, struct cr_err *e)
{
	__cleanup_close int self = -1, target = -1;
	if (own->ns_levels) {
		self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
		target = (int)syscall(SYS_pidfd_open, own->pid, 0);
		if (self < 0 || target < 0 || setns(target, CLONE_NEWPID))
			return cr_fail_sys(e, "enter the PID namespace of task %d", rst_ipid(own));
	}
	int ret = spawn_one(t, own, e);
	if (self >= 0 && setns(self, CLONE_NEWPID) && !ret)
		ret = cr_fail_sys(e, "back to our PID namespace");
	return ret;
}

int rst_svm_go(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	const struct rst_task *own = owner_of(ts, n, t);
	if (!own)
		return cr_fail_errno(e, EINVAL, "task %d: no owner of its address space", rst_ipid(t));
	if (!rst_pid_known(t)) { /* fresh PIDs: made by the owner's blob, found by its ids inside */
		int r = rst_pidns_find(t, e);
		if (r < 0)
			return -1;
		if (!r)
			return cr_fail_errno(e, ESRCH, "task %d: not made by the blob of task %d",
					     rst_ipid(t), rst_ipid(own));
	}
	if (!(t->pst->vm_flags & CLONE_FILES) &&
	    (rst_fdshare_take_late(ts, n, e) || spawn_placeholder(t, own, e)))
		return -1;
	if (ptrace_seize_sc(t->pid, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD))
		return cr_fail_sys(e, "PTRACE_SEIZE %d (sharing the address space of %d)", t->pid, own->pid);
	t->seized = true;
	__atomic_store_n(&t->args->svm_go, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &t->args->svm_go, 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
	return 0;
}

pid_t rst_svm_waitpid(struct rst_task *t, int *st)
{
	bool any = false;
	for (size_t i = 0; i < t->ntree; i++)
		any |= t->tree[i].svm_ph != 0;
	if (!any)
		return waitpid(t->pid, st, __WALL);
	for (;;) {
		pid_t r = waitpid(t->pid, st, __WALL | WNOHANG);
		if (r)
			return r;
		for (size_t i = 0; i < t->ntree; i++) {
			int s;
			pid_t ph = t->tree[i].svm_ph;
			if (ph && waitpid(ph, &s, WNOHANG) == ph)
				t->tree[i].svm_ph = 0;
		}
		usleep(1000);
	}
}

void rst_svm_done(struct rst_task *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int st;
		if (!ts[i].svm_ph)
			continue;
		kill(ts[i].svm_ph, SIGKILL);
		while (waitpid(ts[i].svm_ph, &st, 0) < 0 && errno == EINTR)
			;
		ts[i].svm_ph = 0;
	}
}
