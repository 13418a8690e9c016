/* Restore of event fds (see evfd.h): the checks, the dispatch, and eventfd, signalfd, timerfd, pidfd.
 * Child side: errors as text for the error pipe, nothing is logged. */
#define LOG_PREFIX "restore-evfd: "
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "evfd.h"
#include "restore.h"

#ifndef TFD_IOC_SET_TICKS
#define TFD_IOC_SET_TICKS _IOW('T', 0, uint64_t)
#endif
#define NSEC 1000000000LL

static int emsg(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int emsg(char *msg, size_t len, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	if (saved && n >= 0 && (size_t)n < len)
		snprintf(msg + n, len - (size_t)n, ": %s", strerror(saved));
	return -1;
}

bool rst_evfd_kind(int kind)
{
	switch (kind) {
	case FILE_KIND__FILE_EVENTFD:
	case FILE_KIND__FILE_EPOLL:
	case FILE_KIND__FILE_SIGNALFD:
	case FILE_KIND__FILE_TIMERFD:
	case FILE_KIND__FILE_INOTIFY:
	case FILE_KIND__FILE_FANOTIFY:
	case FILE_KIND__FILE_MEMFD:
	case FILE_KIND__FILE_PIDFD:
		return true;
	default:
		return false;
	}
}

static bool tree_has(const struct rst_task *t, pid_t pid)
{
	for (size_t i = 0; i < t->ntree; i++)
		if (t->tree[i].pid == pid)
			return true;
	return t->pid == pid;
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

/* Move the new fd tmp to fi->fd. */
static int place(int tmp, const FdinfoEntry *fi, char *msg, size_t len)
{
	if (tmp == fi->fd)
		return 0;
	if (dup2(tmp, fi->fd) < 0)
		return emsg(msg, len, "fd %d: dup2", fi->fd);
	close(tmp);
	return 0;
}

static int set_fl(int fd, uint32_t flags, char *msg, size_t len)
{
	if (fcntl(fd, F_SETFL, (int)(flags & ~(uint32_t)O_ACCMODE)) < 0)
		return emsg(msg, len, "fd %d: set flags %#o", fd, flags);
	return 0;
}

static int open_eventfd(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	const EventfdEntry *ev = f->eventfd;
	int fd = eventfd(0, ev->semaphore ? EFD_SEMAPHORE : 0);
	if (fd < 0)
		return emsg(msg, len, "fd %d: eventfd", fi->fd);
	if (ev->counter && write(fd, &ev->counter, sizeof(ev->counter)) != sizeof(ev->counter))
		return emsg(msg, len, "fd %d: eventfd counter %llu", fi->fd, (unsigned long long)ev->counter);
	return place(fd, fi, msg, len) || set_fl(fi->fd, ev->flags, msg, len);
}

static int open_signalfd(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	uint64_t mask = f->signalfd->sigmask;
	int fd = (int)syscall(SYS_signalfd4, -1, &mask, sizeof(mask), 0);
	if (fd < 0)
		return emsg(msg, len, "fd %d: signalfd mask %#llx", fi->fd, (unsigned long long)mask);
	return place(fd, fi, msg, len) || set_fl(fi->fd, f->signalfd->flags, msg, len);
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
 * expiry (dump time + time left); a relative one whose expiry passed while it was not running is armed
 * at that absolute expiry, so the kernel counts the periods missed as ticks. */
static int arm_timer(int fd, const TimerfdEntry *tf, char *msg, size_t len)
{
	struct itimerspec its = {.it_interval = ns_ts(ts_ns(tf->interval_sec, tf->interval_nsec))};
	int64_t left = ts_ns(tf->value_sec, tf->value_nsec);
	int flags = (int)tf->settime_flags;
	struct timespec now;
	if (!left)
		return 0; /* disarmed */
	if (clock_gettime(tf->clockid, &now))
		return emsg(msg, len, "timerfd clock %d", tf->clockid);
	int64_t expiry = ts_ns(tf->dump_now_sec, tf->dump_now_nsec) + left;
	int64_t rel = expiry - ts_ns((uint64_t)now.tv_sec, (uint64_t)now.tv_nsec);
	if ((flags & TFD_TIMER_ABSTIME) || rel <= 0) {
		its.it_value = ns_ts(expiry);
		flags |= TFD_TIMER_ABSTIME;
	} else {
		its.it_value = ns_ts(rel);
	}
	if (timerfd_settime(fd, flags, &its, NULL))
		return emsg(msg, len, "timerfd_settime");
	return 0;
}

static int open_timerfd(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	const TimerfdEntry *tf = f->timerfd;
	int fd = timerfd_create(tf->clockid, 0);
	if (fd < 0)
		return emsg(msg, len, "fd %d: timerfd_create clock %d", fi->fd, tf->clockid);
	if (place(fd, fi, msg, len) || arm_timer(fi->fd, tf, msg, len))
		return -1;
	/* expirations not read yet: best effort (needs CONFIG_CHECKPOINT_RESTORE) */
	if (tf->ticks) {
		uint64_t ticks = tf->ticks;
		ioctl(fi->fd, TFD_IOC_SET_TICKS, &ticks);
	}
	return set_fl(fi->fd, tf->flags, msg, len);
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

static int open_pidfd(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	const PidfdEntry *pf = f->pidfd;
	unsigned flags = pf->flags & (O_NONBLOCK | O_EXCL); /* PIDFD_NONBLOCK, PIDFD_THREAD */
	int fd = -1;
	if (pf->pid <= 0) {
		fd = dead_pidfd(flags);
	} else {
		/* a process of the tree its parent has not made yet: wait for it (a few seconds at most) */
		for (int i = 0; i < (pf->in_tree ? 5000 : 1); i++) {
			fd = (int)syscall(SYS_pidfd_open, pf->pid, flags);
			if (fd >= 0 || errno != ESRCH)
				break;
			usleep(1000);
		}
	}
	if (fd < 0)
		return emsg(msg, len, "fd %d: pidfd_open %d", fi->fd, pf->pid);
	return place(fd, fi, msg, len) || set_fl(fi->fd, pf->flags, msg, len);
}

int rst_evfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		  size_t len)
{
	switch (f->kind) {
	case FILE_KIND__FILE_EVENTFD:
		return open_eventfd(f, fi, msg, len);
	case FILE_KIND__FILE_SIGNALFD:
		return open_signalfd(f, fi, msg, len);
	case FILE_KIND__FILE_TIMERFD:
		return open_timerfd(f, fi, msg, len);
	case FILE_KIND__FILE_PIDFD:
		return open_pidfd(f, fi, msg, len);
	case FILE_KIND__FILE_INOTIFY:
		return rst_inotify_open(f, fi, msg, len);
	case FILE_KIND__FILE_FANOTIFY:
		return rst_fanotify_open(f, fi, msg, len);
	case FILE_KIND__FILE_MEMFD:
		return rst_memfd_open(t, lo, f, fi, msg, len);
	default:
		errno = 0;
		return emsg(msg, len, "fd %d: file kind %d is not an event fd", fi->fd, f->kind);
	}
}
