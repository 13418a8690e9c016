/* Restore, child side: the fd table. crshim's own fds that the restore still needs (page file, error pipe,
 * fds to inherit) move above the highest target fd, every other fd of crshim is closed, then each target
 * fd is opened (or inherited) at its number with its offset and flags. The files of file mappings and the
 * executable are opened here too; the blob gets them by number and closes them all (>= helper_fd_lo).
 * Errors are returned as text for the error pipe: this runs in the child, where nothing is logged once the
 * fd table is changed (log_drop: a line would go into the program's fd of that number). */
#define LOG_PREFIX "restore-files: "
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "files/fd-kind.h"
#include "files/fown.h"
#include "files/ghost.h"
#include "files/locks.h"
#include "files/sk-filter.h"
#include "restore.h"

struct fd_plan {
	int lo;	     /* lowest helper fd = highest target + 1 */
	int *helper; /* helper fds (dense list) */
	size_t nr_helper;
	int *inherit; /* per fdinfo: moved inherit source, -1 */
	int keep[2];  /* the fds of the processes sharing the table (restore-fdtable.c), -1 -1: none */
};

/* Move fd to >= lo (close-on-exec), remember it as a helper. */
static int to_helper(struct fd_plan *p, int fd, bool close_old)
{
	int nfd = close_old ? rst_fd_above(fd, p->lo) : fcntl(fd, F_DUPFD_CLOEXEC, p->lo);
	if (nfd < 0)
		return -1;
	p->helper[p->nr_helper++] = nfd;
	return nfd;
}

/* Close every fd of crshim that is not a helper: one close_range per gap between helpers (a task of a big
 * tree inherits two pipe fds per task; one close() each made the tree O(n^2) in syscalls). */
static int close_others(const struct fd_plan *p, char *msg, size_t len)
{
	for (unsigned from = 0;;) {
		unsigned next = ~0u; /* the lowest helper at or above from */
		for (size_t i = 0; i < p->nr_helper; i++)
			if (p->helper[i] >= 0 && (unsigned)p->helper[i] >= from &&
			    (unsigned)p->helper[i] < next)
				next = (unsigned)p->helper[i];
		unsigned end = next; /* ... or the sharers' range, kept whole */
		if (p->keep[0] >= 0 && (unsigned)p->keep[1] >= from && (unsigned)p->keep[0] < next)
			next = (unsigned)p->keep[0] > from ? (unsigned)p->keep[0] : from,
			end = (unsigned)p->keep[1];
		if (next > from && syscall(SYS_close_range, from, next == ~0u ? ~0u : next - 1, 0u))
			return rst_errmsg(msg, len, "close_range");
		if (next == ~0u)
			return 0;
		from = end + 1;
	}
}

int rst_mnt_up_root = -1, rst_mnt_up_ns = -1;
int rst_sk_priv_fd = -1;

/* A file the process maps or runs, missing in its mount namespace of its own: the one of the namespace it
 * was made from (a process that pivot_root'ed still runs its parent's binary). */
static int open_or_up(int fd, const char *path, int flags)
{
	if (fd >= 0 || errno != ENOENT || rst_mnt_up_root < 0)
		return fd;
	return openat(rst_mnt_up_root, path + strspn(path, "/"), flags);
}

/* Mapped file i, a ghost the task makes again on its own mount (rst_mfile.copy): made from crshim's ghost
 * once, for the first of its mapped files (mfd: those opened already), opened again for the others. */
static int map_copy(const struct rst_task *t, size_t i, const int32_t *mfd)
{
	const struct rst_mfile *f = &t->mfiles[i];
	int shared = rst_ghost_shared_map(t, i, f->oflags); /* (made once for several processes) */
	if (shared != -2)
		return shared;
	for (size_t j = 0; j < i; j++)
		if (t->mfiles[j].copy && !strcmp(t->mfiles[j].path, f->path)) {
			char rel[32];
			snprintf(rel, sizeof(rel), "fd/%d", (int)mfd[j]);
			return rst_self_proc_open(rel, f->oflags | O_CLOEXEC);
		}
	__cleanup_close int src = rst_ghost_open_path(f->path, O_RDONLY | O_CLOEXEC),
			    m = src < 0 ? -1 : open(f->copy->ghost_mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return m < 0 ? -1 : rst_ghost_make_copy(src, m, f->copy->ghost_name, 0, f->oflags);
}

/* Page file, error pipe, inherit sources, mapped files, exe: all above the targets. */
static int move_helpers(struct rst_task *t, struct fd_plan *p, char *msg, size_t len)
{
	struct rst_args *a = t->args;
	int32_t *mfd = (int32_t *)(uintptr_t)a->mfd;
	for (size_t j = 0; j < rst_ghost_count(t); j++) { /* its copies of crshim's ghosts (ghost.h) */
		int g = rst_ghost_fd(t, j), own = to_helper(p, g, true);
		if (own < 0 || rst_ghost_own_copy(0, g, own))
			return rst_errmsg(msg, len, "keep the deleted file at fd %d", g);
	}
	for (size_t j = 0; j < rst_ghost_shared_count(); j++) { /* a copy made once for several (ghost.h) */
		int g = rst_ghost_shared_fd(t, j), own = g < 0 ? 0 : to_helper(p, g, true);
		if (own < 0)
			return rst_errmsg(msg, len, "keep the deleted file at fd %d", g);
		if (g >= 0)
			rst_ghost_shared_moved(j, own);
	}
	if ((a->pages_fd = to_helper(p, t->pm.pages_fd, true)) < 0 ||
	    (t->err_pipe[1] = to_helper(p, t->err_pipe[1], true)) < 0 ||
	    (t->userns_fd >= 0 && (t->userns_fd = to_helper(p, t->userns_fd, false)) < 0))
		return rst_errmsg(msg, len, "move helper fds above %d", p->lo);
	t->pm.pages_fd = a->pages_fd;
	if (rst_host_proc >= 0 && (rst_host_proc = to_helper(p, rst_host_proc, true)) < 0)
		return rst_errmsg(msg, len, "move crshim's /proc above %d", p->lo);
	if ((rst_mnt_up_root >= 0 && (rst_mnt_up_root = to_helper(p, rst_mnt_up_root, true)) < 0) ||
	    (rst_mnt_up_ns >= 0 && (rst_mnt_up_ns = to_helper(p, rst_mnt_up_ns, true)) < 0))
		return rst_errmsg(msg, len, "move the root of the parent's mount namespace above %d", p->lo);
	if (rst_sk_priv_fd >= 0 && (rst_sk_priv_fd = to_helper(p, rst_sk_priv_fd, true)) < 0)
		return rst_errmsg(msg, len, "move the way to crshim's socket options above %d", p->lo);
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
		p->inherit[i] = -1;
		if (f->kind == FILE_KIND__FILE_INHERIT &&
		    (p->inherit[i] = to_helper(p, f->inherit_fd, false)) < 0)
			return rst_errmsg(msg, len, "fd %d: take crshim's fd %d", t->fdinfo[i]->fd,
					  f->inherit_fd);
	}
	for (size_t i = 0; i < t->nr_mfiles; i++) {
		if (t->mfiles[i].task_fd1) /* a packet socket of the task: once it is open (ring_fds) */
			continue;
		bool own = t->mfiles[i].fd < 0; /* else crshim's fd of a shared memory object */
		int fd =
		    t->mfiles[i].copy ? map_copy(t, i, mfd)
		    : own
			? open_or_up(rst_ghost_open_path(t->mfiles[i].path, t->mfiles[i].oflags | O_CLOEXEC),
				     t->mfiles[i].path, t->mfiles[i].oflags | O_CLOEXEC)
			: t->mfiles[i].fd;
		if (fd < 0 || (mfd[i] = to_helper(p, fd, own)) < 0)
			return rst_errmsg(msg, len, "open mapped file %s", t->mfiles[i].path);
	}
	int fd =
	    open_or_up(open(t->mm->exe_path, O_RDONLY | O_CLOEXEC), t->mm->exe_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (fd = to_helper(p, fd, true)) < 0)
		return rst_errmsg(msg, len, "open executable %s", t->mm->exe_path);
	a->mm.exe_fd = (uint32_t)fd;
	a->helper_fd_lo = p->lo;
	return 0;
}

/* The packet sockets whose rings the task maps, now that its fds are open: a copy each for the blob; the
 * ghosts it made again on its own mount (reopen): opened again with the mapping's access. */
static int ring_fds(struct rst_task *t, struct fd_plan *p, char *msg, size_t len)
{
	int32_t *mfd = (int32_t *)(uintptr_t)t->args->mfd;
	for (size_t i = 0; i < t->nr_mfiles; i++) {
		int fd = t->mfiles[i].task_fd1 - 1;
		if (t->mfiles[i].reopen) {
			char rel[32];
			snprintf(rel, sizeof(rel), "fd/%d", fd);
			int o = rst_self_proc_open(rel, t->mfiles[i].oflags | O_CLOEXEC);
			if (o < 0 || (mfd[i] = to_helper(p, o, true)) < 0)
				return rst_errmsg(msg, len,
						  "fd %d: open its deleted file again for its mapping", fd);
		} else if (fd >= 0 && (mfd[i] = to_helper(p, fd, false)) < 0) {
			return rst_errmsg(msg, len, "fd %d: a copy for the mapping of its rings", fd);
		}
	}
	return 0;
}

/* The first fdinfo (before i) of the same open file description, i if none. */
static size_t first_of(const struct rst_task *t, size_t i)
{
	size_t j;
	for (j = 0; j < i && t->fdinfo[j]->id != t->fdinfo[i]->id; j++)
		;
	return j;
}

/* Make the open file description of fdinfo i (its first fd) at its fd: taken from crshim, or by its kind. */
static int open_kind(struct rst_task *t, const struct fd_plan *p, size_t i, const FileEntry *f,
		     const struct fd_kind *k, char *msg, size_t len)
{
	const FdinfoEntry *fi = t->fdinfo[i];
	if (f->kind == FILE_KIND__FILE_INHERIT)
		return dup2(p->inherit[i], fi->fd) < 0
			   ? rst_errmsg(msg, len, "fd %d: dup2 from crshim's fd %d", fi->fd, f->inherit_fd)
			   : 0;
	if (!k || !k->open) {
		errno = 0;
		return rst_errmsg(msg, len, "fd %d: file kind %d is not opened here", fi->fd, f->kind);
	}
	return k->open(t, p->lo, f, fi, msg, len);
}

static int open_one(struct rst_task *t, const struct fd_plan *p, size_t i, const FileEntry *f,
		    const struct fd_kind *k, char *msg, size_t len)
{
	const FdinfoEntry *fi = t->fdinfo[i];
	size_t j = first_of(t, i);
	if (k && k->later && k->later(f))
		return 0; /* opened by a stage of its own (a file of /proc/PID: restore-procfd.c) */
	if (j < i) {	  /* same open file description as an earlier fd */
		if (dup2(t->fdinfo[j]->fd, fi->fd) < 0)
			return rst_errmsg(msg, len, "fd %d: dup2 from fd %d", fi->fd, t->fdinfo[j]->fd);
	} else if (open_kind(t, p, i, f, k, msg, len)) {
		return -1;
	}
	if (j == i &&
	    rst_fown_apply(f, fi->fd, f->fown ? rst_pidns_vid(t, f->fown->pid) : 0, t->creds, msg, len))
		return -1;
	if (fcntl(fi->fd, F_SETFD, (fi->fd_flags & FD_CLOEXEC) ? FD_CLOEXEC : 0))
		return rst_errmsg(msg, len, "fd %d: set fd flags", fi->fd);
	return 0;
}

/* Every fd of the kinds of pass 0, then those of pass 1 (epoll: their targets are open by then), then each
 * kind's fill of every description (an epoll set's interest list). */
static int open_targets(struct rst_task *t, const struct fd_plan *p, char *msg, size_t len)
{
	size_t nk;
	const struct fd_kind *const *kinds = fd_kinds(&nk);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->nr_fdinfo; i++) {
			const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
			const struct fd_kind *k = fd_kind_of(f->kind);
			if ((k ? k->pass : 0) == pass && open_one(t, p, i, f, k, msg, len))
				return -1;
		}
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
		for (size_t q = 0; q < nk && first_of(t, i) == i; q++)
			if (kinds[q]->fill && kinds[q]->fill(t, p->lo, f, t->fdinfo[i], msg, len))
				return -1;
		/* last: a datagram queue put back through a filter of crshim's is in (sk-inet-queue.c) */
		if (first_of(t, i) == i && rst_sk_filter(f, t->fdinfo[i]->fd, msg, len))
			return -1;
	}
	return 0;
}

/* The restore's own fds go above the task's highest one (rst_child_files: its helpers, a kind's fds for a
 * while, the ranges of the processes sharing the table), below crshim's hard limit of open files, which it
 * may not raise (no CAP_SYS_RESOURCE): a task with an fd too close to it is refused (at dump too, where the
 * dumper's limit stands in for the restore's). A count that errs high: one per fd and per VMA that is not
 * private anonymous memory, and 64. */
static int check_room(const struct rst_task *t, struct cr_err *e)
{
	struct rlimit nofile;
	int top = -1;
	for (size_t i = 0; i < t->nr_fdinfo; i++)
		top = t->fdinfo[i]->fd > top ? t->fdinfo[i]->fd : top;
	uint64_t need = (uint64_t)top + 1 + t->nr_fdinfo + 64;
	for (size_t i = 0; t->mm && i < t->mm->n_vmas; i++) /* (an fd per mapped file, at most) */
		need += t->mm->vmas[i]->kind != VMA_KIND__VMA_ANON_PRIVATE &&
			t->mm->vmas[i]->kind != VMA_KIND__VMA_HEAP &&
			t->mm->vmas[i]->kind != VMA_KIND__VMA_STACK;
	if (top < 0 || getrlimit(RLIMIT_NOFILE, &nofile) || nofile.rlim_max == RLIM_INFINITY ||
	    need <= nofile.rlim_max)
		return 0;
	return cr_fail_errno(
	    e, EMFILE,
	    "task %d: fd %d is too close to crshim's limit of open files (%llu): the restore "
	    "needs about %llu fds above it for its own",
	    t->pid, top, (unsigned long long)nofile.rlim_max, (unsigned long long)(need - (uint64_t)top - 1));
}

int rst_files_check(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FdinfoEntry *fi = t->fdinfo[i];
		const FileEntry *f = rst_file_by_id(t, fi->id);
		if (!f || fi->fd < 0)
			return cr_fail_errno(e, EBADMSG,
					     "fdinfo-%d.img: fd %d refers to file id %u that files.img lacks",
					     t->pid, fi->fd, fi->id);
		if (f->kind == FILE_KIND__FILE_INHERIT) {
			if (t->dry_dump) /* the fd is the restoring crshim's (--inherit-fd, its stdio) */
				continue;
			if (!f->has_inherit_fd || fcntl(f->inherit_fd, F_GETFD) < 0)
				return cr_fail_errno(
				    e, EBADF,
				    "fd %d (was %s) is inherited from crshim's fd %d, which is not open",
				    fi->fd, f->inherit_desc ? f->inherit_desc : "?", f->inherit_fd);
			continue;
		}
		const struct fd_kind *k = fd_kind_of(f->kind);
		if (!k)
			return cr_fail_errno(e, ENOTSUP, "fd %d: unsupported file kind %d", fi->fd, f->kind);
		if (k->check && k->check(t, f, fi, e))
			return -1;
	}
	return check_room(t, e);
}

void rst_nofile_max(void)
{
	struct rlimit nofile;
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
}

int rst_child_files(struct rst_task *t, char *msg, size_t len)
{
	struct fd_plan p = {.lo = 0};
	log_drop(); /* the log's fd number becomes one of the task's */
	rst_nofile_max();
	for (size_t i = 0; i < t->nr_fdinfo; i++)
		if (t->fdinfo[i]->fd >= p.lo)
			p.lo = t->fdinfo[i]->fd + 1;
	/* + pages, error pipe, user namespace, crshim's /proc, executable, the parent mount namespace's root
	 * and namespace (rst_mnt_up_root, rst_mnt_up_ns), crshim's socket options (rst_sk_priv_fd) */
	size_t nr_helper = t->nr_fdinfo + t->nr_mfiles + rst_ghost_count(t) + rst_ghost_shared_count() + 8;
	p.helper = calloc(nr_helper, sizeof(int));
	p.inherit = calloc(t->nr_fdinfo + 1, sizeof(int));
	/* the processes sharing the table take their fds first, above ours: room for our helpers above
	 * whatever is open (and a margin for what a kind opens for a while) */
	if (rst_fdtable_turns(t, p.lo, (int)nr_helper + 16, p.keep, msg, len)) {
		free(p.helper);
		free(p.inherit);
		return -1;
	}
	int ret = -1;
	if (!p.helper || !p.inherit) {
		errno = ENOMEM;
		rst_errmsg(msg, len, "fds");
	} else if (!move_helpers(t, &p, msg, len) && !close_others(&p, msg, len) &&
		   !open_targets(t, &p, msg, len) && !ring_fds(t, &p, msg, len) &&
		   !rst_fdtable_late(msg, len))
		ret = 0;
	if (!ret) {
		size_t nk;
		const struct fd_kind *const *kinds = fd_kinds(&nk);
		for (size_t q = 0; q < nk; q++) /* pipe ends the task did not hold are closed now, ... */
			if (kinds[q]->child_done)
				kinds[q]->child_done();
		/* the moved inherit sources are not needed any more (helpers, closed by the blob anyway) */
		for (size_t i = 0; i < t->nr_fdinfo; i++)
			if (p.inherit[i] >= 0)
				close(p.inherit[i]);
		if (p.keep[0] >= 0) /* ours end below the sharers' */
			t->args->helper_fd_hi = p.keep[0] - 1;
		/* last: closing an fd drops the POSIX locks on its file */
		ret = rst_child_locks(t, msg, len);
	}
	free(p.helper);
	free(p.inherit);
	return ret;
}
