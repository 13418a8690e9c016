/* Dump of unix sockets (see sk-unix.h): what sock_diag tells (ns/sock-diag.c), the options and the receive
 * queue read through a pidfd_getfd copy of the task's fd, peeked so that the task loses nothing. */
#define LOG_PREFIX "dump-sk-unix: "
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "dump.h"
#include "files/inherit-fd.h"
#include "pid.h"
#include "base/log.h"
#include "files/fd-kind.h"
#include "files/evfd.h"
#include "files/fdshare.h"
#include "net/sk-inet.h"
#include "net/sk-unix.h"
#include "sock-diag.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#define TCP_ESTABLISHED_ 1
#define TCP_LISTEN_ 10
#define TCP_ESTABLISHED_ 1
#ifndef SCM_PIDFD
#define SCM_PIDFD_ 0x04
#else
#define SCM_PIDFD_ SCM_PIDFD
#endif
#define SCM_MAX_FD_ 253 /* the kernel's SCM_MAX_FD */
#define PEEK_CHUNK (256 * 1024)

struct dump_unix {
	struct ns_unix_table t;
	uint32_t *tree; /* inodes of the sockets the tree's processes hold, sorted */
	size_t ntree;
	UnixSkEntry **ents; /* made for this process: freed with free_unpacked */
	size_t nents;
	struct dump_scm scm; /* files in flight (dump-sk-scm.c) */
	bool nested;	     /* crshim's own fds (a unix socket in flight): its queue may carry no files */
	bool scanned;	     /* the unix sockets in flight in the tree's queues are in tree */
	bool borrowed;	     /* t is the memo's (table_of): not freed with du */
	uint64_t netns;	     /* the network namespace of the table t (its sockets' own), 0: unknown */
};

/* crshim's copy of the task's fd, taken when something is read that the memos do not have (a socket's
 * options, queue and credentials are read through the copy of its first fd; dump-files.c takes that one). */
struct sk_ref {
	pid_t pid;
	int fd;
	int sk;	  /* -1: not taken yet */
	bool own; /* taken here: closed by dump_sk_unix_fill */
};

static int sk_get(struct sk_ref *r, struct cr_err *e)
{
	if (r->sk < 0 && (r->sk = dump_evfd_take(r->pid, r->fd, e)) >= 0)
		r->own = true;
	return r->sk;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool in_tree(const struct dump_unix *du, uint32_t ino)
{
	return ino && du->ntree && bsearch(&ino, du->tree, du->ntree, sizeof(uint32_t), cmp_u32);
}

static int add_ino(struct dump_unix *du, uint32_t ino, size_t *cap, struct cr_err *e)
{
	if (arr_room(&du->tree, cap, du->ntree, sizeof(*du->tree), 64))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	du->tree[du->ntree++] = ino;
	return 0;
}

/* Every "socket:[INO]" fd of the processes of the dumped tree (read once for all by dump.c: copied, the
 * sockets in flight are added to it). */
static int collect_tree(const struct dump_ctx *c, struct dump_unix *du, struct cr_err *e)
{
	size_t cap = 0;
	if (c->tree_sks) {
		if (arr_room(&du->tree, &cap, 0, sizeof(*du->tree), c->ntree_sks + 1))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		memcpy(du->tree, c->tree_sks, c->ntree_sks * sizeof(*du->tree));
		du->ntree = c->ntree_sks;
		return 0;
	}
	for (size_t k = 0; k < (c->tree ? c->ntree : 1); k++) {
		pid_t pid = c->tree ? c->tree[k].pid : c->pid;
		char path[64], link[64];
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		__cleanup_closedir DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			unsigned ino;
			snprintf(path, sizeof(path), "/proc/%d/fd/%.20s", pid, de->d_name);
			ssize_t l = readlink(path, link, sizeof(link) - 1);
			if (l <= 0)
				continue;
			link[l] = '\0';
			if (sscanf(link, "socket:[%u]", &ino) == 1 && add_ino(du, ino, &cap, e))
				return -1;
		}
	}
	if (du->ntree)
		qsort(du->tree, du->ntree, sizeof(uint32_t), cmp_u32);
	return 0;
}

/* The fd of task pid that is socket:[ino], -1 if none. */
static int pid_fd_of(pid_t pid, uint32_t ino)
{
	char path[64], link[64], want[32];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	snprintf(want, sizeof(want), "socket:[%u]", ino);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%.20s", pid, de->d_name);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (!strcmp(link, want))
			return atoi(de->d_name);
	}
	return -1;
}

/* The unix sockets of a network namespace, collected once per dump (dump_fdshare_memo, by the namespace's
 * inode; the tasks are stopped) and lent to the dump_unix of each process in it: each of 300 processes
 * had the namespace's table dumped through sock_diag. */
#define TABLE_MEMO_KEY(ns) ((uint64_t)FILE_KIND__FILE_UNIXSK << 32 | 1ULL << 62 | ((ns)&0xffffffffu))

static void free_table_memo(void *p)
{
	if (p)
		ns_unix_table_free(p);
	free(p);
}

/* du->t: the table of the network namespace of netpid (du->netns), from the memo or collected (and kept
 * there: crshim's own fds, du->nested, have theirs). */
static int table_of(struct dump_ctx *c, struct dump_unix *du, pid_t netpid, struct cr_err *e)
{
	bool memo = c->fdsh && du->netns && !du->nested;
	const struct ns_unix_table *mt = memo ? dump_fdshare_memo(c->fdsh, TABLE_MEMO_KEY(du->netns)) : NULL;
	if (mt) {
		du->t = *mt, du->borrowed = true;
		return 0;
	}
	if (ns_unix_collect(netpid, &du->t, e))
		return -1;
	struct ns_unix_table *nt = memo ? malloc(sizeof(*nt)) : NULL;
	if (!nt)
		return 0;
	*nt = du->t, du->borrowed = true;
	if (dump_fdshare_memo_put(c->fdsh, TABLE_MEMO_KEY(du->netns), nt, free_table_memo, e)) {
		du->t = (struct ns_unix_table){0}; /* (freed by the memo) */
		return -1;
	}
	return 0;
}

static int du_init(struct dump_ctx *c, struct dump_unix **out, struct cr_err *e)
{
	struct dump_unix *du = calloc(1, sizeof(*du));
	if (!du)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	du->nested = c->pid == getpid();
	/* crshim's copies of files in flight: the sockets are in the tree's network namespace, not ours */
	pid_t netpid = du->nested && c->tree && c->ntree ? c->tree[0].pid : c->pid;
	char np[64];
	struct stat nst;
	snprintf(np, sizeof(np), "/proc/%d/ns/net", netpid);
	du->netns = stat(np, &nst) ? 0 : (uint64_t)nst.st_ino; /* where the restore makes them */
	if (table_of(c, du, netpid, e) || collect_tree(c, du, e)) {
		dump_sk_unix_free(du);
		return -1;
	}
	pr_debug("%zu unix sockets in the namespace, %zu sockets held by the tree\n", du->t.n, du->ntree);
	*out = du;
	return 0;
}

void dump_sk_unix_free(struct dump_unix *du)
{
	if (!du)
		return;
	if (!du->borrowed)
		ns_unix_table_free(&du->t);
	free(du->tree);
	for (size_t i = 0; i < du->nents; i++)
		unix_sk_entry__free_unpacked(du->ents[i], NULL);
	free(du->ents);
	dump_scm_free(&du->scm);
	free(du);
}

static int set_bytes(ProtobufCBinaryData *b, protobuf_c_boolean *has, const void *p, size_t len,
		     struct cr_err *e)
{
	b->data = malloc(len ? len : 1);
	if (!b->data)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(b->data, p, len);
	b->len = len;
	*has = 1;
	return 0;
}

/* A printable form of a name for messages: "@abstract" or the path. */
static const char *show_name(const char *name, size_t len, char *buf, size_t blen)
{
	if (!len)
		return "(unnamed)";
	snprintf(buf, blen, "%s%.*s", name[0] ? "" : "@", (int)(name[0] ? len : len - 1),
		 name[0] ? name : name + 1);
	return buf;
}

/* The id of the saved mount namespace c is in (mntns-ID.img: its process of the tree that has it as its own;
 * every other process in it descends from that one, engine/task/dump-pidns.c), 0: none. */
static uint32_t mntns_of(const struct dump_ctx *c)
{
	for (size_t i = 0; i < c->ntree; i++)
		if (c->tree[i].mntns && dump_same_mnt(&c->tree[i], c))
			return c->tree[i].mntns;
	return 0;
}

/* A removed socket file (path as the task sees it, rpath as the root task does; both end in its name, after
 * their first tmin and rmin characters): the deepest directory of its path still there for the task is the
 * one the root task sees at that path (the socket was bound in the root's view), or the root is. */
static bool dir_seen_by_root(const char *path, size_t tmin, const char *rpath, size_t rmin)
{
	char tp[PATH_MAX + 128], rp[PATH_MAX * 2 + 128];
	snprintf(tp, sizeof(tp), "%s", path);
	snprintf(rp, sizeof(rp), "%s", rpath);
	for (;;) {
		char *ts = strrchr(tp, '/'), *rs = strrchr(rp, '/');
		if (!ts || !rs || (size_t)(ts - tp) < tmin || (size_t)(rs - rp) < rmin)
			return true;
		*ts = *rs = '\0';
		struct stat a, b;
		if (!stat(tp, &a))
			return !stat(rp, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
	}
}

/* A name the task does not find (or finds another file at): bound in a nested mount namespace of the tree
 * that the task is not in (a tmpfs only that one has)? The process of the tree that finds this very socket
 * there, which st then describes; NULL if none (removed, or bound where the tree does not see it). */
static const struct dump_ctx *bound_nested(const struct dump_ctx *c, const struct ns_unix_sk *s,
					   struct stat *st)
{
	char p[PATH_MAX + 64];
	for (size_t i = 1; s->has_vfs && s->name[0] == '/' && i < c->ntree; i++) {
		const struct dump_ctx *t = &c->tree[i];
		if (t->zombie || dump_same_mnt(t, c) || dump_same_mnt(t, &c->tree[0]))
			continue;
		snprintf(p, sizeof(p), "/proc/%d/root%.*s", (int)t->pid, (int)s->namelen, s->name);
		if (!stat(p, st) && S_ISSOCK(st->st_mode) && st->st_ino == s->vfs_ino &&
		    st->st_dev == s->vfs_dev)
			return t;
	}
	return NULL;
}

/* A path name: deleted (the file is gone or another one), or the socket file's mode and owner. */
static int fill_path(struct dump_ctx *c, const struct ns_unix_sk *s, UnixSkEntry *u, struct cr_err *e)
{
	char path[PATH_MAX + 128];
	size_t tmin; /* the length of path's /proc/PID/root or /proc/PID/cwd */
	__cleanup_free char *cwd = NULL;
	/* looked up where the task sees it: its root (a tree's own mount tree) or its cwd */
	if (s->name[0] != '/') {
		if (proc_readlink(c->pid, "cwd", &cwd, e))
			return -1;
		u->cwd = strdup(cwd);
		if (!u->cwd)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		tmin = (size_t)snprintf(path, sizeof(path), "/proc/%d/cwd", (int)c->pid);
		snprintf(path + tmin, sizeof(path) - tmin, "/%.*s", (int)s->namelen, s->name);
	} else {
		tmin = (size_t)snprintf(path, sizeof(path), "/proc/%d/root", (int)c->pid);
		snprintf(path + tmin, sizeof(path) - tmin, "%.*s", (int)s->namelen, s->name);
	}
	struct stat st;
	bool gone = stat(path, &st) || !S_ISSOCK(st.st_mode) ||
		    (s->has_vfs && (st.st_ino != s->vfs_ino || st.st_dev != s->vfs_dev));
	/* held only outside the nested mount namespace it is bound in: saved as bound there, which the
	 * restore's check refuses with one line (its holders must be in it), not as removed */
	const struct dump_ctx *in = gone && c->tree ? bound_nested(c, s, &st) : NULL;
	if (in) {
		gone = false;
		u->mntns = mntns_of(in), u->has_mntns = u->mntns != 0;
	}
	u->deleted = gone, u->has_deleted = 1;
	/* a name the root task does not see there is bound in the saved mount namespace of the task (that of
	 * its process in the tree that has it as its own, ns/mnt-nested.c), where the restore binds it */
	struct stat rs;
	char rpath[PATH_MAX * 2 + 128];
	size_t rmin = (size_t)snprintf(rpath, sizeof(rpath), "/proc/%d/root%s",
				       c->tree ? (int)c->tree[0].pid : (int)c->pid, cwd ? cwd : "");
	snprintf(rpath + rmin, sizeof(rpath) - rmin, "%s%.*s", cwd ? "/" : "", (int)s->namelen, s->name);
	if (!in && c->tree && c->pid != c->tree[0].pid && !ns_same(c->pid, "mnt", c->tree[0].pid, "mnt") &&
	    (gone ? !dir_seen_by_root(path, tmin, rpath, rmin)
		  : stat(rpath, &rs) || rs.st_ino != st.st_ino || rs.st_dev != st.st_dev)) {
		u->mntns = mntns_of(c), u->has_mntns = u->mntns != 0;
		if (!u->mntns)
			return cr_fail(e,
				       "not supported yet: unix socket %.*s of task %d is bound in a mount "
				       "namespace other than the root's that is not saved (a copy of its "
				       "parent's)",
				       (int)s->namelen, s->name, c->pid);
	}
	if (!gone) {
		u->file_mode = st.st_mode & 07777, u->has_file_mode = 1;
		u->file_uid = st.st_uid, u->has_file_uid = 1;
		u->file_gid = st.st_gid, u->has_file_gid = 1;
	}
	return 0;
}

static int fill_opts(int sk, UnixSkEntry *u, struct cr_err *e)
{
	UnixSkOpts *o = malloc(sizeof(*o));
	if (!o)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	unix_sk_opts__init(o);
	u->opts = o;
	int v;
	struct timeval tv;
	socklen_t l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_SNDBUF, &v, &l))
		o->sndbuf = (uint32_t)v, o->has_sndbuf = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_RCVBUF, &v, &l))
		o->rcvbuf = (uint32_t)v, o->has_rcvbuf = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_BUF_LOCK, &v, &l))
		o->buf_lock = (uint32_t)v, o->has_buf_lock = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_PASSCRED, &v, &l))
		o->passcred = v, o->has_passcred = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_PASSSEC, &v, &l))
		o->passsec = v, o->has_passsec = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_PASSPIDFD, &v, &l))
		o->passpidfd = v, o->has_passpidfd = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_RCVLOWAT, &v, &l))
		o->rcvlowat = (uint32_t)v, o->has_rcvlowat = 1;
	l = sizeof(v);
	if (!getsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &v, &l))
		o->peek_off = v, o->has_peek_off = 1;
	l = sizeof(tv);
	if (!getsockopt(sk, SOL_SOCKET, SO_RCVTIMEO, &tv, &l))
		o->rcvtimeo_us = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec, o->has_rcvtimeo_us = 1;
	l = sizeof(tv);
	if (!getsockopt(sk, SOL_SOCKET, SO_SNDTIMEO, &tv, &l))
		o->sndtimeo_us = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec, o->has_sndtimeo_us = 1;
	size_t n = 0;
	if (dump_sk_opts(sk, AF_UNIX, (int)u->type, 0, false, &u->sk_opts, &n, e))
		return -1;
	u->n_sk_opts = n;
	return 0;
}

/* The options of a socket read once per dump (dump_fdshare_memo, by inode), copied into the entry of each of
 * its fds: the same socket held by 300 processes had them read (70 getsockopt and a fresh socket) 300 times.
 */
struct opts_memo {
	UnixSkOpts o;
	SkOptEntry **so;
	size_t n;
};

static void free_opts_memo(void *p)
{
	struct opts_memo *m = p;
	if (m)
		dump_sk_opts_free(m->so, m->n);
	free(m);
}

/* dst[0..n) := deep copies of src[0..n) (*dst NULL when n is 0). */
static int copy_sk_opts(SkOptEntry *const *src, size_t n, SkOptEntry ***dst, struct cr_err *e)
{
	*dst = n ? calloc(n, sizeof(SkOptEntry *)) : NULL;
	if (n && !*dst)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		SkOptEntry *o = malloc(sizeof(*o));
		uint8_t *d = malloc(src[i]->val.len ? src[i]->val.len : 1);
		if (!o || !d) {
			free(o);
			free(d);
			dump_sk_opts_free(*dst, i);
			*dst = NULL;
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		*o = *src[i];
		memcpy(d, src[i]->val.data, src[i]->val.len);
		o->val.data = d;
		(*dst)[i] = o;
	}
	return 0;
}

/* u->opts and u->sk_opts from the memo of u's socket, or read from sk (and kept in the memo). */
static int fill_opts_once(struct dump_ctx *c, struct sk_ref *r, UnixSkEntry *u, struct cr_err *e)
{
	uint64_t key = (uint64_t)FILE_KIND__FILE_UNIXSK << 32 | u->ino;
	const struct opts_memo *m = dump_fdshare_memo(c->fdsh, key);
	if (m) {
		u->opts = malloc(sizeof(*u->opts));
		if (!u->opts)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		*u->opts = m->o;
		u->n_sk_opts = m->n;
		return copy_sk_opts(m->so, m->n, &u->sk_opts, e);
	}
	int sk = sk_get(r, e);
	if (sk < 0 || fill_opts(sk, u, e))
		return -1;
	struct opts_memo *nm = calloc(1, sizeof(*nm));
	if (!nm)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	nm->o = *u->opts, nm->n = u->n_sk_opts;
	if (copy_sk_opts(u->sk_opts, u->n_sk_opts, &nm->so, e)) {
		free(nm);
		return -1;
	}
	return dump_fdshare_memo_put(c->fdsh, key, nm, free_opts_memo, e);
}

/* A new message with len bytes of data, put in u's queue at index at (the later ones move up). */
static UnixSkMsg *insert_msg(UnixSkEntry *u, size_t at, const uint8_t *data, size_t len, struct cr_err *e)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	UnixSkMsg **q = realloc(u->queue, (u->n_queue + 1) * sizeof(UnixSkMsg *));
	if (!q) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	u->queue = q;
	UnixSkMsg *m = malloc(sizeof(*m));
	if (!m) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	unix_sk_msg__init(m);
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	memmove(q + at + 1, q + at, (u->n_queue - at) * sizeof(*q));
	q[at] = m;
	u->n_queue++;
	return set_bytes(&m->data, &m->has_data, data, len, e) ? NULL : m;
}

static int add_msg(UnixSkEntry *u, const uint8_t *data, size_t len, const struct sockaddr_un *from,
		   socklen_t flen, struct cr_err *e)
{
	UnixSkMsg *m = insert_msg(u, u->n_queue, data, len, e);
	if (!m)
		return -1;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (from && flen > off)
		return set_bytes(&m->sender, &m->has_sender, from->sun_path, flen - off, e);
	return 0;
}

/* What came with one peek: files in flight (crshim's copies), credentials. */
struct peeked {
	int fds[SCM_MAX_FD_];
	size_t nfds;
	bool creds;
	struct ucred cred;
};

static void close_peeked(struct peeked *pk)
{
	for (size_t i = 0; i < pk->nfds; i++)
		close(pk->fds[i]);
	pk->nfds = 0;
}

/* The control messages of one peek into pk. A pidfd (SCM_PIDFD) is closed: the kernel makes it. */
static int take_cmsg(struct msghdr *mh, struct peeked *pk, int fd, pid_t pid, uint32_t ino, struct cr_err *e)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t nfd = cm->cmsg_len > CMSG_LEN(0) ? (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_CREDENTIALS && cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			memcpy(&pk->cred, CMSG_DATA(cm), sizeof(pk->cred));
			pk->creds = true;
		} else if (cm->cmsg_type == SCM_RIGHTS || cm->cmsg_type == SCM_PIDFD_) {
			for (size_t i = 0; i < nfd; i++) {
				int f;
				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (cm->cmsg_type == SCM_RIGHTS && pk->nfds < SCM_MAX_FD_)
					pk->fds[pk->nfds++] = f;
				else
					close(f);
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		return cr_fail_errno(
		    e, ENOTSUP,
		    "fd %d of task %d is a unix socket (socket:[%u]) with more file descriptors "
		    "in flight in one message than a peek can take",
		    fd, pid, ino);
	return 0;
}

/* The files and credentials of pk become those of message m (crshim's copies are taken). */
static int attach(struct dump_ctx *c, struct dump_unix *du, struct peeked *pk, UnixSkMsg *m, int fd,
		  uint32_t ino, struct cr_err *e)
{
	if (pk->creds) {
		m->cred_pid = pk->cred.pid, m->has_cred_pid = 1;
		m->cred_uid = pk->cred.uid, m->has_cred_uid = 1;
		m->cred_gid = pk->cred.gid, m->has_cred_gid = 1;
	}
	if (!pk->nfds)
		return 0;
	if (du->nested) {
		close_peeked(pk);
		return cr_fail_errno(e, ENOTSUP,
				     "a unix socket in flight (socket:[%u]) holds file descriptors in flight "
				     "itself, not supported",
				     ino);
	}
	m->fds = calloc(pk->nfds, sizeof(uint32_t));
	if (!m->fds) {
		close_peeked(pk);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pk->nfds; i++) {
		int r = dump_sk_scm_add(c, &du->scm, pk->fds[i], fd, ino, &m->fds[m->n_fds], e);
		pk->fds[i] = -1;
		if (r) {
			for (size_t k = i + 1; k < pk->nfds; k++)
				close(pk->fds[k]);
			pk->nfds = 0;
			return -1;
		}
		m->n_fds++;
	}
	pk->nfds = 0;
	return 0;
}

struct peek_st {
	uint8_t *acc; /* one message (or stream data) being put together */
	size_t alen;
	struct peeked pk; /* what came with the first peek of the message */
};

/* One peek of got bytes (of r in all) in buf: a message ends, or stream data grows. A stream message ends
 * where files or credentials came with the data. */
static int one_peek(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, UnixSkEntry *u,
		    struct peek_st *ps, const uint8_t *buf, size_t got, bool last, struct peeked *pk,
		    const struct sockaddr_un *from, socklen_t flen, int fd, struct cr_err *e)
{
	bool stream = s->type == SOCK_STREAM;
	if (stream && (pk->nfds || pk->creds) && ps->alen) { /* plain data before it */
		if (add_msg(u, ps->acc, ps->alen, NULL, 0, e))
			return -1;
		ps->alen = 0;
	}
	if (!ps->alen) {
		ps->pk = *pk;
		pk->nfds = 0;
	} else {
		close_peeked(pk); /* a later part of a long message: the same files again */
	}
	uint8_t *na = realloc(ps->acc, ps->alen + got + 1);
	if (!na)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ps->acc = na;
	memcpy(ps->acc + ps->alen, buf, got);
	ps->alen += got;
	if (stream ? !(ps->pk.nfds || ps->pk.creds) : !last)
		return 0;
	if (add_msg(u, ps->acc, ps->alen, stream ? NULL : from, flen, e))
		return -1;
	ps->alen = 0;
	return attach(c, du, &ps->pk, u->queue[u->n_queue - 1], fd, s->ino, e);
}

/* Where each peek of a stream queue ended (its byte offset in the data peeked). */
struct peek_ends {
	size_t *at;
	size_t n;
	size_t total;
};

static int peek_end(struct peek_ends *pe, size_t got, struct cr_err *e)
{
	size_t *a = realloc(pe->at, (pe->n + 1) * sizeof(*a));
	if (!a)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pe->at = a;
	pe->total += got;
	a[pe->n++] = pe->total;
	return 0;
}

/* What stops a read of sk's stream queue before byte pos (a peek of the bytes at pos - 1 and pos): 0
 * nothing, 1 the out-of-band mark (the kernel's OOB skb, or one whose byte was read with recv(MSG_OOB)), 2
 * the mark or files in flight or other credentials (cannot be told apart), -1 an error. */
static int stop_before(struct dump_ctx *c, int sk, size_t pos, int fd, uint32_t ino, struct cr_err *e)
{
	union {
		char b[CMSG_SPACE(SCM_MAX_FD_ * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred)) +
		       CMSG_SPACE(sizeof(int)) + CMSG_SPACE(256)];
		struct cmsghdr align;
	} cbuf;
	struct peeked pk[2] = {{.nfds = 0}, {.nfds = 0}};
	uint8_t two[2] = {0};
	ssize_t r[2] = {-1, -1};
	for (int i = 0; i < 2; i++) {
		int off = (int)pos - 1 + i;
		struct iovec iov = {two, (size_t)(2 - i)};
		struct msghdr mh = {NULL, 0, &iov, 1, cbuf.b, sizeof(cbuf.b), 0};
		if (setsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)))
			return cr_fail_sys(e, "fd %d: SO_PEEK_OFF", fd);
		r[i] = recvmsg(sk, &mh, MSG_PEEK | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		int bad = r[i] < 0 ? cr_fail_sys(e, "fd %d: peek the receive queue", fd)
				   : take_cmsg(&mh, &pk[i], fd, c->pid, ino, e);
		bool fds = pk[i].nfds;
		close_peeked(&pk[i]);
		if (bad)
			return -1;
		if (r[i] != 1)
			return 0;
		if (!i && fds) /* a read stops after a message with files */
			return 2;
	}
	if (pk[0].creds != pk[1].creds ||
	    (pk[0].creds && memcmp(&pk[0].cred, &pk[1].cred, sizeof(pk[0].cred))))
		return 2;
	return 1;
}

/* The message of u's stream queue that starts at byte pos of its data (split there if need be): its
 * index, u->n_queue at the end, -1 on an error. Messages inserted with oob_read hold no byte of the data. */
static ssize_t msg_at(UnixSkEntry *u, size_t pos, struct cr_err *e)
{
	size_t off = 0;
	for (size_t i = 0; i < u->n_queue; i++) {
		UnixSkMsg *m = u->queue[i];
		size_t len = m->oob_read ? 0 : m->data.len;
		if (off == pos && len)
			return (ssize_t)i;
		if (pos > off && pos < off + len) {
			UnixSkMsg *n = insert_msg(u, i + 1, m->data.data + (pos - off), off + len - pos, e);
			if (!n)
				return -1;
			n->cred_pid = m->cred_pid, n->has_cred_pid = m->has_cred_pid;
			n->cred_uid = m->cred_uid, n->has_cred_uid = m->has_cred_uid;
			n->cred_gid = m->cred_gid, n->has_cred_gid = m->has_cred_gid;
			/* a peek stops after the data that came with files: they are the later part's */
			n->fds = m->fds, n->n_fds = m->n_fds;
			m->fds = NULL, m->n_fds = 0;
			m->data.len = pos - off;
			return (ssize_t)i + 1;
		}
		off += len;
	}
	return (ssize_t)u->n_queue;
}

/* A message of one byte sent with MSG_OOB put in u's queue before byte pos of the data; oob_read: it was
 * read with recv(MSG_OOB) (its byte is none of the data). */
static int put_mark(UnixSkEntry *u, size_t pos, uint8_t b, bool oob_read, struct cr_err *e)
{
	ssize_t at = msg_at(u, pos, e);
	UnixSkMsg *m = at < 0 ? NULL : insert_msg(u, (size_t)at, &b, 1, e);
	if (!m)
		return -1;
	m->oob = true, m->has_oob = 1;
	m->oob_read = oob_read, m->has_oob_read = oob_read;
	return 0;
}

/* The out-of-band mark of a stream socket (MSG_OOB, Linux 5.15): a byte not read yet, which a peek from
 * offset 0 skips when it is at the head and reads as data elsewhere (unless SO_OOBINLINE: always as data),
 * and the marks of bytes read with recv(MSG_OOB), where reads stop. Each peek stops at a mark; which of
 * their ends is one the peeks of stop_before tell. */
static int oob_marks(struct dump_ctx *c, int sk, const struct ns_unix_sk *s, UnixSkEntry *u, int fd,
		     const struct peek_ends *pe, struct cr_err *e)
{
	struct pollfd p = {sk, POLLPRI, 0};
	bool pending = poll(&p, 1, 0) == 1 && (p.revents & POLLPRI);
	int inl = 0, atmark = 0;
	socklen_t l = sizeof(inl);
	uint8_t b = 0;
	getsockopt(sk, SOL_SOCKET, SO_OOBINLINE, &inl, &l);
	if (ioctl(sk, SIOCATMARK, &atmark))
		atmark = 0; /* a kernel without CONFIG_AF_UNIX_OOB: no mark */
	if (pending && !inl && recv(sk, &b, 1, MSG_OOB | MSG_PEEK | MSG_DONTWAIT) != 1)
		return cr_fail_sys(e, "fd %d: peek the out-of-band byte", fd);
	size_t mark = atmark ? 0 : SIZE_MAX;
	for (size_t i = pe->n; i-- > 0;) { /* from the end: a mark put in moves no later offset */
		size_t at = pe->at[i];
		int k = at && at < pe->total ? stop_before(c, sk, at, fd, s->ino, e) : 0;
		if (k < 0)
			return -1;
		if (k == 1 && pending)
			mark = at;
		else if (k == 1 && put_mark(u, at, 0, true, e))
			return -1;
	}
	/* none pending and the head a mark: that of a read one (also alone in the queue, all its data read:
	 * SIOCATMARK and POLLIN until a read drops it); one at the end after data, or hidden behind a pending
	 * one, no peek can see (the kernel skips it) */
	if (!pending)
		return atmark ? put_mark(u, 0, 0, true, e) : 0;
	if (mark == SIZE_MAX)
		return cr_fail_errno(e, ENOTSUP,
				     "fd %d of task %d is a unix socket (socket:[%u]) whose out-of-band byte "
				     "(MSG_OOB) comes after files or credentials in flight: its place in the "
				     "queue cannot be told, not supported",
				     fd, c->pid, s->ino);
	pr_info("socket:[%u]: out-of-band byte at offset %zu of %zu%s\n", s->ino, mark, pe->total,
		inl ? " (SO_OOBINLINE)" : "");
	if (!inl && mark == 0)
		return put_mark(u, 0, b, false, e); /* skipped by the peeks */
	/* the byte at the mark (read as data by the peeks) becomes a message of its own */
	ssize_t at = mark < pe->total ? msg_at(u, mark + 1, e) : -2;
	at = at < 0 ? at : msg_at(u, mark, e);
	if (at == -1)
		return -1;
	UnixSkMsg *m = at >= 0 && (size_t)at < u->n_queue ? u->queue[at] : NULL;
	if (!m || m->data.len != 1 || (!inl && m->data.data[0] != b))
		return cr_fail(
		    e, "socket:[%u]: the byte at the out-of-band mark (%zu) is not the out-of-band byte",
		    s->ino, mark);
	m->oob = true, m->has_oob = 1;
	return 0;
}

/* The receive queue, peeked from offset 0 (SO_PEEK_OFF) message by message; the peek offset is put back. */
static int peek_queue(struct dump_ctx *c, struct dump_unix *du, int sk, const struct ns_unix_sk *s,
		      UnixSkEntry *u, int fd, struct cr_err *e)
{
	int old = -1, zero = 0;
	socklen_t l = sizeof(old);
	getsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &old, &l);
	if (setsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)))
		return cr_fail_sys(e, "fd %d: SO_PEEK_OFF", fd);
	uint8_t *buf = malloc(PEEK_CHUNK);
	struct peek_st ps = {0};
	struct peek_ends pe = {0};
	int ret = buf ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	while (!ret) {
		union {
			char b[CMSG_SPACE(SCM_MAX_FD_ * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred)) +
			       CMSG_SPACE(sizeof(int)) + CMSG_SPACE(256)];
			struct cmsghdr align;
		} cbuf;
		struct sockaddr_un from;
		struct iovec iov = {buf, PEEK_CHUNK};
		struct msghdr mh = {&from, sizeof(from), &iov, 1, cbuf.b, sizeof(cbuf.b), 0};
		struct peeked pk = {.nfds = 0};
		ssize_t r = recvmsg(sk, &mh, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0 && (errno == EINVAL || errno == ENOTCONN) && s->type != SOCK_DGRAM &&
		    s->state != TCP_ESTABLISHED_)
			break; /* a stream (EINVAL)/seqpacket (ENOTCONN) socket never connected: no queue */
		if (r < 0) {
			ret = cr_fail_sys(e, "fd %d: peek the receive queue", fd);
			break;
		}
		ret = take_cmsg(&mh, &pk, fd, c->pid, s->ino, e);
		size_t got = (size_t)r > PEEK_CHUNK ? PEEK_CHUNK : (size_t)r;
		bool stream = s->type == SOCK_STREAM;
		if (!ret && r == 0 && (stream || !ps.alen) && !pk.nfds && (stream || !pk.creds))
			break; /* end of the data (shut down) */
		if (!ret)
			ret = one_peek(c, du, s, u, &ps, buf, got, (size_t)r <= PEEK_CHUNK, &pk, &from,
				       mh.msg_namelen, fd, e);
		if (!ret && stream)
			ret = peek_end(&pe, got, e);
		close_peeked(&pk);
	}
	if (!ret && s->type == SOCK_STREAM && ps.alen)
		ret = add_msg(u, ps.acc, ps.alen, NULL, 0, e);
	if (!ret && s->type == SOCK_STREAM && s->state == TCP_ESTABLISHED_)
		ret = oob_marks(c, sk, s, u, fd, &pe, e);
	free(pe.at);
	close_peeked(&ps.pk);
	free(ps.acc);
	free(buf);
	setsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &old, sizeof(old));
	if (!ret) {
		u->queue_saved = true, u->has_queue_saved = 1;
		pr_debug("socket:[%u]: %zu messages in the receive queue\n", s->ino, u->n_queue);
	}
	return ret;
}

/* The receive queue of a socket peeked once per dump (dump_fdshare_memo, by inode; the tasks are stopped),
 * each message packed, unpacked into the entry of each of its fds: the 200 sockets that 300 processes hold
 * were peeked 60,000 times. Not a queue that carries files (the ids of its messages are those of each
 * holder's files image: peeked by each), nor one of crshim's own sockets. */
struct queue_memo {
	ProtobufCBinaryData *m;
	size_t n;
};
#define QUEUE_MEMO_KEY(ino) ((uint64_t)FILE_KIND__FILE_UNIXSK << 32 | 1ULL << 63 | (ino))

static void free_queue_memo(void *p)
{
	struct queue_memo *q = p;
	for (size_t i = 0; q && i < q->n; i++)
		free(q->m[i].data);
	if (q)
		free(q->m);
	free(q);
}

static int queue_from_memo(const struct queue_memo *q, UnixSkEntry *u, struct cr_err *e)
{
	u->queue = q->n ? calloc(q->n, sizeof(UnixSkMsg *)) : NULL;
	if (q->n && !u->queue)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < q->n; i++, u->n_queue++)
		if (!(u->queue[i] = unix_sk_msg__unpack(NULL, q->m[i].len, q->m[i].data)))
			return cr_fail_errno(e, ENOMEM, "socket:[%u]: copy its queue: out of memory", u->ino);
	u->queue_saved = true, u->has_queue_saved = 1;
	return 0;
}

/* The memo of u's queue just peeked (none when it carries files). */
static int queue_to_memo(struct dump_ctx *c, const UnixSkEntry *u, struct cr_err *e)
{
	for (size_t i = 0; i < u->n_queue; i++)
		if (u->queue[i]->n_fds)
			return 0;
	struct queue_memo *q = calloc(1, sizeof(*q));
	if (!q || (u->n_queue && !(q->m = calloc(u->n_queue, sizeof(*q->m))))) {
		free(q);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (; q->n < u->n_queue; q->n++) {
		size_t len = unix_sk_msg__get_packed_size(u->queue[q->n]);
		if (!(q->m[q->n].data = malloc(len ? len : 1))) {
			free_queue_memo(q);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		q->m[q->n].len = unix_sk_msg__pack(u->queue[q->n], q->m[q->n].data);
	}
	return dump_fdshare_memo_put(c->fdsh, QUEUE_MEMO_KEY(u->ino), q, free_queue_memo, e);
}

/* u's queue: from the memo of its socket, else peeked (and kept in the memo). */
static int queue_once(struct dump_ctx *c, struct dump_unix *du, struct sk_ref *r, const struct ns_unix_sk *s,
		      UnixSkEntry *u, int fd, struct cr_err *e)
{
	const struct queue_memo *q = du->nested ? NULL : dump_fdshare_memo(c->fdsh, QUEUE_MEMO_KEY(s->ino));
	if (q)
		return queue_from_memo(q, u, e);
	int sk = sk_get(r, e);
	if (sk < 0 || peek_queue(c, du, sk, s, u, fd, e))
		return -1;
	return du->nested ? 0 : queue_to_memo(c, u, e);
}

/* Does a listener in the namespace have ino as a client of a connection it has not accepted? */
static const struct ns_unix_sk *pending_on(const struct dump_unix *du, uint32_t ino)
{
	for (size_t i = 0; i < du->t.n; i++) {
		const struct ns_unix_sk *l = &du->t.sk[i];
		for (size_t k = 0; l->state == TCP_LISTEN_ && k < l->nicons; k++)
			if (l->icons[k] == ino)
				return l;
	}
	return NULL;
}

/* The unix sockets in flight in the receive queue of crshim's copy sk (peeked from offset 0) go to tree. */
static int scan_queue(struct dump_unix *du, int sk, uint8_t *buf, size_t *cap, struct cr_err *e)
{
	int old = -1, zero = 0, ret = 0;
	socklen_t l = sizeof(old);
	getsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &old, &l);
	if (setsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)))
		return 0;
	for (int guard = 0; !ret && guard < 1 << 20; guard++) {
		union {
			char b[CMSG_SPACE(SCM_MAX_FD_ * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred)) +
			       CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = {buf, PEEK_CHUNK};
		struct msghdr mh = {NULL, 0, &iov, 1, cbuf.b, sizeof(cbuf.b), 0};
		struct peeked pk = {.nfds = 0};
		ssize_t r = recvmsg(sk, &mh, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		take_cmsg(&mh, &pk, -1, 0, 0, e);
		cr_err_clear(e);
		size_t nfds = pk.nfds;
		for (size_t i = 0; i < nfds && !ret; i++) {
			struct stat st;
			if (!fstat(pk.fds[i], &st) && S_ISSOCK(st.st_mode) &&
			    !in_tree(du, (uint32_t)st.st_ino))
				ret = add_ino(du, (uint32_t)st.st_ino, cap, e);
		}
		close_peeked(&pk);
		if (r < 0 || (r == 0 && !nfds))
			break;
	}
	setsockopt(sk, SOL_SOCKET, SO_PEEK_OFF, &old, sizeof(old));
	return ret;
}

/* Unix sockets held only in flight in a queue of the tree count as the tree's (once, when a peer is not). */
static int scan_in_flight(const struct dump_ctx *c, struct dump_unix *du, struct cr_err *e)
{
	size_t cap = du->ntree, n0 = du->ntree;
	uint8_t *buf = malloc(PEEK_CHUNK);
	du->scanned = true;
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t k = 0; k < n0; k++) {
		const struct ns_unix_sk *s = ns_unix_find(&du->t, du->tree[k]);
		if (!s || s->state == TCP_LISTEN_)
			continue;
		for (size_t q = 0; q < (c->tree ? c->ntree : 1); q++) {
			pid_t pid = c->tree ? c->tree[q].pid : c->pid;
			int fd = pid_fd_of(pid, s->ino);
			if (fd < 0)
				continue;
			int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
			int sk = pfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pfd, fd, 0) : -1;
			int r = sk >= 0 ? scan_queue(du, sk, buf, &cap, e) : 0;
			if (sk >= 0)
				close(sk);
			if (pfd >= 0)
				close(pfd);
			if (r) {
				free(buf);
				return -1;
			}
			break;
		}
	}
	free(buf);
	qsort(du->tree, du->ntree, sizeof(uint32_t), cmp_u32);
	if (du->ntree > n0)
		pr_info("%zu unix sockets are held in flight in the tree's queues\n", du->ntree - n0);
	return 0;
}

/* --external unix[INO]: the peer p (NULL: not in this network namespace) is outside the tree; given back by
 * --inherit-fd at restore, or reconnected to the peer's name (inherit-fd.c). */
static int fill_ext_peer(const struct ns_unix_sk *s, const struct ns_unix_sk *p, int fd, UnixSkEntry *u,
			 struct cr_err *e)
{
	bool named = p && p->namelen;
	u->external = true, u->has_external = 1;
	pr_info("fd %d: socket:[%u] is external (--external unix[%u]): restore it with --inherit-fd "
		"fd[N]:socket:[%u]%s\n",
		fd, s->ino, s->ino, s->ino, named ? ", else it is reconnected to its peer's name" : "");
	if (!named)
		return 0;
	u->ext_peer = true, u->has_ext_peer = 1;
	return set_bytes(&u->peer_name, &u->has_peer_name, p->name, p->namelen, e);
}

/* peer: the socket this one is connected to (NULL: none known); outside the tree: --ext-unix-sk. */
static int fill_peer(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
		     UnixSkEntry *u, struct cr_err *e)
{
	char nb[NS_UNIX_NAME_MAX + 2];
	const struct ns_unix_sk *p = s->peer ? ns_unix_find(&du->t, s->peer) : NULL;
	const struct ns_unix_sk *lis = NULL;
	if (s->peer && !in_tree(du, s->peer) && !du->scanned && scan_in_flight(c, du, e))
		return -1;
	if (!s->peer && s->state == TCP_ESTABLISHED_ && s->type != SOCK_DGRAM &&
	    (lis = pending_on(du, s->ino))) {
		if (in_tree(du, lis->ino)) {
			u->pending = true, u->has_pending = 1;
			if (s->wqueue)
				return cr_fail(
				    e,
				    "fd %d of task %d is a unix socket (socket:[%u]) that sent data on "
				    "a connection not accepted yet, not supported",
				    fd, c->pid, s->ino);
			return 0;
		}
		p = lis; /* connected to a listener outside the tree: reconnected to it */
	}
	if (s->peer && !in_tree(du, s->peer) && dump_ext_unix(c->o, s->ino))
		return fill_ext_peer(s, p, fd, u, e);
	if (s->peer && !p && !in_tree(du, s->peer))
		return cr_fail(
		    e,
		    "fd %d of task %d is a unix socket (socket:[%u]) connected to socket:[%u], which "
		    "is not in this network namespace: not supported",
		    fd, c->pid, s->ino, s->peer);
	if (!p || (in_tree(du, p->ino) && !lis))
		return 0;
	if (!c->o->ext_unix_sk)
		return cr_fail(e,
			       "fd %d of task %d is a unix socket (socket:[%u]) connected to %s outside the "
			       "dumped tree (socket:[%u]): dump with --ext-unix-sk%s",
			       fd, c->pid, s->ino, show_name(p->name, p->namelen, nb, sizeof(nb)), p->ino,
			       fd <= 2 ? " (or --shell-job for a socket of the caller)" : "");
	if (!p->namelen)
		return cr_fail(
		    e,
		    "fd %d of task %d is a unix socket (socket:[%u]) connected to an unnamed socket "
		    "outside the tree (socket:[%u]): it cannot be reconnected",
		    fd, c->pid, s->ino, p->ino);
	u->ext_peer = true, u->has_ext_peer = 1;
	pr_info("fd %d: socket:[%u] has an external peer %s: reconnected to it on restore\n", fd, s->ino,
		show_name(p->name, p->namelen, nb, sizeof(nb)));
	return set_bytes(&u->peer_name, &u->has_peer_name, p->name, p->namelen, e);
}

/* A listener's connections not yet accepted: their clients must be in the tree (else --ext-unix-sk drops
 * them) and still open. */
static int fill_icons(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
		      UnixSkEntry *u, struct cr_err *e)
{
	u->backlog = s->wqueue, u->has_backlog = 1;
	u->icons = calloc(s->nicons + 1, sizeof(uint32_t));
	if (!u->icons)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < s->nicons; i++) {
		if (in_tree(du, s->icons[i])) {
			u->icons[u->n_icons++] = s->icons[i];
			continue;
		}
		/* The kernel names a closed client's end 0: what it sent is only in the connection, which
		 * only accept can read (and the dump must not accept). */
		if (!s->icons[i] && !c->o->ext_unix_sk)
			return cr_fail(e,
				       "fd %d of task %d is a listening unix socket (socket:[%u]) with a "
				       "connection not accepted yet whose client has closed its end: not "
				       "supported (what the client sent cannot be read without accepting it; "
				       "--ext-unix-sk drops it)",
				       fd, c->pid, s->ino);
		if (!s->icons[i]) { /* (as an outside client's, with --ext-unix-sk: dropped, said on stderr)
				     */
			eng_notice(
			    c->o,
			    "fd %d of task %d: listening unix socket socket:[%u]: a connection not accepted "
			    "yet whose client has closed its end is dropped (--ext-unix-sk), with what the "
			    "client sent",
			    fd, c->pid, s->ino);
			continue;
		}
		if (!c->o->ext_unix_sk)
			return cr_fail(
			    e,
			    "fd %d of task %d is a listening unix socket (socket:[%u]) with a "
			    "connection not accepted yet from socket:[%u] outside the dumped tree: "
			    "dump with --ext-unix-sk (it is dropped)",
			    fd, c->pid, s->ino, s->icons[i]);
		pr_info("fd %d: socket:[%u]: the pending connection of external socket:[%u] is dropped\n", fd,
			s->ino, s->icons[i]);
	}
	return 0;
}

/* SO_PEERCRED pid of sk read by a child of crshim made in the PID namespace of task pid: the pid as that
 * namespace sees it, also of a process that is gone (its struct pid lives on in the socket); 0: none. */
static pid_t peer_pid_in(pid_t pid, int sk)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/pid", (int)pid);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	__cleanup_close int self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	int pp[2];
	pid_t got = 0;
	if (ns < 0 || self < 0 || pipe2(pp, O_CLOEXEC))
		return 0;
	if (!setns(ns, CLONE_NEWPID)) {
		fflush(NULL);
		pid_t ch = fork();
		if (ch == 0) {
			struct ucred cr = {0};
			socklen_t l = sizeof(cr);
			getsockopt(sk, SOL_SOCKET, SO_PEERCRED, &cr, &l);
			_exit(write(pp[1], &cr.pid, sizeof(cr.pid)) == sizeof(cr.pid) ? 0 : 1);
		}
		if (setns(self, CLONE_NEWPID))
			pr_warn("back to crshim's PID namespace for its children: %s\n", strerror(errno));
		close(pp[1]);
		pp[1] = -1;
		if (ch > 0 && read(pp[0], &got, sizeof(got)) != sizeof(got))
			got = 0;
		while (ch > 0 && waitpid(ch, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(pp[0]);
	if (pp[1] >= 0)
		close(pp[1]);
	return got;
}

/* The process of the tree highest up t's line (parents) that is in t's PID namespace lv levels below ours or
 * below it: two processes with the same one are in one namespace at that level. */
static const struct dump_ctx *ns_top(const struct dump_ctx *t, uint32_t lv)
{
	for (size_t hops = 0; t && hops <= t->ntree; hops++) {
		const struct dump_ctx *p = NULL;
		for (size_t k = 0; t->ppid && k < t->ntree; k++)
			if (t->tree[k].pid == t->ppid)
				p = &t->tree[k];
		if (!p || p->ns_levels < lv)
			return t;
		t = p;
	}
	return NULL;
}

/* Pid of the peer credentials (pid in our PID namespace) as task c sees it; 0: not there. A process of
 * the tree in c's namespace by its ids; another one (gone, outside the tree, or one of the tree in another
 * namespace at c's level or one c's line does not show as in c's: a sibling namespace, one entered with
 * setns) is read in the task's PID namespace. */
static pid_t peer_vpid(const struct dump_ctx *c, struct sk_ref *r, pid_t pid)
{
	uint32_t lv = c->ns_levels;
	if (!lv)
		return pid;
	for (size_t k = 0; c->tree && k < c->ntree; k++)
		if (c->tree[k].pid == pid && c->tree[k].ns_levels >= lv && ns_top(&c->tree[k], lv) &&
		    ns_top(&c->tree[k], lv) == ns_top(c, lv))
			return c->tree[k].ns_tids[lv - 1];
	struct cr_err e = {0};
	int sk = sk_get(r, &e);
	if (sk < 0)
		pr_warn("SO_PEERCRED pid %d: %s\n", pid, e.msg);
	return sk < 0 ? 0 : peer_pid_in(c->pid, sk);
}

/* SO_PEERCRED of a socket, read once per dump (dump_fdshare_memo, by inode): as crshim sees it. */
#define CRED_MEMO_KEY(ino) ((uint64_t)FILE_KIND__FILE_UNIXSK << 32 | 1ULL << 60 | (ino))

static int peercred_once(struct dump_ctx *c, struct sk_ref *r, uint32_t ino, struct ucred *cr,
			 struct cr_err *e)
{
	const struct ucred *m = dump_fdshare_memo(c->fdsh, CRED_MEMO_KEY(ino));
	if (m) {
		*cr = *m;
		return 0;
	}
	socklen_t l = sizeof(*cr);
	int sk = sk_get(r, e);
	if (sk < 0)
		return -1;
	if (getsockopt(sk, SOL_SOCKET, SO_PEERCRED, cr, &l))
		*cr = (struct ucred){0};
	struct ucred *nm = malloc(sizeof(*nm));
	if (!nm)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*nm = *cr;
	return dump_fdshare_memo_put(c->fdsh, CRED_MEMO_KEY(ino), nm, free, e);
}

/* SO_PEERCRED of the socket of fd: the pid as the task sees it, euid and egid. */
static int fill_peercred(struct dump_ctx *c, struct sk_ref *r, uint32_t ino, int fd, UnixSkEntry *u,
			 struct cr_err *e)
{
	struct ucred cr = {0};
	if (peercred_once(c, r, ino, &cr, e))
		return -1;
	if (cr.pid <= 0)
		return 0;
	pid_t vp = peer_vpid(c, r, cr.pid);
	if (vp <= 0) {
		pr_info(
		    "fd %d of task %d: SO_PEERCRED pid %d is not in the task's PID namespace (pid 0 there): "
		    "only its uid and gid saved\n",
		    fd, c->pid, cr.pid);
		u->peer_uid = cr.uid, u->has_peer_uid = 1;
		u->peer_gid = cr.gid, u->has_peer_gid = 1;
		return 0;
	}
	u->peer_pid = vp, u->has_peer_pid = 1;
	u->peer_uid = cr.uid, u->has_peer_uid = 1;
	u->peer_gid = cr.gid, u->has_peer_gid = 1;
	return 0;
}

/* A listener: only its SO_PEERCRED (its own credentials at listen()) is read. */
static int fill_listener(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
			 struct sk_ref *r, UnixSkEntry *u, struct cr_err *e)
{
	if (fill_icons(c, du, s, fd, u, e))
		return -1;
	return fill_peercred(c, r, s->ino, fd, u, e);
}

/* u for the task's fd (r: crshim's copy of it). */
static int fill_entry(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
		      struct sk_ref *r, uint32_t flags, UnixSkEntry *u, struct cr_err *e)
{
	u->ino = s->ino, u->has_ino = 1;
	u->type = s->type, u->has_type = 1;
	u->state = s->state, u->has_state = 1;
	u->flags = flags & ~(uint32_t)O_CLOEXEC, u->has_flags = 1;
	u->shutdown = s->shutdown, u->has_shutdown = 1;
	u->peer = s->peer, u->has_peer = 1;
	u->netns = du->netns, u->has_netns = du->netns != 0;
	if (s->namelen && set_bytes(&u->name, &u->has_name, s->name, s->namelen, e))
		return -1;
	if (s->namelen && s->name[0] && fill_path(c, s, u, e))
		return -1;
	if (s->state == TCP_LISTEN_)
		return fill_listener(c, du, s, fd, r, u, e);
	if (fill_peer(c, du, s, fd, u, e) || fill_peercred(c, r, s->ino, fd, u, e))
		return -1;
	/* an external socket's queue stays with it (given back by --inherit-fd) */
	int ret = fill_opts_once(c, r, u, e) || (!u->external && queue_once(c, du, r, s, u, fd, e)) ? -1 : 0;
	if (!ret && u->ext_peer && s->type != SOCK_DGRAM && u->n_queue)
		return cr_fail(
		    e,
		    "fd %d of task %d is a unix socket (socket:[%u]) holding data from its peer outside the "
		    "tree, which a reconnection cannot put back: not supported",
		    fd, c->pid, s->ino);
	return ret;
}

/* A socket not in the table of the task's network namespace: the table of its own (SIOCGSKNS), when it is
 * another (a socket made before the task changed its namespace: CRIU's netns_sub). 1: none. */
static int other_netns(struct dump_unix *du, int fd, struct sk_ref *sr, uint32_t ino,
		       struct ns_unix_table *alt, uint64_t *alt_ns, struct cr_err *e)
{
	struct cr_err e2 = {0};
	int sk = sk_get(sr, &e2);
	int ns = sk >= 0 ? ioctl(sk, SIOCGSKNS) : -1;
	struct stat st;
	if (ns < 0 || fstat(ns, &st) || (uint64_t)st.st_ino == du->netns) {
		if (ns >= 0)
			close(ns);
		return 1;
	}
	int r = ns_unix_collect_fd(ns, alt, e);
	close(ns);
	if (r)
		return -1;
	if (!ns_unix_find(alt, ino)) {
		ns_unix_table_free(alt);
		return 1;
	}
	*alt_ns = (uint64_t)st.st_ino;
	pr_info("fd %d: socket:[%u] is in net:[%llu], not the task's network namespace\n", fd, ino,
		(unsigned long long)*alt_ns);
	return 0;
}

static int fill_one(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
		    struct sk_ref *sr, uint32_t flags, FileEntry *fe, struct cr_err *e);

static int fill_sk(struct dump_ctx *c, struct dump_unix *du, int fd, struct sk_ref *sr, const struct stat *st,
		   uint32_t flags, FileEntry *fe, struct cr_err *e)
{
	const struct ns_unix_sk *s = ns_unix_find(&du->t, (uint32_t)st->st_ino);
	if (s)
		return fill_one(c, du, s, fd, sr, flags, fe, e);
	struct ns_unix_table alt, own = du->t;
	uint64_t alt_ns = 0, own_ns = du->netns;
	int r = other_netns(du, fd, sr, (uint32_t)st->st_ino, &alt, &alt_ns, e);
	if (r)
		return r;
	du->t = alt, du->netns = alt_ns; /* its peers and listeners are there too */
	r = fill_one(c, du, ns_unix_find(&alt, (uint32_t)st->st_ino), fd, sr, flags, fe, e);
	du->t = own, du->netns = own_ns;
	ns_unix_table_free(&alt);
	return r;
}

int dump_sk_unix_fill(struct dump_ctx *c, struct dump_unix **dup, int fd, int sk, const struct stat *st,
		      uint32_t flags, FileEntry *fe, struct cr_err *e)
{
	if (!*dup && du_init(c, dup, e))
		return -1;
	struct sk_ref sr = {.pid = c->pid, .fd = fd, .sk = sk};
	int r = fill_sk(c, *dup, fd, &sr, st, flags, fe, e);
	if (sr.own)
		close(sr.sk);
	return r;
}

static int fill_one(struct dump_ctx *c, struct dump_unix *du, const struct ns_unix_sk *s, int fd,
		    struct sk_ref *sr, uint32_t flags, FileEntry *fe, struct cr_err *e)
{
	UnixSkEntry **ne = realloc(du->ents, (du->nents + 1) * sizeof(UnixSkEntry *));
	if (!ne)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	du->ents = ne;
	UnixSkEntry *u = malloc(sizeof(*u));
	if (!u)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	unix_sk_entry__init(u);
	du->ents[du->nents++] = u;
	if (fill_entry(c, du, s, fd, sr, flags, u, e))
		return -1;
	fe->kind = FILE_KIND__FILE_UNIXSK, fe->has_kind = 1;
	fe->unix_sk = u;
	char nb[NS_UNIX_NAME_MAX + 2];
	pr_debug("fd %d: unix socket:[%u] type %u state %u name %s peer %u shutdown %u\n", fd, s->ino,
		 s->type, s->state, show_name(s->name, s->namelen, nb, sizeof(nb)), s->peer, s->shutdown);
	return 0;
}

/* ---------------------------------------------------------------- the kind (made by restore-sk-unix.c) */

static bool is_unix(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISSOCK(f->st.st_mode) && f->domain == AF_UNIX;
}

static int dump_unix(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	return dump_sk_unix_fill(c, (struct dump_unix **)state, f->fd, f->cfd, &f->st, f->fi.flags, fe, e);
}

/* files in flight in the unix sockets' queues */
static int finish_unix(struct dump_ctx *c, void *state, struct img_writer *wf, struct cr_err *e)
{
	return state ? dump_scm_write(c, &((struct dump_unix *)state)->scm, wf, e) : 0;
}

static void free_unix(void *state)
{
	dump_sk_unix_free(state);
}

/* made by rst_sk_unix_prepare anyway */
static int flight_unix(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e)
{
	return 0;
}

/* (the entries become FILE_INHERIT of crshim's sockets: rst_sk_unix_prepare) */
FD_KIND(fdk_unix) = {
    .name = "unix socket",
    .kind = FILE_KIND__FILE_UNIXSK,
    .prio = 30,
    .is = is_unix,
    .dump = dump_unix,
    .finish = finish_unix,
    .free_state = free_unix,
    .flight = flight_unix,
};
