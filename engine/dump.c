/* eng_dump: checkpoint one single-threaded process into an images dir.
 * Order: open the dir -> seize -> registers -> remote syscalls -> /proc -> images -> inventory (last)
 * -> release (leave running) or kill. Every failure releases the task as it was and removes our images. */
#define LOG_PREFIX "dump: "
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "arch.h"
#include "base/array.h"
#include "base/caps.h"
#include "base/cleanup.h"
#include "dump.h"
#include "net/sk-inet.h"
#include "base/fault.h"
#include "files/ghost.h"
#include "files/locks.h"
#include "base/log.h"
#include "ns.h"
#include "pid.h"
#include "files/evfd.h"
#include "files/fdshare.h"
#include "mem/ipc-shm.h"
#include "mem/shmem.h"
#include "files/tty.h"
#include "task/seccomp.h"
#include "mem/track.h"
#include "image/page-xfer.h"

static void remove_created(struct dump_ctx *c)
{
	for (size_t i = 0; i < c->created.n; i++)
		if (unlinkat(c->dirfd, c->created.name[i], 0) == 0)
			pr_debug("removed %s\n", c->created.name[i]);
}

static int open_images_dir(struct cr_opts *o, struct cr_err *e)
{
	if (!o->images_dir)
		return cr_fail_errno(e, EINVAL, "no images dir (-D)");
	if (o->imgdir_fd < 0) {
		o->imgdir_fd = open(o->images_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (o->imgdir_fd < 0)
			return cr_fail_sys(e, "open images dir %s", o->images_dir);
	}
	/* Probe by creating a file: root passes access(W_OK) even on a read-only mount. */
	char probe[64];
	snprintf(probe, sizeof(probe), ".crshim-probe.%d", (int)getpid());
	int fd = openat(o->imgdir_fd, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return cr_fail_sys(e, "images dir %s is not writable", o->images_dir);
	close(fd);
	unlinkat(o->imgdir_fd, probe, 0);
	return 0;
}

/* --page-server: connect before anything is touched (the server keeps nothing until px_finish). */
static int dump_page_server(const struct cr_opts *o, struct page_xfer **px, struct cr_err *e)
{
	if (!o->page_server)
		return 0;
	if (o->auto_dedup)
		return cr_fail_errno(e, EINVAL,
				     "--auto-dedup with --page-server: the parents' pages are on the server");
	return px_connect(o->ps_address, o->ps_port, px, e);
}

/* Cheap checks before touching the task (repeated once it is stopped). */
static int check_task(pid_t pid, struct proc_status *st, struct cr_err *e)
{
	if (proc_parse_status(pid, st, e))
		return cr_wrap(e, "task %d", pid);
	if (st->state == 'Z' || st->state == 'X')
		return cr_fail_errno(e, ESRCH, "task %d is a zombie", pid);
	if (cr_has_cap(CAP_DAC_READ_SEARCH) || cr_has_cap(CAP_DAC_OVERRIDE))
		return 0; /* (what follows checks what these let us pass by) */
	/* Another user's /proc/PID/fd, map_files, ... are closed to us without it (an unprivileged crshim) */
	for (int i = 0; i < 4; i++)
		if (st->uid[i] != geteuid())
			return cr_fail_errno(e, EPERM,
					     "task %d runs as uid %u: dumping another user's task needs "
					     "CAP_DAC_READ_SEARCH",
					     pid, st->uid[i]);
	/* A task that is not dumpable (PR_SET_DUMPABLE 0, a setuid exec): its /proc/PID/fd belongs to root */
	char path[40];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if (!stat(path, &sb) && sb.st_uid != geteuid())
		return cr_fail_errno(
		    e, EPERM,
		    "task %d is not dumpable (its /proc files belong to uid %u): dumping it needs "
		    "CAP_DAC_READ_SEARCH",
		    pid, (unsigned)sb.st_uid);
	return 0;
}

/*
 * Threads of a killed process: reap our ptrace notifications so the leader can go. Polled, not waited for one
 * by one: the last thread of a PID namespace's init waits in the kernel until every task of the namespace is
 * released, its sibling threads included, so a blocking wait for it before them would never end.
 */
static void reap_threads(struct dump_ctx *c)
{
	for (int k = 0; k < 1000; k++) { /* ~10 s at most */
		size_t left = 0;
		for (size_t i = 0; i < c->nth; i++) {
			struct dump_thread *t = &c->th[i];
			int st;
			if (!t->s.attached)
				continue;
			pid_t r = waitpid(t->tid, &st, __WALL | WNOHANG);
			if (r < 0 || (r == t->tid && (WIFEXITED(st) || WIFSIGNALED(st))))
				t->s.attached = false;
			else
				left++;
		}
		if (!left)
			return;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	pr_info("task %d: threads still not reaped after the kill\n", c->pid);
}

static int collect_thread(struct dump_ctx *c, struct dump_thread *t, struct cr_err *e)
{
	if (arch_get_gpregs(t->tid, t->regs_resume, e) ||
	    arch_get_fpstate(t->tid, &t->xstate, &t->xstate_len, e))
		return cr_wrap(e, "thread %d", t->tid);
	memcpy(t->regs_image, t->regs_resume, arch_gpregs_size());
	t->regs_ok = true;
	t->in_syscall_eintr = arch_fixup_syscall_restart(t->regs_resume, t->regs_image);
	dump_rseq_cs_abort(t->tid, t->regs_resume, t->regs_image);
	return 0;
}

static int write_pstree(struct dump_tree *tr, struct cr_err *e)
{
	struct img_writer *w;
	struct dump_ctx *root = &tr->c[0];
	if (img_create(root->dirfd, IMG_PSTREE, 0, &w, e))
		return -1;
	for (size_t k = 0; k < tr->n; k++) {
		struct dump_ctx *c = &tr->c[k];
		PstreeEntry pe = PSTREE_ENTRY__INIT;
		__cleanup_free int32_t *tids = calloc(c->nth + 1, sizeof(*tids));
		if (!tids) {
			img_abort(w);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		tids[0] = c->pid;
		for (size_t i = 0; i < c->nth; i++)
			tids[i + 1] = c->th[i].tid;
		pe.pid = c->pid, pe.has_pid = 1;
		pe.ppid = c->ppid, pe.has_ppid = 1;
		pe.pgid = (int32_t)c->stat.f[5], pe.has_pgid = 1;
		pe.sid = (int32_t)c->stat.f[6], pe.has_sid = 1;
		pe.clone_share = c->clone_share, pe.has_clone_share = c->clone_share != 0;
		pe.files_with = c->files_with, pe.has_files_with = c->files_with != 0;
		if (c->vm_owner) {
			pe.vm_owner = c->vm_owner, pe.has_vm_owner = 1;
			pe.vm_flags = c->vm_flags, pe.has_vm_flags = 1;
			pe.exit_signal = c->exit_signal, pe.has_exit_signal = 1;
		} else if (c->ppid &&
			   c->stat.f[38] != SIGCHLD) { /* clone(): its parent's wait needs __WCLONE */
			pe.exit_signal = (int32_t)c->stat.f[38], pe.has_exit_signal = 1;
		}
		pe.n_threads = c->nth + 1, pe.threads = tids;
		dump_pidns_pstree(c, &pe);
		dump_tty_pstree(c, &pe);
		if (img_write_or_drop(w, &pe.base, e))
			return -1;
	}
	if (img_commit(w, e))
		return -1;
	return dump_created(root, IMG_PSTREE, 0, e);
}

static int write_inventory(struct dump_ctx *c, const struct dump_tree *tr, struct cr_err *e)
{
	InventoryEntry ie = INVENTORY_ENTRY__INIT;
	struct utsname u;
	struct timespec ts;
	uname(&u);
	clock_gettime(CLOCK_REALTIME, &ts);
	ie.img_version = CRSHIM_IMG_VERSION, ie.has_img_version = 1;
	ie.crshim_version = (char *)CRSHIM_VERSION;
	ie.arch = (char *)arch_name();
	ie.root_pid = c->pid, ie.has_root_pid = 1;
	ie.kernel = u.release;
	ie.shell_job = c->o->shell_job, ie.has_shell_job = 1;
	ie.dump_time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, ie.has_dump_time_ns = 1;
	ie.leave_running = c->o->leave_running, ie.has_leave_running = 1;
	ie.pidns = tr->pidns, ie.has_pidns = tr->pidns;
	ie.mntns_proc = tr->mntns_proc, ie.has_mntns_proc = tr->mntns_proc;
	ie.netns_lock = tr->netns_lock;
	ie.pre_dump = c->o->pre_dump, ie.has_pre_dump = c->o->pre_dump;
	/* written again (the network namespace lock): the file is in c->created already */
	return tr->netns_lock ? img_write_one(c->dirfd, IMG_INVENTORY, 0, &ie.base, e)
			      : dump_write_one(c, IMG_INVENTORY, &ie.base, e);
}

/* Registers, then everything that needs remote syscalls (the scratch page is gone again afterwards). */
static int collect_stopped(struct dump_ctx *c, struct cr_err *e)
{
	if (arch_get_gpregs(c->pid, c->regs_resume, e) ||
	    arch_get_fpstate(c->pid, &c->xstate, &c->xstate_len, e))
		return -1;
	memcpy(c->regs_image, c->regs_resume, arch_gpregs_size());
	c->regs_ok = true;
	c->in_syscall_eintr = arch_fixup_syscall_restart(c->regs_resume, c->regs_image);
	dump_rseq_cs_abort(c->pid, c->regs_resume, c->regs_image);
	if (dump_sud_refuse(c->pid, e))
		return -1;
	for (size_t i = 0; i < c->nth; i++)
		if (collect_thread(c, &c->th[i], e) || dump_sud_refuse(c->th[i].tid, e))
			return -1;
	pr_debug("ip %#llx sp %#llx eintr %d\n", (unsigned long long)arch_regs_ip(c->regs_image),
		 (unsigned long long)arch_regs_sp(c->regs_image), c->in_syscall_eintr);
	if (infect_start(&c->in, &c->s, c->regs_resume, fault_injected(c->o, FI_NO_VDSO_SYSCALL), e))
		return -1;
	struct dump_mpol_q mq = {0}; /* (the VMAs' policies asked in the batch of dump_core_remote) */
	int ret = infect_map_scratch(&c->in, e);
	if (!ret)
		ret = dump_mm_mlockall(c, e);
	if (!ret)
		ret = dump_mm_mpol_queue(c, &mq, e);
	if (!ret)
		ret = fault_check(c->o, FI_DUMP_INFECTED, e);
	if (!ret && c->o->pre_dump && c->o->track_mem && !c->vm_owner)
		ret = mem_track_infect(c->trk, &c->in, c->pid, (uint64_t)c->stat.f[22], e);
	if (!ret)
		ret = dump_core_remote(c, mq.calls, mq.n, e);
	if (!ret)
		ret = dump_mm_mpol_take(c, &mq, e);
	dump_mm_mpol_q_free(&mq);
	for (size_t i = 0; !ret && i < c->nth; i++)
		ret = dump_core_thread_remote(c, &c->th[i], e);
	if (!ret)
		ret = fault_check(c->o, FI_DUMP_REMOTE_DONE, e);
	struct cr_err e2;
	if (infect_stop(&c->in, ret ? &e2 : e))
		ret = -1;
	return ret;
}

static int dump_images(struct dump_ctx *c, struct cr_err *e)
{
	if (collect_stopped(c, e))
		return -1;
	if (c->o->pre_dump) /* memory only */
		return c->vm_owner ? 0 : dump_mm_write(c, e);
	if (dump_files_write(c, e) || dump_locks_write(c, e) || fault_check(c->o, FI_DUMP_AFTER_FILES, e) ||
	    dump_core_write(c, e) || dump_creds_write(c, e) || dump_fs_write(c, e) ||
	    (!c->vm_owner && dump_mm_write(c, e)) || dump_ghost_write(c, e))
		return -1;
	for (size_t i = 0; i < c->nth; i++)
		if (dump_core_write_thread(c, &c->th[i], e))
			return -1;
	return 0;
}

/* A zombie: its exit code in core-PID.img (task_state 2), nothing else. */
static int dump_zombie(struct dump_ctx *c, struct cr_err *e)
{
	CoreEntry ce = CORE_ENTRY__INIT;
	ce.arch = (char *)arch_name();
	ce.task_state = 2, ce.has_task_state = 1;
	ce.exit_code = c->exit_code, ce.has_exit_code = 1;
	pr_info("task %d (child of %d) is a zombie, exit code %#x\n", c->pid, c->ppid, c->exit_code);
	/* The restore makes it again by the same signal, with no core file: the status loses its core bit. */
	if (WIFSIGNALED(c->exit_code) && WCOREDUMP(c->exit_code))
		eng_notice(
		    c->o,
		    "zombie %d (child of %d) was killed by signal %d with a core dump: its status comes back "
		    "without the core-dump bit (WCOREDUMP)",
		    c->pid, c->ppid, WTERMSIG(c->exit_code));
	return dump_write_one(c, IMG_CORE, &ce.base, e);
}

/* ---------------- the tree ---------------- */

static int ns_created(void *arg, enum img_kind k, int id, struct cr_err *e)
{
	return dump_created(arg, k, id, e);
}

/* What dump_ns hands ns_dump per task (ns_dump_args). */
struct ns_per_task {
	pid_t *pids, *mnt_base;
	bool *zombie, *nested;
	uint32_t *mntns;
	uint64_t (*ids)[NS_TASK_IDS];
	const pid_t **threads;
	size_t *nthreads;
	const struct proc_fd **fds;
	size_t *nfds;
};

static void ns_per_task_free(struct ns_per_task *p)
{
	free(p->pids), free(p->mnt_base), free(p->zombie), free(p->nested), free(p->mntns), free(p->ids);
	free(p->threads), free(p->nthreads), free(p->fds), free(p->nfds);
}

static int ns_per_task_fill(struct dump_tree *tr, struct ns_per_task *p, uint32_t *nmntns, struct cr_err *e)
{
	size_t n = tr->n;
	p->pids = calloc(n, sizeof(*p->pids)), p->mnt_base = calloc(n, sizeof(*p->mnt_base));
	p->zombie = calloc(n, sizeof(*p->zombie)), p->nested = calloc(n, sizeof(*p->nested));
	p->mntns = calloc(n, sizeof(*p->mntns)), p->ids = calloc(n, sizeof(*p->ids));
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	p->threads = calloc(n, sizeof(*p->threads)), p->nthreads = calloc(n, sizeof(*p->nthreads));
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	p->fds = calloc(n, sizeof(*p->fds)), p->nfds = calloc(n, sizeof(*p->nfds));
	if (!p->pids || !p->mnt_base || !p->zombie || !p->nested || !p->mntns || !p->ids || !p->threads ||
	    !p->nthreads || !p->fds || !p->nfds)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pid_t *tids = NULL;
	for (size_t i = 0; i < n; i++) {
		struct dump_ctx *c = &tr->c[i];
		p->pids[i] = c->pid, p->zombie[i] = c->zombie;
		if (c->mntns) /* a mount namespace of its own, saved against its parent's */
			c->mntns = p->mntns[i] = ++*nmntns, p->mnt_base[i] = c->ppid;
		memcpy(p->ids[i], c->nsid, sizeof(c->nsid));
		p->fds[i] = c->fds, p->nfds[i] = c->nfds;
		if (c->nth && !(tids = calloc(c->nth, sizeof(*tids))))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		for (size_t k = 0; k < c->nth; k++)
			tids[k] = c->th[k].tid;
		p->threads[i] = c->nth ? tids : NULL, p->nthreads[i] = c->nth;
	}
	return 0;
}

/* The tree's namespaces (ns/): ns.img and the images of the root's own namespaces. */
static int dump_ns(struct dump_tree *tr, struct cr_err *e)
{
	struct ns_per_task p = {0};
	uint32_t nmntns = 0;
	bool ipc_own = false;
	int ret = ns_per_task_fill(tr, &p, &nmntns, e);
	struct ns_dump_args a = {.o = tr->c[0].o,
				 .dirfd = tr->c[0].dirfd,
				 .pids = p.pids,
				 .zombie = p.zombie,
				 .n = tr->n,
				 .created = ns_created,
				 .created_arg = &tr->c[0],
				 .kept = &tr->ns,
				 .born = &tr->c[0].born,
				 .nested = p.nested,
				 .ipc_own = &ipc_own,
				 .mnt_base = p.mnt_base,
				 .mntns = p.mntns,
				 .ids = p.ids,
				 .threads = p.threads,
				 .nthreads = p.nthreads,
				 .fds = p.fds,
				 .nfds = p.nfds};
	if (!ret)
		ret = ns_dump(&a, e);
	if (!ret && ipc_own) /* its System V segments attached by nobody are the tree's too */
		dump_ipc_shm_own_ns(tr->ipc_shm);
	/* a task in a user namespace nested in the tree's enters it last, born in the tree's or not */
	for (size_t i = tr->n; !ret && i-- > 0;)
		tr->c[i].born = tr->c[0].born && !p.nested[i];
	for (size_t i = 0; p.threads && i < tr->n; i++)
		free((void *)p.threads[i]);
	ns_per_task_free(&p);
	return ret;
}

/* At most this many fds of the tree are kept from read_stopped until the dump of their task's files. */
#define FDS_KEPT_MAX 65536

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The sockets of c's fds ("socket:[INO]") added to tr->sks. */
static int add_sks(struct dump_tree *tr, const struct dump_ctx *c, size_t *cap, struct cr_err *e)
{
	for (size_t i = 0; i < c->nfds; i++) {
		unsigned ino;
		if (!c->fds[i].link || sscanf(c->fds[i].link, "socket:[%u]", &ino) != 1)
			continue;
		if (arr_room(&tr->sks, cap, tr->nsks, sizeof(*tr->sks), 256))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		tr->sks[tr->nsks++] = ino;
	}
	return 0;
}

/* The status of each task, read once now that the tree is stopped (its stat: seize_tree's last pass), kept
 * for all that reads it during the dump. A zombie's is read as well (its ids in PID namespaces). For a dump
 * (not a pre-dump) also each task's namespaces and fds (dump_ctx.nsid, fds). */
static int read_stopped(struct dump_tree *tr, struct cr_err *e)
{
	size_t kept = 0, cap = 0;
	free(tr->sks);
	tr->sks = NULL, tr->nsks = 0;
	for (size_t i = 0; i < tr->n; i++) {
		struct dump_ctx *c = &tr->c[i];
		struct cr_err e2;
		proc_status_free(&c->st);
		if (c->zombie) { /* (not read: dump-pidns.c reads it again, and fails saying why) */
			if (!c->o->pre_dump && proc_parse_status(c->pid, &c->st, &e2))
				pr_debug("zombie %d: %s\n", c->pid, e2.msg);
			continue;
		}
		if (check_task(c->pid, &c->st, e))
			return i ? cr_wrap(e, "task %d", c->pid) : -1;
		if (c->o->pre_dump) /* (memory only) */
			continue;
		if (ns_read_task_ids(c->pid, c->nsid, e) || proc_read_fds(c->pid, &c->fds, &c->nfds, e) ||
		    add_sks(tr, c, &cap, e))
			return cr_wrap(e, "task %d", c->pid);
		if ((kept += c->nfds) > FDS_KEPT_MAX) { /* (read again where needed) */
			proc_fds_free(c->fds, c->nfds);
			c->fds = NULL, c->nfds = 0;
		}
	}
	if (tr->nsks)
		qsort(tr->sks, tr->nsks, sizeof(*tr->sks), cmp_u32);
	return 0;
}

static int dump_tree_images(struct dump_tree *tr, struct cr_err *e)
{
	bool pre = tr->c[0].o->pre_dump;
	if (read_stopped(tr, e))
		return -1;
	if (!pre && (dump_ctty_check(tr->c, tr->n, e) ||
		     dump_pidns(tr->c, tr->n, &tr->pidns, &tr->mntns_proc, e) || dump_ns(tr, e)))
		return -1;
	/* A failed dump must never leave an older inventory next to our new files. */
	if (unlinkat(tr->c[0].dirfd, "inventory.img", 0) && errno != ENOENT)
		return cr_fail_sys(e, "remove old inventory.img");
	for (size_t i = 0; i < tr->n; i++)
		tr->c[i].tree = tr->c, tr->c[i].ntree = tr->n, tr->c[i].tree_sks = pre ? NULL : tr->sks,
		tr->c[i].ntree_sks = tr->nsks;
	/* address spaces shared (CLONE_VM), then fd tables and fs info */
	if (dump_sharedvm(tr->c, tr->n, e) || dump_clone_share(tr->c, tr->n, e))
		return -1;
	for (size_t i = 0; i < tr->n; i++) {
		struct dump_ctx *c = &tr->c[i];
		if (c->zombie ? (!pre && dump_zombie(c, e)) : dump_images(c, e))
			return i ? cr_wrap(e, "task %d", c->pid) : -1;
		CR_STAT_ADD(c->o->stats, tasks_done, 1);
	}
	if (!pre && (dump_shmem_write(&tr->c[0], e) || dump_ipc_shm_write(&tr->c[0], e) ||
		     dump_epoll_loose_check(&tr->c[0], e)))
		return -1;
	if (write_pstree(tr, e))
		return -1;
	return write_inventory(&tr->c[0], tr, e);
}

/* A killed process with this much memory or more has it freed by us too (seize_release_mm); a small one
 * is gone sooner than the two syscalls take (bench-tree: 500 processes of a few MiB). */
#define RELEASE_MM_MIN (16u << 20)

static void release_mm(const struct dump_ctx *c)
{
	if (!c->zombie && (uint64_t)c->stat.f[24] * (uint64_t)sysconf(_SC_PAGESIZE) >= RELEASE_MM_MIN)
		seize_release_mm(c->pid);
}

/* Kill every process of the tree; wait until each is dead (~2 s in all at most). */
static void kill_tree(struct dump_tree *tr)
{
	if (tr->n == 1) {
		kill(tr->c[0].pid, SIGKILL);
		release_mm(&tr->c[0]);
		reap_threads(&tr->c[0]);
		seize_kill(&tr->c[0].s);
		return;
	}
	for (size_t i = 0; i < tr->n; i++)
		if (!tr->c[i].zombie)
			kill(tr->c[i].pid, SIGKILL);
	for (size_t i = 0; i < tr->n;
	     i++) /* all killed first: an address space two share is then freed too */
		release_mm(&tr->c[i]);
	/* children first: the init of a PID namespace waits for its children before it can go */
	bool *dead = calloc(tr->n + 1, sizeof(*dead)); /* (freed below: scan-build) */
	for (size_t i = tr->n; i-- > 0;) {
		struct dump_ctx *c = &tr->c[i];
		int st;
		reap_threads(c);
		/* our ptrace notification first: then the real parent (or init) can reap it */
		while (c->s.attached && waitpid(c->pid, &st, __WALL) >= 0) {
			if (WIFEXITED(st) || WIFSIGNALED(st)) {
				if (dead) /* (its exit reported: a zombie now, or reaped) */
					dead[i] = true;
				break;
			}
		}
		c->s.attached = false;
	}
	/* Dead is enough (see seize_kill): the new parents reap the zombies in their own time. Those whose
	 * exit we were told of are not read again (a /proc/PID/stat each). */
	size_t left = tr->n;
	for (int k = 0; k < 2000 && left; k++) {
		left = 0;
		for (size_t i = 0; i < tr->n; i++) {
			if (dead && !dead[i])
				dead[i] = seize_task_dead(tr->c[i].pid);
			left += dead ? !dead[i] : !seize_task_dead(tr->c[i].pid);
		}
		if (left)
			usleep(1000);
	}
	free(dead);
	if (left)
		pr_info("tree of task %d killed; %zu processes not dead yet\n", tr->c[0].pid, left);
}

static void dump_free(struct dump_ctx *c)
{
	dump_sk_finish(c, DUMP_SK_RESUME); /* not finished yet: a dump that stopped early */
	dump_core_free(c);
	dump_ghost_free(c);
	dump_mm_mpol_free(c);
	proc_status_free(&c->st);
	proc_fds_free(c->fds, c->nfds);
	dump_seccomp_free(c->seccomp);
	free(c->xstate);
	img_made_free(&c->created);
	for (size_t i = 0; i < c->nth; i++)
		free(c->th[i].xstate);
	free(c->th);
	free(c->ns_tids);
}

/* The task has a network namespace of its own (the runtime locks and unlocks it on notification). */
static bool own_netns(pid_t pid)
{
	char p[64];
	struct stat a, b;
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	return !stat(p, &a) && !stat("/proc/self/ns/net", &b) && a.st_ino != b.st_ino;
}

/* The lock of the tree's own network namespace (tr->netns_lock), named in the inventory: the image of the
 * inventory is written again with it. Without nft or iptables, or CAP_NET_ADMIN, and no --network-lock given:
 * a warning, the dump goes on unlocked. */
static int dump_netns_lock(struct dump_tree *tr, struct cr_err *e)
{
	struct cr_opts *o = tr->c[0].o;
	struct cr_err e2 = {0};
	if (netns_lock(o, o->pid, &tr->netns_lock, o->network_lock ? e : &e2)) {
		if (o->network_lock)
			return -1;
		pr_warn("the tree's network namespace is not locked: %s\n", e2.msg);
		return 0;
	}
	return tr->netns_lock ? write_inventory(&tr->c[0], tr, e) : 0;
}

/* A failed dump that took the pending signal of a periodic CLOCK_REALTIME timer with an overrun count, to
 * tell how it was armed (dump-core.c pending_overruns: only when the tree would not have gone on), changed
 * what timer_getoverrun reads in the tree that goes on: that count is the signal's from then on, not the one
 * the program read last. Nothing sets it back; the failure's line says it. */
static void timer_counts_changed(const struct dump_ctx *c, struct cr_err *e)
{
	const struct dump_remote *r = &c->rem;
	for (size_t i = 0; i < r->ntimers; i++) {
		size_t l = strlen(e->msg);
		/* (taken: the count is the signal's, whether it was queued back as a copy or not; its
		 * pend_ov may say otherwise for the image: dump-core.c pend_copy_own) */
		if (r->timer_taken_ov && r->timer_overrun[i] && r->timer_taken_ov[i] >= 0 &&
		    r->timer_taken_ov[i] != r->timer_overrun[i] && l < sizeof(e->msg))
			snprintf(
			    e->msg + l, sizeof(e->msg) - l,
			    " (and pid %d's POSIX timer %d: its overrun count now reads %d, not %d: the dump "
			    "took its pending signal)",
			    c->pid, r->timers[i].id, r->timer_taken_ov[i], r->timer_overrun[i]);
	}
}

/* --auto-dedup once the images are complete: a failure is one line in the log, the dump stands. */
static void dump_dedup(struct cr_opts *o)
{
	struct cr_err e = {0};
	uint64_t freed = 0;
	if (pm_dedup_dir(o->imgdir_fd, fault_injected(o, FI_DUMP_DEDUP), &freed, &e))
		pr_warn("auto-dedup not done (the images are complete, the parents keep their pages): %s\n",
			e.msg);
	else
		pr_info("auto-dedup: %llu bytes of the parents' pages freed\n", (unsigned long long)freed);
}

int eng_dump(struct cr_opts *o, struct cr_err *err)
{
	struct dump_tree tr = {.ipc_tree = -1};
	struct proc_status st0 = {0};
	struct timespec t0, t1;
	int ret = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o->pid <= 0) {
		cr_fail_errno(err, EINVAL, "dump: no task given (-t PID)");
		return -1;
	}
	pr_info("dumping task %d into %s\n", o->pid, o->images_dir ? o->images_dir : "?");
	if (eng_ext_check(o, err) || open_images_dir(o, err) || check_task(o->pid, &st0, err) ||
	    dump_shmem_new(&tr.shm, err) || dump_fdshare_new(&tr.fdsh, err) ||
	    ns_dump_enter(o->pid, &tr.ipc_tree, err) || dump_ipc_shm_new(&tr.ipc_shm, tr.ipc_tree, err) ||
	    mem_track_open(o, o->imgdir_fd, &tr.trk, err) || dump_page_server(o, &tr.px, err) ||
	    dump_mmtree_new(&tr.mmt, err) || dump_tree_add(&tr, o, o->pid, 0, err))
		goto out_noseize;
	tr.c[0].st = st0;
	st0 = (struct proc_status){0};
	/* Once the task is seized, a Ctrl-C must not leave it with every signal blocked: hold the
	 * terminating signals until it is released again (they act right after). */
	sigset_t term, old_mask;
	sigemptyset(&term);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGHUP);
	sigaddset(&term, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &term, &old_mask);
	bool netlock = false;	      /* RPC notifications: network-lock sent, network-unlock owed */
	struct ns_cg_frz *frz = NULL; /* --freeze-cgroup */
	ret = eng_notify(o, "pre-dump", 0, -1, err) ? -1 : 0;
	struct timespec tf; /* freezing, then frozen */
	clock_gettime(CLOCK_MONOTONIC, &tf);
	if (!ret)
		ret = ns_cg_freeze(o->freeze_cgroup, seize_preseize, &frz, err) || seize_tree(&tr, err) ? -1
													: 0;
	if (o->stats) {
		o->stats->freezing_us = cr_us_since(&tf);
		clock_gettime(CLOCK_MONOTONIC, &tf);
		__atomic_store_n(&o->stats->tasks_total, (uint64_t)tr.n, __ATOMIC_RELAXED);
	}
	if (!ret && own_netns(o->pid)) {
		netlock = true;
		ret = eng_notify(o, "network-lock", 0, -1, err);
	}
	if (!ret)
		ret = fault_check(o, FI_DUMP_EARLY, err);
	if (!ret)
		ret = dump_tree_images(&tr, err);
	/* after the images of the namespace (its ruleset is the program's, without the lock), before the tree
	 * is killed: nobody reaches the tree's network namespace until the restored tree runs */
	if (!ret && own_netns(o->pid))
		ret = dump_netns_lock(&tr, err);
	if (!ret)
		ret = eng_dump_restore_check(o, tr.px != NULL, err);
	if (!ret)
		ret = fault_check(o, FI_DUMP_BEFORE_KILL, err);
	if (!ret && tr.px) /* the server keeps the pages only now; a dropped connection fails the dump */
		ret = px_finish(tr.px, err);
	if (!ret)
		ret = eng_notify(o, "post-dump", 0, -1, err);
	if (tr.netns_lock && (ret || o->leave_running)) {
		struct cr_err e2 = {0};
		if (netns_unlock_pid(tr.netns_lock, o->pid, &e2))
			pr_warn("%s\n", e2.msg);
	}
	free(tr.netns_lock);
	free(tr.sks);
	if (netlock && (ret || o->leave_running)) {
		struct cr_err e2;
		eng_notify(o, "network-unlock", 0, -1, ret ? &e2 : err);
	}
	if (ret) {
		for (size_t i = 0; i < tr.n; i++)
			timer_counts_changed(&tr.c[i], err);
		for (size_t i = tr.n; i-- > 0;) {
			remove_created(&tr.c[i]);
			dump_sk_finish(&tr.c[i], DUMP_SK_RESUME);
			seize_release_task(&tr.c[i]);
		}
	} else if (o->leave_running) {
		for (size_t i = tr.n; i-- > 0;) {
			struct dump_ctx *c = &tr.c[i];
			dump_sk_finish(c, DUMP_SK_RESUME);
			seize_release_threads(c);
			struct cr_err e2;
			int r1 = c->s.attached ? arch_set_gpregs(c->pid, c->regs_resume, err) : 0;
			int r2 = seize_release(&c->s, r1 ? &e2 : err);
			if (r1 || r2)
				ret = -1; /* the images are complete: still report the failure to let the task
					     go */
		}
		for (size_t i = 0; ret && i < tr.n; i++)
			remove_created(&tr.c[i]);
	} else {
		kill_tree(&tr);
		for (size_t i = 0; i < tr.n; i++)
			dump_sk_finish(&tr.c[i], DUMP_SK_KILLED);
		dump_ipc_shm_killed(tr.ipc_shm);
		ns_dump_killed(tr.ns);
	}
	ns_cg_freeze_done(frz);
	if (o->stats)
		o->stats->frozen_us = cr_us_since(&tf);
	if (!ret && o->auto_dedup && mem_track_parent_dirfd(tr.trk) >= 0)
		dump_dedup(o);
	mem_track_done(tr.trk, !ret, o->pre_dump, o->imgdir_fd);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret)
		pr_info("%s of task %d (%zu processes) done in %.3f s\n", o->pre_dump ? "pre-dump" : "dump",
			o->pid, tr.n,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
out_noseize:
	if (ret)
		cr_wrap(err, "dump task %d", o->pid);
	proc_status_free(&st0);
	for (size_t i = 0; i < tr.n; i++)
		dump_free(&tr.c[i]);
	free(tr.c);
	dump_shmem_free(tr.shm);
	dump_ipc_shm_free(tr.ipc_shm);
	dump_fdshare_free(tr.fdsh);
	ns_dump_free(tr.ns);
	mem_track_free(tr.trk);
	px_free(tr.px);
	dump_mmtree_free(tr.mmt);
	ns_dump_leave(tr.ipc_tree);
	return ret;
}

int eng_pre_dump(struct cr_opts *o, struct cr_err *err)
{
	o->pre_dump = true;
	o->leave_running = true;
	return eng_dump(o, err);
}
