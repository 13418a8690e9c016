/* Restore of unix sockets (see sk-unix.h), in crshim before the tree is created: every socket once, in
 * phases (make and bind, accepted connections, pending connections, connects by name, queued data,
 * shutdown and flags); then each entry becomes FILE_INHERIT of crshim's socket. */
#define LOG_PREFIX "restore-sk-unix: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "base/cleanup.h"
#include "base/late-fds.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/scm.h"
#include "files/fdshare.h"
#include "restore.h"
#include "net/sk-inet.h"
#include "net/sk-unix.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#define SCM_MAX_FD_ 253 /* the kernel's SCM_MAX_FD */
#define ST_ESTABLISHED 1
#define ST_LISTEN 10

struct rsk {
	uint32_t ino;
	UnixSkEntry *u;
	const struct rst_task *t; /* whose files the ids of files in flight in u's queue are */
	size_t ti;		  /* its index in the tree (the tree's array moves: rst_sk_unix_late) */
	int fd;			  /* crshim's socket, -1: not made yet */
	int ghost; /* the other end of a pair whose peer was closed: closed once the data is in */
	struct sockaddr_un addr; /* where it is bound (alen 0: not bound by us) */
	socklen_t alen;
	bool unlink_after; /* a deleted socket file: unlinked once every connect is done */
	char *made;	   /* the socket file this restore bound (absolute path), NULL: none */
	int made_dir;	   /* its directory (O_PATH): removed through it, also from another mount namespace */
	dev_t made_dev;	   /* and its inode, so that a failed restore removes only that file */
	ino_t made_ino;
	char *dirs[8]; /* directories of a deleted socket file that were removed too: made for the bind,
			  removed again (absolute, deepest last) */
	int ndirs;
	int keep;     /* late: the fd number crshim keeps for it until it is made (-1: none) */
	uint32_t grp; /* made in this saved mount namespace of the tree (mntns-ID.img), 0: the root's */
	int pre[2];   /* its pair made by the process its SO_PEERCRED names (premake), -1: none */
	bool above;   /* of a nested PID namespace's group, its entry a process's above the init (its pid as
			 seen there): its pair's other end gives the SO_PEERCRED (pair_cred) */
	/* The entry whose SO_PEERCRED the restore gives back (cu) and its holder (ct, index cti): u's, or,
	 * for a socket of a nested PID namespace's group, the entry of its deepest holder that saw a pid
	 * (deep, deepi), or that pid as the namespace's init sees it (xcred: the process of the tree it names
	 * as an entry above the init saw it, in the init's namespace; its holder that process) */
	const UnixSkEntry *cu;
	const struct rst_task *ct;
	size_t cti;
	UnixSkEntry *deep;
	size_t deepi;
	UnixSkEntry xcred;
	bool mnt_bound; /* an entry says it is bound in a nested mount namespace (unix_sk_entry.mntns) */
};
static struct rsk *sks;
static size_t nsks;
/* The sockets of a nested mount namespace (bound in it, or connected to one bound in it): made by crshim
 * in that namespace once the process that makes it has built it (rst_sk_unix_nested), sent to that process
 * on a socket pair of its own (made before the tree: every process has it) at the numbers kept for them. */
struct sk_grp {
	uint32_t mntns;
	int ch[2];  /* crshim sends on [0], the process receives on [1] */
	int srv[2]; /* the calls crshim asks of the process (by_named) on [0], the process serves on [1] */
};
static struct sk_grp *grps;
static size_t ngrps;
/* The processes outside a nested PID namespace (on its init's parent line or not) that hold sockets of
 * its group take them from crshim once it made them (rst_sk_unix_outer_take): a channel for each process
 * and group. */
struct sk_out {
	size_t ti;    /* the process's index in the tree */
	uint32_t grp; /* the group */
	int ch[2];    /* crshim sends on [0], the process receives on [1] */
};
static struct sk_out *outs;
static size_t nouts;
static uint32_t cur_grp; /* the group the phases make now (0: the root's mount namespace) */
/* late: the root task sends crshim the pairs it makes itself (premake) on [1], crshim takes them on [0] */
static int late_ch[2] = {-1, -1};
/* A tree with its own mount tree: its names are bound and connected in that tree once it stands
 * (rst_sk_unix_late), and the root task takes the sockets from crshim (rst_sk_unix_root, through a pidfd
 * of crshim) before it clones the others. */
static bool late;
/* The tree's namespaces: a socket is made in its own network namespace (ns_rst_net_enter; a no-op when the
 * tree has only one) */
static const struct ns_rst *rns;

/* crshim into the network namespace socket r was made in (then back: bind, connect and listen use the
 * socket's own) */
static int net_in(const struct rsk *r, struct cr_err *e)
{
	return ns_rst_net_enter(rns, r->u->has_netns ? r->u->netns : 0, e);
}

static int net_back(struct cr_err *e)
{
	return ns_rst_net_enter(rns, 0, e);
}

static uint32_t pst_lv(const struct rst_task *t);

static struct rsk *find(uint32_t ino)
{
	for (size_t i = 0; ino && i < nsks; i++)
		if (sks[i].ino == ino)
			return &sks[i];
	return NULL;
}

/* Not of the group made now. */
static bool other(const struct rsk *r)
{
	return r->grp != cur_grp;
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
			struct rsk *old = find(f->unix_sk->ino);
			if (old && !old->grp && f->unix_sk->has_mntns) /* (any holder's entry says it) */
				old->grp = f->unix_sk->mntns;
			if (old)
				old->mnt_bound |= f->unix_sk->has_mntns;
			if (old && f->unix_sk->has_peer_pid &&
			    (!old->deep->has_peer_pid || pst_lv(&ts[k]) > pst_lv(&ts[old->deepi])))
				old->deep = f->unix_sk, old->deepi = k;
			if (old)
				continue;
			struct rsk *ns = realloc(sks, (nsks + 1) * sizeof(*ns));
			if (!ns)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			sks = ns;
			sks[nsks++] = (struct rsk){.ino = f->unix_sk->ino,
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

static socklen_t mk_addr(const ProtobufCBinaryData *name, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t l = name->len > sizeof(a->sun_path) ? sizeof(a->sun_path) : name->len;
	memcpy(a->sun_path, name->data, l);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l);
}

static bool same_name(const UnixSkEntry *a, const ProtobufCBinaryData *n)
{
	return a->has_name && a->name.len == n->len && !memcmp(a->name.data, n->data, n->len);
}

static const char *sk_name(const UnixSkEntry *u, char *buf, size_t len)
{
	if (!u->has_name || !u->name.len)
		return "(unnamed)";
	const char *p = (const char *)u->name.data;
	snprintf(buf, len, "%s%.*s", p[0] ? "" : "@", (int)(p[0] ? u->name.len : u->name.len - 1),
		 p[0] ? p : p + 1);
	return buf;
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

/* The socket file at r's path is left over (nobody is bound to it any more): a connect is refused. */
static bool stale(const struct rsk *r)
{
	int fd = socket(AF_UNIX, (int)r->u->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	bool refused = connect(fd, (const struct sockaddr *)&r->addr, r->alen) && errno == ECONNREFUSED;
	close(fd);
	return refused;
}

/* The socket file just bound at r's path (in the cwd): its absolute path and inode, for a failed restore. */
static int remember_file(struct rsk *r, struct cr_err *e)
{
	struct stat st;
	char cwd[PATH_MAX], dir[sizeof(r->addr.sun_path) + 1];
	const char *p = r->addr.sun_path, *slash = strrchr(p, '/');
	if (lstat(p, &st))
		return cr_fail_sys(e, "socket:[%u]: stat %s after bind", r->ino, p);
	if (p[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return cr_fail_sys(e, "socket:[%u]: getcwd", r->ino);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p) + 1 : 1, slash ? p : ".");
	r->made_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->made_dir < 0)
		return cr_fail_sys(e, "socket:[%u]: open the directory of %s", r->ino, p);
	if (asprintf(&r->made, "%s%s%s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/", p) < 0) {
		r->made = NULL;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	r->made_dev = st.st_dev;
	r->made_ino = st.st_ino;
	return 0;
}

/* A failed restore: the socket files it bound go again (those still there as it made them), through their
 * directory (a tree's own mount tree is not crshim's). */
static void unlink_made(struct rsk *r)
{
	struct stat st;
	const char *base = strrchr(r->made, '/') + 1;
	if (!fstatat(r->made_dir, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISSOCK(st.st_mode) &&
	    st.st_dev == r->made_dev && st.st_ino == r->made_ino) {
		if (unlinkat(r->made_dir, base, 0))
			pr_warn("socket:[%u]: unlink %s: %s\n", r->ino, r->made, strerror(errno));
		else
			pr_info("socket:[%u]: %s removed (restore failed)\n", r->ino, r->made);
	}
}

/* The directories of r's path that are missing (removed with the deleted socket file) are made (0700),
 * listed in r->dirs (absolute); 0 if any was made. */
static int make_dirs(struct rsk *r)
{
	char p[sizeof(r->addr.sun_path) + 1], cwd[PATH_MAX] = "";
	snprintf(p, sizeof(p), "%s", r->addr.sun_path);
	if (p[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return -1;
	for (char *s = strchr(p + 1, '/'); s && r->ndirs < (int)ARRAY_SIZE(r->dirs); s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!mkdir(p, 0700) && asprintf(&r->dirs[r->ndirs], "%s%s%s", cwd, cwd[0] ? "/" : "", p) >= 0)
			r->ndirs++;
		*s = '/';
	}
	return r->ndirs ? 0 : -1;
}

static void rm_dirs(struct rsk *r)
{
	while (r->ndirs > 0) {
		char *d = r->dirs[--r->ndirs];
		if (rmdir(d))
			pr_warn("socket:[%u]: rmdir %s: %s\n", r->ino, d, strerror(errno));
		free(d);
	}
}

/* A failed restore: every socket file it bound, then the directories it made for them (several sockets may
 * share one), those made last first. */
static void unlink_all_made(void)
{
	for (size_t i = 0; i < nsks; i++) {
		if (sks[i].made)
			unlink_made(&sks[i]);
		free(sks[i].made);
		sks[i].made = NULL;
	}
	for (size_t i = nsks; i-- > 0;)
		rm_dirs(&sks[i]);
}

/* A deleted socket is bound at its own path, so that its name stays, and its file then moved to a name of
 * its own (PATH.crshim-PID-INO: several deleted sockets once bound at one path each get one) where its
 * peers connect to it, unlinked in the end. A file at that path (a live socket, another file) is moved
 * aside for the bind and put back. r->addr becomes the file's new name. */
static int bind_deleted(struct rsk *r, bool taken, struct cr_err *e)
{
	char path[sizeof(r->addr.sun_path) + 1], aside[PATH_MAX], tmp[sizeof(r->addr.sun_path)];
	snprintf(path, sizeof(path), "%.*s", (int)sizeof(r->addr.sun_path), r->addr.sun_path);
	int n = snprintf(tmp, sizeof(tmp), "%s.crshim-%d-%u", path, (int)getpid(), r->ino);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return cr_fail_errno(e, ENAMETOOLONG, "socket:[%u]: %s: no room for a temporary name", r->ino,
				     path);
	snprintf(aside, sizeof(aside), "%s-aside", tmp);
	if (taken && renameat2(AT_FDCWD, path, AT_FDCWD, aside, RENAME_NOREPLACE))
		return cr_fail_sys(e, "socket:[%u]: move %s aside to bind the deleted socket there", r->ino,
				   path);
	int b = bind(r->fd, (struct sockaddr *)&r->addr, r->alen), err = errno;
	if (b && err == ENOENT && !taken && !make_dirs(r)) /* its directory was removed too */
		b = bind(r->fd, (struct sockaddr *)&r->addr, r->alen), err = errno;
	if (!b && renameat2(AT_FDCWD, path, AT_FDCWD, tmp, RENAME_NOREPLACE)) {
		b = -1, err = errno;
		unlink(path);
	}
	if (taken && rename(aside, path))
		pr_warn("socket:[%u]: put %s back from %s: %s\n", r->ino, path, aside, strerror(errno));
	if (b)
		return cr_fail_errno(e, err, "socket:[%u]: bind the deleted socket to %s (file %s)", r->ino,
				     path, tmp);
	memcpy(r->addr.sun_path, tmp, (size_t)n + 1);
	r->alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	return 0;
}

/* A path name: a stale socket file left by the dumped task is removed; a deleted one is bound where it
 * was (bind_deleted) and unlinked at the end. */
static int bind_path(struct rsk *r, struct cr_err *e)
{
	const UnixSkEntry *u = r->u;
	struct stat st;
	char nb[128];
	bool taken = !lstat(r->addr.sun_path, &st);
	if (taken && !u->deleted) {
		if (S_ISSOCK(st.st_mode) && stale(r)) {
			unlink(r->addr.sun_path);
		} else if (S_ISSOCK(st.st_mode)) {
			return cr_fail_errno(e, EADDRINUSE,
					     "socket:[%u]: bind to %s: a live socket is bound there", r->ino,
					     sk_name(u, nb, sizeof(nb)));
		} else {
			return cr_fail_errno(e, EADDRINUSE,
					     "socket:[%u]: bind to %s: a file that is not a socket is there",
					     r->ino, sk_name(u, nb, sizeof(nb)));
		}
	}
	if (u->deleted) {
		if (bind_deleted(r, taken, e))
			return -1;
	} else if (bind(r->fd, (struct sockaddr *)&r->addr, r->alen)) {
		return cr_fail_sys(e, "socket:[%u]: bind to %s", r->ino, r->addr.sun_path);
	}
	if (remember_file(r, e))
		return -1;
	r->unlink_after = u->deleted;
	if (u->has_file_mode && chmod(r->addr.sun_path, u->file_mode))
		return cr_fail_sys(e, "socket:[%u]: chmod %s", r->ino, r->addr.sun_path);
	if (u->has_file_uid && u->has_file_gid && chown(r->addr.sun_path, u->file_uid, u->file_gid))
		return cr_fail_sys(e, "socket:[%u]: chown %s", r->ino, r->addr.sun_path);
	return 0;
}

static int do_bind(struct rsk *r, struct cr_err *e)
{
	const UnixSkEntry *u = r->u;
	if (!u->has_name || !u->name.len)
		return 0;
	r->alen = mk_addr(&u->name, &r->addr);
	if (!r->addr.sun_path[0]) {
		if (bind(r->fd, (struct sockaddr *)&r->addr, r->alen))
			return cr_fail_sys(e, "socket:[%u]: bind to the abstract name @%.*s", r->ino,
					   (int)u->name.len - 1, r->addr.sun_path + 1);
		return 0;
	}
	__cleanup_close int here = -1;
	if (r->addr.sun_path[0] != '/' && u->cwd) { /* relative to the task's cwd */
		here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (here < 0 || chdir(u->cwd))
			return cr_fail_sys(e, "socket:[%u]: chdir %s to bind %s", r->ino, u->cwd,
					   r->addr.sun_path);
	}
	int ret = bind_path(r, e);
	if (here >= 0 && fchdir(here) && !ret)
		ret = cr_fail_sys(e, "fchdir back");
	return ret;
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
	return apply_opts(r, e) || (bind_it && do_bind(r, e)) ? -1 : 0;
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
static const UnixSkEntry *pair_cred(const struct rsk *a, const struct rsk *b)
{
	if (a->above && b && b->cu->has_peer_pid)
		return b->cu;
	return a->cu->has_peer_pid ? a->cu : b && b->cu->has_peer_pid ? b->cu : NULL;
}

/* socketpair() by the process both ends name (SO_PEERCRED) */
static int make_pair(struct rsk *a, struct rsk *b, struct cr_err *e)
{
	struct pair_call pc = {(int)a->u->type, {-1, -1}};
	const UnixSkEntry *cred = pair_cred(a, b);
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
	if (apply_opts(a, e) || (dg && do_bind(a, e)) || (b && (apply_opts(b, e) || (dg && do_bind(b, e)))))
		return -1;
	if (!dg && ((a->u->has_name && a->u->name.len) || (b && b->u->has_name && b->u->name.len)))
		pr_info("socket:[%u]: connected stream pair restored without its names (no listener)\n",
			a->ino);
	return 0;
}

/* The listener of the tree bound to the name of a (a connection it accepted), NULL if none. */
static struct rsk *listener_named(const struct rsk *a)
{
	if (!a->u->has_name || !a->u->name.len)
		return NULL;
	for (size_t i = 0; i < nsks; i++)
		if (sks[i].u->state == ST_LISTEN && same_name(sks[i].u, &a->u->name))
			return &sks[i];
	return NULL;
}

static struct rsk *mutual_peer(const struct rsk *r)
{
	struct rsk *p = find(r->u->peer);
	return p && p != r && p->u->peer == r->ino ? p : NULL;
}

/* Phase 1 makes r with socketpair() (make_pair), *p its other end: a pair (not a connection a listener of
 * the tree accepted), or an end whose peer was closed (*p NULL: a stream one, or a dgram one that got
 * messages from it: its end sends them again). */
static bool pair_made(struct rsk *r, struct rsk **p)
{
	const UnixSkEntry *u = r->u;
	*p = NULL;
	if (u->state == ST_LISTEN)
		return false;
	if ((*p = mutual_peer(r)))
		return u->type == SOCK_DGRAM || !(listener_named(r) || listener_named(*p));
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

/* A listen() or connect() whose SO_PEERCRED names a process that exists when crshim makes it (its pid no
 * helper can take: the root task at the late step, a nested mount namespace's process at its own): crshim
 * sends it the socket and the call (srv_req; for a relative name, the directory it is relative to as a
 * second fd), the process makes it as the saved ids and answers (0, an errno, -1: those ids are not in its
 * user namespace), on its channel (late_ch, sk_grp.srv). */
enum { SRV_LISTEN = 1, SRV_CONNECT = 2 };
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
	/* a relative name: crshim is in its directory (connect_to), which goes along */
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
static int as_peer(const struct rst_task *t, const UnixSkEntry *cred, int (*fn)(void *), void *arg, int op,
		   int fd, int backlog, const struct sockaddr_un *a, socklen_t alen)
{
	int res;
	return by_named(t, cred, op, fd, backlog, a, alen, &res) ? res : rst_sk_as_peer(t, cred, fn, arg);
}

/* Phase 1: listeners, pairs, lone sockets. Accepted connections and pending clients wait. */
static int make_sockets(struct cr_err *e)
{
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i], *p;
		const UnixSkEntry *u = r->u;
		if (r->fd >= 0 || other(r))
			continue;
		if (u->state == ST_LISTEN) {
			if (make_one(r, true, e))
				return -1;
			struct listen_call lc = {r->fd, (int)u->backlog};
			if (as_peer(r->ct, r->cu, listen_fn, &lc, SRV_LISTEN, r->fd, lc.backlog, NULL, 0))
				return cr_fail_sys(e, "socket:[%u]: listen", r->ino);
			continue;
		}
		if (pair_made(r, &p)) {
			if (make_pair(r, p, e))
				return -1;
			continue;
		}
		if (mutual_peer(r) || u->pending)
			continue; /* accepted: phase 2; pending: phase 3 */
		if (make_one(r, true, e))
			return -1;
	}
	return 0;
}

/* A relative path name is relative to the cwd of the task that bound it (dir): go there for the call. */
static int enter(const char *dir, const struct sockaddr_un *a)
{
	if (!dir || !a->sun_path[0] || a->sun_path[0] == '/')
		return -1;
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (here >= 0 && chdir(dir)) {
		close(here);
		return -1;
	}
	return here;
}

static void leave(int here)
{
	if (here >= 0) {
		if (fchdir(here))
			pr_warn("fchdir back: %s\n", strerror(errno));
		close(here);
	}
}

struct connect_call {
	int fd;
	const struct sockaddr_un *a;
	socklen_t alen;
};

static int connect_fn(void *arg)
{
	const struct connect_call *cc = arg;
	return connect(cc->fd, (const struct sockaddr *)cc->a, cc->alen);
}

/* Connect c to a (relative to dir); by the process that as's SO_PEERCRED names (as: the other end of the
 * connection; NULL: crshim). */
static int connect_to(struct rsk *c, const struct sockaddr_un *a, socklen_t alen, const char *dir,
		      const struct rsk *as, struct cr_err *e)
{
	struct connect_call cc = {c->fd, a, alen};
	int fl = fcntl(c->fd, F_GETFL);
	fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
	int here = enter(dir, a);
	int r =
	    as ? as_peer(as->ct, as->cu, connect_fn, &cc, SRV_CONNECT, c->fd, 0, a, alen) : connect_fn(&cc);
	int err = errno;
	leave(here);
	fcntl(c->fd, F_SETFL, fl);
	if (r)
		return cr_fail_errno(e, err, "socket:[%u]: connect to %s%s", c->ino,
				     a->sun_path[0] ? "" : "@",
				     a->sun_path[0] ? a->sun_path : a->sun_path + 1);
	return 0;
}

/* Phase 2: connections the listener had accepted: connect to it, accept at once. */
static int make_accepted(struct cr_err *e)
{
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i], *p = mutual_peer(r), *l, *srv, *cli;
		if (r->fd >= 0 || !p || r->u->state == ST_LISTEN || other(r))
			continue;
		if ((l = listener_named(r)) && !(listener_named(p) && !r->u->peer)) {
			srv = r, cli = p;
		} else {
			l = listener_named(p);
			srv = p, cli = r;
		}
		if (!l || l->fd < 0)
			return cr_fail_errno(e, EINVAL, "socket:[%u]: no listener for its connection",
					     r->ino);
		bool own = cli->u->has_name && !same_name(cli->u, &l->u->name);
		if (make_one(cli, own, e) || connect_to(cli, &l->addr, l->alen, l->u->cwd, srv, e))
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
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *l = &sks[i];
		for (size_t k = 0; !other(l) && l->u->state == ST_LISTEN && k < l->u->n_icons; k++) {
			struct rsk *c = find(l->u->icons[k]);
			if (!c || c->fd >= 0)
				continue;
			if (make_one(c, true, e) || connect_to(c, &l->addr, l->alen, l->u->cwd, NULL, e))
				return cr_wrap(e, "pending connection of socket:[%u]", l->ino);
		}
	}
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i], *p = find(r->u->peer);
		if (other(r))
			continue;
		if (r->fd < 0)
			return cr_fail_errno(e, EINVAL, "socket:[%u]: not made (pending on no listener?)",
					     r->ino);
		if (r->u->ext_peer && r->u->has_peer_name) {
			struct sockaddr_un a;
			socklen_t al = mk_addr(&r->u->peer_name, &a);
			if (connect_to(r, &a, al, NULL, NULL, e))
				return cr_wrap(e, "external peer");
		} else if (r->u->type == SOCK_DGRAM && p && !mutual_peer(r)) {
			if (!p->alen)
				return cr_fail_errno(e, ENOTSUP,
						     "socket:[%u]: its peer socket:[%u] has no name", r->ino,
						     p->ino);
			if (connect_to(r, &p->addr, p->alen, p->u->cwd, NULL, e))
				return -1;
		}
	}
	return 0;
}

static struct rsk *bound_to(const ProtobufCBinaryData *name)
{
	for (size_t i = 0; i < nsks; i++)
		if (same_name(sks[i].u, name) && sks[i].u->state != ST_LISTEN && sks[i].fd >= 0)
			return &sks[i];
	return NULL;
}

/* crshim's fds of the files in flight of m (restore-sk-scm.c made them; unix sockets are ours). */
static int scm_fds(const struct rsk *r, const UnixSkMsg *m, int *fds, struct cr_err *e)
{
	if (m->n_fds > SCM_MAX_FD_)
		return cr_fail_errno(e, EBADMSG, "socket:[%u]: %zu files in flight in one message", r->ino,
				     m->n_fds);
	for (size_t i = 0; i < m->n_fds; i++) {
		const FileEntry *f = rst_sk_scm_entry(r->t, m->fds[i]);
		/* (late: the entries are FILE_INHERIT of the kept fds already) */
		const struct rsk *s = f && f->unix_sk && (f->kind == FILE_KIND__FILE_UNIXSK || late)
					  ? find(f->unix_sk->ino)
					  : NULL;
		fds[i] = s ? s->fd : f && f->kind == FILE_KIND__FILE_INHERIT ? f->inherit_fd : -1;
		if (fds[i] < 0)
			return cr_fail_errno(e, EBADMSG, "socket:[%u]: file id %#x in flight was not made",
					     r->ino, m->fds[i]);
	}
	return 0;
}

/* Control messages: the files (first part only), the sender's uid and gid (its pid is not there yet). */
static socklen_t put_cmsg(void *buf, size_t blen, const UnixSkMsg *m, const int *fds, bool first, bool cred)
{
	struct msghdr mh = {.msg_control = buf, .msg_controllen = blen};
	memset(buf, 0, blen);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	socklen_t used = 0;
	if (first && m->n_fds) {
		cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(m->n_fds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, m->n_fds * sizeof(int));
		used += (socklen_t)CMSG_SPACE(m->n_fds * sizeof(int));
		mh.msg_controllen = used + CMSG_SPACE(sizeof(struct ucred));
		cm = CMSG_NXTHDR(&mh, cm);
	}
	if (cred && m->has_cred_uid && cm) {
		struct ucred uc = {getpid(), m->cred_uid, m->cred_gid};
		cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_CREDENTIALS;
		cm->cmsg_len = CMSG_LEN(sizeof(uc));
		memcpy(CMSG_DATA(cm), &uc, sizeof(uc));
		used += (socklen_t)CMSG_SPACE(sizeof(uc));
	}
	return used;
}

static int send_all(int fd, const UnixSkMsg *m, const int *fds, const struct sockaddr_un *to, socklen_t tolen,
		    bool msg)
{
	union {
		char b[CMSG_SPACE(SCM_MAX_FD_ * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} cb;
	size_t off = 0, len = m->data.len;
	bool cred = true;
	do {
		struct iovec iov = {m->data.data + off, len - off};
		struct msghdr mh = {(void *)to, to ? tolen : 0, &iov, 1, cb.b, 0, 0};
		mh.msg_controllen = put_cmsg(cb.b, sizeof(cb.b), m, fds, off == 0, cred);
		if (!mh.msg_controllen)
			mh.msg_control = NULL;
		ssize_t n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL | (m->oob ? MSG_OOB : 0));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPERM && cred && m->has_cred_uid) { /* no CAP_SETUID: crshim's creds */
			pr_info("uid %u gid %u of a queued message cannot be set: crshim's are sent\n",
				m->cred_uid, m->cred_gid);
			cred = false;
			continue;
		}
		if (n < 0)
			return -1;
		off += (size_t)n;
	} while (off < len && !msg);
	return 0;
}

/* An out-of-band byte that had been read (recv(MSG_OOB)) is read again, SO_OOBINLINE off meanwhile: its
 * mark stays in the queue (SIOCATMARK, reads stop there). */
static int read_oob(const struct rsk *r, struct cr_err *e)
{
	int inl = 0, off = 0;
	socklen_t l = sizeof(inl);
	uint8_t b;
	if (getsockopt(r->fd, SOL_SOCKET, SO_OOBINLINE, &inl, &l) ||
	    (inl && setsockopt(r->fd, SOL_SOCKET, SO_OOBINLINE, &off, sizeof(off))))
		return cr_fail_sys(e, "socket:[%u]: SO_OOBINLINE", r->ino);
	ssize_t n = recv(r->fd, &b, 1, MSG_OOB | MSG_DONTWAIT);
	int err = errno;
	if (inl && setsockopt(r->fd, SOL_SOCKET, SO_OOBINLINE, &inl, sizeof(inl)))
		return cr_fail_sys(e, "socket:[%u]: SO_OOBINLINE", r->ino);
	if (n != 1)
		return cr_fail_errno(e, n < 0 ? err : EIO, "socket:[%u]: read its out-of-band mark back",
				     r->ino);
	return 0;
}

/* One message of r's receive queue, from its sender's side. */
static int put_msg(struct rsk *r, const UnixSkMsg *m, struct cr_err *e)
{
	struct rsk *p = find(r->u->peer);
	int src = p && p->fd >= 0 ? p->fd : r->ghost;
	bool connected = src >= 0;
	__cleanup_close int tmp = -1;
	if (r->u->type == SOCK_DGRAM && r->ghost < 0 && !mutual_peer(r) && !(p && p->fd >= 0)) {
		struct rsk *s = m->has_sender && m->sender.len ? bound_to(&m->sender) : NULL;
		connected = false;
		if (s) {
			src = s->fd;
		} else {
			tmp = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			src = tmp;
			if (m->has_sender && m->sender.len)
				pr_info(
				    "socket:[%u]: a message's sender is gone: sent from an unnamed socket\n",
				    r->ino);
		}
		if (!r->alen)
			return cr_fail_errno(
			    e, ENOTSUP, "socket:[%u]: unnamed, unconnected, with messages queued", r->ino);
	}
	if (src < 0)
		return cr_fail_errno(
		    e, ENOTSUP,
		    "socket:[%u]: %zu bytes received from a peer outside the tree cannot be put back", r->ino,
		    m->data.len);
	int fds[SCM_MAX_FD_];
	if (scm_fds(r, m, fds, e))
		return -1;
	int here = connected ? -1 : enter(r->u->cwd, &r->addr);
	int ret = send_all(src, m, fds, connected ? NULL : &r->addr, r->alen, r->u->type != SOCK_STREAM);
	int err = errno;
	leave(here);
	if (!ret && m->oob_read)
		return read_oob(r, e);
	if (ret)
		return cr_fail_errno(e, err, "socket:[%u]: put back %zu bytes of its receive queue", r->ino,
				     m->data.len);
	return 0;
}

/* Phase 4: the data, then shutdowns, closed peers, flags, deleted files. */
static int finish(struct cr_err *e)
{
	for (size_t i = 0; i < nsks; i++)
		for (size_t k = 0; !other(&sks[i]) && sks[i].u->queue_saved && k < sks[i].u->n_queue; k++)
			if (put_msg(&sks[i], sks[i].u->queue[k], e))
				return -1;
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i];
		const UnixSkEntry *u = r->u;
		if (other(r))
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
		int here = r->unlink_after ? enter(u->cwd, &r->addr) : -1;
		int ret = r->unlink_after ? unlink(r->addr.sun_path) : 0;
		int err = errno;
		leave(here);
		if (ret)
			return cr_fail_errno(e, err, "socket:[%u]: unlink %s", r->ino, r->addr.sun_path);
	}
	for (size_t i = nsks; i-- > 0;) /* once all the files are gone (sockets may share a directory) */
		rm_dirs(&sks[i]);
	return 0;
}

static int to_inherit(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_UNIXSK)
				continue;
			const struct rsk *r = find(f->unix_sk->ino);
			char desc[48];
			snprintf(desc, sizeof(desc), "socket:[%u]", f->unix_sk->ino);
			if (!r)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			if (rst_file_inherit(&ts[k], f, late || r->grp ? r->keep : r->fd, desc, e))
				return -1;
		}
	return 0;
}

/* The sockets of the group made now: each at the fd number kept for it (offer: one the root task takes). */
static int to_kept(bool offer, struct cr_err *e)
{
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i];
		if (other(r))
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

static int make_all(struct cr_err *e)
{
	if (make_sockets(e) || make_accepted(e) || make_connects(e) || finish(e))
		return cr_wrap(e, "unix sockets");
	pr_info("%zu unix sockets made\n", nsks);
	return 0;
}

/* crshim's children (the SO_PEERCRED helpers) into the PID namespace of the root task; *self: crshim's */
static int pid_enter(pid_t root, int *self, struct cr_err *e)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/pid", (int)root);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	*self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ns < 0 || *self < 0 || setns(ns, CLONE_NEWPID))
		return cr_fail_sys(e, "enter the PID namespace of task %d for its children", (int)root);
	return 0;
}

static int pid_leave(int self, struct cr_err *e)
{
	int r = setns(self, CLONE_NEWPID);
	close(self);
	return r ? cr_fail_sys(e, "return to crshim's PID namespace for its children") : 0;
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
	int fd = ns_rst_net_fd(rns, u->has_netns ? u->netns : 0);
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
	for (size_t i = 0; i < nsks && n < PREMAKE_MAX; i++) {
		struct rsk *a = &sks[i], *b;
		/* (a pair is made at its first end; one of another network namespace by crshim) */
		if (a->grp != grp || !pair_made(a, &b) || (b && b < a) || !net_here(a->u))
			continue;
		const UnixSkEntry *cred = pair_cred(a, b);
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
		struct rsk *a = got == sizeof(ino) && nf == 2 ? find(ino) : NULL;
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
	return serve(go, late ? late_ch[1] : -1, msg, len);
}

int rst_sk_unix_premake_root(const struct rst_task *t, char *msg, size_t len)
{
	return late ? premake(t, 0, late_ch[1], msg, len) : 0;
}

/* The group cur_grp made in the mount namespace of task pid (crshim's children, the SO_PEERCRED helpers, in
 * its PID namespace, pidns_levels deep: 0 crshim's). */
static int make_in(const struct rst_task *ts, pid_t pid, uint32_t pidns_levels, struct cr_err *e)
{
	/* the tree's array was made again since rst_sk_unix_prepare (helpers for sessions and groups whose
	 * leader is gone: rst_tree_plan); its processes kept their places */
	for (size_t i = 0; i < nsks; i++)
		sks[i].t = &ts[sks[i].ti], sks[i].ct = &ts[sks[i].cti];
	int self = -1, cwd = -1, pself = -1;
	/* (the PID namespace first: crshim's /proc is not there in the tree's mount namespace) */
	int ret =
	    (pidns_levels && pid_enter(pid, &pself, e)) || proc_mntns_enter(pid, &self, &cwd, e) ? -1 : 0;
	if (!ret) {
		rst_sk_peercred_pidns(pidns_levels);
		ret = make_all(e);
		rst_sk_peercred_pidns(0);
	}
	if (ret) /* the files it bound and the directories it made, while their paths are these */
		unlink_all_made();
	struct cr_err later; /* the first failure is the one said */
	if (pself >= 0 && pid_leave(pself, ret ? &later : e))
		ret = -1;
	if (proc_mntns_leave(self, cwd, ret ? &later : e))
		ret = -1;
	return ret;
}

int rst_sk_unix_late(const struct rst_task *ts, uint32_t pidns_levels, struct cr_err *e)
{
	if (!late)
		return 0;
	take_premade(late_ch[0]);
	if (late_ch[1] >= 0) { /* the root's end: a root that ends fails crshim's calls (by_named) */
		close(late_ch[1]);
		late_ch[1] = -1;
	}
	serving = &ts[0], serve_ch = late_ch[0];
	int ret = make_in(ts, ts[0].pid, pidns_levels, e);
	serving = NULL, serve_ch = -1;
	return ret ? -1 : to_kept(true, e);
}

int rst_sk_unix_root(char *msg, size_t len)
{
	for (size_t i = 0; late && i < nsks; i++) {
		if (sks[i].grp) /* made later, for the process of its mount namespace */
			continue;
		int fd = late_fd_take(sks[i].keep);
		if (fd < 0 || dup3(fd, sks[i].keep, O_CLOEXEC) < 0)
			return rst_errmsg(msg, len, "take socket:[%u] from crshim (fd %d)", sks[i].ino,
					  sks[i].keep);
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
				     s->ino, sk_name(u, nb, sizeof(nb)), r->ino,
				     sk_name(r->u, nb + 64, sizeof(nb) - 64));
	s->grp = r->grp;
	*more = true;
	return 0;
}

/* The sockets a socket made later (in a nested mount or PID namespace) needs to be made with go there
 * too: its pair's other end, the connections of its listener (accepted or not), the dgram sockets
 * connected to its name. */
static bool needs(const struct rsk *r, const struct rsk *s)
{
	const struct rsk *p = find(s->u->peer), *sp = mutual_peer(s);
	bool n = s != r && (mutual_peer(r) == s || (p == r && !sp) ||
			    (r->u->state == ST_LISTEN && s->u->state != ST_LISTEN &&
			     (listener_named(s) == r || (sp && listener_named(sp) == r))));
	for (size_t c = 0; s != r && r->u->state == ST_LISTEN && c < r->u->n_icons; c++)
		n |= r->u->icons[c] == s->ino;
	return n;
}

static int spread(struct cr_err *e)
{
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < nsks; i++)
			for (size_t k = 0; sks[i].grp && k < nsks; k++)
				if (needs(&sks[i], &sks[k]) && join(&sks[k], &sks[i], &more, e))
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
static uint32_t pst_lv(const struct rst_task *t)
{
	const PstreeEntry *p = t->pst;
	return p->has_ns_levels && p->n_ns_tids >= p->ns_levels ? p->ns_levels : 0;
}

static bool pst_init(const struct rst_task *t)
{
	uint32_t lv = pst_lv(t);
	return !t->root && lv && t->pst->ns_tids[lv - 1] == 1;
}

/* The root task as the init of a PID namespace of the tree's own when the tree has no mount tree of its own
 * (as under `unshare --pid --fork`): its sockets are made before the tree, in crshim's PID namespace, unless
 * they are made as a nested one's, once the root stands (with a mount tree of its own: rst_sk_unix_late). */
static bool root_init(const struct rst_task *t)
{
	uint32_t lv = pst_lv(t);
	return t->root && !t->paths_later && lv && t->pst->ns_tids[lv - 1] == 1;
}

/* The init of t's PID namespace when it is one below the root's, or the root's own (root_init); NULL. */
static struct rst_task *pidns_init(struct rst_task *ts, size_t n, struct rst_task *t)
{
	for (size_t hops = 0; t && hops <= n && pst_lv(t) > pst_lv(&ts[0]); hops++) {
		if (pst_init(t))
			return t;
		t = parent_of(ts, n, t);
	}
	return t && pst_lv(t) == pst_lv(&ts[0]) && root_init(&ts[0]) ? &ts[0] : NULL;
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
		if (!p || pst_lv(p) < lv)
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
	uint32_t lh = pst_lv(&ts[r->deepi]), li = pst_lv(init);
	for (size_t k = 0; k < n; k++) {
		const struct rst_task *x = &ts[k];
		uint32_t lx = pst_lv(x);
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
	struct rsk *p = mutual_peer(r), *l = NULL, *b;
	if (r->u->state == ST_LISTEN || pair_made(r, &b))
		return NULL;
	if (p && !r->u->pending) /* (make_accepted's listener) */
		l = listener_named(r) && !(listener_named(p) && !r->u->peer) ? listener_named(r)
									     : listener_named(p);
	else if (r->u->type == SOCK_DGRAM && !p) /* (make_connects: to its peer's name) */
		l = find(r->u->peer);
	for (size_t i = 0; r->u->pending && i < nsks; i++) /* (make_connects: the listener's queue) */
		for (size_t c = 0; sks[i].u->state == ST_LISTEN && c < sks[i].u->n_icons; c++)
			if (sks[i].u->icons[c] == r->ino && sks[i].grp != GRP_TRY)
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
			    f->kind == FILE_KIND__FILE_UNIXSK ? find(f->unix_sk->ino) : NULL;
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
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i], *p = NULL;
		if (r->grp != GRP_TRY || below(ts, n, &ts[r->deepi], init) || !r->deep->has_peer_pid ||
		    inner_pid(ts, n, r, init))
			continue;
		if (!pair_made(r, &p) || !p || p->grp != GRP_TRY || !p->deep->has_peer_pid ||
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
		for (size_t i = 0; i < nsks; i++)
			for (size_t k = 0; sks[i].grp == GRP_TRY && k < nsks; k++) {
				struct rsk *s = &sks[k];
				if (s->grp == GRP_TRY || s->grp == key || !needs(&sks[i], s))
					continue;
				if (s->grp)
					return "connected to a socket of another nested namespace";
				s->grp = GRP_TRY, more = true;
			}
	}
	for (size_t i = 0; i < nsks; i++) {
		const UnixSkEntry *u = sks[i].u;
		const char *why = sks[i].grp == GRP_TRY ? outer_peer(ts, n, &sks[i], init) : NULL;
		if (why)
			return why;
		if (sks[i].grp == GRP_TRY && !mnt && u->has_name && u->name.len && u->name.data[0])
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
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i];
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
		r->xcred.peer_pid = x->pst->ns_tids[pst_lv(x) - 1];
		r->cu = &r->xcred, r->ct = x, r->cti = (size_t)(x - ts);
		pr_debug("socket:[%u]: SO_PEERCRED pid %d (as task %d saw it) is %d in its namespace\n",
			 r->ino, r->deep->peer_pid, ts[r->deepi].pid, r->xcred.peer_pid);
	}
}

static void pidns_groups(struct rst_task *ts, size_t n)
{
	for (size_t i = 0; i < nsks; i++) {
		struct rsk *r = &sks[i];
		struct rst_task *init =
		    r->deep->has_peer_pid && !r->grp ? pidns_init(ts, n, &ts[r->deepi]) : NULL;
		uint32_t key = init ? grp_key(init) : 0;
		if (!key)
			continue;
		r->grp = GRP_TRY;
		const char *why = pidns_close(ts, n, init, key);
		for (size_t k = 0; k < nsks; k++)
			if (sks[k].grp == GRP_TRY)
				sks[k].grp = why ? 0 : key;
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
static int groups(struct rst_task *ts, size_t n, struct cr_err *e)
{
	pidns_groups(ts, n);
	if (spread(e))
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			const struct rsk *r =
			    f->kind == FILE_KIND__FILE_UNIXSK ? find(f->unix_sk->ino) : NULL;
			char nb[64];
			if (!r || !r->grp || in_grp(ts, n, &ts[k], r))
				continue;
			return cr_fail_errno(
			    e, ENOTSUP,
			    "not supported yet: unix socket socket:[%u] (%s) of a nested mount "
			    "namespace (%u) is held by task %d, which is not in it",
			    r->ino, sk_name(r->u, nb, sizeof(nb)), r->grp, ts[k].pid);
		}
	for (size_t i = 0; i < nsks; i++) {
		bool known = !sks[i].grp;
		for (size_t g = 0; !known && g < ngrps; g++)
			known = grps[g].mntns == sks[i].grp;
		if (known)
			continue;
		struct sk_grp *ng = realloc(grps, (ngrps + 1) * sizeof(*ng));
		if (!ng)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		grps = ng;
		grps[ngrps++] = (struct sk_grp){sks[i].grp, {-1, -1}, {-1, -1}};
	}
	return 0;
}

static struct sk_grp *grp_of(uint32_t mntns)
{
	for (size_t g = 0; mntns && g < ngrps; g++)
		if (grps[g].mntns == mntns)
			return &grps[g];
	return NULL;
}

/* Does task t hold a socket of group grp? */
static bool holds(const struct rst_task *t, uint32_t grp)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		const FileEntry *f = t->files[i];
		const struct rsk *r = f->kind == FILE_KIND__FILE_UNIXSK ? find(f->unix_sk->ino) : NULL;
		if (r && r->grp == grp)
			return true;
	}
	return false;
}

/* A channel for each process not at or below a PID namespace's init that holds sockets of its group (before
 * to_inherit: the entries are still the sockets'). */
static int outs_make(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t g = 0; g < ngrps; g++) {
		const struct rst_task *init = grp_init(ts, n, grps[g].mntns);
		for (size_t k = 0; init && k < n; k++) {
			if (below(ts, n, &ts[k], init) || !holds(&ts[k], grps[g].mntns))
				continue;
			struct sk_out *no = realloc(outs, (nouts + 1) * sizeof(*no));
			if (!no)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			outs = no;
			outs[nouts] = (struct sk_out){k, grps[g].mntns, {-1, -1}};
			if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, outs[nouts++].ch))
				return cr_fail_sys(e, "a socket pair for the unix sockets task %d takes",
						   ts[k].pid);
			pr_info("task %d, outside the PID namespace of task %d, takes sockets of it once "
				"they are made\n",
				ts[k].pid, init->pid);
		}
	}
	return 0;
}

int rst_sk_unix_check(struct rst_task *ts, size_t n, struct cr_err *e)
{
	int ret = collect(ts, n, e) || groups(ts, n, e) ? -1 : 0;
	rst_sk_unix_done(NULL, true); /* (nothing made: only freed) */
	return ret;
}

int rst_sk_unix_prepare(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e)
{
	rst_sk_peercred_reset();
	rns = ts[0].ns;
	cur_grp = 0;
	if (collect(ts, n, e) || groups(ts, n, e))
		return -1;
	if (!nsks)
		return 0;
	late = ts[0].paths_later;
	for (size_t g = 0; g < ngrps; g++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, grps[g].ch) ||
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, grps[g].srv))
			return cr_fail_sys(e, "socket pairs for the unix sockets of mount namespace %u",
					   grps[g].mntns);
	/* made once the tree's mount tree (or their nested one) stands: fd numbers kept for them */
	for (size_t i = 0; i < nsks; i++)
		if ((late || sks[i].grp) && (sks[i].keep = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return cr_fail_sys(e, "keep an fd for socket:[%u]", sks[i].ino);
	if (outs_make(ts, n, e))
		return -1;
	if (ngrps)
		pr_info("unix sockets of %zu nested mount namespaces are made in them once they stand\n",
			ngrps);
	if (late) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, late_ch))
			return cr_fail_sys(e, "a socket pair for the unix sockets the root task makes");
		pr_info("%zu unix sockets are made in the tree's mount tree once it stands\n", nsks);
		return to_inherit(ts, n, e);
	}
	return make_all(e) || to_inherit(ts, n, e) ? -1 : 0;
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
	cur_grp = g->mntns;
	take_premade(g->ch[0]);
	serving = t, serve_ch = g->srv[0];
	int ret = make_in(ts, t->pid, t->ns_levels, e);
	serving = NULL, serve_ch = -1;
	int *nums = ret ? NULL : calloc(nsks, sizeof(*nums)); /* (freed below: not a cleanup, scan-build) */
	size_t nn = 0;
	if (!ret && !nums)
		ret = cr_fail_errno(e, ENOMEM, "out of memory");
	if (!ret)
		ret = to_kept(false, e);
	for (size_t i = 0; !ret && i < nsks; i++)
		if (!other(&sks[i]))
			nums[nn++] = sks[i].fd;
	if (!ret && late_fds_push(g->ch[0], nums, nn))
		ret = cr_fail_sys(e, "send them to task %d", t->pid);
	/* (and to the processes above a PID namespace's init that hold some) */
	for (size_t o = 0; !ret && o < nouts; o++)
		if (outs[o].grp == g->mntns && late_fds_push(outs[o].ch[0], nums, nn))
			ret = cr_fail_sys(e, "send them to task %d", ts[outs[o].ti].pid);
	free(nums);
	cur_grp = 0;
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
	for (size_t o = 0; o < nouts; o++)
		if (outs[o].ti == k && late_fds_pull(outs[o].ch[1], msg, len))
			return -1;
	return 0;
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
	if (!failed && nsks) /* (a failed restore says one line: why it failed) */
		rst_sk_peercred_notice(o);
	if (failed)
		unlink_all_made();
	for (size_t i = nsks; i-- > 0;)
		rm_dirs(&sks[i]);
	for (size_t i = 0; i < nsks; i++) {
		free(sks[i].made);
		if (sks[i].made_dir >= 0)
			close(sks[i].made_dir);
		if (sks[i].keep >= 0)
			close(sks[i].keep);
		if (sks[i].fd >= 0)
			close(sks[i].fd);
		if (sks[i].ghost >= 0)
			close(sks[i].ghost);
		close2(sks[i].pre);
	}
	free(sks);
	sks = NULL;
	nsks = 0;
	late = false;
	for (size_t g = 0; g < ngrps; g++) {
		close2(grps[g].ch);
		close2(grps[g].srv);
	}
	free(grps);
	grps = NULL;
	ngrps = 0;
	for (size_t k = 0; k < nouts; k++)
		close2(outs[k].ch);
	free(outs);
	outs = NULL;
	nouts = 0;
	close2(late_ch);
}
