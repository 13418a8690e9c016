/* Restore of files of /proc/PID held open (/proc/self/status, a child's /proc/PID directory, /proc/self/fd,
 * /proc/PID/fd/N opened O_PATH, ...). Their paths name processes of the tree, which exist only once the tree
 * is created, so such fds are not opened with the others: each process opens them late, in the child just
 * before its root and blob (restore-child.c), after every process of the tree got there too (so every
 * process exists and holds its other fds). The paths keep the PIDs of the dump (the restore gives the same
 * ones) and are opened by the task itself, so they resolve in its own /proc (a PID namespace's fresh /proc
 * included). A description several processes shared is opened by each of them (its offset is no longer
 * shared).
 *
 * The barrier is one shared anonymous page that every process of the tree inherits from crshim (made only
 * for a tree with such fds): a count of the processes there, a flag set by a process that failed before it
 * got there (the others then end at once, with SIGKILL, so that the failed one's reason is the one
 * reported). */
#define LOG_PREFIX "restore-procfd: "
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/sched.h>

#include "files/evfd.h"
#include "files/fown.h"
#include "base/log.h"
#include "files/procfd.h"
#include "restore.h"

#define PROCFD_WAIT_S 120 /* a process of the tree that died without a word: give up after this long */

struct procfd_barrier {
	volatile int32_t arrived; /* processes at the barrier */
	volatile int32_t failed;  /* a process failed before it */
	int32_t expected;	  /* processes that restore an fd table */
};

static struct procfd_barrier *barrier;

bool rst_procfd_is(const FileEntry *f)
{
	const RegFileEntry *r = f->reg;
	/* (a character device too: one on a mount of another process's namespace, /proc/PID/root/PATH) */
	return r && (f->kind == FILE_KIND__FILE_REG || (f->kind == FILE_KIND__FILE_CHR && !r->tun_iff)) &&
	       r->path && !r->deleted && !f->in_flight && !strncmp(r->path, "/proc/", 6) &&
	       isdigit((unsigned char)r->path[6]);
}

/* Opened here: a file of /proc/PID, an inotify instance watching through one (rst_inotify_down). */
static bool late_here(const FileEntry *f)
{
	return f && (rst_procfd_is(f) || rst_inotify_down(f));
}

static bool has_procfd(const struct rst_task *t)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
		if (late_here(f))
			return true;
	}
	return false;
}

/* The processes that restore an fd table themselves (and so come to the barrier). */
static bool restores_fds(const struct rst_task *t)
{
	return !t->zombie && !t->helper && !rst_svm_sharer(t) && !rst_files_shared(t);
}

/* A thread of the tree other than a leader (id as task h sees it: in its PID namespace, pstree ns_tids):
 * made by its blob, after the /proc files are opened. */
static bool is_thread(const struct rst_task *ts, size_t n, const struct rst_task *h, long id)
{
	uint32_t lh = h->pst ? h->pst->ns_levels : 0;
	for (size_t k = 0; k < n; k++) {
		const PstreeEntry *p = ts[k].pst;
		for (size_t i = 1; p && i < p->n_threads; i++) {
			size_t at = i * p->ns_levels + lh - 1; /* (its tid at h's level) */
			if (lh ? p->ns_levels >= lh && at < p->n_ns_tids && p->ns_tids[at] == id
			       : p->threads[i] == id)
				return true;
		}
	}
	return false;
}

/* /proc/A/... or /proc/A/task/B/... naming a thread that is not a leader. */
static int check_threads(const struct rst_task *ts, size_t n, const struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
		if (!f || !rst_procfd_is(f))
			continue;
		char *end;
		long a = strtol(f->reg->path + 6, &end, 10), b = 0;
		if (!strncmp(end, "/task/", 6) && isdigit((unsigned char)end[6]))
			b = strtol(end + 6, NULL, 10);
		if (is_thread(ts, n, t, a) || is_thread(ts, n, t, b))
			return cr_fail_errno(e, ENOTSUP,
					     "fd %d of task %d is %s, a file of a thread: not supported yet",
					     t->fdinfo[i]->fd, t->pid, f->reg->path);
	}
	return 0;
}

int rst_procfd_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	bool any = false;
	int32_t expected = 0;
	for (size_t k = 0; k < n; k++) {
		if (check_threads(ts, n, &ts[k], e))
			return -1;
		if (rst_svm_sharer(&ts[k]) && has_procfd(&ts[k]))
			return cr_fail_errno(
			    e, ENOTSUP,
			    "task %d shares the address space of another process and holds a "
			    "file of /proc/PID open: not supported yet",
			    ts[k].pid);
		any = any || has_procfd(&ts[k]);
		expected += restores_fds(&ts[k]);
	}
	if (!any || n < 2 || ts[0].dry) /* one process: it exists when it opens them (a dry run: checked) */
		return 0;
	void *p = mmap(NULL, sizeof(*barrier), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return cr_fail_sys(e, "mmap the /proc files barrier");
	barrier = p;
	barrier->expected = expected;
	pr_info("files of /proc/PID are opened once %d processes are there\n", expected);
	return 0;
}

void rst_procfd_done(void)
{
	if (barrier)
		munmap(barrier, sizeof(*barrier));
	barrier = NULL;
}

static void wake_all(volatile int32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void rst_procfd_abort(const struct rst_task *t)
{
	if (!barrier || !restores_fds(t))
		return;
	__atomic_store_n(&barrier->failed, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&barrier->arrived, 1, __ATOMIC_SEQ_CST);
	wake_all(&barrier->arrived);
}

/* Arrive; with /proc files to open, wait for the others. */
static int arrive(bool wait, char *msg, size_t len)
{
	int32_t now = __atomic_add_fetch(&barrier->arrived, 1, __ATOMIC_SEQ_CST);
	wake_all(&barrier->arrived);
	struct timespec one = {1, 0}, t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (wait && now < barrier->expected) {
		if (__atomic_load_n(&barrier->failed, __ATOMIC_SEQ_CST))
			kill(getpid(), SIGKILL); /* another process failed: its reason is the one to report */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec >= PROCFD_WAIT_S) {
			snprintf(msg, len, "files of /proc: %d of %d processes of the tree got there", now,
				 barrier->expected);
			return -1;
		}
		syscall(SYS_futex, &barrier->arrived, FUTEX_WAIT, now, &one, NULL, 0);
		now = __atomic_load_n(&barrier->arrived, __ATOMIC_SEQ_CST);
	}
	if (wait && __atomic_load_n(&barrier->failed, __ATOMIC_SEQ_CST))
		kill(getpid(), SIGKILL);
	return 0;
}

bool dump_procfd_dead(pid_t pid, char *link)
{
	char at[96];
	int n = 0;
	size_t l = strlen(link), s = strlen(" (deleted)");
	if (strncmp(link, "/proc/", 6) || !isdigit((unsigned char)link[6]) ||
	    sscanf(link + 6, "%*d%n", &n) < 0 || !n ||
	    (link[6 + n] && link[6 + n] != '/' && link[6 + n] != ' '))
		return false;
	snprintf(at, sizeof(at), "/proc/%d/root/proc/%.*s", (int)pid, n, link + 6);
	if (!access(at, F_OK) || errno != ENOENT)
		return false;
	if (l > s && !strcmp(link + l - s, " (deleted)"))
		link[l - s] = '\0';
	pr_info("%s is a file of a process gone\n", link);
	return true;
}

int rst_procfd_dead(const char *path, int (*fn)(const char *path, void *arg), void *arg)
{
	pid_t want = (pid_t)atoi(path + 6);
	struct clone_args ca = {.set_tid = (uint64_t)(uintptr_t)&want, .set_tid_size = 1};
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca)); /* (no exit signal: reaped with __WALL) */
	if (pid == 0)
		for (;;)
			pause();
	if (pid < 0)
		return -1;
	int r = fn(path, arg), err = errno;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	errno = err;
	return r;
}

static int open_cb(const char *path, void *arg)
{
	return open(path, *(int *)arg);
}

static int open_one(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		    size_t len)
{
	const RegFileEntry *r = f->reg;
	int flags = (int)(r->flags & ~(uint32_t)RST_OPEN_DROP_FLAGS) | O_NOCTTY;
	int tmp = r->dead_pid ? rst_procfd_dead(r->path, open_cb, &flags) : open(r->path, flags);
	if (tmp < 0)
		return rst_errmsg(msg, len, "fd %d: open %s", fi->fd, r->path);
	if (rst_fd_at(tmp, fi->fd, msg, len))
		return -1;
	if (r->pos && lseek(fi->fd, (off_t)r->pos, SEEK_SET) != (off_t)r->pos)
		return rst_errmsg(msg, len, "fd %d: seek %s to %llu", fi->fd, r->path,
				  (unsigned long long)r->pos);
	return rst_fown_apply(f, fi->fd, f->fown ? rst_pidns_vid(t, f->fown->pid) : 0, t->creds, msg, len);
}

/* An inotify instance with its watches, now that the processes whose namespaces they go through exist */
static int open_notify(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	int fd = rst_inotify_make(f, msg, len);
	return fd < 0 ? -1 : rst_fd_at(fd, fi->fd, msg, len);
}

int rst_procfd_open(const struct rst_task *t, char *msg, size_t len)
{
	if (!restores_fds(t))
		return 0;
	bool any = has_procfd(t);
	if (barrier && arrive(any, msg, len))
		return -1;
	for (size_t i = 0; any && i < t->nr_fdinfo; i++) {
		const FdinfoEntry *fi = t->fdinfo[i];
		const FileEntry *f = rst_file_by_id(t, fi->id);
		size_t j = 0;
		if (!late_here(f))
			continue;
		while (j < i && t->fdinfo[j]->id != fi->id) /* the first fd of the description */
			j++;
		if (j < i ? dup2(t->fdinfo[j]->fd, fi->fd) < 0
			  : (rst_inotify_down(f) ? open_notify(f, fi, msg, len)
						 : open_one(t, f, fi, msg, len)) < 0)
			return j < i
				   ? rst_errmsg(msg, len, "fd %d: dup2 from fd %d", fi->fd, t->fdinfo[j]->fd)
				   : -1;
		if (fcntl(fi->fd, F_SETFD, (fi->fd_flags & FD_CLOEXEC) ? FD_CLOEXEC : 0))
			return rst_errmsg(msg, len, "fd %d: set fd flags", fi->fd);
	}
	return 0;
}
