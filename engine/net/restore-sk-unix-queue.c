/* Restore of unix sockets (see sk-unix.h): receive queues put back, message by message, from the sender's
 * side (its peer, the socket bound to the sender's name, or an unnamed one), with the files in flight
 * (SCM_RIGHTS of the fds restore-sk-scm.c made), the sender's uid and gid (SCM_CREDENTIALS), an
 * out-of-band byte read again. */
#define LOG_PREFIX "restore-sk-unix: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/scm.h"
#include "files/fdshare.h"
#include "net/sk-unix.h"

#define SCM_MAX_FD_ 253 /* the kernel's SCM_MAX_FD */
static struct rsk *bound_to(const ProtobufCBinaryData *name)
{
	for (size_t i = 0; i < usk_nsks; i++)
		if (usk_same_name(usk_sks[i].u, name) && usk_sks[i].u->state != ST_LISTEN &&
		    usk_sks[i].fd >= 0)
			return &usk_sks[i];
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
		const struct rsk *s = f && f->unix_sk && (f->kind == FILE_KIND__FILE_UNIXSK || usk_late)
					  ? usk_find(f->unix_sk->ino)
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

/* "ID ID 1" into /proc/self/FILE (a user namespace's uid_map or gid_map: the id maps to itself); "deny"
 * first into setgroups for gid_map. System calls only (after a fork). 0, or -1. */
static int map_self(const char *file, unsigned id)
{
	char num[16], line[40], proc[32] = "/proc/self/";
	size_t n = 0, l = 0;
	do
		num[n++] = (char)('0' + id % 10);
	while ((id /= 10) && n < sizeof(num));
	for (int k = 0; k < 2; k++) {
		for (size_t i = n; i; i--)
			line[l++] = num[i - 1];
		line[l++] = ' ';
	}
	line[l++] = '1';
	memcpy(proc + strlen(proc), file, strlen(file) + 1);
	int fd = open(proc, O_WRONLY | O_CLOEXEC);
	int r = fd >= 0 && write(fd, line, l) == (ssize_t)l ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return r;
}

/* Gone senders' absolute path names are bound again without touching the file system (a receiver reads only
 * the name a sender bound, recvfrom, not where its file is) by one child of crshim's a restore step (each
 * mount namespace's: usk_put_queues), made at the first such name, in crshim's PID namespace (it is no
 * process of the tree). In a mount namespace of its own (and a user namespace first where crshim may not
 * make one alone), it mounts a tmpfs over the nearest directory of each path that exists (not the root)
 * where that is not one of its own tmpfs yet, makes the directories below it, binds a socket there and
 * hands it over; its mounts go with it. A name bound before (two senders of one name, or its messages: one
 * socket each, as they were sent) is unlinked first. Asked with the bytes of sun_path, it answers an errno
 * (int32, 0: the socket is there, SCM_RIGHTS). */
static pid_t binder = -1;
static int binder_ch = -1;  /* crshim's end of its channel; -2: it could not be made (not tried again) */
static int binder_lost = 0; /* ... why */

#define BINDER_TMPFS 64 /* its tmpfs (st_dev) it knows: a path below one more gets a tmpfs of its own */

struct binder_state {
	dev_t own[BINDER_TMPFS];
	size_t n;
};

static bool binder_owns(const struct binder_state *b, dev_t dev)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->own[i] == dev)
			return true;
	return false;
}

/* A socket bound to the path a (len bytes of sun_path, not the root's directory), or -1 with errno. */
static int binder_bind(struct binder_state *b, const struct sockaddr_un *a, size_t len)
{
	char path[sizeof(a->sun_path) + 1] = "", dir[sizeof(path)];
	struct stat st;
	memcpy(path, a->sun_path, len);
	memcpy(dir, path, sizeof(dir));
	char *cut = strrchr(dir, '/');
	if (path[0] != '/' || !cut)
		return errno = EINVAL, -1;
	*cut = '\0';
	while (dir[0] && (stat(dir, &st) || !S_ISDIR(st.st_mode)))
		*strrchr(dir, '/') = '\0';
	if (!dir[0])
		return errno = ENOENT, -1;
	bool mine = binder_owns(b, st.st_dev);
	if (!mine) {
		if (mount("crshim-gone", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=16k,mode=0755") ||
		    stat(dir, &st))
			return -1;
		if (b->n < BINDER_TMPFS)
			b->own[b->n++] = st.st_dev;
	}
	for (size_t i = strlen(dir) + 1; path[i]; i++) /* the directories below it (ours: in our tmpfs) */
		if (path[i] == '/') {
			path[i] = '\0';
			int r = mkdir(path, 0755);
			if (r && errno == EEXIST && mine && !unlink(path)) /* a name bound before */
				r = mkdir(path, 0755);
			path[i] = '/';
			if (r)
				return -1;
		}
	if (mine && unlink(path) && errno != ENOENT)
		return -1;
	int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk >= 0 &&
	    bind(sk, (const struct sockaddr *)a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len))) {
		int err = errno;
		close(sk);
		return errno = err, -1;
	}
	return sk;
}

/* Its mount namespace (and user namespace); 0, or an errno. */
static int binder_ns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWNS)) {
		int fd = -1;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) || map_self("uid_map", uid) ||
		    (fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC)) < 0 ||
		    write(fd, "deny", 4) != 4 || map_self("gid_map", gid))
			return errno ? errno : EIO;
		close(fd);
	}
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? errno : 0;
}

/* The child (system calls only): its namespaces, then an answer to each request until crshim closes its
 * channel (where it has no namespaces: their errno). */
static __attribute__((noreturn)) void binder_main(int ch)
{
	unsigned c = (unsigned)ch;
	if ((c > 3 && syscall(SYS_close_range, 3U, c - 1, 0)) ||
	    syscall(SYS_close_range, c < 3 ? 3U : c + 1, ~0U, 0))
		_exit(1); /* (crshim's files: the ends of its pipes and channels it waits on, among them) */
	int ns_err = binder_ns();
	struct binder_state b = {.n = 0};
	for (;;) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		ssize_t n = recv(ch, a.sun_path, sizeof(a.sun_path), 0);
		if (n <= 0)
			_exit(n < 0);
		int sk = ns_err ? -1 : binder_bind(&b, &a, (size_t)n);
		int32_t err = ns_err ? ns_err : sk < 0 ? errno : 0;
		struct iovec iov = {&err, sizeof(err)};
		if (scm_send(ch, &iov, 1, &sk, sk >= 0) != (ssize_t)sizeof(err))
			_exit(1);
		if (sk >= 0)
			close(sk);
	}
}

/* The binder made (once a step); 0, or -1 with errno where it cannot be (no child: then not asked again),
 * -2 (e set) where crshim could not go back to the tree's PID namespace. */
static int binder_start(struct cr_err *e)
{
	int sp[2];
	if (binder_ch == -2)
		return errno = binder_lost, -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp)) {
		binder_ch = -2, binder_lost = errno;
		return -1;
	}
	pid_t pid;
	if (usk_fork_own(&pid, e)) {
		close(sp[0]);
		close(sp[1]);
		binder_ch = -2, binder_lost = EIO;
		return -2;
	}
	if (pid == 0) {
		close(sp[0]);
		binder_main(sp[1]);
	}
	int err = errno;
	close(sp[1]);
	if (pid < 0) {
		close(sp[0]);
		binder_ch = -2, binder_lost = err;
		return errno = err, -1;
	}
	binder = pid, binder_ch = sp[0];
	pr_debug("child %d binds the path names of gone senders\n", (int)pid);
	return 0;
}

/* The binder, when there is one, ends (its channel closed) and is waited for. */
static void binder_end(void)
{
	int st = 0;
	if (binder_ch >= 0)
		close(binder_ch);
	binder_ch = -1;
	if (binder > 0) {
		pid_t r;
		while ((r = waitpid(binder, &st, __WALL)) < 0 && errno == EINTR)
			;
		if (r == binder && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			pr_info("child %d that bound gone senders' path names ended with status %#x\n",
				(int)binder, st);
	}
	binder = -1;
}

/* A socket bound to the absolute path of a (len bytes of sun_path) by the binder; -1 with errno where it
 * cannot be, -2 (e set) where the restore fails. */
static int bind_aside(const struct sockaddr_un *a, size_t len, struct cr_err *e)
{
	int r = binder_ch >= 0 ? 0 : binder_start(e);
	if (r)
		return r;
	int32_t err = EPROTO;
	int sk = -1;
	size_t nfds = 0;
	struct iovec iov = {&err, sizeof(err)};
	ssize_t n = send(binder_ch, a->sun_path, len, MSG_NOSIGNAL);
	if (n == (ssize_t)len) {
		while ((n = scm_recv(binder_ch, &iov, 1, &sk, 1, &nfds, NULL)) < 0 && errno == EINTR)
			;
	}
	if (n != (ssize_t)sizeof(err)) { /* (the binder is gone: not asked again) */
		int lost = n < 0 ? errno : EPIPE;
		if (sk >= 0 && nfds)
			close(sk);
		binder_end();
		binder_ch = -2, binder_lost = lost;
		return errno = lost, -1;
	}
	if (!nfds || sk < 0)
		return errno = err ? err : EPROTO, -1;
	return sk;
}

/* A socket for a message whose sender is no longer there (closed since it sent): bound to the sender's
 * name again, so that the receiver reads the name it would have read (recvfrom): an abstract name where it
 * is free, an absolute path through bind_aside. Where neither can be, sent from an unnamed socket, with a
 * warning. -1 with errno, or -2 (e set) where the restore fails. */
static int gone_sender(const struct rsk *r, const UnixSkMsg *m, struct cr_err *e)
{
	int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0 || !m->has_sender || !m->sender.len)
		return sk;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t len = m->sender.len < sizeof(a.sun_path) ? m->sender.len : sizeof(a.sun_path);
	memcpy(a.sun_path, m->sender.data, len);
	if (a.sun_path[0] == '\0' &&
	    !bind(sk, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)))
		return sk;
	bool path = a.sun_path[0] != '\0';
	int named = path ? bind_aside(&a, len, e) : -1;
	int err = errno;
	if (named >= 0 || named == -2) {
		close(sk);
		return named;
	}
	static uint32_t last_ino; /* (once for the messages of one sender in a row, not for each) */
	static char last[sizeof(a.sun_path)];
	static size_t last_len;
	if (last_ino == r->ino && last_len == len && !memcmp(last, a.sun_path, len))
		return sk;
	last_ino = r->ino, last_len = len;
	memcpy(last, a.sun_path, len);
	pr_warn(
	    "socket:[%u]: the sender %s%.*s of queued messages is gone%s%s: sent from an unnamed socket\n",
	    r->ino, path ? "" : "@", (int)(path ? strnlen(a.sun_path, len) : len - 1), a.sun_path + !path,
	    path ? " and its name cannot be bound again: " : " and its name is taken",
	    path ? strerror(err) : "");
	return sk;
}

/* One message of r's receive queue, from its sender's side. */
static int put_msg(struct rsk *r, const UnixSkMsg *m, struct cr_err *e)
{
	struct rsk *p = usk_find(r->u->peer);
	int src = p && p->fd >= 0 ? p->fd : r->ghost;
	bool connected = src >= 0;
	__cleanup_close int tmp = -1;
	if (r->u->type == SOCK_DGRAM && r->ghost < 0 && !usk_mutual_peer(r) && !(p && p->fd >= 0)) {
		struct rsk *s = m->has_sender && m->sender.len ? bound_to(&m->sender) : NULL;
		connected = false;
		if (s) {
			src = s->fd;
		} else {
			tmp = gone_sender(r, m, e);
			if (tmp == -2)
				return cr_wrap(e, "socket:[%u]: a socket for its gone sender's messages",
					       r->ino);
			if (tmp < 0)
				return cr_fail_sys(e, "socket:[%u]: a socket for its gone sender's messages",
						   r->ino);
			src = tmp;
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
	int here = connected ? -1 : usk_enter(r->u->cwd, &r->addr);
	int ret = send_all(src, m, fds, connected ? NULL : &r->addr, r->alen, r->u->type != SOCK_STREAM);
	int err = errno;
	usk_leave(here);
	if (!ret && m->oob_read)
		return read_oob(r, e);
	if (ret)
		return cr_fail_errno(e, err, "socket:[%u]: put back %zu bytes of its receive queue", r->ino,
				     m->data.len);
	return 0;
}

int usk_put_queues(struct cr_err *e)
{
	int ret = 0;
	for (size_t i = 0; !ret && i < usk_nsks; i++)
		for (size_t k = 0; !ret && !usk_other(&usk_sks[i]) && usk_sks[i].u->queue_saved &&
				   k < usk_sks[i].u->n_queue;
		     k++)
			ret = put_msg(&usk_sks[i], usk_sks[i].u->queue[k], e);
	binder_end();
	return ret;
}
