/* Restore of event fds (see evfd.h): the checks, the dispatch, and eventfd, signalfd, timerfd, pidfd.
 * Child side: errors as text for the error pipe, nothing is logged. */
#define LOG_PREFIX "restore-evfd: "
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <poll.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "files/ghost.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "base/log.h"
#include "base/proc.h"
#include "restore.h"

#ifndef TFD_IOC_SET_TICKS
#define TFD_IOC_SET_TICKS _IOW('T', 0, uint64_t)
#endif
#define NSEC 1000000000LL

static bool tree_has(const struct rst_task *t, pid_t pid)
{
	const struct rst_task *root = t->ntree ? &t->tree[0] : t; /* the root reads the whole pstree first */
	for (size_t i = 0; i < root->n_all_pst; i++)
		if (root->all_pst[i]->pid == pid)
			return true;
	return rst_ipid(t) == pid;
}

int rst_evfd_check(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e)
{
	const void *sub[] = {
	    [FILE_KIND__FILE_EVENTFD] = f->eventfd,   [FILE_KIND__FILE_EPOLL] = f->epoll,
	    [FILE_KIND__FILE_SIGNALFD] = f->signalfd, [FILE_KIND__FILE_TIMERFD] = f->timerfd,
	    [FILE_KIND__FILE_INOTIFY] = f->inotify,   [FILE_KIND__FILE_FANOTIFY] = f->fanotify,
	    [FILE_KIND__FILE_MEMFD] = f->memfd,	      [FILE_KIND__FILE_PIDFD] = f->pidfd};
	if ((size_t)f->kind >= ARRAY_SIZE(sub) || !sub[f->kind])
		return cr_fail_errno(e, EBADMSG, "files.img: file id %u (fd %d, kind %d) has no state", f->id,
				     fi->fd, f->kind);
	for (size_t i = 0; f->kind == FILE_KIND__FILE_EPOLL && i < f->epoll->n_tfd; i++) {
		const EpollTfdEntry *te = f->epoll->tfd[i];
		if (te->has_flight_id && !rst_epoll_flight_ok(t, te))
			return cr_fail_errno(
			    e, EBADMSG,
			    "files.img: epoll fd %d: its target in flight (file id %#x of task "
			    "%d) cannot be made",
			    fi->fd, te->flight_id, te->has_flight_pid ? te->flight_pid : rst_ipid(t));
		if (!te->has_flight_id && !tree_has(t, te->target_pid))
			return cr_fail_errno(e, EBADMSG,
					     "files.img: epoll fd %d: target in task %d, not in the tree",
					     fi->fd, te->target_pid);
	}
	if (f->kind != FILE_KIND__FILE_PIDFD || f->pidfd->in_tree || f->pidfd->pid <= 0)
		return 0;
	pid_t pid = f->pidfd->pid;
	if (tree_has(t, pid))
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return cr_fail_errno(e, ESRCH,
				     "fd %d is a pidfd of process %d (outside the tree), which is gone",
				     fi->fd, pid);
	return 0;
}

static int set_fl(int fd, uint32_t flags, char *msg, size_t len)
{
	if (fcntl(fd, F_SETFL, (int)(flags & ~(uint32_t)O_ACCMODE)) < 0)
		return rst_errmsg(msg, len, "fd %d: set flags %#o", fd, flags);
	return 0;
}

/* fd with the status flags of the image; -1 (and fd closed) on error */
static int with_fl(int fd, uint32_t flags, char *msg, size_t len)
{
	if (set_fl(fd, flags, msg, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

int rst_eventfd_make(const FileEntry *f, char *msg, size_t len)
{
	const EventfdEntry *ev = f->eventfd;
	int fd = eventfd(0, EFD_CLOEXEC | (ev->semaphore ? EFD_SEMAPHORE : 0));
	if (fd < 0)
		return rst_errmsg(msg, len, "eventfd");
	if (ev->counter && write(fd, &ev->counter, sizeof(ev->counter)) != sizeof(ev->counter)) {
		rst_errmsg(msg, len, "eventfd counter %llu", (unsigned long long)ev->counter);
		close(fd);
		return -1;
	}
	return with_fl(fd, ev->flags, msg, len);
}

int rst_signalfd_make(const FileEntry *f, char *msg, size_t len)
{
	uint64_t mask = f->signalfd->sigmask;
	int fd = (int)syscall(SYS_signalfd4, -1, &mask, sizeof(mask), O_CLOEXEC);
	if (fd < 0)
		return rst_errmsg(msg, len, "signalfd mask %#llx", (unsigned long long)mask);
	return with_fl(fd, f->signalfd->flags, msg, len);
}

static int64_t ts_ns(uint64_t s, uint64_t ns)
{
	return (int64_t)s * NSEC + (int64_t)ns;
}

static struct timespec ns_ts(int64_t v)
{
	return (struct timespec){.tv_sec = v / NSEC, .tv_nsec = v % NSEC};
}

/* The value as it would be now: the time left at dump minus the time since. An absolute timer keeps its
 * expiry (dump time + time left). A relative one whose expiry passed while it was not running stays
 * relative (its settime flags as saved: fdinfo shows them): a one-shot one armed to expire at once, a
 * periodic one at its next expiry on its grid, the expiries passed (*passed) counted as ticks by the
 * caller; where ticks cannot be set, armed at that absolute expiry (the kernel counts them, TFD_TIMER_ABSTIME
 * added). */
static int arm_timer(int fd, const TimerfdEntry *tf, uint64_t *passed, char *msg, size_t len)
{
	struct itimerspec its = {.it_interval = ns_ts(ts_ns(tf->interval_sec, tf->interval_nsec))};
	int64_t left = ts_ns(tf->value_sec, tf->value_nsec), iv = ts_ns(tf->interval_sec, tf->interval_nsec);
	int flags = (int)tf->settime_flags;
	struct timespec now;
	*passed = 0;
	if (!left && !iv) /* disarmed, its flags kept */
		return flags && timerfd_settime(fd, flags, &its, NULL)
			   ? rst_errmsg(msg, len, "timerfd_settime")
			   : 0;
	if (clock_gettime(tf->clockid, &now))
		return rst_errmsg(msg, len, "timerfd clock %d", tf->clockid);
	if (!left) { /* a periodic timer that expired, re-armed at the next read: expired again at once */
		its.it_value.tv_nsec = 1;
		if (timerfd_settime(fd, flags, &its, NULL))
			return rst_errmsg(msg, len, "timerfd_settime");
		return 0;
	}
	int64_t expiry = ts_ns(tf->dump_now_sec, tf->dump_now_nsec) + left;
	int64_t rel = expiry - ts_ns((uint64_t)now.tv_sec, (uint64_t)now.tv_nsec);
	if (flags & TFD_TIMER_ABSTIME)
		its.it_value = ns_ts(expiry);
	else if (rel > 0)
		its.it_value = ns_ts(rel);
	else if (!iv)
		its.it_value = ns_ts(1);
	else { /* expiry + k * iv <= now for k < passed: the next one, (0, iv] ahead */
		*passed = (uint64_t)(-rel / iv + 1);
		its.it_value = ns_ts(rel + (int64_t)*passed * iv);
	}
	if (timerfd_settime(fd, flags, &its, NULL))
		return rst_errmsg(msg, len, "timerfd_settime");
	return 0;
}

/* The expiries of tf not read yet and those passed while it did not run (arm_timer): its ticks (best
 * effort, TFD_IOC_SET_TICKS needs CONFIG_CHECKPOINT_RESTORE; passed ones without it: armed absolute). */
static int set_ticks(int fd, const TimerfdEntry *tf, uint64_t passed, char *msg, size_t len)
{
	uint64_t ticks = tf->ticks + passed;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (!ticks)
		return 0;
	if (!tf->value_sec && !tf->value_nsec)
		poll(&p, 1, 100); /* its expiry above is counted before the count is set */
	if (!ioctl(fd, TFD_IOC_SET_TICKS, &ticks) || !passed)
		return 0;
	int64_t at = ts_ns(tf->dump_now_sec, tf->dump_now_nsec) + ts_ns(tf->value_sec, tf->value_nsec);
	struct itimerspec its = {ns_ts(ts_ns(tf->interval_sec, tf->interval_nsec)), ns_ts(at)};
	if (timerfd_settime(fd, (int)tf->settime_flags | TFD_TIMER_ABSTIME, &its, NULL))
		return rst_errmsg(msg, len, "timerfd_settime");
	return 0;
}

int rst_timerfd_make(const FileEntry *f, char *msg, size_t len)
{
	const TimerfdEntry *tf = f->timerfd;
	uint64_t passed;
	int fd = timerfd_create(tf->clockid, TFD_CLOEXEC);
	if (fd < 0)
		return rst_errmsg(msg, len, "timerfd_create clock %d", tf->clockid);
	if (arm_timer(fd, tf, &passed, msg, len) || set_ticks(fd, tf, passed, msg, len)) {
		close(fd);
		return -1;
	}
	return with_fl(fd, tf->flags, msg, len);
}

/* An epoll set without its interest list (the processes add their targets, see restore-epoll.c). */
int rst_epoll_make(const FileEntry *f, char *msg, size_t len)
{
	int fd = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0)
		return rst_errmsg(msg, len, "epoll_create1");
	return with_fl(fd, f->epoll->flags, msg, len);
}

static int dead_pidfd(unsigned flags);

/* crshim: the reaped processes of pidfds, by the pidfs inode they had at dump: a child that exited, left a
 * zombie until every pidfd of it is made (rst_evfd_share), so that each is a pidfd_open of its own */
struct dead_pidfd {
	uint64_t inode;
	pid_t zombie; /* 0 once reaped */
	int fd;	      /* its first pidfd */
};
static struct dead_pidfd *deads;
static size_t nr_deads;

bool rst_pidfd_dead_once(const FileEntry *f)
{
	return f->pidfd && f->pidfd->pid <= 0 && f->pidfd->has_inode;
}

static void reap_deads(void)
{
	for (size_t i = 0; i < nr_deads; i++)
		if (deads[i].zombie > 0) {
			waitpid(deads[i].zombie, NULL, 0);
			deads[i].zombie = 0;
		}
}

/* A pidfd of the reaped process pf names: every pidfd of one (same inode at dump) a new open file
 * description of the same process, so that they still name one process. */
static int dead_pidfd_of(const PidfdEntry *pf, unsigned flags)
{
	char path[64];
	if (!pf->has_inode)
		return dead_pidfd(flags);
	for (size_t i = 0; i < nr_deads; i++)
		if (deads[i].inode == pf->inode) {
			if (deads[i].zombie > 0)
				return (int)syscall(SYS_pidfd_open, deads[i].zombie, flags);
			snprintf(path, sizeof(path), "fd/%d", deads[i].fd); /* (files/ghost.h) */
			return rst_self_proc_open(path, O_RDWR | O_CLOEXEC | (int)(flags & O_NONBLOCK));
		}
	struct dead_pidfd *nd = realloc(deads, (nr_deads + 1) * sizeof(*nd));
	if (!nd)
		return -1;
	deads = nd;
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	if (child < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_open, child, flags),
	    keep = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (keep < 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		waitpid(child, NULL, 0);
		errno = saved;
		return -1;
	}
	deads[nr_deads++] = (struct dead_pidfd){pf->inode, child, keep};
	return fd;
}

/* A pidfd of a process outside the tree, or of one that is gone. */
int rst_pidfd_make(const FileEntry *f, char *msg, size_t len)
{
	const PidfdEntry *pf = f->pidfd;
	unsigned flags = pf->flags & (O_NONBLOCK | O_EXCL);
	int fd = pf->pid <= 0 ? dead_pidfd_of(pf, flags) : (int)syscall(SYS_pidfd_open, pf->pid, flags);
	if (fd < 0)
		return rst_errmsg(msg, len, "pidfd_open %d", pf->pid);
	return with_fl(fd, pf->flags, msg, len);
}

/* A new file of an event fd kind that crshim can make for several processes (a pidfd only of a process
 * outside the tree): its kind's make. */
static int make_file(const FileEntry *f, char *msg, size_t len)
{
	const struct fd_kind *k = fd_kind_of(f->kind);
	if (!k || !k->make) {
		errno = 0;
		return rst_errmsg(msg, len, "file kind %d cannot be made here", f->kind);
	}
	return k->make(f, msg, len);
}

/* A pidfd of a process that had exited and was reaped: one of a child that is gone. */
static int dead_pidfd(unsigned flags)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	if (child < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_open, child, flags);
	int saved = errno;
	waitpid(child, NULL, 0);
	errno = saved;
	return fd;
}

/* fd is a pidfd of pid ("Pid:" in its fdinfo). */
static bool pidfd_of(int fd, pid_t pid)
{
	char rel[32], buf[512], *p;
	snprintf(rel, sizeof(rel), "fdinfo/%d", fd);
	int f = rst_self_proc_open(rel, O_RDONLY | O_CLOEXEC);
	ssize_t n = f < 0 ? -1 : read(f, buf, sizeof(buf) - 1);
	if (f >= 0)
		close(f);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return (p = strstr(buf, "\nPid:")) && atoi(p + 6) == pid;
}

/* The pidfd (of a process of the tree) that fd sfd of the process spid holds: a copy of the same file, taken
 * once spid has opened it (a few seconds at most; till then sfd may be another file). */
static int copy_pidfd(const struct rst_task *t, const PidfdEntry *pf, char *msg, size_t len)
{
	/* pids as we see them (the image has crshim's view: a PID namespace of the tree shows others) */
	pid_t want = pf->pid > 0 ? rst_pidns_vid(t, pf->pid) : pf->pid;
	__cleanup_close int pfd = (int)syscall(SYS_pidfd_open, rst_pidns_vid(t, pf->shared_pid), 0);
	if (pfd < 0)
		return rst_errmsg(msg, len, "pidfd_open %d (holder of a shared pidfd)", pf->shared_pid);
	for (int i = 0; i < 5000; i++) {
		int fd = (int)syscall(SYS_pidfd_getfd, pfd, pf->shared_fd, 0);
		if (fd >= 0 && pidfd_of(fd, want))
			return fd;
		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
	errno = ETIMEDOUT;
	return rst_errmsg(msg, len, "pidfd of %d: copy from fd %d of task %d", pf->pid, pf->shared_fd,
			  pf->shared_pid);
}

int rst_pidfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len)
{
	const PidfdEntry *pf = f->pidfd;
	unsigned flags = pf->flags & (O_NONBLOCK | O_EXCL); /* PIDFD_NONBLOCK, PIDFD_THREAD */
	int fd = -1;
	if (pf->has_shared_pid && pf->has_shared_fd) {
		if ((fd = copy_pidfd(t, pf, msg, len)) < 0)
			return -1;
		return rst_fd_at(fd, fi->fd, msg, len);
	}
	/* a process of the tree by its pid in our PID namespace (the image has crshim's view) */
	pid_t pid = pf->in_tree && pf->pid > 0 ? rst_pidns_vid(t, pf->pid) : pf->pid;
	if (pid <= 0) {
		fd = dead_pidfd(flags);
	} else {
		/* a process of the tree its parent has not made yet: wait for it (a few seconds at most) */
		for (int i = 0; i < (pf->in_tree ? 5000 : 1); i++) {
			fd = (int)syscall(SYS_pidfd_open, pid, flags);
			if (fd >= 0 || errno != ESRCH)
				break;
			usleep(1000);
		}
	}
	if (fd < 0)
		return rst_errmsg(msg, len, "fd %d: pidfd_open %d (%d here)", fi->fd, pf->pid, pid);
	return rst_fd_at(fd, fi->fd, msg, len) || set_fl(fi->fd, pf->flags, msg, len);
}

int rst_evfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		  size_t len)
{
	return rst_fd_made_at(make_file(f, msg, len), fi->fd, NULL, msg, len);
}

/* ---------------------------------------------------------------- parent: files held by several processes */

static int *shared_fds;
static size_t nr_shared_fds;

static bool shared_of(const FileEntry *f, pid_t *pid, int *fd)
{
	int32_t p = 0, d = -1;
	bool has = false;
#define SH(m)                                                                                                \
	(has = (m) && (m)->has_shared_pid && (m)->has_shared_fd, p = has ? (m)->shared_pid : 0,              \
	 d = has ? (m)->shared_fd : -1)
	switch (f->kind) {
	case FILE_KIND__FILE_EVENTFD:
		SH(f->eventfd);
		break;
	case FILE_KIND__FILE_SIGNALFD:
		SH(f->signalfd);
		break;
	case FILE_KIND__FILE_TIMERFD:
		SH(f->timerfd);
		break;
	case FILE_KIND__FILE_MEMFD:
		SH(f->memfd);
		break;
	case FILE_KIND__FILE_INOTIFY:
		SH(f->inotify);
		break;
	case FILE_KIND__FILE_FANOTIFY:
		SH(f->fanotify);
		break;
	case FILE_KIND__FILE_EPOLL:
		SH(f->epoll);
		break;
	case FILE_KIND__FILE_PIDFD: /* of a process of the tree: the holder opens it, the others copy it */
		if (f->pidfd && !(f->pidfd->in_tree && f->pidfd->pid > 0))
			SH(f->pidfd);
		break;
	default:
		break;
	}
#undef SH
	*pid = p, *fd = d;
	return has;
}

/* The file entry of fd in task pid of the tree (*ht), NULL if there is none. */
static FileEntry *entry_of(struct rst_task *ts, size_t n, pid_t pid, int fd, const struct rst_task **ht)
{
	for (size_t k = 0; k < n; k++) {
		if (rst_ipid(&ts[k]) != pid)
			continue;
		*ht = &ts[k];
		for (size_t i = 0; i < ts[k].nr_fdinfo; i++)
			if (ts[k].fdinfo[i]->fd == fd)
				return (FileEntry *)rst_file_by_id(&ts[k], ts[k].fdinfo[i]->id);
	}
	return NULL;
}

/* Entry f of task t becomes FILE_INHERIT of fd, the file of fd hfd of task pid. */
static int to_inherit(const struct rst_task *t, FileEntry *f, int fd, pid_t pid, int hfd, struct cr_err *e)
{
	char desc[64];
	snprintf(desc, sizeof(desc), "event fd %d of task %d", hfd, pid);
	return rst_file_inherit(t, f, fd, desc, e);
}

/* Make the file of the holder h (fd hfd of task hpid, ht) here, once, into *fd; h becomes FILE_INHERIT of
 * it. A dry run (restore-check.c) makes nothing: every such entry becomes FILE_INHERIT of fd -1. */
static int make_holder(const struct rst_task *ht, FileEntry *h, pid_t hpid, int hfd, int *fd,
		       struct cr_err *e)
{
	char msg[512] = "";
	*fd = h->inherit_fd;
	if (h->kind == FILE_KIND__FILE_INHERIT)
		return 0;
	int *n = ht->dry ? NULL : realloc(shared_fds, (nr_shared_fds + 1) * sizeof(*n));
	if (!n && !ht->dry)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	shared_fds = n ? n : shared_fds;
	*fd = ht->dry ? -1 : make_file(h, msg, sizeof(msg));
	if (*fd < 0 && !ht->dry)
		return cr_fail(e, "task %d fd %d (held by several processes): %s", hpid, hfd, msg);
	if (!ht->dry)
		shared_fds[nr_shared_fds++] = *fd;
	pr_info("task %d fd %d (file kind %d) is held by several processes: made once (fd %d)\n", hpid, hfd,
		h->kind, *fd);
	return to_inherit(ht, h, *fd, hpid, hfd, e);
}

/* The first fd of file id in task t. */
static int fd_of_id(const struct rst_task *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++)
		if (t->fdinfo[i]->id == id)
			return t->fdinfo[i]->fd;
	return -1;
}

static int evfd_share(struct rst_task *ts, size_t n, struct cr_err *e);

int rst_evfd_share(struct rst_task *ts, size_t n, struct cr_err *e)
{
	rst_notify_later(n && ts[0].paths_later); /* (the children make theirs after pivot_root) */
	int ret = evfd_share(ts, n, e);
	rst_notify_later(false);
	return ret;
}

static int evfd_share(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			pid_t hpid;
			int hfd;
			const struct fd_kind *fk = fd_kind_of(f->kind);
			bool mapped = fk && fk->made_once && fk->made_once(f);
			int fd;
			if (!shared_of(f, &hpid, &hfd) &&
			    mapped) { /* also mapped: an open of the mapped memfd */
				if (make_holder(&ts[k], f, ts[k].pid, fd_of_id(&ts[k], f->id), &fd, e))
					return -1;
				continue;
			}
			if (!shared_of(f, &hpid, &hfd))
				continue;
			const struct rst_task *ht = NULL;
			FileEntry *h = entry_of(ts, n, hpid, hfd, &ht);
			if (!h || (h->kind != f->kind && h->kind != FILE_KIND__FILE_INHERIT))
				return cr_fail_errno(e, EBADMSG,
						     "task %d: file id %u is shared with fd %d of task %d, "
						     "which the images lack",
						     ts[k].pid, f->id, hfd, hpid);
			if (make_holder(ht, h, hpid, hfd, &fd, e) || to_inherit(&ts[k], f, fd, hpid, hfd, e))
				return -1;
		}
	reap_deads(); /* every pidfd of a reaped process is made: no zombie of crshim while the tree is made
		       */
	return 0;
}

int rst_evfd_share_one(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e)
{
	pid_t hpid;
	int hfd, fd;
	if (!shared_of(f, &hpid, &hfd))
		return make_holder(t, f, t->pid, fd_of_id(t, f->id), &fd, e);
	const struct rst_task *ht = NULL;
	FileEntry *h = entry_of(ts, n, hpid, hfd, &ht);
	if (!h || (h->kind != f->kind && h->kind != FILE_KIND__FILE_INHERIT))
		return cr_fail_errno(
		    e, EBADMSG, "task %d: file id %u is shared with fd %d of task %d, which the images lack",
		    t->pid, f->id, hfd, hpid);
	return make_holder(ht, h, hpid, hfd, &fd, e) || to_inherit(t, f, fd, hpid, hfd, e) ? -1 : 0;
}

void rst_evfd_share_done(void)
{
	for (size_t i = 0; i < nr_shared_fds; i++)
		close(shared_fds[i]);
	free(shared_fds);
	shared_fds = NULL;
	nr_shared_fds = 0;
	reap_deads();
	for (size_t i = 0; i < nr_deads; i++)
		close(deads[i].fd);
	free(deads);
	deads = NULL;
	nr_deads = 0;
}
