/* Dump of epoll instances (see evfd.h): the interest list from fdinfo ("tfd: N events: X data: D"), and
 * for each entry the fd that holds its target file now, found with kcmp(KCMP_EPOLL_TFD): the fd of the
 * same number in the task, else any other fd of the task (the one added was closed or moved), else an fd
 * of another process of the tree, else a file in flight (SCM_RIGHTS, net/sk-unix.h) in a socket of this
 * process or of one dumped before (the entry names its id, and that process): an epoll instance's fds are
 * written after the process's files in flight (fd_kind.last) so that its own sockets have been peeked. A
 * target found nowhere is kept in a list (dump_fdshare_loose): once every process is dumped, one that a
 * socket of a process dumped later carries fails the dump with one line (dump_epoll_loose_check); any
 * other is outside the tree and skipped (as CRIU does): nothing could make it again; the user is told
 * (eng_notice). An EPOLLONESHOT entry that has fired is kept so only where the restore can make it so
 * exactly (check_fired); else the dump fails with one line.
 * An epoll instance in flight is crshim's copy: its tfd numbers are those of the process that added them,
 * its targets are looked for in the same way. */
#define LOG_PREFIX "dump-epoll: "
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "files/fdshare.h"
#include "base/log.h"

struct epoll_slot { /* struct kcmp_epoll_slot */
	uint32_t efd, tfd, toff;
};

static bool is_target(pid_t pid, int fd, pid_t epid, const struct epoll_slot *slot)
{
	return syscall(SYS_kcmp, pid, epid, KCMP_EPOLL_TFD, fd, slot) == 0;
}

/* An fd of process pid holding the target of slot (in epoll efd of epid); -1 if none. */
static int scan_process(pid_t pid, pid_t epid, const struct epoll_slot *slot)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && is_target(pid, atoi(de->d_name), epid, slot))
			return atoi(de->d_name);
	return -1;
}

struct slot_of {
	pid_t epid;
	struct epoll_slot slot;
};

static bool is_own_target(int fd, void *arg)
{
	struct slot_of *s = arg;
	return is_target(getpid(), fd, s->epid, &s->slot);
}

/* Where the target of entry (tfd, toff) of epoll efd lives now: 0 and *tpid, *tfdout; 1 if nowhere. A target
 * only in flight, in a socket of this process or of one dumped before: 3, *tfdout the id of its file entry,
 * *tpid that process (0: this one). efd in flight (crshim's copy, c->pid is crshim's): 2 if only crshim
 * holds it otherwise. */
static int find_target(const struct dump_ctx *c, int efd, int tfd, uint32_t toff, pid_t *tpid, int *tfdout)
{
	struct epoll_slot slot = {(uint32_t)efd, (uint32_t)tfd, toff};
	bool carried = c->pid == getpid();
	int fd = -1;
	if (!carried && is_target(c->pid, tfd, c->pid, &slot))
		fd = tfd;
	else if (!carried)
		fd = scan_process(c->pid, c->pid, &slot);
	if (fd >= 0) {
		*tpid = c->pid, *tfdout = fd;
		return 0;
	}
	for (size_t i = 0; i < c->ntree; i++) {
		const struct dump_ctx *o = &c->tree[i];
		if (o->pid == c->pid || o->zombie)
			continue;
		if ((fd = scan_process(o->pid, c->pid, &slot)) >= 0) {
			*tpid = o->pid, *tfdout = fd;
			return 0;
		}
	}
	struct slot_of so = {c->pid, slot};
	uint32_t id = dump_fdshare_find_flight(c, is_own_target, &so, tpid);
	if (id) {
		*tfdout = (int)id;
		return 3;
	}
	return carried && scan_process(c->pid, c->pid, &slot) >= 0 ? 2 : 1;
}

/* Another process of the tree (not sharing pid's fd table) holds the file of pid's fd: its pid, else 0. */
static pid_t other_holder(const struct dump_ctx *c, pid_t pid, int fd)
{
	for (size_t i = 0; i < c->ntree; i++) {
		const struct dump_ctx *o = &c->tree[i];
		if (o->pid == pid || o->zombie || !syscall(SYS_kcmp, pid, o->pid, KCMP_FILES, 0, 0))
			continue;
		char path[48];
		snprintf(path, sizeof(path), "/proc/%d/fd", o->pid);
		__cleanup_closedir DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' &&
			    !syscall(SYS_kcmp, pid, o->pid, KCMP_FILE, fd, atoi(de->d_name)))
				return o->pid;
	}
	return 0;
}

/* An EPOLLONESHOT entry that has fired (evfd.h) is made again by adding it for every event and letting it
 * fire once in the set, alone (restore-epoll.c): so only in a set one process holds, for a target of that
 * process, whose file is ready for some event now. Else the dump fails with one line (the restore would
 * arm it for EPOLLERR|EPOLLHUP: a later error or hangup would wake the set). */
static int check_fired(const struct dump_ctx *c, const struct evfd_src *s, int tfd, int where, pid_t tpid,
		       int tfdnow, struct cr_err *e)
{
	char why[96] = "";
	pid_t o;
	if (s->pid == getpid())
		snprintf(why, sizeof(why), "the set is in flight (SCM_RIGHTS)");
	else if (where != 0 || tpid != s->pid)
		snprintf(why, sizeof(why), "its target is not held by the set's process");
	else if ((o = other_holder(c, s->pid, s->fd)))
		snprintf(why, sizeof(why), "task %d holds the set too", o);
	if (!why[0]) {
		struct pollfd p = {.events = POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND |
					     POLLWRNORM | POLLWRBAND | POLLMSG | POLLRDHUP};
		p.fd = dump_evfd_take(tpid, tfdnow, e);
		if (p.fd < 0)
			return cr_wrap(e, "fd %d (epoll): target fd %d", s->fd, tfd);
		int n = poll(&p, 1, 0);
		close(p.fd);
		if (n <= 0)
			snprintf(why, sizeof(why), "its file is ready for no event now");
	}
	if (!why[0])
		return 0;
	return cr_fail_errno(
	    e, ENOTSUP,
	    "task %d fd %d (epoll): its EPOLLONESHOT entry for fd %d has fired (disarmed) and %s: "
	    "the restore could not make it disarmed again: not supported",
	    s->pid, s->fd, tfd, why);
}

/* Parse one "tfd:" line. */
static int parse_tfd(const char *p, int *tfd, uint32_t *events, uint64_t *data)
{
	unsigned ev;
	unsigned long long d;
	if (sscanf(p, "tfd: %d events: %x data: %llx", tfd, &ev, &d) != 3)
		return -1;
	*events = ev, *data = d;
	return 0;
}

/* flight: the target is in flight, tfdnow its id in the files of process tpid (0: this one) */
static int add_tfd(EpollEntry *ep, int tfd, uint32_t events, uint64_t data, bool flight, pid_t tpid,
		   int tfdnow, struct cr_err *e)
{
	EpollTfdEntry **nt = realloc(ep->tfd, (ep->n_tfd + 1) * sizeof(void *));
	if (!nt)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ep->tfd = nt;
	EpollTfdEntry *t = malloc(sizeof(*t));
	if (!t)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	epoll_tfd_entry__init(t);
	t->tfd = tfd, t->has_tfd = 1;
	t->events = events, t->has_events = 1;
	t->data = data, t->has_data = 1;
	if (!flight) {
		t->target_pid = tpid, t->has_target_pid = 1;
		t->target_fd = tfdnow, t->has_target_fd = 1;
	} else {
		t->flight_id = (uint32_t)tfdnow, t->has_flight_id = 1;
		t->flight_pid = tpid, t->has_flight_pid = tpid != 0;
	}
	ep->tfd[ep->n_tfd++] = t;
	return 0;
}

/* toff of the entry: how many entries before it were added with the same fd number */
static uint32_t same_before(const char *txt, const char *upto, int tfd)
{
	uint32_t n = 0;
	for (const char *p = strstr(txt, "tfd:"); p && p < upto; p = strstr(p + 4, "tfd:")) {
		int t;
		uint32_t ev;
		uint64_t d;
		if (!parse_tfd(p, &t, &ev, &d) && t == tfd)
			n++;
	}
	return n;
}

static int fill_list(struct dump_ctx *c, const struct evfd_src *s, const char *txt, EpollEntry *ep,
		     struct cr_err *e)
{
	for (const char *p = strstr(txt, "tfd:"); p; p = strstr(p + 4, "tfd:")) {
		int tfd, tfdnow;
		uint32_t events;
		uint64_t data;
		pid_t tpid;
		if (parse_tfd(p, &tfd, &events, &data))
			return cr_fail_errno(e, EINVAL, "fd %d: epoll: bad fdinfo line", s->fd);
		uint32_t toff = same_before(txt, p, tfd);
		int where = find_target(c, s->fd, tfd, toff, &tpid, &tfdnow);
		if (where == 2)
			return cr_fail_errno(e, ENOTSUP,
					     "its target added as fd %d is only in flight, in another "
					     "process's socket",
					     tfd);
		if (where == 1 &&
		    dump_fdshare_loose(
			c->fdsh,
			&(struct dump_loose){c->pid == getpid() ? dump_fdshare_writer(c->fdsh) : c->pid,
					     s->pid, s->fd, tfd, toff},
			e))
			return -1;
		if (where ==
		    1) { /* it lives on (an epoll entry goes with its file): outside the tree, in flight */
			if (s->pid == getpid())
				eng_notice(
				    c->o,
				    "an epoll instance in flight (SCM_RIGHTS): its target added as fd %d "
				    "(events %#x) is held by no process of the tree: not restored",
				    tfd, events);
			else
				eng_notice(
				    c->o,
				    "task %d fd %d (epoll): its target added as fd %d (events %#x) is held "
				    "by no process of the tree: not restored",
				    s->pid, s->fd, tfd, events);
			continue;
		}
		if (EPOLL_FIRED(events) && check_fired(c, s, tfd, where, tpid, tfdnow, e))
			return -1;
		if (add_tfd(ep, tfd, events, data, where == 3, tpid, tfdnow, e))
			return -1;
		pr_debug("fd %d: epoll target %d (now %s %#x of %d) events %#x data %#llx\n", s->fd, tfd,
			 where == 3 ? "in flight, id" : "fd", tfdnow, tpid, events, (unsigned long long)data);
	}
	return 0;
}

int dump_epoll_fill(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	__cleanup_free char *txt = NULL;
	if (dump_evfd_fdinfo(s->pid, s->fd, &txt, e))
		return cr_wrap(e, "fd %d", s->fd);
	EpollEntry *ep = malloc(sizeof(*ep));
	if (!ep)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	epoll_entry__init(ep);
	ep->flags = s->flags, ep->has_flags = 1;
	if (fill_list(c, s, txt, ep, e)) {
		protobuf_c_message_free_unpacked(&ep->base, NULL);
		return -1;
	}
	fe->epoll = ep;
	fe->kind = FILE_KIND__FILE_EPOLL, fe->has_kind = 1;
	return 0;
}

int dump_epoll_loose_check(const struct dump_ctx *c, struct cr_err *e)
{
	size_t n;
	const struct dump_loose *l = dump_fdshare_loose_list(c->fdsh, &n);
	for (size_t i = 0; i < n; i++, l++) {
		struct slot_of so = {l->epid, {(uint32_t)l->efd, (uint32_t)l->tfd, l->toff}};
		pid_t pid;
		uint32_t id;
		if (!dump_fdshare_flight(c->fdsh, is_own_target, &so, &pid, &id))
			continue;
		char what[64] = "an epoll instance in flight (SCM_RIGHTS)";
		if (l->epid != getpid())
			snprintf(what, sizeof(what), "fd %d (epoll)", l->efd);
		return cr_fail_errno(
		    e, ENOTSUP,
		    "task %d: %s: its target added as fd %d is only in flight, in a socket of "
		    "task %d (dumped after it): not supported",
		    l->pid, what, l->tfd, pid);
	}
	return 0;
}

/* ---------------------------------------------------------------- the kind */

static bool is_epoll(const struct dump_ctx *c, const struct fd_src *f)
{
	return !strncmp(f->link, "anon_inode:[eventpoll]", strlen("anon_inode:[eventpoll]"));
}

static int dump_epoll(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	struct evfd_src s;
	evfd_src_of(f, &s);
	return dump_evfd_done(c, &s, fe, dump_epoll_fill(c, &s, fe, e));
}

static int open_epoll(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		      size_t len)
{
	return rst_epoll_create(f, fi, msg, len);
}

/* Its targets of this task, once they are all open (also of a set crshim made and the task inherits). */
static int fill_epoll(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		      size_t len)
{
	return rst_epoll_is(f) ? rst_epoll_fill(t, lo, f, fi, msg, len) : 0;
}

/* (targets in other processes, and those of a set in flight: rst_epoll_tree) */
FD_KIND(fdk_epoll) = {
    .name = "epoll",
    .kind = FILE_KIND__FILE_EPOLL,
    .prio = 51,
    .is = is_epoll,
    .dump = dump_epoll,
    .last = true,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = open_epoll,
    .pass = 1,
    .fill = fill_epoll,
    .make = rst_epoll_make,
    .flight = rst_evfd_share_one,
    .flight_check = rst_epoll_flight_check,
};
