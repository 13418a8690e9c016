/* Restore of unix sockets (see sk-unix.h): the sockets made later than the others, once the namespace they
 * are bound in stands. Those of a tree with its own mount tree (rst_sk_unix_late: made by crshim inside it,
 * taken by the root task, rst_sk_unix_root); those of a nested mount namespace, or of a nested PID namespace
 * whose SO_PEERCRED names a pid of it (which ones, with all they need: usk_groups, pidns_groups; made by
 * crshim in it: rst_sk_unix_nested; taken by the process that made it, rst_sk_unix_nested_take, or by those
 * outside that hold some, rst_sk_unix_outer_take). A pair, listen() or connect() whose SO_PEERCRED names a
 * process that exists already is made by that process: the pairs before it says it stands (premake), the
 * calls as crshim asks them (serve, by_named). */
#define LOG_PREFIX "restore-sk-unix: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "base/cleanup.h"
#include "base/late-fds.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns.h"
#include "base/scm.h"
#include "restore.h"
#include "net/sk-unix.h"

struct sk_grp *usk_grps;
size_t usk_ngrps;
struct sk_out *usk_outs;
size_t usk_nouts;
int usk_late_ch[2] = {-1, -1};
/* A listen() or connect() whose SO_PEERCRED names a process that exists when crshim makes it (its pid no
 * helper can take: the root task at the late step, a nested mount namespace's process at its own): crshim
 * sends it the socket and the call (srv_req; for a relative name, the directory it is relative to as a
 * second fd), the process makes it as the saved ids and answers (0, an errno, -1: those ids are not in its
 * user namespace), on its channel (usk_late_ch, sk_grp.srv). */
struct srv_req {
	int32_t op, backlog;
	uint32_t uid, gid;
	uint8_t has_uid, has_gid;
	uint32_t alen;
	struct sockaddr_un a;
};
static const struct rst_task *serving; /* crshim: the process that serves now (rst_sk_unix_late, _nested) */
static int serve_ch = -1;	       /* ... crshim's end of its channel */

struct srv_call {
	const struct srv_req *rq;
	int fd;
};

static int srv_fn(void *arg)
{
	const struct srv_call *c = arg;
	return c->rq->op == SRV_LISTEN
		   ? listen(c->fd, c->rq->backlog)
		   : connect(c->fd, (const struct sockaddr *)&c->rq->a, (socklen_t)c->rq->alen);
}

/* crshim's side: the answer of the serving process (its end of the error pipe readable first: it ended or
 * failed, EPIPE). */
static int32_t srv_answer(void)
{
	int32_t rep = EPIPE;
	struct pollfd pf[2] = {{.fd = serve_ch, .events = POLLIN},
			       {.fd = serving->err_pipe[0], .events = POLLIN}};
	for (;;) {
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			return errno;
		if (pf[0].revents) {
			ssize_t got = recv(serve_ch, &rep, sizeof(rep), 0);
			if (got < 0 && errno == EINTR)
				continue;
			return got == sizeof(rep) ? rep : got < 0 ? errno : EPIPE;
		}
		if (pf[1].revents)
			return EPIPE;
	}
}

/* crshim's side: 1 and *res (errno) when the serving process made the call, 0 when it is not one for it. */
static int by_named(const struct rst_task *t, const UnixSkEntry *cred, int op, int fd, int backlog,
		    const struct sockaddr_un *a, socklen_t alen, int *res)
{
	if (!serving || !cred || !cred->has_peer_pid || !t || t->ns_levels != serving->ns_levels ||
	    cred->peer_pid != rst_pidns_self(serving))
		return 0;
	/* a relative name: crshim is in its directory (usk_connect_to), which goes along */
	bool rel = a && a->sun_path[0] && a->sun_path[0] != '/';
	__cleanup_close int dir = rel ? open(".", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (rel && dir < 0)
		return 0;
	struct srv_req rq = {.op = op,
			     .backlog = backlog,
			     .uid = cred->peer_uid,
			     .gid = cred->peer_gid,
			     .has_uid = cred->has_peer_uid,
			     .has_gid = cred->has_peer_gid,
			     .alen = a ? (uint32_t)alen : 0};
	if (a)
		rq.a = *a;
	struct iovec iov = {.iov_base = &rq, .iov_len = sizeof(rq)};
	int fds[2] = {fd, dir};
	int32_t rep =
	    scm_send(serve_ch, &iov, 1, fds, rel ? 2 : 1) == (ssize_t)sizeof(rq) ? srv_answer() : errno;
	if (rep == -1)
		return 0; /* (its ids are not the process's to take: crshim's helper) */
	*res = rep ? -1 : 0;
	errno = rep;
	pr_debug("socket call %d made by task %d: %s\n", op, serving->pid, rep ? strerror(rep) : "done");
	return 1;
}

/* crshim's helper, or the process named (by_named), makes fn's call. */
int usk_as_peer(const struct rst_task *t, const UnixSkEntry *cred, int (*fn)(void *), void *arg, int op,
		int fd, int backlog, const struct sockaddr_un *a, socklen_t alen)
{
	int res;
	return by_named(t, cred, op, fd, backlog, a, alen, &res) ? res : rst_sk_as_peer(t, cred, fn, arg);
}

/* While crshim's children are made in the tree's PID namespace (pid_enter): that one and crshim's, for
 * usk_fork_own. */
static int pidns_tree = -1, pidns_own = -1;

/* crshim's children (the SO_PEERCRED helpers) into the PID namespace of the root task; *self: crshim's */
static int pid_enter(pid_t root, int *self, struct cr_err *e)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/pid", (int)root);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	*self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ns < 0 || *self < 0 || setns(ns, CLONE_NEWPID))
		return cr_fail_sys(e, "enter the PID namespace of task %d for its children", (int)root);
	pidns_tree = steal_fd(ns), pidns_own = *self;
	return 0;
}

static int pid_leave(int self, struct cr_err *e)
{
	int r = setns(self, CLONE_NEWPID);
	close(self);
	if (pidns_tree >= 0)
		close(pidns_tree);
	pidns_tree = pidns_own = -1;
	return r ? cr_fail_sys(e, "return to crshim's PID namespace for its children") : 0;
}

int usk_fork_own(pid_t *pid, struct cr_err *e)
{
	*pid = -1;
	if (pidns_tree >= 0 && setns(pidns_own, CLONE_NEWPID))
		return 0; /* (still the tree's: no child) */
	*pid = fork();
	if (*pid == 0 || pidns_tree < 0)
		return 0;
	int err = errno;
	if (setns(pidns_tree, CLONE_NEWPID)) {
		cr_fail_sys(e, "return to the tree's PID namespace for crshim's children");
		if (*pid > 0) {
			kill(*pid, SIGKILL);
			while (waitpid(*pid, NULL, __WALL) < 0 && errno == EINTR)
				;
		}
		*pid = -1;
		return -1;
	}
	errno = err;
	return 0;
}

/* A pair made by the process its SO_PEERCRED names, when that process exists already (the tree's root at
 * the late step, a nested mount namespace's process at its own): crshim's helper cannot have its pid. */
#define PREMAKE_MAX 64 /* (each waits in the channel until crshim takes it: its buffer bounds them) */

/* id as crshim saw it (its user namespace's) as the process's user namespace has it (its /proc/self/uid_map
 * or gid_map: "inside outside count" lines), -1 if none. */
static long id_here(const char *map, uint32_t id)
{
	char p[32];
	unsigned long in, out, cnt;
	long r = -1;
	snprintf(p, sizeof(p), "/proc/self/%s", map);
	FILE *f = fopen(p, "re");
	while (f && r < 0 && fscanf(f, "%lu %lu %lu", &in, &out, &cnt) == 3)
		if (id >= out && id - out < cnt)
			r = (long)(in + (id - out));
	if (f)
		fclose(f);
	return r;
}

/* fn(arg) in the process as cred's euid and egid (crshim's ids, mapped into the process's user namespace;
 * paths still looked up as the process's own ids, fsuid and fsgid, as crshim's helper does: a socket file
 * crshim made may not be the saved ids' to connect to): 1 those ids are not there, -2 its own could not be
 * set back, else fn's result (its errno in *err). */
static int as_ids(const UnixSkEntry *cred, int (*fn)(void *), void *arg, int *err)
{
	uid_t eu = geteuid();
	gid_t eg = getegid();
	long u = cred->has_peer_uid ? id_here("uid_map", cred->peer_uid) : (long)eu;
	long g = cred->has_peer_gid ? id_here("gid_map", cred->peer_gid) : (long)eg;
	if (u < 0 || g < 0)
		return 1;
	int r = setresgid((gid_t)-1, (gid_t)g, (gid_t)-1) ? -1 : 0;
	if (!r) /* (before the euid: CAP_SETGID still effective) */
		setfsgid(eg);
	r = r || setresuid((uid_t)-1, (uid_t)u, (uid_t)-1) ? -1 : 0;
	if (!r)
		setfsuid(eu);
	r = r || fn(arg) ? -1 : 0;
	*err = errno;
	if (setresuid((uid_t)-1, eu, (uid_t)-1) || setresgid((gid_t)-1, eg, (gid_t)-1))
		return -2;
	return r;
}

struct own_pair {
	int type, sp[2];
};

static int own_pair_fn(void *arg)
{
	struct own_pair *o = arg;
	return socketpair(AF_UNIX, o->type | SOCK_CLOEXEC, 0, o->sp);
}

/* The process's side: the pair made as cred's ids, both ends sent to crshim on ch (1: left to crshim, those
 * ids are not in the process's user namespace). */
static int premake_one(const struct rsk *a, const UnixSkEntry *cred, int ch, char *msg, size_t len)
{
	struct own_pair o = {(int)a->u->type, {-1, -1}};
	int err = 0, r = as_ids(cred, own_pair_fn, &o, &err);
	if (r == -2)
		return rst_errmsg(msg, len, "socket:[%u]: back to its own euid: %s", a->ino, strerror(err));
	struct iovec iov = {.iov_base = (void *)&a->ino, .iov_len = sizeof(a->ino)};
	if (!r && scm_send(ch, &iov, 1, o.sp, 2) < 0)
		r = -1, err = errno;
	for (int k = 0; k < 2; k++)
		if (o.sp[k] >= 0)
			close(o.sp[k]);
	if (r < 0)
		return rst_errmsg(msg, len, "socket:[%u]: socketpair for crshim: %s", a->ino, strerror(err));
	return r;
}

/* The process is in the network namespace u was made in (the tree has one, or it is that one's). */
static bool net_here(const UnixSkEntry *u)
{
	int fd = ns_rst_net_fd(usk_rns, u->has_netns ? u->netns : 0);
	if (fd < 0)
		return true;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int own = s < 0 ? -1 : ioctl(s, SIOCGSKNS);
	struct stat a, b;
	bool same =
	    own >= 0 && !fstat(own, &a) && !fstat(fd, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
	if (own >= 0)
		close(own);
	if (s >= 0)
		close(s);
	return same;
}

/* The pairs of group grp whose SO_PEERCRED names process t, made by t (before it says crshim may go on). */
static int premake(const struct rst_task *t, uint32_t grp, int ch, char *msg, size_t len)
{
	pid_t self = getpid();
	size_t n = 0;
	for (size_t i = 0; i < usk_nsks && n < PREMAKE_MAX; i++) {
		struct rsk *a = &usk_sks[i], *b;
		/* (a pair is made at its first end; one of another network namespace by crshim) */
		if (a->grp != grp || !usk_pair_made(a, &b) || (b && b < a) || !net_here(a->u))
			continue;
		const UnixSkEntry *cred = usk_pair_cred(a, b);
		const struct rst_task *holder = &t->tree[b && cred == b->cu ? b->cti : a->cti];
		if (!cred || cred->peer_pid != self || holder->ns_levels != t->ns_levels)
			continue;
		int r = premake_one(a, cred, ch, msg, len);
		if (r < 0)
			return -1;
		n += r == 0;
	}
	return 0;
}

/* crshim's side: the pairs the process sent (all before its mark) */
static void take_premade(int ch)
{
	struct pollfd pf = {.fd = ch, .events = POLLIN};
	while (ch >= 0 && poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN)) {
		uint32_t ino = 0;
		int fds[2] = {-1, -1}, fl = 0;
		size_t nf = 0;
		struct iovec iov = {.iov_base = &ino, .iov_len = sizeof(ino)};
		ssize_t got = scm_recv(ch, &iov, 1, fds, 2, &nf, &fl);
		if (got < 0 && errno == EINTR)
			continue;
		struct rsk *a = got == sizeof(ino) && nf == 2 ? usk_find(ino) : NULL;
		if (a && a->pre[0] < 0) {
			memcpy(a->pre, fds, sizeof(fds));
			pr_debug("socket:[%u]: its pair made by the process it names\n", ino);
			continue;
		}
		for (size_t k = 0; k < nf; k++)
			close(fds[k]);
		if (got <= 0)
			break;
	}
}

/* The call of rq on fd, as its ids, in directory dir (-1: where the process is): 0, an errno, -1 (those ids
 * are not in its user namespace), -2 (msg: its own could not be had back). */
static int32_t serve_call(const struct srv_req *rq, int fd, int dir, char *msg, size_t len)
{
	UnixSkEntry cred = UNIX_SK_ENTRY__INIT;
	cred.peer_uid = rq->uid, cred.has_peer_uid = rq->has_uid;
	cred.peer_gid = rq->gid, cred.has_peer_gid = rq->has_gid;
	struct srv_call c = {rq, fd};
	__cleanup_close int here = dir < 0 ? -1 : open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0 && (here < 0 || fchdir(dir)))
		return errno;
	int err = 0, r = as_ids(&cred, srv_fn, &c, &err);
	if (r == -2 || (here >= 0 && fchdir(here))) {
		rst_errmsg(msg, len, "back to its own %s: %s", r == -2 ? "euid" : "cwd",
			   strerror(r == -2 ? err : errno));
		return -2;
	}
	return r == 1 ? -1 : r ? err : 0;
}

/* The named process's side of by_named: one call on ch. */
static int serve_one(int ch, char *msg, size_t len)
{
	struct srv_req rq;
	int fds[2] = {-1, -1}, fl = 0;
	size_t nf = 0;
	struct iovec iov = {.iov_base = &rq, .iov_len = sizeof(rq)};
	ssize_t got = scm_recv(ch, &iov, 1, fds, 2, &nf, &fl);
	if (got < 0 && errno == EINTR)
		return 0;
	if (got <= 0)
		return rst_errmsg(msg, len, "crshim's socket calls: %s",
				  got ? strerror(errno) : "crshim is gone");
	int32_t rep = EBADMSG;
	if (got == sizeof(rq) && nf >= 1 && nf <= 2)
		rep = serve_call(&rq, fds[0], nf == 2 ? fds[1] : -1, msg, len);
	for (size_t k = 0; k < nf; k++)
		close(fds[k]);
	if (rep == -2)
		return -1;
	if (send(ch, &rep, sizeof(rep), MSG_NOSIGNAL) != sizeof(rep))
		return rst_errmsg(msg, len, "answer crshim's socket call: %s", strerror(errno));
	return 0;
}

/* The calls crshim asks on ch (-1: none), until end is readable. */
static int serve(int end, int ch, char *msg, size_t len)
{
	struct pollfd pf[2] = {{.fd = end, .events = POLLIN}, {.fd = ch, .events = POLLIN}};
	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return rst_errmsg(msg, len, "wait for crshim: %s", strerror(errno));
		}
		if (pf[0].revents)
			return 0;
		if ((pf[1].revents & (POLLIN | POLLHUP)) && serve_one(ch, msg, len))
			return -1;
	}
}

int rst_sk_unix_serve_root(int go, char *msg, size_t len)
{
	return serve(go, usk_late ? usk_late_ch[1] : -1, msg, len);
}

int rst_sk_unix_premake_root(const struct rst_task *t, char *msg, size_t len)
{
	return usk_late ? premake(t, 0, usk_late_ch[1], msg, len) : 0;
}

struct make_at {
	pid_t pid;
	uint32_t pidns_levels;
};

/* The group usk_cur_grp made in the mount namespace of task at->pid (the PID namespace crshim's children are
 * born in entered already, when at->pidns_levels). */
static int make_here(void *arg, struct cr_err *e)
{
	const struct make_at *at = arg;
	int self = -1, cwd = -1;
	int ret = proc_mntns_enter(at->pid, &self, &cwd, e);
	if (!ret) {
		rst_sk_peercred_pidns(at->pidns_levels);
		ret = usk_make_all(e);
		rst_sk_peercred_pidns(0);
	}
	if (ret) /* the files it bound and the directories it made, while their paths are these */
		usk_unlink_all_made();
	struct cr_err later; /* the first failure is the one said */
	if (proc_mntns_leave(self, cwd, ret ? &later : e))
		ret = -1;
	return ret;
}

/* A crshim that could not go back to its own PID namespace (one its user namespace does not own: rootless,
 * crshim in the host's) makes the group by a child sharing its memory and fds (ns_call), which enters the
 * tree's PID namespace in its place: crshim's own children stay in crshim's. Before, crshim entered it
 * itself and failed to come back (EPERM). Its children in crshim's namespace (usk_fork_own: the binder of
 * gone senders' names) cannot be made there: that part is left out, as where the kernel refuses it. */
static int make_by_child(const struct make_at *at, struct cr_err *e)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/pid", (int)at->pid);
	pidns_tree = open(p, O_RDONLY | O_CLOEXEC);
	pidns_own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	int ret = pidns_tree < 0 || pidns_own < 0
		      ? cr_fail_sys(e, "open the PID namespace of task %d for its children", (int)at->pid)
		      : ns_call(pidns_tree, CLONE_NEWPID, make_here, (void *)at, e);
	if (pidns_tree >= 0)
		close(pidns_tree);
	if (pidns_own >= 0)
		close(pidns_own);
	pidns_tree = pidns_own = -1;
	return ret;
}

/* The group usk_cur_grp made in the mount namespace of task pid (crshim's children, the SO_PEERCRED helpers,
 * in its PID namespace, pidns_levels deep: 0 crshim's). */
static int make_in(const struct rst_task *ts, pid_t pid, uint32_t pidns_levels, struct cr_err *e)
{
	/* the tree's array was made again since rst_sk_unix_prepare (helpers for sessions and groups whose
	 * leader is gone: rst_tree_plan); its processes kept their places */
	for (size_t i = 0; i < usk_nsks; i++)
		usk_sks[i].t = &ts[usk_sks[i].ti], usk_sks[i].ct = &ts[usk_sks[i].cti];
	struct make_at at = {pid, pidns_levels};
	if (pidns_levels && !ns_self_owned("pid"))
		return make_by_child(&at, e);
	int pself = -1;
	/* (the PID namespace first: crshim's /proc is not there in the tree's mount namespace) */
	int ret = pidns_levels && pid_enter(pid, &pself, e) ? -1 : make_here(&at, e);
	struct cr_err later; /* the first failure is the one said */
	if (pself >= 0 && pid_leave(pself, ret ? &later : e))
		ret = -1;
	return ret;
}

int rst_sk_unix_late(const struct rst_task *ts, uint32_t pidns_levels, struct cr_err *e)
{
	if (!usk_late)
		return 0;
	take_premade(usk_late_ch[0]);
	if (usk_late_ch[1] >= 0) { /* the root's end: a root that ends fails crshim's calls (by_named) */
		close(usk_late_ch[1]);
		usk_late_ch[1] = -1;
	}
	serving = &ts[0], serve_ch = usk_late_ch[0];
	ns_rst_memcg_enter(ts[0].ns); /* (as rst_sk_unix_prepare) */
	int ret = make_in(ts, ts[0].pid, pidns_levels, e);
	ns_rst_memcg_leave(ts[0].ns);
	serving = NULL, serve_ch = -1;
	return ret ? -1 : usk_to_kept(true, e);
}

int rst_sk_unix_root(char *msg, size_t len)
{
	for (size_t i = 0; usk_late && i < usk_nsks; i++) {
		if (usk_sks[i].grp) /* made later, for the process of its mount namespace */
			continue;
		int fd = late_fd_take(usk_sks[i].keep);
		if (fd < 0 || dup3(fd, usk_sks[i].keep, O_CLOEXEC) < 0)
			return rst_errmsg(msg, len, "take socket:[%u] from crshim (fd %d)", usk_sks[i].ino,
					  usk_sks[i].keep);
		close(fd);
	}
	return 0;
}

/* s goes with r into r's nested mount namespace (group); *more: it was not there yet. */
static int join(struct rsk *s, const struct rsk *r, bool *more, struct cr_err *e)
{
	char nb[128];
	if (s->grp == r->grp)
		return 0;
	const UnixSkEntry *u = s->u;
	if (s->grp || (u->has_name && u->name.len && u->name.data[0])) /* bound in another one */
		return cr_fail_errno(e, ENOTSUP,
				     "not supported yet: unix socket socket:[%u] (%s) is connected to "
				     "socket:[%u] (%s), bound in another mount namespace of the tree",
				     s->ino, usk_sk_name(u, nb, sizeof(nb)), r->ino,
				     usk_sk_name(r->u, nb + 64, sizeof(nb) - 64));
	s->grp = r->grp;
	*more = true;
	return 0;
}

/* The sockets a socket made later (in a nested mount or PID namespace) needs to be made with go there
 * too: its pair's other end, the connections of its listener (accepted or not), the dgram sockets
 * connected to its name. */
static bool needs(const struct rsk *r, const struct rsk *s)
{
	const struct rsk *p = usk_find(s->u->peer), *sp = usk_mutual_peer(s);
	bool n = s != r && (usk_mutual_peer(r) == s || (p == r && !sp) ||
			    (r->u->state == ST_LISTEN && s->u->state != ST_LISTEN &&
			     (usk_listener_named(s) == r || (sp && usk_listener_named(sp) == r))));
	for (size_t c = 0; s != r && r->u->state == ST_LISTEN && c < r->u->n_icons; c++)
		n |= r->u->icons[c] == s->ino;
	return n;
}

static int spread(struct cr_err *e)
{
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < usk_nsks; i++)
			for (size_t k = 0; usk_sks[i].grp && k < usk_nsks; k++)
				if (needs(&usk_sks[i], &usk_sks[k]) &&
				    join(&usk_sks[k], &usk_sks[i], &more, e))
					return -1;
	}
	return 0;
}

/* A nested PID namespace's sockets: those whose SO_PEERCRED its processes see (a pid of it) are made once
 * its init stands, by crshim's helpers in it (or by the init itself: its own pid, 1), as a nested mount
 * namespace's are (the same group when the init made one), with all they need (spread); only when every
 * holder of them is the init or below it, and none is bound to a path the init does not see (else they
 * name crshim, as before: rst_sk_as_peer's notice). Key of the group of the init at index i of the tree. */
#define PIDNS_GRP 0x80000000u

static struct rst_task *parent_of(struct rst_task *ts, size_t n, const struct rst_task *t)
{
	return t->root ? NULL : rst_tree_task(ts, n, t->pst->ppid);
}

/* t's PID namespace levels below crshim's, and whether it is the init of one below its parent's, from
 * its pstree entry (rst_sk_unix_prepare comes before rst_pidns_plan). */
uint32_t usk_pst_lv(const struct rst_task *t)
{
	const PstreeEntry *p = t->pst;
	return p->has_ns_levels && p->n_ns_tids >= p->ns_levels ? p->ns_levels : 0;
}

static bool pst_init(const struct rst_task *t)
{
	uint32_t lv = usk_pst_lv(t);
	return !t->root && lv && t->pst->ns_tids[lv - 1] == 1;
}

/* The root task as the init of a PID namespace of the tree's own when the tree has no mount tree of its own
 * (as under `unshare --pid --fork`): its sockets are made before the tree, in crshim's PID namespace, unless
 * they are made as a nested one's, once the root stands (with a mount tree of its own: rst_sk_unix_late). */
static bool root_init(const struct rst_task *t)
{
	uint32_t lv = usk_pst_lv(t);
	return t->root && !t->paths_later && lv && t->pst->ns_tids[lv - 1] == 1;
}

/* The init of t's PID namespace when it is one below the root's, or the root's own (root_init); NULL. */
static struct rst_task *pidns_init(struct rst_task *ts, size_t n, struct rst_task *t)
{
	for (size_t hops = 0; t && hops <= n && usk_pst_lv(t) > usk_pst_lv(&ts[0]); hops++) {
		if (pst_init(t))
			return t;
		t = parent_of(ts, n, t);
	}
	return t && usk_pst_lv(t) == usk_pst_lv(&ts[0]) && root_init(&ts[0]) ? &ts[0] : NULL;
}

/* The group an init (or a nested mount namespace's maker) makes: 0 none. */
static uint32_t grp_key(const struct rst_task *t)
{
	if (t->pst->mntns)
		return t->pst->mntns;
	return pst_init(t) || root_init(t) ? PIDNS_GRP | (uint32_t)(t - t->tree) : 0;
}

/* Is t the process x or below it? */
static bool below(struct rst_task *ts, size_t n, const struct rst_task *t, const struct rst_task *x)
{
	for (size_t hops = 0; t && hops <= n; hops++, t = parent_of(ts, n, t))
		if (t == x)
			return true;
	return false;
}

/* Does init see the mount namespace of the root (it and its parents made none)? */
static bool root_mnt(struct rst_task *ts, size_t n, const struct rst_task *init)
{
	for (const struct rst_task *t = init; t; t = parent_of(ts, n, t))
		if (t->pst->mntns || t->pst->mntns_join || t->pst->mntns_up)
			return false;
	return true;
}

#define GRP_TRY 0x40000000u /* (pidns_groups: a group being tried) */

/* Does t share its fd table with another process (CLONE_FILES: its parent's, a sibling's, a child's)? */
static bool shares_table(struct rst_task *ts, size_t n, const struct rst_task *t)
{
	if (t->pst->files_with || (t->pst->clone_share & CLONE_FILES))
		return true;
	for (size_t k = 0; k < n; k++)
		if (&ts[k] != t &&
		    ((ts[k].pst->ppid == t->pst->pid && (ts[k].pst->clone_share & CLONE_FILES)) ||
		     ts[k].pst->files_with == t->pst->pid))
			return true;
	return false;
}

/* Can t, not at or below a nested PID namespace's init, take the sockets of its group from crshim once it
 * cloned its children, before its fd table is set (rst_sk_unix_outer_take)? Not when it shares the table,
 * nor when it shares another's address space (a placeholder of crshim's restores its fd table). */
static bool takes_late(struct rst_task *ts, size_t n, const struct rst_task *t)
{
	return !t->zombie && !t->helper && !rst_svm_sharer(t) && !shares_table(ts, n, t);
}

/* The process highest up t's line in t's PID namespace lv levels down or below it (pstree levels): two of
 * one namespace at that level have the same one. */
static const struct rst_task *lv_top(struct rst_task *ts, size_t n, const struct rst_task *t, uint32_t lv)
{
	for (size_t hops = 0; t && hops <= n; hops++) {
		const struct rst_task *p = parent_of(ts, n, t);
		if (!p || usk_pst_lv(p) < lv)
			return t;
		t = p;
	}
	return NULL;
}

/* The process of the tree in init's own PID namespace whose pid, as the holder of r's deepest entry (above
 * init) saw it, that entry names (one of the holder's namespace at its level); NULL: none (gone, outside the
 * tree, or not in that namespace). */
static const struct rst_task *inner_pid(struct rst_task *ts, size_t n, const struct rsk *r,
					const struct rst_task *init)
{
	uint32_t lh = usk_pst_lv(&ts[r->deepi]), li = usk_pst_lv(init);
	for (size_t k = 0; k < n; k++) {
		const struct rst_task *x = &ts[k];
		uint32_t lx = usk_pst_lv(x);
		pid_t seen = lh ? (lx >= lh ? x->pst->ns_tids[lh - 1] : 0) : (pid_t)x->pst->pid;
		if (seen == r->deep->peer_pid && lx == li && li && !x->zombie && below(ts, n, x, init) &&
		    (!lh || lv_top(ts, n, x, lh) == lv_top(ts, n, &ts[r->deepi], lh)))
			return x;
	}
	return NULL;
}

/* The group made before the group of init, or with it: the root's (0), or one of an init or mount namespace
 * maker above init (made once that one stands, before init is cloned). */
static bool grp_before(struct rst_task *ts, size_t n, uint32_t grp, const struct rst_task *init)
{
	for (const struct rst_task *t = parent_of(ts, n, init); grp && t; t = parent_of(ts, n, t))
		if (grp_key(t) == grp)
			return true;
	return !grp;
}

/* A socket of the group tried that crshim connects (by name) to one of another group, made before, not
 * unlinked, and with no connection in its listen queue (accept() takes the first): NULL, else why not. */
static const char *outer_peer(struct rst_task *ts, size_t n, struct rsk *r, const struct rst_task *init)
{
	struct rsk *p = usk_mutual_peer(r), *l = NULL, *b;
	if (r->u->state == ST_LISTEN || usk_pair_made(r, &b))
		return NULL;
	if (p && !r->u->pending) /* (make_accepted's listener) */
		l = usk_listener_named(r) && !(usk_listener_named(p) && !r->u->peer) ? usk_listener_named(r)
										     : usk_listener_named(p);
	else if (r->u->type == SOCK_DGRAM && !p) /* (make_connects: to its peer's name) */
		l = usk_find(r->u->peer);
	for (size_t i = 0; r->u->pending && i < usk_nsks; i++) /* (make_connects: the listener's queue) */
		for (size_t c = 0; usk_sks[i].u->state == ST_LISTEN && c < usk_sks[i].u->n_icons; c++)
			if (usk_sks[i].u->icons[c] == r->ino && usk_sks[i].grp != GRP_TRY)
				return "a connection not accepted yet to a listener of another namespace";
	if (!l || l->grp == GRP_TRY)
		return NULL;
	if (!grp_before(ts, n, l->grp, init))
		return "connected to a socket made in another nested namespace";
	if (l->u->deleted)
		return "connected to a socket whose file was removed";
	if (l->u->state == ST_LISTEN && l->u->n_icons)
		return "accepted from a listener with connections not accepted yet";
	return NULL;
}

/* Is every holder of the group tried at or below init, or one that takes them late? */
static bool held_in(struct rst_task *ts, size_t n, struct rst_task *init)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			const struct rsk *r =
			    f->kind == FILE_KIND__FILE_UNIXSK ? usk_find(f->unix_sk->ino) : NULL;
			if (r && r->grp == GRP_TRY && !below(ts, n, &ts[k], init) &&
			    !takes_late(ts, n, &ts[k]))
				return false;
		}
	return true;
}

/* Does every socket of the group tried whose entries with a pid are all of processes above init (they saw
 * it from there) name a process of init's namespace (inner_pid), or is it a pair whose other end's entry is
 * one of init's namespace, which gives the pair its SO_PEERCRED? */
static bool creds_in(struct rst_task *ts, size_t n, struct rst_task *init)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i], *p = NULL;
		if (r->grp != GRP_TRY || below(ts, n, &ts[r->deepi], init) || !r->deep->has_peer_pid ||
		    inner_pid(ts, n, r, init))
			continue;
		if (!usk_pair_made(r, &p) || !p || p->grp != GRP_TRY || !p->deep->has_peer_pid ||
		    !below(ts, n, &ts[p->deepi], init))
			return false;
	}
	return true;
}

/* The sockets of the group tried, with all they need: none of another group, none bound to a path init
 * does not see, all held at or below init (or, init having made no mount namespace, by processes that
 * take them late: takes_late), connected by name only to sockets made before (outer_peer). NULL, else why
 * not (the group is not made). */
static const char *pidns_close(struct rst_task *ts, size_t n, struct rst_task *init, uint32_t key)
{
	bool mnt = root_mnt(ts, n, init);
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < usk_nsks; i++)
			for (size_t k = 0; usk_sks[i].grp == GRP_TRY && k < usk_nsks; k++) {
				struct rsk *s = &usk_sks[k];
				if (s->grp == GRP_TRY || s->grp == key || !needs(&usk_sks[i], s))
					continue;
				if (s->grp)
					return "connected to a socket of another nested namespace";
				s->grp = GRP_TRY, more = true;
			}
	}
	for (size_t i = 0; i < usk_nsks; i++) {
		const UnixSkEntry *u = usk_sks[i].u;
		const char *why = usk_sks[i].grp == GRP_TRY ? outer_peer(ts, n, &usk_sks[i], init) : NULL;
		if (why)
			return why;
		if (usk_sks[i].grp == GRP_TRY && !mnt && u->has_name && u->name.len && u->name.data[0])
			return "bound to a path of a mount namespace its init does not see";
	}
	if (!held_in(ts, n, init))
		return "held by a process outside the namespace that shares its fd table";
	if (!creds_in(ts, n, init))
		return "its SO_PEERCRED seen only from outside the namespace, naming no process of it";
	return NULL;
}

/* (pidns_groups, a group made) each socket of it gives back the SO_PEERCRED of its deepest entry, or of
 * the process of init's namespace an entry above init names; else its pair's other end's (above) */
static void group_creds(struct rst_task *ts, size_t n, const struct rst_task *init, uint32_t key)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i];
		const struct rst_task *x;
		if (r->grp != key)
			continue;
		r->cu = r->deep, r->cti = r->deepi, r->ct = &ts[r->deepi];
		if (below(ts, n, r->ct, init) || !r->deep->has_peer_pid)
			continue;
		if (!(x = inner_pid(ts, n, r, init))) {
			r->above = true;
			continue;
		}
		r->xcred = *r->deep;
		r->xcred.peer_pid = x->pst->ns_tids[usk_pst_lv(x) - 1];
		r->cu = &r->xcred, r->ct = x, r->cti = (size_t)(x - ts);
		pr_debug("socket:[%u]: SO_PEERCRED pid %d (as task %d saw it) is %d in its namespace\n",
			 r->ino, r->deep->peer_pid, ts[r->deepi].pid, r->xcred.peer_pid);
	}
}

static void pidns_groups(struct rst_task *ts, size_t n)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i];
		struct rst_task *init =
		    r->deep->has_peer_pid && !r->grp ? pidns_init(ts, n, &ts[r->deepi]) : NULL;
		uint32_t key = init ? grp_key(init) : 0;
		if (!key)
			continue;
		r->grp = GRP_TRY;
		const char *why = pidns_close(ts, n, init, key);
		for (size_t k = 0; k < usk_nsks; k++)
			if (usk_sks[k].grp == GRP_TRY)
				usk_sks[k].grp = why ? 0 : key;
		if (why) { /* (it names crshim in there: the restore's notice) */
			rst_sk_peercred_nested_not(r->ino, init->pid, why);
			continue;
		}
		group_creds(ts, n, init, key);
		pr_info("socket:[%u]: made in the PID namespace of task %d once it stands\n", r->ino,
			init->pid);
	}
}

/* The init of a nested PID namespace whose group grp is (PIDNS_GRP, or the mount namespace it made), NULL:
 * none (the maker of a mount namespace that is no PID namespace's init). Processes outside it may hold
 * sockets of that group: they take them late (rst_sk_unix_outer_take). */
static struct rst_task *grp_init(struct rst_task *ts, size_t n, uint32_t grp)
{
	if (grp & PIDNS_GRP)
		return (grp & ~PIDNS_GRP) < n ? &ts[grp & ~PIDNS_GRP] : NULL;
	for (size_t k = 0; grp && k < n; k++)
		if (ts[k].pst->mntns == grp)
			return pst_init(&ts[k]) ? &ts[k] : NULL;
	return NULL;
}

/* Is task t in the nested mount namespace grp (the one it or one of its ancestors made)? */
static bool in_grp(struct rst_task *ts, size_t n, const struct rst_task *t, const struct rsk *r)
{
	uint32_t grp = r->grp;
	const struct rst_task *init = grp_init(ts, n, grp);
	/* (rst_sk_unix_outer_take; not one bound in the mount namespace: its holder outside may not see its
	 * path there, and the dump saves its name as that one sees it) */
	if (init && !r->mnt_bound && !below(ts, n, t, init) && takes_late(ts, n, t))
		return true;
	if (grp & PIDNS_GRP) /* (at or below its init) */
		return init && below(ts, n, t, init);
	for (size_t hops = 0; t && hops <= n; hops++) {
		if (t->pst->mntns == grp)
			return true;
		if (t->pst->mntns || t->pst->mntns_up || t->root)
			return false;
		t = rst_tree_task(ts, n, t->pst->ppid);
	}
	return false;
}

/* Every holder of a socket of a nested mount namespace is in it (it gets it from the process that made
 * the namespace, which gets it from crshim); the groups listed. */
int usk_groups(struct rst_task *ts, size_t n, struct cr_err *e)
{
	pidns_groups(ts, n);
	if (spread(e))
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			const struct rsk *r =
			    f->kind == FILE_KIND__FILE_UNIXSK ? usk_find(f->unix_sk->ino) : NULL;
			char nb[64];
			if (!r || !r->grp || in_grp(ts, n, &ts[k], r))
				continue;
			return cr_fail_errno(
			    e, ENOTSUP,
			    "not supported yet: unix socket socket:[%u] (%s) of a nested mount "
			    "namespace (%u) is held by task %d, which is not in it",
			    r->ino, usk_sk_name(r->u, nb, sizeof(nb)), r->grp, ts[k].pid);
		}
	for (size_t i = 0; i < usk_nsks; i++) {
		bool known = !usk_sks[i].grp;
		for (size_t g = 0; !known && g < usk_ngrps; g++)
			known = usk_grps[g].mntns == usk_sks[i].grp;
		if (known)
			continue;
		struct sk_grp *ng = realloc(usk_grps, (usk_ngrps + 1) * sizeof(*ng));
		if (!ng)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		usk_grps = ng;
		usk_grps[usk_ngrps++] = (struct sk_grp){usk_sks[i].grp, {-1, -1}, {-1, -1}};
	}
	return 0;
}

static struct sk_grp *grp_of(uint32_t mntns)
{
	for (size_t g = 0; mntns && g < usk_ngrps; g++)
		if (usk_grps[g].mntns == mntns)
			return &usk_grps[g];
	return NULL;
}

/* Does task t hold a socket of group grp? */
static bool holds(const struct rst_task *t, uint32_t grp)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		const FileEntry *f = t->files[i];
		const struct rsk *r = f->kind == FILE_KIND__FILE_UNIXSK ? usk_find(f->unix_sk->ino) : NULL;
		if (r && r->grp == grp)
			return true;
	}
	return false;
}

/* A channel for each process not at or below a PID namespace's init that holds sockets of its group (before
 * to_inherit: the entries are still the sockets'). */
int usk_outs_make(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t g = 0; g < usk_ngrps; g++) {
		const struct rst_task *init = grp_init(ts, n, usk_grps[g].mntns);
		for (size_t k = 0; init && k < n; k++) {
			if (below(ts, n, &ts[k], init) || !holds(&ts[k], usk_grps[g].mntns))
				continue;
			struct sk_out *no = realloc(usk_outs, (usk_nouts + 1) * sizeof(*no));
			if (!no)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			usk_outs = no;
			usk_outs[usk_nouts] = (struct sk_out){k, usk_grps[g].mntns, {-1, -1}};
			if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, usk_outs[usk_nouts++].ch))
				return cr_fail_sys(e, "a socket pair for the unix sockets task %d takes",
						   ts[k].pid);
			pr_info("task %d, outside the PID namespace of task %d, takes sockets of it once "
				"they are made\n",
				ts[k].pid, init->pid);
		}
	}
	return 0;
}

bool rst_sk_unix_nested_has(const struct rst_task *t)
{
	return grp_of(grp_key(t)) != NULL;
}

int rst_sk_unix_nested(const struct rst_task *ts, const struct rst_task *t, struct cr_err *e)
{
	struct sk_grp *g = grp_of(grp_key(t));
	if (!g)
		return 0;
	usk_cur_grp = g->mntns;
	take_premade(g->ch[0]);
	serving = t, serve_ch = g->srv[0];
	ns_rst_memcg_enter(ts[0].ns); /* (as rst_sk_unix_prepare) */
	int ret = make_in(ts, t->pid, t->ns_levels, e);
	ns_rst_memcg_leave(ts[0].ns);
	serving = NULL, serve_ch = -1;
	int *nums =
	    ret ? NULL : calloc(usk_nsks, sizeof(*nums)); /* (freed below: not a cleanup, scan-build) */
	size_t nn = 0;
	if (!ret && !nums)
		ret = cr_fail_errno(e, ENOMEM, "out of memory");
	if (!ret)
		ret = usk_to_kept(false, e);
	for (size_t i = 0; !ret && i < usk_nsks; i++)
		if (!usk_other(&usk_sks[i]))
			nums[nn++] = usk_sks[i].fd;
	if (!ret && late_fds_push(g->ch[0], nums, nn))
		ret = cr_fail_sys(e, "send them to task %d", t->pid);
	/* (and to the processes above a PID namespace's init that hold some) */
	for (size_t o = 0; !ret && o < usk_nouts; o++)
		if (usk_outs[o].grp == g->mntns && late_fds_push(usk_outs[o].ch[0], nums, nn))
			ret = cr_fail_sys(e, "send them to task %d", ts[usk_outs[o].ti].pid);
	free(nums);
	usk_cur_grp = 0;
	return ret ? cr_wrap(e, "unix sockets of the mount namespace of task %d", t->pid) : 0;
}

int rst_sk_unix_nested_take(const struct rst_task *t, char *msg, size_t len)
{
	const struct sk_grp *g = grp_of(grp_key(t));
	if (!g)
		return 0;
	if (premake(t, g->mntns, g->ch[1], msg, len))
		return -1;
	if (write(t->err_pipe[1], (char[]){RST_STAND_MARK}, 1) != 1)
		return rst_errmsg(msg, len, "tell crshim that its mount namespace stands");
	/* (crshim asks its calls before it sends the sockets) */
	return serve(g->ch[1], g->srv[1], msg, len) || late_fds_pull(g->ch[1], msg, len) ? -1 : 0;
}

int rst_sk_unix_outer_take(const struct rst_task *t, char *msg, size_t len)
{
	size_t k = (size_t)(t - t->tree);
	for (size_t o = 0; o < usk_nouts; o++)
		if (usk_outs[o].ti == k && late_fds_pull(usk_outs[o].ch[1], msg, len))
			return -1;
	return 0;
}
