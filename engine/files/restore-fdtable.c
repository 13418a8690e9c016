/* Processes that share their parent's fd table (CLONE_FILES, pstree_entry.clone_share; dump-share.c), or a
 * sibling's whose parent does not share it (pstree_entry.files_with: its sharing parent ended and it was
 * reparented): that sibling clones it with CLONE_PARENT | CLONE_FILES (rst_fdtable_check plans it) and
 * gives it its turn as a parent does.
 *
 * The parent clones such a child with CLONE_FILES among its other children (restore-child.c), while the table
 * is still the one inherited from crshim: the child clones its own children from it as any process does (a
 * child of its own that does not share the table gets a copy of crshim's fds and restores its own set, one
 * that shares it is cloned the same way). The process that restores the table (the nearest one up the line
 * that does not share its parent's) then gives each sharer its turn, one at a time, through a pair of pipes
 * made for it before the clone (rst_fdtable_clone_prep): the sharer first gives the turn to its own sharers,
 * then moves what it needs until its blob is done (error pipe, page file, mapped files, exe, its copies of
 * crshim's /proc and ghosts, the user namespace) to a range of fds above everything open and above what the
 * restoring process will use (reserve: its highest target fd + its helper fds), and says which range it
 * took. The ranges follow each other: the restoring process keeps them through its fd restore
 * (restore-files.c) and closes only its own helper fds below them; each blob closes only its own range
 * (helper_fd_lo..helper_fd_hi), so that none closes another's. A sharer restores no fd itself.
 * A sharer that maps a packet socket's rings needs a copy of that socket of the table, which only the
 * restoring process makes: the sharer keeps a slot for it in its range and a pipe, and says so with its range
 * (struct late, passed up by the sharers in between); the restoring process, once its fds are open
 * (rst_fdtable_late), puts the socket in each slot and wakes the sharer, which waits for it before its blob.
 */
#define LOG_PREFIX "restore-fdtable: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "files/ghost.h"
#include "restore.h"

bool rst_files_shared(const struct rst_task *t)
{
	if (t->zombie || t->helper || !t->pst)
		return false;
	if (t->pst->files_with) /* cloned by the sibling it shares the table with (rst_fdtable_check) */
		return t->clone_parent && t->spawn_ppid == t->pst->files_with;
	return !t->clone_parent && (t->pst->clone_share & CLONE_FILES) &&
	       t->spawn_ppid == t->pst->ppid; /* cloned by the parent it shares the table with */
}

bool rst_files_sharer_of(const struct rst_task *t, const struct rst_task *c)
{
	return c != t && c->spawn_ppid == t->pid && rst_files_shared(c);
}

static int fail_msg(char *msg, size_t len, const char *what, int pid)
{
	snprintf(msg, len, "task %d (shares the fd table): %s: %s", pid, what, strerror(errno));
	return -1;
}

/* Without malloc (getdents64 into the stack): the child's memory layout is taken before some callers. */
int rst_fd_top(void)
{
	int top = -1, own = rst_self_proc_open("fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[4096];
	long n;
	if (own < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, own, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			int fd = atoi(de->d_name);
			if (de->d_name[0] != '.' && fd > top && fd != own)
				top = fd;
			off += de->d_reclen;
		}
	close(own);
	return n < 0 ? -1 : top;
}

int rst_fdtable_clone_prep(struct rst_task *c, char *msg, size_t len)
{
	c->fdt_pidfd = -1;
	if (pipe2(c->fdt_turn, O_CLOEXEC))
		return fail_msg(msg, len, "pipe", c->pid);
	if (pipe2(c->fdt_done, O_CLOEXEC)) {
		close(c->fdt_turn[0]);
		close(c->fdt_turn[1]);
		return fail_msg(msg, len, "pipe", c->pid);
	}
	return 0;
}

/* What a sharer asks of the restoring process once the table stands: a copy of fd src at slot (in the
 * sharer's range), or (src -1) a byte written to slot, the write end of the sharer's wake pipe. */
struct late {
	int32_t slot, src;
};
static struct late *lates; /* this process's: its own and those its sharers passed up (rst_fdtable_turns) */
static size_t nr_lates;
static int wake_rfd = -1; /* a sharer's end of its wake pipe (in its range) */

static int late_add(int slot, int src)
{
	struct late *nl = realloc(lates, (nr_lates + 1) * sizeof(*nl));
	if (!nl) {
		errno = ENOMEM;
		return -1;
	}
	lates = nl;
	lates[nr_lates++] = (struct late){slot, src};
	return 0;
}

/* *fd moved (or copied) to >= *next: *fd and *next move on; on failure *fd stays (the error pipe too). */
static int place(int *fd, int *next, bool close_old)
{
	int nfd = fd_copy_above(*fd, *next, false);
	if (nfd < 0)
		return -1;
	if (close_old)
		close(*fd);
	*fd = nfd;
	*next = nfd + 1;
	return 0;
}

/* A sharer with slots to fill: its wake pipe, both ends in its range. */
static int wake_pipe(const struct rst_task *t, int *next, char *msg, size_t len)
{
	int p[2];
	bool any = false;
	for (size_t i = 0; i < t->nr_mfiles; i++)
		any = any || t->mfiles[i].task_fd1;
	if (!any)
		return 0;
	if (pipe2(p, O_CLOEXEC))
		return fail_msg(msg, len, "pipe", t->pid);
	if (place(&p[0], next, true) || place(&p[1], next, true) || late_add(p[1], -1)) {
		close(p[0]);
		close(p[1]);
		return fail_msg(msg, len, "its wake pipe", t->pid);
	}
	wake_rfd = p[0];
	return 0;
}

static int keep_ghost(int fd, void *next)
{
	return place(&fd, next, false) ? -1 : fd;
}

/* Once its turn is over the restoring process fills the table with dup2 at the numbers of the task's fds,
 * while this process goes on to its blob: an fd it opened then would get the lowest free number, which dup2
 * may take from it (and its close would then take the task's fd: a restored fd gone, under load). So what it
 * opens after its turn is opened now, in its range: its /proc/self/maps (read before its blob,
 * rst_child_fill_unmap) and what the blob would make (restorer.c: pre_fd). The userfaultfd of lazy pages
 * outlives the blob (crshim closes it once lazy-pages has it): it comes last, out of the range the blob
 * closes (*keep). */
static int pre_fds(struct rst_task *t, int *next, int *keep, char *msg, size_t len)
{
	struct rst_args *a = t->args;
	const struct rst_vma *v = (const struct rst_vma *)(uintptr_t)a->vmas;
	bool thp = false, aio = false;
	for (uint32_t i = 0; i < a->nr_vmas; i++) {
		thp = thp || v[i].thp;
		aio = aio || v[i].kind == RST_VMA_AIO;
	}
	enum { MAPS = RST_PRE_FDS };
	static const int order[] = {RST_PRE_THP_UFFD, RST_PRE_AIO_EFD, MAPS, RST_PRE_LAZY_UFFD};
	int fd[RST_PRE_FDS + 1] = {
	    [RST_PRE_THP_UFFD] =
		a->use_thp && thp ? (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK) : 0,
	    [RST_PRE_AIO_EFD] = aio ? eventfd(0, EFD_CLOEXEC) : 0,
	    [RST_PRE_LAZY_UFFD] = a->lazy ? (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK) : 0,
	    [MAPS] = rst_self_proc_open("maps", O_RDONLY | O_CLOEXEC)};
	if (fd[RST_PRE_THP_UFFD] < 0) /* (the blob would do without huge pages) */
		fd[RST_PRE_THP_UFFD] = 0, a->use_thp = 0;
	*keep = *next - 1;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		int i = order[k];
		if (fd[i] < 0 || (fd[i] && place(&fd[i], next, true))) /* (the tree goes, with its table) */
			return fail_msg(msg, len, "open what it needs after its turn", t->pid);
		if (i != RST_PRE_LAZY_UFFD)
			*keep = *next - 1;
		if (i < RST_PRE_FDS)
			a->pre_fd[i] = fd[i];
	}
	t->maps_fd = fd[MAPS];
	return 0;
}

/* t's own fds, from *next on: its ends of the error pipe and page file are its own (moved); crshim's fds it
 * shares with others (shared memory objects, ghosts, /proc, user namespace) are copied. */
static int place_self(struct rst_task *t, int *next, char *msg, size_t len)
{
	struct rst_args *a = t->args;
	int32_t *mfd = (int32_t *)(uintptr_t)a->mfd;
	a->helper_fd_lo = *next;
	if (place(&t->err_pipe[1], next, true) || place(&t->pm.pages_fd, next, true) ||
	    (t->userns_fd >= 0 && place(&t->userns_fd, next, false)))
		return fail_msg(msg, len, "move its fds", t->pid);
	a->pages_fd = t->pm.pages_fd;
	/* its copies of crshim's ghosts and /proc first: the paths below open through them */
	if (rst_ghost_keep_sharer(t, keep_ghost, next))
		return fail_msg(msg, len, "keep its copies of deleted files", t->pid);
	for (size_t i = 0; i < t->nr_mfiles; i++) {
		if (t->mfiles[i].task_fd1) { /* a packet socket: a slot, filled once the table stands */
			int slot = dup(t->err_pipe[1]);
			if (slot < 0 || place(&slot, next, true) || late_add(slot, t->mfiles[i].task_fd1 - 1))
				return fail_msg(msg, len, "a slot for a packet socket's rings", t->pid);
			mfd[i] = slot;
			continue;
		}
		bool own = t->mfiles[i].fd < 0; /* a path, else crshim's fd of a shared memory object */
		int fd = own ? rst_ghost_open_path_as(rst_pidns_self(t), t->mfiles[i].path,
						      t->mfiles[i].oflags | O_CLOEXEC)
			     : t->mfiles[i].fd;
		if (fd < 0 || place(&fd, next, own)) {
			if (own && fd >= 0)
				close(fd);
			return fail_msg(msg, len, t->mfiles[i].path, t->pid);
		}
		mfd[i] = fd;
	}
	int fd = open(t->mm->exe_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || place(&fd, next, true)) {
		if (fd >= 0)
			close(fd);
		return fail_msg(msg, len, t->mm->exe_path, t->pid);
	}
	a->mm.exe_fd = (uint32_t)fd;
	int hi;
	if (wake_pipe(t, next, msg, len) || pre_fds(t, next, &hi, msg, len))
		return -1;
	a->helper_fd_hi = hi;
	return 0;
}

static int read_full(int fd, void *buf, size_t n)
{
	ssize_t r;
	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r >= 0 && (size_t)r != n)
		errno = EPIPE;
	return r == (ssize_t)n ? 0 : -1;
}

/* The slots and wake pipes a sharer passed up with its range: a count, then each. */
static int read_lates(int fd)
{
	uint32_t n;
	if (read_full(fd, &n, sizeof(n)))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct late l;
		if (read_full(fd, &l, sizeof(l)) || late_add(l.slot, l.src))
			return -1;
	}
	return 0;
}

int rst_fdtable_late(char *msg, size_t len)
{
	for (size_t i = 0; i < nr_lates; i++)
		if (lates[i].src >= 0 && dup3(lates[i].src, lates[i].slot, O_CLOEXEC) < 0) {
			snprintf(msg, len, "fd %d: a copy for a sharer's mapping of its rings: %s",
				 lates[i].src, strerror(errno));
			return -1;
		}
	for (size_t i = 0; i < nr_lates; i++)
		if (lates[i].src < 0 && write(lates[i].slot, "", 1) != 1) {
			snprintf(msg, len, "wake a sharer of the fd table: %s", strerror(errno));
			return -1;
		}
	free(lates);
	lates = NULL, nr_lates = 0;
	return 0;
}

/* The turn of sharer c (a child of the caller): reserve to it, its range back; the pipes closed. */
static int one_turn(struct rst_task *c, int reserve, int got[2], char *msg, size_t len)
{
	struct pollfd pf[2] = {{.fd = c->fdt_done[0], .events = POLLIN},
			       {.fd = c->fdt_pidfd, .events = POLLIN}};
	int ret = -1;
	if (write(c->fdt_turn[1], &reserve, sizeof(reserve)) != sizeof(reserve)) {
		fail_msg(msg, len, "give it its turn", c->pid);
	} else {
		int r;
		while ((r = poll(pf, 2, -1)) < 0 && errno == EINTR)
			;
		if (r < 0)
			fail_msg(msg, len, "wait for its fds", c->pid);
		else if (!(pf[0].revents & POLLIN)) /* it ended (crshim has its reason) */
			snprintf(msg, len, "task %d " RST_SHARER_ENDED, c->pid);
		else if (read_full(c->fdt_done[0], got, 2 * sizeof(int)) || read_lates(c->fdt_done[0]))
			fail_msg(msg, len, "read its range of fds", c->pid);
		else
			ret = 0;
	}
	close(c->fdt_turn[0]);
	close(c->fdt_turn[1]);
	close(c->fdt_done[0]);
	close(c->fdt_done[1]);
	if (c->fdt_pidfd >= 0)
		close(c->fdt_pidfd);
	return ret;
}

int rst_fdtable_turns(struct rst_task *t, int lo, int extra, int range[2], char *msg, size_t len)
{
	int reserve = -1;
	range[0] = range[1] = -1;
	free(lates); /* (a copy of its parent's, if any) */
	lates = NULL, nr_lates = 0;
	for (size_t j = 0; j < t->ntree; j++) {
		struct rst_task *c = &t->tree[j];
		int got[2];
		if (!rst_files_sharer_of(t, c))
			continue;
		if (reserve < 0) { /* above every fd open now (crshim's, which t may still move up) */
			int top = rst_fd_top();
			if (top < 0)
				return fail_msg(msg, len, "/proc/self/fd", c->pid);
			reserve = (top + 1 > lo ? top + 1 : lo) + extra;
		}
		if (one_turn(c, reserve, got, msg, len))
			return -1;
		if (range[0] < 0 || got[0] < range[0])
			range[0] = got[0];
		if (got[1] > range[1])
			range[1] = got[1];
	}
	return 0;
}

int rst_fdtable_self(struct rst_task *t, char *msg, size_t len)
{
	int reserve, range[2], next;
	log_drop(); /* the table becomes the task's once its turn is over (rst_child_files) */
	if (read_full(t->fdt_turn[0], &reserve, sizeof(reserve)))
		return fail_msg(msg, len, "wait for its turn", t->pid);
	rst_nofile_max(); /* (the reserve may be above crshim's soft limit) */
	if (rst_fdtable_turns(t, reserve, 0, range, msg, len))
		return -1;
	next = rst_fd_top() + 1;
	if (next <= 0)
		return fail_msg(msg, len, "/proc/self/fd", t->pid);
	if (next < reserve)
		next = reserve;
	int lo = next;
	if (place_self(t, &next, msg, len))
		return -1;
	int got[2] = {range[0] >= 0 && range[0] < lo ? range[0] : lo, next - 1};
	uint32_t nl = (uint32_t)nr_lates;
	if (write(t->fdt_done[1], got, sizeof(got)) != sizeof(got) ||
	    write(t->fdt_done[1], &nl, sizeof(nl)) != sizeof(nl) ||
	    (nl && write(t->fdt_done[1], lates, nl * sizeof(*lates)) != (ssize_t)(nl * sizeof(*lates))))
		return fail_msg(msg, len, "say which fds it keeps", t->pid);
	free(lates);
	lates = NULL, nr_lates = 0;
	if (wake_rfd >= 0) { /* the socket of its rings, once the table stands */
		char c;
		ssize_t r;
		do
			r = read(wake_rfd, &c, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			return fail_msg(msg, len, "wait for the fd table", t->pid);
	}
	return 0;
}

/* t shares the fd table of its sibling s (files_with) but not its parent's: s clones it with CLONE_PARENT |
 * CLONE_FILES, after its setsid (so t is born in s's session), if nothing else decides who clones t. */
static int plan_sibling(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	const PstreeEntry *p = t->pst;
	struct rst_task *s = NULL;
	for (size_t i = 0; i < n && !s; i++)
		s = !ts[i].helper && ts[i].pst && ts[i].pid == p->files_with ? &ts[i] : NULL;
	if (!s || s == t || s->pst->ppid != p->ppid || s->zombie || s->pst->files_with)
		return cr_fail_errno(e, EBADMSG,
				     "pstree.img: task %d shares the fd table of %d, not a sibling", t->pid,
				     p->files_with);
	const char *why = NULL;
	if (t->spawn_ppid != p->ppid || t->clone_parent || t->before_setsid)
		why = "its session is made by another process";
	else if (p->sid != t->pid && p->sid != s->pst->sid)
		why = "it is in another session";
	else if (s->ns_init || t->ns_init)
		why = "one is the init of a PID namespace";
	else if (p->clone_share & CLONE_FS)
		why = "it shares its fs info with its parent";
	else if (rst_svm_sharer(t) || rst_svm_sharer(s))
		why = "one shares an address space";
	if (why)
		return cr_fail(
		    e,
		    "task %d shares the fd table (CLONE_FILES) of its sibling %d, not its parent's, "
		    "and %s: not supported yet",
		    t->pid, s->pid, why);
	t->spawn_ppid = s->pid, t->clone_parent = true, t->spawn_idx = s - ts;
	pr_info("task %d: cloned by its sibling %d with CLONE_PARENT | CLONE_FILES (their fd table)\n",
		t->pid, s->pid);
	return 0;
}

int rst_fdtable_check(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		if (ts[k].pst && ts[k].pst->files_with && !ts[k].zombie && !ts[k].helper &&
		    plan_sibling(ts, n, &ts[k], e))
			return -1;
	for (size_t k = 0; k < n; k++) {
		const struct rst_task *t = &ts[k];
		if (!t->pst || !(t->pst->clone_share & CLONE_FILES) || t->zombie)
			continue;
		if (!rst_files_shared(t))
			return cr_fail(e,
				       "task %d shares its parent's fd table (CLONE_FILES) but is not "
				       "created by it (sessions): not supported yet",
				       t->pid);
	}
	return 0;
}
