/* Restore of epoll instances (see evfd.h). Child: every epoll instance is created once all other fds are
 * open, then its targets held by this process are added, under the fd number they were added with when
 * that number is free (or holds the target itself), so that a later EPOLL_CTL_MOD/DEL by that number works.
 * Parent (crshim): targets held only by another process of the tree are added through pidfd_getfd copies
 * once every process has its fds (the key is then crshim's fd number: that process could not name it
 * anyway). An epoll set in flight (SCM_RIGHTS, net/sk-unix.h) is made once by crshim (its flight hook)
 * and sent with its message; crshim adds all its targets then, from a thread with its own copy of
 * crshim's fd table where each target is put at the fd number it was added with (the receiver may hold
 * the target under that number and name it so); a target in flight too is crshim's own file. A set of a
 * process's fd table whose target is only in flight gets it so too (flight_targets, from a copy of the
 * set crshim takes with pidfd_getfd). An EPOLLONESHOT entry that had fired is made so again (add_fired). */
#define LOG_PREFIX "restore-epoll: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "files/evfd.h"
#include "base/log.h"
#include "files/fd-kind.h"
#include "files/fdshare.h"
#include "restore.h"

int rst_epoll_create(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	int fd = epoll_create1(0);
	if (fd < 0)
		return rst_errmsg(msg, len, "fd %d: epoll_create1", fi->fd);
	if (rst_fd_at(fd, fi->fd, msg, len))
		return -1;
	if (fcntl(fi->fd, F_SETFL, (int)(f->epoll->flags & ~(uint32_t)O_ACCMODE)) < 0)
		return rst_errmsg(msg, len, "fd %d: set flags %#o", fi->fd, f->epoll->flags);
	return 0;
}

static bool fd_free(int fd)
{
	return fcntl(fd, F_GETFD) < 0 && errno == EBADF;
}

static int add_one(int epfd, int lo, const EpollTfdEntry *te, char *msg, size_t len)
{
	struct epoll_event ev = {.events = te->events, .data.u64 = te->data};
	int key = te->target_fd;
	bool tmp = te->tfd != te->target_fd && te->tfd >= 0 && te->tfd < lo && fd_free(te->tfd);
	if (tmp) {
		if (dup2(te->target_fd, te->tfd) < 0)
			return rst_errmsg(msg, len, "epoll fd %d: target fd %d: dup2 to %d", epfd,
					  te->target_fd, te->tfd);
		key = te->tfd;
	}
	int r = epoll_ctl(epfd, EPOLL_CTL_ADD, key, &ev);
	int saved = errno;
	if (tmp)
		close(te->tfd);
	errno = saved;
	if (r)
		return rst_errmsg(msg, len, "epoll fd %d: add target fd %d (was %d), events %#x", epfd,
				  te->target_fd, te->tfd, te->events);
	return 0;
}

/* An EPOLLONESHOT entry that had fired (evfd.h): added for every event and fired here once (epoll_wait),
 * which cuts its events to its flags as the kernel did. Done first in a set of one process (the dump
 * refuses others, dump-epoll.c check_fired), so that nothing else in it is ready to be taken by that
 * epoll_wait: an edge or another EPOLLONESHOT entry would be lost. */
static int add_fired(int epfd, int lo, const EpollTfdEntry *te, char *msg, size_t len)
{
	struct pollfd p = {.fd = epfd, .events = POLLIN};
	struct epoll_event ev[2];
	if (poll(&p, 1, 0) != 0) {
		errno = EBUSY;
		return rst_errmsg(msg, len,
				  "epoll fd %d: its fired EPOLLONESHOT entry for fd %d: the set has other "
				  "entries ready already",
				  epfd, te->tfd);
	}
	EpollTfdEntry all = *te;
	all.events |= EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDNORM | EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND |
		      EPOLLMSG | EPOLLRDHUP;
	if (add_one(epfd, lo, &all, msg, len))
		return -1;
	int n = epoll_wait(epfd, ev, 2, 0);
	if (n != 1 || ev[0].data.u64 != te->data) {
		errno = n < 0 ? errno : EAGAIN;
		return rst_errmsg(msg, len,
				  "epoll fd %d: its fired EPOLLONESHOT entry for fd %d: %d events instead "
				  "of one (its file was ready at dump)",
				  epfd, te->tfd, n);
	}
	return 0;
}

/* The file entry of fd in task pid of the tree (the tasks' images are loaded before the tree is made, so
 * the child has them too), NULL if none. */
static const FileEntry *entry_of(const struct rst_task *t, pid_t pid, int fd)
{
	const struct rst_task *ts = t->ntree ? t->tree : t;
	for (size_t k = 0; k < (t->ntree ? t->ntree : 1); k++) {
		if (rst_ipid(&ts[k]) != pid)
			continue;
		for (size_t i = 0; i < ts[k].nr_fdinfo; i++)
			if (ts[k].fdinfo[i]->fd == fd)
				return rst_file_by_id(&ts[k], ts[k].fdinfo[i]->id);
	}
	return NULL;
}

/* The interest list of epoll entry f: its own, or, for a set several processes hold (made once by crshim),
 * the one of its first holder, whose entry lists each target once. NULL if that is missing. */
static const EpollEntry *list_of(const struct rst_task *t, const FileEntry *f)
{
	const EpollEntry *ep = f->epoll;
	if (!ep || !ep->has_shared_pid || !ep->has_shared_fd)
		return ep;
	const FileEntry *h = entry_of(t, ep->shared_pid, ep->shared_fd);
	return h && h->epoll && !h->epoll->has_shared_pid ? h->epoll : NULL;
}

bool rst_epoll_is(const FileEntry *f)
{
	return f->epoll && (f->kind == FILE_KIND__FILE_EPOLL || f->kind == FILE_KIND__FILE_INHERIT);
}

int rst_epoll_fill(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len)
{
	const EpollEntry *ep = list_of(t, f);
	if (!ep) {
		errno = EBADMSG;
		return rst_errmsg(msg, len,
				  "epoll fd %d: shared with fd %d of task %d, which the images lack", fi->fd,
				  f->epoll->shared_fd, f->epoll->shared_pid);
	}
	for (int pass = 0; pass < 2; pass++) /* the fired EPOLLONESHOT entries first: add_fired */
		for (size_t i = 0; i < ep->n_tfd; i++) {
			const EpollTfdEntry *te = ep->tfd[i];
			bool fired = pass == 0;
			if (te->target_pid != rst_ipid(t) || EPOLL_FIRED(te->events) != fired)
				continue; /* another process: rst_epoll_tree */
			if (fired ? add_fired(fi->fd, lo, te, msg, len) : add_one(fi->fd, lo, te, msg, len))
				return -1;
		}
	return 0;
}

/* pid and tpid (the target's) in our namespace */
static int add_remote(pid_t pid, int epfd, pid_t tpid, const EpollTfdEntry *te, struct cr_err *e)
{
	__cleanup_close int ep = dump_evfd_take(pid, epfd, e);
	if (ep < 0)
		return -1;
	__cleanup_close int tgt = dump_evfd_take(tpid, te->target_fd, e);
	if (tgt < 0)
		return -1;
	struct epoll_event ev = {.events = te->events, .data.u64 = te->data};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tgt, &ev))
		return cr_fail_sys(e, "task %d: epoll fd %d: add the target fd %d of task %d", pid, epfd,
				   te->target_fd, te->target_pid);
	pr_info("task %d: epoll fd %d: target fd %d of task %d added (events %#x)\n", pid, epfd,
		te->target_fd, te->target_pid, te->events);
	return 0;
}

/* Task pid holds the epoll set whose first holder is fd hfd of task hpid (then it added its own targets). */
static bool holds_set(const struct rst_task *ts, size_t n, pid_t pid, pid_t hpid, int hfd)
{
	if (pid == hpid)
		return true;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; rst_ipid(&ts[k]) == pid && i < ts[k].nr_files; i++) {
			const EpollEntry *ep = ts[k].files[i]->epoll;
			if (ep && ep->has_shared_pid && ep->shared_pid == hpid && ep->shared_fd == hfd)
				return true;
		}
	return false;
}

static int flight_fill(struct rst_task *ts, size_t n, const struct rst_task *t, int epfd,
		       const EpollEntry *ep, const char *what, struct cr_err *e);

/* The targets of list ep of t's epoll set at fd epfd that are only in flight: crshim made them
 * (restore-sk-scm.c) and adds them, under the fd numbers they were added with. */
static int flight_targets(struct rst_task *ts, size_t n, const struct rst_task *t, int epfd,
			  const EpollEntry *ep, struct cr_err *e)
{
	size_t nf = 0;
	for (size_t k = 0; k < ep->n_tfd; k++)
		nf += ep->tfd[k]->has_flight_id;
	if (!nf)
		return 0;
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	EpollTfdEntry **sel = calloc(nf, sizeof(*sel));
	if (!sel)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	EpollEntry sub = *ep;
	sub.tfd = sel, sub.n_tfd = 0;
	for (size_t k = 0; k < ep->n_tfd; k++)
		if (ep->tfd[k]->has_flight_id)
			sel[sub.n_tfd++] = ep->tfd[k];
	char what[64];
	snprintf(what, sizeof(what), "task %d: epoll fd %d: in flight", t->pid, epfd);
	int ep_fd = dump_evfd_take(t->pid, epfd, e);
	int r = ep_fd < 0 ? -1 : flight_fill(ts, n, t, ep_fd, &sub, what, e);
	if (ep_fd >= 0)
		close(ep_fd);
	free(sel);
	return r;
}

/* The targets of t's epoll sets that no holder of the set could add itself. A set several processes hold
 * is done once, from its first holder's list. */
static int tree_task_epolls(struct rst_task *ts, size_t n, struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_fdinfo; i++) {
		const FdinfoEntry *fi = t->fdinfo[i];
		const FileEntry *f = rst_file_by_id(t, fi->id);
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first = first && t->fdinfo[j]->id != fi->id;
		if (!f || !rst_epoll_is(f) || !first || f->epoll->has_shared_pid)
			continue;
		for (size_t k = 0; k < f->epoll->n_tfd; k++) {
			const EpollTfdEntry *te = f->epoll->tfd[k];
			const struct rst_task *tt = rst_tree_task(ts, n, te->target_pid);
			if (!te->has_flight_id && !holds_set(ts, n, te->target_pid, rst_ipid(t), fi->fd) &&
			    add_remote(t->pid, fi->fd, tt ? tt->pid : te->target_pid, te, e))
				return -1;
		}
		if (flight_targets(ts, n, t, fi->fd, f->epoll, e))
			return cr_wrap(e, "task %d: epoll fd %d", t->pid, fi->fd);
	}
	return 0;
}

/* ---------------------------------------------------------------- targets in flight */

const FileEntry *rst_epoll_flight_file(const struct rst_task *t, const EpollTfdEntry *te)
{
	if (te->has_flight_pid)
		t = rst_tree_task(t->ntree ? t->tree : (struct rst_task *)t, t->ntree ? t->ntree : 1,
				  te->flight_pid);
	return t ? rst_sk_scm_entry(t, te->flight_id) : NULL;
}

bool rst_epoll_flight_ok(const struct rst_task *t, const EpollTfdEntry *te)
{
	const FileEntry *g = rst_epoll_flight_file(t, te);
	const struct fd_kind *k = g ? fd_kind_of(g->kind) : NULL;
	return g && g->in_flight && (g->kind == FILE_KIND__FILE_INHERIT || (k && k->flight));
}

/* ---------------------------------------------------------------- an epoll set in flight */

/* f is a set in flight whose list crshim adds (not also held by a process of the tree: then that one's). */
static bool flight_list(const FileEntry *f)
{
	return f->in_flight && f->epoll && !f->epoll->has_shared_pid;
}

int rst_epoll_flight_check(struct rst_task *ts, size_t n, const struct rst_task *t, const FileEntry *f,
			   struct cr_err *e)
{
	for (size_t i = 0; flight_list(f) && i < f->epoll->n_tfd; i++) {
		const EpollTfdEntry *te = f->epoll->tfd[i];
		if (te->has_flight_id) { /* in flight too: made by its kind's flight hook */
			if (!rst_epoll_flight_ok(t, te))
				return cr_fail_errno(
				    e, EBADMSG,
				    "files.img: epoll set in flight (file id %#x): its target "
				    "in flight (file id %#x) cannot be made",
				    f->id, te->flight_id);
			continue;
		}
		const struct rst_task *tt = rst_tree_task(ts, n, te->target_pid);
		bool held = false;
		for (size_t j = 0; tt && !tt->zombie && j < tt->nr_fdinfo && !held; j++)
			held = tt->fdinfo[j]->fd == te->target_fd;
		if (!held)
			return cr_fail_errno(
			    e, EBADMSG,
			    "files.img: epoll set in flight (file id %#x): its target fd %d of "
			    "task %d is not a file of a live process of the tree",
			    f->id, te->target_fd, te->target_pid);
	}
	return 0;
}

/* The thread's work: no log, no error text (the fd numbers below hi may be the log's in its table). */
struct flight_add {
	int epfd, hi;
	const EpollEntry *ep;
	int *copy;  /* crshim's copy of each target */
	size_t bad; /* the entry that failed */
	int err;    /* its errno, 0: done */
	bool keyed; /* under the numbers they were added with (else the copies') */
};

static void *flight_add_main(void *arg)
{
	struct flight_add *a = arg;
	size_t nt = a->ep->n_tfd;
	if (unshare(CLONE_FILES)) {
		a->err = errno, a->bad = nt;
		return NULL;
	}
	int ep = fcntl(a->epfd, F_DUPFD, a->hi); /* above every key: dup2 to a key clobbers nothing needed */
	a->keyed = ep >= 0;
	for (size_t i = 0; a->keyed && i < nt; i++) { /* (a copy not moved is still open in this table) */
		int m = fcntl(a->copy[i], F_DUPFD, a->hi);
		a->keyed = m >= 0;
		a->copy[i] = m >= 0 ? m : a->copy[i];
	}
	if (!a->keyed) /* (a key above crshim's fd limit) the copies' numbers, as for any other set */
		ep = a->epfd;
	for (size_t i = 0; i < nt; i++) {
		const EpollTfdEntry *te = a->ep->tfd[i];
		struct epoll_event ev = {.events = te->events, .data.u64 = te->data};
		int key = a->keyed && te->tfd >= 0 ? te->tfd : a->copy[i];
		if ((key != a->copy[i] && dup2(a->copy[i], key) < 0) ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, key, &ev)) {
			a->err = errno ? errno : EINVAL, a->bad = i;
			return NULL;
		}
		if (key != a->copy[i])
			close(key);
	}
	return NULL; /* the thread's fd table goes with it */
}

/* crshim's copy of target te of epoll set f in flight of task t: of a file of a process, or of one in
 * flight too (made by crshim). */
static int flight_target(struct rst_task *ts, size_t n, const struct rst_task *t, const EpollTfdEntry *te,
			 struct cr_err *e)
{
	if (te->has_flight_id) {
		const FileEntry *g = rst_epoll_flight_file(t, te);
		int fd =
		    g && g->kind == FILE_KIND__FILE_INHERIT ? fcntl(g->inherit_fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (fd < 0)
			return cr_fail_errno(e, g ? errno : EBADMSG,
					     "target in flight (file id %#x): not made", te->flight_id);
		return fd;
	}
	const struct rst_task *tt = rst_tree_task(ts, n, te->target_pid);
	if (!tt)
		return cr_fail_errno(e, EBADMSG, "target fd %d of task %d: no such task", te->target_fd,
				     te->target_pid);
	return dump_evfd_take(tt->pid, te->target_fd, e);
}

/* Every target of list ep (of task t) in epoll set epfd, crshim's fd (what: the set, for messages). */
static int flight_fill(struct rst_task *ts, size_t n, const struct rst_task *t, int epfd,
		       const EpollEntry *ep, const char *what, struct cr_err *e)
{
	struct flight_add a = {.epfd = epfd, .ep = ep, .copy = calloc(2 * (ep->n_tfd + 1), sizeof(int))};
	if (!a.copy)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int *orig =
	    a.copy + ep->n_tfd + 1; /* the copies in crshim's table (the thread moves a.copy in its own) */
	int ret = -1;
	size_t got = 0;
	for (; got < ep->n_tfd; got++) {
		const EpollTfdEntry *te = ep->tfd[got];
		if ((orig[got] = flight_target(ts, n, t, te, e)) < 0)
			goto out;
		if (te->tfd >= a.hi && te->tfd < INT_MAX)
			a.hi = te->tfd + 1;
	}
	memcpy(a.copy, orig, got * sizeof(int));
	pthread_t th;
	if ((errno = pthread_create(&th, NULL, flight_add_main, &a))) {
		cr_fail_sys(e, "a thread to add its targets");
		goto out;
	}
	pthread_join(th, NULL);
	if (a.err && a.bad == ep->n_tfd) {
		cr_fail_errno(e, a.err, "a copy of crshim's fd table (unshare)");
	} else if (a.err) {
		const EpollTfdEntry *te = ep->tfd[a.bad];
		if (te->has_flight_id)
			cr_fail_errno(e, a.err, "add the target in flight (file id %#x, added as fd %d)",
				      te->flight_id, te->tfd);
		else
			cr_fail_errno(e, a.err,
				      "add the target fd %d of task %d (added as fd %d, events %#x)",
				      te->target_fd, te->target_pid, te->tfd, te->events);
	} else {
		pr_info("%s: %zu targets added%s\n", what, ep->n_tfd,
			a.keyed ? "" : " (under crshim's fd numbers)");
		ret = 0;
	}
out:
	for (size_t i = 0; i < got; i++)
		close(orig[i]);
	free(a.copy);
	return ret;
}

int rst_epoll_tree(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++) {
		if (ts[k].zombie)
			continue;
		if (tree_task_epolls(ts, n, &ts[k], e))
			return -1;
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			char what[64];
			snprintf(what, sizeof(what), "epoll set in flight (file id %#x)", f->id);
			if (flight_list(f) && f->kind == FILE_KIND__FILE_INHERIT &&
			    flight_fill(ts, n, &ts[k], f->inherit_fd, f->epoll, what, e))
				return cr_wrap(e, "task %d: an epoll set in flight", ts[k].pid);
		}
	}
	return 0;
}
