/* Restore of unix sockets (see sk-unix.h), in crshim before the tree is created: every socket once, in
 * phases (make and bind, accepted connections, pending connections, connects by name, queued data,
 * shutdown and flags); then each entry becomes FILE_INHERIT of crshim's socket. This file: the sockets
 * collected, their options, the phases, pairs and listeners, the entries; names are bound and connected in
 * restore-sk-unix-name.c, queues put back in restore-sk-unix-queue.c, the sockets made later (the tree's own
 * mount tree, nested mount and PID namespaces) in restore-sk-unix-nested.c. */
#define LOG_PREFIX "restore-sk-unix: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/late-fds.h"
#include "base/log.h"
#include "restore.h"
#include "net/sk-inet.h"
#include "net/sk-unix.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

/* The state of the restore (see sk-unix.h) */
struct rsk *usk_sks;
size_t usk_nsks;
uint32_t usk_cur_grp;
bool usk_late;
const struct ns_rst *usk_rns;

/* crshim into the network namespace socket r was made in (then back: bind, connect and listen use the
 * socket's own) */
static int net_in(const struct rsk *r, struct cr_err *e)
{
	return ns_rst_net_enter(usk_rns, r->u->has_netns ? r->u->netns : 0, e);
}

static int net_back(struct cr_err *e)
{
	return ns_rst_net_enter(usk_rns, 0, e);
}

struct rsk *usk_find(uint32_t ino)
{
	for (size_t i = 0; ino && i < usk_nsks; i++)
		if (usk_sks[i].ino == ino)
			return &usk_sks[i];
	return NULL;
}

/* Not of the group made now. */
bool usk_other(const struct rsk *r)
{
	return r->grp != usk_cur_grp;
}

static int collect(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_UNIXSK)
				continue;
			if (!f->unix_sk || !f->unix_sk->ino)
				return cr_fail_errno(e, EBADMSG,
						     "files of task %d: file id %u: no unix socket",
						     ts[k].pid, f->id);
			struct rsk *old = usk_find(f->unix_sk->ino);
			if (old && !old->grp && f->unix_sk->has_mntns) /* (any holder's entry says it) */
				old->grp = f->unix_sk->mntns;
			if (old)
				old->mnt_bound |= f->unix_sk->has_mntns;
			if (old && f->unix_sk->has_peer_pid &&
			    (!old->deep->has_peer_pid || usk_pst_lv(&ts[k]) > usk_pst_lv(&ts[old->deepi])))
				old->deep = f->unix_sk, old->deepi = k;
			if (old)
				continue;
			struct rsk *ns = realloc(usk_sks, (usk_nsks + 1) * sizeof(*ns));
			if (!ns)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			usk_sks = ns;
			usk_sks[usk_nsks++] =
			    (struct rsk){.ino = f->unix_sk->ino,
					 .u = f->unix_sk,
					 .t = &ts[k],
					 .ti = k,
					 .cu = f->unix_sk,
					 .ct = &ts[k],
					 .cti = k,
					 .deep = f->unix_sk,
					 .deepi = k,
					 .fd = -1,
					 .ghost = -1,
					 .made_dir = -1,
					 .keep = -1,
					 .pre = {-1, -1},
					 .grp = f->unix_sk->has_mntns ? f->unix_sk->mntns : 0,
					 .mnt_bound = f->unix_sk->has_mntns};
		}
	return 0;
}

static void set_int(int fd, int opt, int v)
{
	setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v));
}

static int apply_opts(const struct rsk *r, struct cr_err *e)
{
	const UnixSkOpts *o = r->u->opts;
	if (!o)
		return 0;
	int cur, half;
	socklen_t l = sizeof(cur);
	half = (int)(o->sndbuf / 2); /* the kernel doubles what is set */
	if (o->has_sndbuf && !getsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &cur, &l) &&
	    (uint32_t)cur != o->sndbuf && setsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &half, sizeof(half)))
		return cr_fail_sys(e, "socket:[%u]: SO_SNDBUF %u", r->ino, o->sndbuf);
	l = sizeof(cur);
	half = (int)(o->rcvbuf / 2);
	if (o->has_rcvbuf && !getsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &cur, &l) &&
	    (uint32_t)cur != o->rcvbuf && setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &half, sizeof(half)))
		return cr_fail_sys(e, "socket:[%u]: SO_RCVBUF %u", r->ino, o->rcvbuf);
	/* after the sizes, which lock them; 0 needs nothing on a kernel without it */
	if (o->has_buf_lock &&
	    setsockopt(r->fd, SOL_SOCKET, SO_BUF_LOCK, &o->buf_lock, sizeof(o->buf_lock)) &&
	    (o->buf_lock || errno != ENOPROTOOPT))
		return cr_fail_sys(e, "socket:[%u]: SO_BUF_LOCK %u", r->ino, o->buf_lock);
	if (o->passcred)
		set_int(r->fd, SO_PASSCRED, 1);
	if (o->passsec)
		set_int(r->fd, SO_PASSSEC, 1);
	if (o->passpidfd)
		set_int(r->fd, SO_PASSPIDFD, 1);
	if (o->has_rcvlowat && o->rcvlowat > 1)
		set_int(r->fd, SO_RCVLOWAT, (int)o->rcvlowat);
	char msg[256];
	if (rst_sk_opts(r->fd, r->u->sk_opts, r->u->n_sk_opts, msg, sizeof(msg)))
		return cr_fail(e, "socket:[%u]: %s", r->ino, msg);
	struct timeval tv;
	if (o->rcvtimeo_us) {
		tv = (struct timeval){(time_t)(o->rcvtimeo_us / 1000000),
				      (suseconds_t)(o->rcvtimeo_us % 1000000)};
		setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (o->sndtimeo_us) {
		tv = (struct timeval){(time_t)(o->sndtimeo_us / 1000000),
				      (suseconds_t)(o->sndtimeo_us % 1000000)};
		setsockopt(r->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	return 0;
}

/* A new socket of r's type, its options set, bound to its name. */
static int make_one(struct rsk *r, bool bind_it, struct cr_err *e)
{
	if (net_in(r, e))
		return -1;
	r->fd = socket(AF_UNIX, (int)r->u->type | SOCK_CLOEXEC, 0);
	int err = errno;
	if (net_back(e))
		return -1;
	errno = err;
	if (r->fd < 0)
		return cr_fail_sys(e, "socket:[%u]: socket type %u", r->ino, r->u->type);
	return apply_opts(r, e) || (bind_it && usk_do_bind(r, e)) ? -1 : 0;
}

struct pair_call {
	int type;
	int fd[2]; /* placeholders (a pipe) the pair takes the place of */
};

static int pair_fn(void *arg)
{
	struct pair_call *p = arg;
	int sp[2];
	if (socketpair(AF_UNIX, p->type | SOCK_CLOEXEC, 0, sp))
		return -1;
	int r = dup3(sp[0], p->fd[0], O_CLOEXEC) < 0 || dup3(sp[1], p->fd[1], O_CLOEXEC) < 0 ? -1 : 0;
	int err = errno;
	close(sp[0]);
	close(sp[1]);
	errno = err;
	return r;
}

static bool same_cred(const UnixSkEntry *a, const UnixSkEntry *b)
{
	return a->peer_pid == b->peer_pid && a->peer_uid == b->peer_uid && a->peer_gid == b->peer_gid;
}

/* An unnamed dgram socket with messages queued and no peer: only a peer could send to it (a socketpair, a
 * connect to it), and that peer was closed. It is made as one end of a pair whose other end puts the
 * messages back and is closed (a send then fails with ECONNREFUSED as before). */
static bool orphan_dgram(const UnixSkEntry *u)
{
	return u->type == SOCK_DGRAM && !u->peer && !u->ext_peer && (!u->has_name || !u->name.len) &&
	       u->queue_saved && u->n_queue;
}

/* The SO_PEERCRED a pair gets (a's, else b's; NULL: none) */
const UnixSkEntry *usk_pair_cred(const struct rsk *a, const struct rsk *b)
{
	if (a->above && b && b->cu->has_peer_pid)
		return b->cu;
	if (a->cu->has_peer_pid || (b && b->cu->has_peer_pid))
		return a->cu->has_peer_pid ? a->cu : b->cu;
	/* (a pid named by neither end: uid and gid only, of a process outside their PID namespace) */
	return a->cu->has_peer_uid ? a->cu : b && b->cu->has_peer_uid ? b->cu : NULL;
}

/* socketpair() by the process both ends name (SO_PEERCRED) */
static int make_pair(struct rsk *a, struct rsk *b, struct cr_err *e)
{
	struct pair_call pc = {(int)a->u->type, {-1, -1}};
	const UnixSkEntry *cred = usk_pair_cred(a, b);
	bool pre = a->pre[0] >= 0;
	if (pre) { /* made by the process it names (premake) */
		memcpy(pc.fd, a->pre, sizeof(pc.fd));
		a->pre[0] = a->pre[1] = -1;
	} else if (pipe2(pc.fd, O_CLOEXEC)) {
		return cr_fail_sys(e, "socket:[%u]: pipe", a->ino);
	}
	const struct rst_task *holder = b && cred == b->cu ? b->ct : a->ct; /* who sees the pid */
	int made = pre ? 0 : net_in(a, e) ? -2 : rst_sk_as_peer(holder, cred, pair_fn, &pc), err = errno;
	if (!pre && made != -2 && net_back(e))
		made = -2;
	if (made) {
		close(pc.fd[0]);
		close(pc.fd[1]);
		if (made == -2) /* e says why */
			return -1;
		return cr_fail_errno(e, err, "socket:[%u]: socketpair", a->ino);
	}
	if (b && cred && !same_cred(a->cu, b->cu))
		pr_info("socket:[%u]: the two ends named different processes (SO_PEERCRED pids %d, %d): "
			"both name %d now\n",
			a->ino, a->cu->peer_pid, b->cu->peer_pid, cred->peer_pid);
	a->fd = pc.fd[0];
	if (b)
		b->fd = pc.fd[1];
	else
		a->ghost = pc.fd[1];
	/* names: dgram sockets bind theirs; a stream pair without its listener keeps none */
	bool dg = a->u->type == SOCK_DGRAM;
	if (apply_opts(a, e) || (dg && usk_do_bind(a, e)) ||
	    (b && (apply_opts(b, e) || (dg && usk_do_bind(b, e)))))
		return -1;
	if (!dg && ((a->u->has_name && a->u->name.len) || (b && b->u->has_name && b->u->name.len)))
		pr_info("socket:[%u]: connected stream pair restored without its names (no listener)\n",
			a->ino);
	return 0;
}

/* The listener of the tree bound to the name of a (a connection it accepted), NULL if none. */
struct rsk *usk_listener_named(const struct rsk *a)
{
	if (!a->u->has_name || !a->u->name.len)
		return NULL;
	for (size_t i = 0; usk_sks && i < usk_nsks; i++) /* (usk_sks: NULL until collected) */
		if (usk_sks[i].u->state == ST_LISTEN && usk_same_name(usk_sks[i].u, &a->u->name))
			return &usk_sks[i];
	return NULL;
}

struct rsk *usk_mutual_peer(const struct rsk *r)
{
	struct rsk *p = usk_find(r->u->peer);
	return p && p != r && p->u->peer == r->ino ? p : NULL;
}

/* Phase 1 makes r with socketpair() (make_pair), *p its other end: a pair (not a connection a listener of
 * the tree accepted), or an end whose peer was closed (*p NULL: a stream one, or a dgram one that got
 * messages from it: its end sends them again). */
bool usk_pair_made(struct rsk *r, struct rsk **p)
{
	const UnixSkEntry *u = r->u;
	*p = NULL;
	if (u->state == ST_LISTEN)
		return false;
	if ((*p = usk_mutual_peer(r)))
		return u->type == SOCK_DGRAM || !(usk_listener_named(r) || usk_listener_named(*p));
	if (u->pending)
		return false;
	return (u->state == ST_ESTABLISHED && u->type != SOCK_DGRAM && !u->peer && !u->ext_peer) ||
	       orphan_dgram(u);
}

struct listen_call {
	int fd, backlog;
};

static int listen_fn(void *arg)
{
	const struct listen_call *l = arg;
	return listen(l->fd, l->backlog);
}

/* Phase 1: listeners, pairs, lone sockets. Accepted connections and pending clients wait. */
static int make_sockets(struct cr_err *e)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i], *p;
		const UnixSkEntry *u = r->u;
		if (r->fd >= 0 || usk_other(r))
			continue;
		if (u->state == ST_LISTEN) {
			if (make_one(r, true, e))
				return -1;
			struct listen_call lc = {r->fd, (int)u->backlog};
			if (usk_as_peer(r->ct, r->cu, listen_fn, &lc, SRV_LISTEN, r->fd, lc.backlog, NULL, 0))
				return cr_fail_sys(e, "socket:[%u]: listen", r->ino);
			continue;
		}
		if (usk_pair_made(r, &p)) {
			if (make_pair(r, p, e))
				return -1;
			continue;
		}
		if (usk_mutual_peer(r) || u->pending)
			continue; /* accepted: phase 2; pending: phase 3 */
		if (make_one(r, true, e))
			return -1;
	}
	return 0;
}

/* Phase 2: connections the listener had accepted: connect to it, accept at once. */
static int make_accepted(struct cr_err *e)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i], *p = usk_mutual_peer(r), *l, *srv, *cli;
		if (r->fd >= 0 || !p || r->u->state == ST_LISTEN || usk_other(r))
			continue;
		if ((l = usk_listener_named(r)) && !(usk_listener_named(p) && !r->u->peer)) {
			srv = r, cli = p;
		} else {
			l = usk_listener_named(p);
			srv = p, cli = r;
		}
		if (!l || l->fd < 0)
			return cr_fail_errno(e, EINVAL, "socket:[%u]: no listener for its connection",
					     r->ino);
		bool own = cli->u->has_name && !usk_same_name(cli->u, &l->u->name);
		if (make_one(cli, own, e) || usk_connect_to(cli, &l->addr, l->alen, l->u->cwd, srv, e))
			return -1;
		srv->fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
		if (srv->fd < 0)
			return cr_fail_sys(e, "socket:[%u]: accept on socket:[%u]", srv->ino, l->ino);
		if (apply_opts(srv, e))
			return -1;
	}
	return 0;
}

/* Phase 3: connections not accepted yet, in the listener's queue order; then connects by name (a dgram
 * socket to its peer, a socket to its external peer). */
static int make_connects(struct cr_err *e)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *l = &usk_sks[i];
		for (size_t k = 0; !usk_other(l) && l->u->state == ST_LISTEN && k < l->u->n_icons; k++) {
			struct rsk *c = usk_find(l->u->icons[k]);
			if (!c || c->fd >= 0)
				continue;
			if (make_one(c, true, e) || usk_connect_to(c, &l->addr, l->alen, l->u->cwd, NULL, e))
				return cr_wrap(e, "pending connection of socket:[%u]", l->ino);
		}
	}
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i], *p = usk_find(r->u->peer);
		if (usk_other(r))
			continue;
		if (r->fd < 0)
			return cr_fail_errno(e, EINVAL, "socket:[%u]: not made (pending on no listener?)",
					     r->ino);
		if (r->u->ext_peer && r->u->has_peer_name) {
			struct sockaddr_un a;
			socklen_t al = usk_mk_addr(&r->u->peer_name, &a);
			if (usk_connect_to(r, &a, al, NULL, NULL, e))
				return cr_wrap(e, "external peer");
		} else if (r->u->type == SOCK_DGRAM && p && !usk_mutual_peer(r)) {
			if (!p->alen)
				return cr_fail_errno(e, ENOTSUP,
						     "socket:[%u]: its peer socket:[%u] has no name", r->ino,
						     p->ino);
			if (usk_connect_to(r, &p->addr, p->alen, p->u->cwd, NULL, e))
				return -1;
		}
	}
	return 0;
}

/* Phase 4: the data, then shutdowns, closed peers, flags, deleted files. */
static int finish(struct cr_err *e)
{
	if (usk_put_queues(e))
		return -1;
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i];
		const UnixSkEntry *u = r->u;
		if (usk_other(r))
			continue;
		if (r->ghost >= 0) { /* the peer was closed: it shut both directions */
			close(r->ghost);
			r->ghost = -1;
		} else if (u->shutdown & 3) {
			int how = (u->shutdown & 3) == 3 ? SHUT_RDWR : (u->shutdown & 1) ? SHUT_RD : SHUT_WR;
			if (shutdown(r->fd, how) && errno != ENOTCONN)
				return cr_fail_sys(e, "socket:[%u]: shutdown %u", r->ino, u->shutdown);
		}
		if (fcntl(r->fd, F_SETFL, (int)(u->flags & ~(uint32_t)O_ACCMODE)))
			return cr_fail_sys(e, "socket:[%u]: flags %#x", r->ino, u->flags);
		if (u->opts && u->opts->has_peek_off && u->opts->peek_off >= 0)
			set_int(r->fd, SO_PEEK_OFF, u->opts->peek_off);
		int here = r->unlink_after ? usk_enter(u->cwd, &r->addr) : -1;
		int ret = r->unlink_after ? unlink(r->addr.sun_path) : 0;
		int err = errno;
		usk_leave(here);
		if (ret)
			return cr_fail_errno(e, err, "socket:[%u]: unlink %s", r->ino, r->addr.sun_path);
	}
	for (size_t i = usk_nsks; i-- > 0;) /* once all the files are gone (sockets may share a directory) */
		usk_rm_dirs(&usk_sks[i]);
	return 0;
}

static int to_inherit(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_UNIXSK)
				continue;
			const struct rsk *r = usk_find(f->unix_sk->ino);
			char desc[48];
			snprintf(desc, sizeof(desc), "socket:[%u]", f->unix_sk->ino);
			if (!r)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			if (rst_file_inherit(&ts[k], f, usk_late || r->grp ? r->keep : r->fd, desc, e))
				return -1;
		}
	return 0;
}

/* The sockets of the group made now: each at the fd number kept for it (offer: one the root task takes). */
int usk_to_kept(bool offer, struct cr_err *e)
{
	for (size_t i = 0; i < usk_nsks; i++) {
		struct rsk *r = &usk_sks[i];
		if (usk_other(r))
			continue;
		if (dup3(r->fd, r->keep, O_CLOEXEC) < 0)
			return cr_fail_sys(e, "socket:[%u]: put it at fd %d", r->ino, r->keep);
		close(r->fd);
		r->fd = r->keep;
		r->keep = -1;
		if (offer && late_fd_offer(r->fd))
			return cr_fail_sys(e, "socket:[%u]: offer it to the root task", r->ino);
	}
	return 0;
}

int usk_make_all(struct cr_err *e)
{
	if (make_sockets(e) || make_accepted(e) || make_connects(e) || finish(e))
		return cr_wrap(e, "unix sockets");
	pr_info("%zu unix sockets made\n", usk_nsks);
	return 0;
}

int rst_sk_unix_check(struct rst_task *ts, size_t n, struct cr_err *e)
{
	int ret = collect(ts, n, e) || usk_groups(ts, n, e) ? -1 : 0;
	rst_sk_unix_done(NULL, true); /* (nothing made: only freed) */
	return ret;
}

int rst_sk_unix_prepare(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e)
{
	rst_sk_peercred_reset();
	usk_rns = ts[0].ns;
	usk_cur_grp = 0;
	if (collect(ts, n, e) || usk_groups(ts, n, e))
		return -1;
	if (!usk_nsks)
		return 0;
	usk_late = ts[0].paths_later;
	for (size_t g = 0; g < usk_ngrps; g++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, usk_grps[g].ch) ||
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, usk_grps[g].srv))
			return cr_fail_sys(e, "socket pairs for the unix sockets of mount namespace %u",
					   usk_grps[g].mntns);
	/* made once the tree's mount tree (or their nested one) stands: fd numbers kept for them */
	for (size_t i = 0; i < usk_nsks; i++)
		if ((usk_late || usk_sks[i].grp) &&
		    (usk_sks[i].keep = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return cr_fail_sys(e, "keep an fd for socket:[%u]", usk_sks[i].ino);
	if (usk_outs_make(ts, n, e))
		return -1;
	if (usk_ngrps)
		pr_info("unix sockets of %zu nested mount namespaces are made in them once they stand\n",
			usk_ngrps);
	if (usk_late) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, usk_late_ch))
			return cr_fail_sys(e, "a socket pair for the unix sockets the root task makes");
		pr_info("%zu unix sockets are made in the tree's mount tree once it stands\n", usk_nsks);
		return to_inherit(ts, n, e);
	}
	/* (in the tree's memory cgroup: a socket is charged to its maker's for good) */
	ns_rst_memcg_enter(ts[0].ns);
	int ret = usk_make_all(e);
	ns_rst_memcg_leave(ts[0].ns);
	return ret || to_inherit(ts, n, e) ? -1 : 0;
}
/* Close both ends of a pair of fds (-1: none) and mark them closed. */
static void close2(int fd[2])
{
	for (int k = 0; k < 2; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	fd[0] = fd[1] = -1;
}

void rst_sk_unix_done(const struct cr_opts *o, bool failed)
{
	if (!failed && usk_nsks) /* (a failed restore says one line: why it failed) */
		rst_sk_peercred_notice(o);
	if (failed)
		usk_unlink_all_made();
	for (size_t i = usk_nsks; i-- > 0;)
		usk_rm_dirs(&usk_sks[i]);
	for (size_t i = 0; i < usk_nsks; i++) {
		free(usk_sks[i].made);
		if (usk_sks[i].made_dir >= 0)
			close(usk_sks[i].made_dir);
		if (usk_sks[i].keep >= 0)
			close(usk_sks[i].keep);
		if (usk_sks[i].fd >= 0)
			close(usk_sks[i].fd);
		if (usk_sks[i].ghost >= 0)
			close(usk_sks[i].ghost);
		close2(usk_sks[i].pre);
	}
	free(usk_sks);
	usk_sks = NULL;
	usk_nsks = 0;
	usk_late = false;
	for (size_t g = 0; g < usk_ngrps; g++) {
		close2(usk_grps[g].ch);
		close2(usk_grps[g].srv);
	}
	free(usk_grps);
	usk_grps = NULL;
	usk_ngrps = 0;
	for (size_t k = 0; k < usk_nouts; k++)
		close2(usk_outs[k].ch);
	free(usk_outs);
	usk_outs = NULL;
	usk_nouts = 0;
	close2(usk_late_ch);
}
