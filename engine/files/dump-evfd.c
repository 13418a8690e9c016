/* Dump of event fds (see evfd.h): the dispatch, and eventfd, signalfd, timerfd and pidfd, whose whole
 * state is in /proc/PID/fdinfo/FD. */
#define LOG_PREFIX "dump-evfd: "
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "base/log.h"

#define PIDFS_MAGIC_ 0x50494446

int dump_evfd_fdinfo(pid_t pid, int fd, char **out, struct cr_err *e)
{
	char name[48];
	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	return proc_read(pid, name, out, NULL, e);
}

int dump_evfd_take(pid_t pid, int fd, struct cr_err *e)
{
	__cleanup_close int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return cr_fail_sys(e, "pidfd_open %d", pid);
	int cfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	if (cfd < 0)
		return cr_fail_sys(e, "pidfd_getfd %d fd %d", pid, fd);
	return cfd;
}

/* The value after "key" at the start of a line of fdinfo text; NULL if there is none. */
static const char *field(const char *txt, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = txt; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl))
			return p + kl;
	return NULL;
}

static int field_u64(const char *txt, const char *key, int base, uint64_t *v)
{
	const char *p = field(txt, key);
	char *end;
	if (!p)
		return -1;
	errno = 0;
	*v = strtoull(p, &end, base);
	return end == p || errno ? -1 : 0;
}

static int bad_fdinfo(const struct evfd_src *s, const char *what, struct cr_err *e)
{
	return cr_fail_errno(e, EINVAL, "fd %d (%s): no %s in /proc/%d/fdinfo/%d", s->fd, s->link, what,
			     s->pid, s->fd);
}

static int fill_eventfd(const struct evfd_src *s, const char *txt, FileEntry *fe, struct cr_err *e)
{
	uint64_t cnt, sem = 0;
	if (field_u64(txt, "eventfd-count:", 16, &cnt))
		return bad_fdinfo(s, "eventfd-count", e);
	if (field_u64(txt, "eventfd-semaphore:", 10, &sem))
		pr_warn("fd %d: the kernel does not show EFD_SEMAPHORE: restored without it\n", s->fd);
	EventfdEntry *ev = malloc(sizeof(*ev));
	if (!ev)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	eventfd_entry__init(ev);
	ev->counter = cnt, ev->has_counter = 1;
	ev->semaphore = sem != 0, ev->has_semaphore = 1;
	ev->flags = s->flags, ev->has_flags = 1;
	fe->eventfd = ev;
	fe->kind = FILE_KIND__FILE_EVENTFD, fe->has_kind = 1;
	pr_debug("fd %d: eventfd counter %" PRIu64 "%s\n", s->fd, cnt, sem ? " semaphore" : "");
	return 0;
}

static int fill_signalfd(const struct evfd_src *s, const char *txt, FileEntry *fe, struct cr_err *e)
{
	uint64_t mask;
	if (field_u64(txt, "sigmask:", 16, &mask))
		return bad_fdinfo(s, "sigmask", e);
	SignalfdEntry *sf = malloc(sizeof(*sf));
	if (!sf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	signalfd_entry__init(sf);
	sf->sigmask = mask, sf->has_sigmask = 1;
	sf->flags = s->flags, sf->has_flags = 1;
	fe->signalfd = sf;
	fe->kind = FILE_KIND__FILE_SIGNALFD, fe->has_kind = 1;
	return 0;
}

/* "(SEC, NSEC)" after key */
static int field_pair(const char *txt, const char *key, uint64_t *a, uint64_t *b)
{
	const char *p = field(txt, key);
	unsigned long long x, y;
	if (!p || sscanf(p, " (%llu, %llu)", &x, &y) != 2)
		return -1;
	*a = x, *b = y;
	return 0;
}

static int fill_timerfd(const struct evfd_src *s, const char *txt, FileEntry *fe, struct cr_err *e)
{
	uint64_t clk, ticks, fl, vs, vn, isec, insec;
	struct timespec now;
	if (field_u64(txt, "clockid:", 10, &clk) || field_u64(txt, "ticks:", 10, &ticks) ||
	    field_u64(txt, "settime flags:", 8, &fl) || field_pair(txt, "it_value:", &vs, &vn) ||
	    field_pair(txt, "it_interval:", &isec, &insec))
		return bad_fdinfo(s, "timer state", e);
	if (clock_gettime((clockid_t)clk, &now))
		return cr_fail_sys(e, "fd %d: timerfd clock %d", s->fd, (int)clk);
	TimerfdEntry *tf = malloc(sizeof(*tf));
	if (!tf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	timerfd_entry__init(tf);
	tf->clockid = (int32_t)clk, tf->has_clockid = 1;
	tf->ticks = ticks, tf->has_ticks = 1;
	tf->settime_flags = (uint32_t)fl, tf->has_settime_flags = 1;
	tf->value_sec = vs, tf->has_value_sec = 1;
	tf->value_nsec = vn, tf->has_value_nsec = 1;
	tf->interval_sec = isec, tf->has_interval_sec = 1;
	tf->interval_nsec = insec, tf->has_interval_nsec = 1;
	tf->dump_now_sec = (uint64_t)now.tv_sec, tf->has_dump_now_sec = 1;
	tf->dump_now_nsec = (uint64_t)now.tv_nsec, tf->has_dump_now_nsec = 1;
	tf->flags = s->flags, tf->has_flags = 1;
	fe->timerfd = tf;
	fe->kind = FILE_KIND__FILE_TIMERFD, fe->has_kind = 1;
	pr_debug("fd %d: timerfd clock %d left %" PRIu64 ".%09" PRIu64 " interval %" PRIu64 ".%09" PRIu64
		 " ticks %" PRIu64 "\n",
		 s->fd, (int)clk, vs, vn, isec, insec, ticks);
	return 0;
}

static bool in_tree(const struct dump_ctx *c, pid_t pid)
{
	for (size_t i = 0; i < c->ntree; i++)
		if (c->tree[i].pid == pid)
			return true;
	return c->pid == pid;
}

/* The pidfd is a file of pidfs (one inode per process), not an anonymous inode (one for all). */
static bool pidfs(const struct evfd_src *s)
{
	char path[64];
	struct statfs sfs;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", s->pid, s->fd);
	return !statfs(path, &sfs) && (unsigned long)sfs.f_type == PIDFS_MAGIC_;
}

static int fill_pidfd(struct dump_ctx *c, const struct evfd_src *s, const char *txt, FileEntry *fe,
		      struct cr_err *e)
{
	const char *p = field(txt, "Pid:");
	char *end;
	if (!p)
		return bad_fdinfo(s, "Pid", e);
	long pid = strtol(p, &end, 10);
	if (end == p)
		return bad_fdinfo(s, "Pid", e);
	if (pid == 0)
		return cr_fail(e, "fd %d is a pidfd of a process outside crshim's PID namespace", s->fd);
	PidfdEntry *pf = malloc(sizeof(*pf));
	if (!pf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pidfd_entry__init(pf);
	pf->pid = (int32_t)pid, pf->has_pid = 1;
	pf->flags = s->flags, pf->has_flags = 1;
	pf->in_tree = pid > 0 && in_tree(c, (pid_t)pid), pf->has_in_tree = 1;
	if (pid < 0 && pidfs(s)) /* a reaped process: its pidfds are known to be one by their inode */
		pf->inode = (uint64_t)s->st->st_ino, pf->has_inode = 1;
	fe->pidfd = pf;
	fe->kind = FILE_KIND__FILE_PIDFD, fe->has_kind = 1;
	pr_debug("fd %d: pidfd of %ld%s\n", s->fd, pid, pf->in_tree ? " (in the tree)" : "");
	return 0;
}

/* An fd of process pid with the same open file description as s (and the same link); -1 if none. */
static int same_file(pid_t pid, const struct evfd_src *s)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char name[300], link[512];
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "/proc/%d/fd/%s", pid, de->d_name);
		ssize_t n = readlink(name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		int fd = atoi(de->d_name);
		if (!strcmp(link, s->link) && syscall(SYS_kcmp, pid, s->pid, KCMP_FILE, fd, s->fd) == 0)
			return fd;
	}
	return -1;
}

#define SET_SHARED(m, p, f)                                                                                  \
	((m)->shared_pid = (p), (m)->has_shared_pid = 1, (m)->shared_fd = (f), (m)->has_shared_fd = 1)

/* The same open file description held by a process before this one in the tree: restore makes it once
 * (in crshim) and hands it to each holder; a pidfd of a process of the tree the first holder opens and the
 * others copy from it (restore-evfd.c). */
static void mark_shared(const struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe)
{
	for (size_t i = 0; i < c->ntree && c->tree[i].pid != c->pid; i++) {
		pid_t p = c->tree[i].pid;
		int fd = c->tree[i].zombie ? -1 : same_file(p, s);
		if (fd < 0)
			continue;
		pr_debug("fd %d: the same file as fd %d of task %d\n", s->fd, fd, p);
		if (fe->eventfd)
			SET_SHARED(fe->eventfd, p, fd);
		else if (fe->signalfd)
			SET_SHARED(fe->signalfd, p, fd);
		else if (fe->timerfd)
			SET_SHARED(fe->timerfd, p, fd);
		else if (fe->memfd)
			SET_SHARED(fe->memfd, p, fd);
		else if (fe->inotify)
			SET_SHARED(fe->inotify, p, fd);
		else if (fe->fanotify)
			SET_SHARED(fe->fanotify, p, fd);
		else if (fe->epoll)
			SET_SHARED(fe->epoll, p, fd);
		else if (fe->pidfd)
			SET_SHARED(fe->pidfd, p, fd);
		return;
	}
}

int dump_evfd_done(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, int r)
{
	if (r == 0 && c->ntree > 1)
		mark_shared(c, s, fe);
	if (r == 0 && fe->inotify && !fe->inotify->has_shared_pid) /* once for a shared queue */
		dump_notify_queued(c, s, "inotify");
	if (r == 0 && fe->fanotify && !fe->fanotify->has_shared_pid)
		dump_notify_queued(c, s, "fanotify");
	return r;
}

void evfd_src_of(const struct fd_src *f, struct evfd_src *s)
{
	*s = (struct evfd_src){f->pid, f->fd, f->link, &f->st, f->fi.flags & ~(uint32_t)O_CLOEXEC, f->fi.pos};
}

#define FREE_SUB(x)                                                                                          \
	do {                                                                                                 \
		if (x)                                                                                       \
			protobuf_c_message_free_unpacked(&(x)->base, NULL);                                  \
		(x) = NULL;                                                                                  \
	} while (0)

void dump_evfd_release(FileEntry *fe)
{
	FREE_SUB(fe->eventfd);
	FREE_SUB(fe->epoll);
	FREE_SUB(fe->signalfd);
	FREE_SUB(fe->timerfd);
	FREE_SUB(fe->inotify);
	FREE_SUB(fe->fanotify);
	FREE_SUB(fe->memfd);
	FREE_SUB(fe->pidfd);
}

void dump_evfd_kind_release(FileEntry *fe, struct fd_src *f)
{
	dump_evfd_release(fe);
}

/* ---------------------------------------------------------------- the kinds whose state is in fdinfo */

typedef int (*fdinfo_fill_fn)(struct dump_ctx *c, const struct evfd_src *s, const char *txt, FileEntry *fe,
			      struct cr_err *e);

static int dump_by_fdinfo(struct dump_ctx *c, struct fd_src *f, FileEntry *fe, fdinfo_fill_fn fill,
			  struct cr_err *e)
{
	struct evfd_src s;
	evfd_src_of(f, &s);
	__cleanup_free char *txt = NULL;
	if (dump_evfd_fdinfo(s.pid, s.fd, &txt, e))
		return cr_wrap(e, "fd %d", s.fd);
	return dump_evfd_done(c, &s, fe, fill(c, &s, txt, fe, e));
}

#define LINK_IS(f, p) (!strncmp((f)->link, p, strlen(p)))

static bool is_eventfd(const struct dump_ctx *c, const struct fd_src *f)
{
	return LINK_IS(f, "anon_inode:[eventfd]");
}

static bool is_signalfd(const struct dump_ctx *c, const struct fd_src *f)
{
	return LINK_IS(f, "anon_inode:[signalfd]");
}

static bool is_timerfd(const struct dump_ctx *c, const struct fd_src *f)
{
	return LINK_IS(f, "anon_inode:[timerfd]");
}

static bool is_pidfd(const struct dump_ctx *c, const struct fd_src *f)
{
	return LINK_IS(f, "anon_inode:[pidfd]") || LINK_IS(f, "pidfd:");
}

static int eventfd_of(struct dump_ctx *c, const struct evfd_src *s, const char *txt, FileEntry *fe,
		      struct cr_err *e)
{
	return fill_eventfd(s, txt, fe, e);
}

static int signalfd_of(struct dump_ctx *c, const struct evfd_src *s, const char *txt, FileEntry *fe,
		       struct cr_err *e)
{
	return fill_signalfd(s, txt, fe, e);
}

static int timerfd_of(struct dump_ctx *c, const struct evfd_src *s, const char *txt, FileEntry *fe,
		      struct cr_err *e)
{
	return fill_timerfd(s, txt, fe, e);
}

static int dump_eventfd(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_by_fdinfo(c, f, fe, eventfd_of, e);
}

static int dump_signalfd(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_by_fdinfo(c, f, fe, signalfd_of, e);
}

static int dump_timerfd(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_by_fdinfo(c, f, fe, timerfd_of, e);
}

static int dump_pidfd(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_by_fdinfo(c, f, fe, fill_pidfd, e);
}

FD_KIND(fdk_eventfd) = {
    .name = "eventfd",
    .kind = FILE_KIND__FILE_EVENTFD,
    .prio = 60,
    .is = is_eventfd,
    .dump = dump_eventfd,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_evfd_open,
    .make = rst_eventfd_make,
    .flight = rst_evfd_share_one,
};

FD_KIND(fdk_signalfd) = {
    .name = "signalfd",
    .kind = FILE_KIND__FILE_SIGNALFD,
    .prio = 61,
    .is = is_signalfd,
    .dump = dump_signalfd,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_evfd_open,
    .make = rst_signalfd_make,
    .flight = rst_evfd_share_one,
};

FD_KIND(fdk_timerfd) = {
    .name = "timerfd",
    .kind = FILE_KIND__FILE_TIMERFD,
    .prio = 62,
    .is = is_timerfd,
    .dump = dump_timerfd,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_evfd_open,
    .make = rst_timerfd_make,
    .flight = rst_evfd_share_one,
};

/* (in flight: no; a pidfd of a process of the tree is opened by its first holder, the others copy it) */
FD_KIND(fdk_pidfd) = {
    .name = "pidfd",
    .kind = FILE_KIND__FILE_PIDFD,
    .prio = 63,
    .is = is_pidfd,
    .dump = dump_pidfd,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_pidfd_open,
    .make = rst_pidfd_make,
    .made_once = rst_pidfd_dead_once,
};
