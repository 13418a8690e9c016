/* Socket options only CAP_NET_ADMIN over the host may set (the kernel's sockopt_capable, not a namespace's
 * capability): SO_SNDBUFFORCE and SO_RCVBUFFORCE (a buffer above net.core.[wr]mem_max, which the restore also
 * needs to put a TCP connection's queues back), SO_DEBUG on (EACCES) and SO_PREFER_BUSY_POLL on.
 *
 * Restore: the processes of a tree born in its user namespace (ns_rst_user_born: a rootless container's) make
 * their sockets in there, where the kernel refuses these. crshim, which keeps its capabilities outside, forks
 * a server before the tree (rst_sk_priv_start): a process of its credentials that sets one of these options
 * on a socket a process of the tree sends it (SCM_RIGHTS: the same socket), with a socket pair of that
 * process's own for the answer (several processes share the way in). The way in (rst_sk_priv_fd) is among
 * each process's helper fds (restore-files.c), which the blob closes before the process runs; the server ends
 * with the restore (rst_sk_priv_stop), and serves these options only.
 *
 * Dump: a crshim without that capability (a user's, one in a user namespace) would fail such a restore after
 * the tree is gone: it refuses the dump with one line (sk_priv_dump_check). */
#define LOG_PREFIX "sk-priv: "
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns.h"
#include "restore.h"
#include "net/sk-inet.h"

#ifndef SO_PREFER_BUSY_POLL /* Linux 5.11 */
#define SO_PREFER_BUSY_POLL 69
#endif

struct priv_req {
	int32_t level, name;
	uint32_t len;
	uint8_t val[64];
};

static pid_t server = -1;

bool sk_priv_opt(int level, int name)
{
	return level == SOL_SOCKET && (name == SO_SNDBUFFORCE || name == SO_RCVBUFFORCE || name == SO_DEBUG ||
				       name == SO_PREFER_BUSY_POLL);
}

/* Does the kernel let crshim set them (a socket of its own: SO_DEBUG on)? */
static bool priv_allowed(void)
{
	__cleanup_close int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int on = 1;
	return sk >= 0 && !setsockopt(sk, SOL_SOCKET, SO_DEBUG, &on, sizeof(on));
}

/* ---------------------------------------------------------------- restore: the server */

/* One request: the socket and the answer's way in received (fds[0], fds[1]). */
static ssize_t recv_req(int ch, struct priv_req *q, int fds[2])
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {q, sizeof(*q)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(ch, &m, MSG_CMSG_CLOEXEC);
	struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	fds[0] = fds[1] = -1;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), (k > 2 ? 2 : k) * sizeof(int));
	}
	return n;
}

__attribute__((noreturn)) static void serve(int ch, pid_t crshim)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != crshim) /* (crshim went before the line above) */
		_exit(0);
	/* nothing of crshim's held open here: its pipes' ends would not see their end */
	if (ch > 0) /* (0 - 1 would be every fd, ch too) */
		syscall(SYS_close_range, 0u, (unsigned)ch - 1, 0u);
	syscall(SYS_close_range, (unsigned)ch + 1, ~0u, 0u);
	for (;;) {
		struct priv_req q;
		int fds[2];
		ssize_t n = recv_req(ch, &q, fds);
		if (n <= 0 && (n == 0 || errno != EINTR))
			_exit(0);
		int err = 0;
		if (n != (ssize_t)sizeof(q) || fds[0] < 0 || fds[1] < 0 || !sk_priv_opt(q.level, q.name) ||
		    q.len > sizeof(q.val))
			err = EINVAL;
		else if (setsockopt(fds[0], q.level, q.name, q.val, (socklen_t)q.len))
			err = errno;
		/* (never waits: a full or odd answer socket must not stop the server) */
		if (fds[1] >= 0 && send(fds[1], &err, sizeof(err), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			err = errno; /* (its process is gone: nothing to tell) */
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
}

/* Any inet socket a process of the tree makes (crshim makes the shared ones, with its own capabilities)? */
static bool tree_has_inet(const struct rst_task *ts, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++)
			if (ts[k].files[i]->kind == FILE_KIND__FILE_INETSK)
				return true;
	return false;
}

int rst_sk_priv_start(const struct rst_task *ts, size_t n, struct cr_err *e)
{
	if (!n || !ns_rst_user_born(ts[0].ns) || !tree_has_inet(ts, n) || !priv_allowed())
		return 0;
	int ch[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch))
		return cr_fail_sys(e, "a socket pair for the socket options crshim sets");
	pid_t self = getpid(), p = fork();
	if (p == 0)
		serve(ch[0], self);
	close(ch[0]);
	if (p < 0) {
		close(ch[1]);
		return cr_fail_sys(e, "fork the server of the socket options crshim sets");
	}
	server = p;
	rst_sk_priv_fd = ch[1];
	pr_info("a tree born in its user namespace: process %d sets SO_SNDBUFFORCE, SO_RCVBUFFORCE, SO_DEBUG "
		"and SO_PREFER_BUSY_POLL on its sockets for it (fd %d)\n",
		p, ch[1]);
	return 0;
}

void rst_sk_priv_stop(void)
{
	if (rst_sk_priv_fd >= 0)
		close(rst_sk_priv_fd);
	rst_sk_priv_fd = -1;
	if (server <= 0)
		return;
	kill(server, SIGKILL);
	while (waitpid(server, NULL, 0) < 0 && errno == EINTR)
		;
	server = -1;
}

/* ---------------------------------------------------------------- restore: the child's side */

/* The request on the way in, the answer on a pair of our own; 0, or -1 with errno (the server's). */
static int ask(int sk, int level, int name, const void *v, socklen_t l)
{
	struct priv_req q = {.level = level, .name = name, .len = l};
	int rp[2], err = 0;
	memcpy(q.val, v, l);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rp))
		return -1;
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct iovec iov = {&q, sizeof(q)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int fds[2] = {sk, rp[1]};
	c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	ssize_t s = sendmsg(rst_sk_priv_fd, &m, MSG_NOSIGNAL);
	close(rp[1]);
	ssize_t r = s == (ssize_t)sizeof(q) ? recv(rp[0], &err, sizeof(err), 0) : -1;
	close(rp[0]);
	if (r != (ssize_t)sizeof(err))
		return -1;
	errno = err;
	return err ? -1 : 0;
}

int sk_priv_setsockopt(int sk, int level, int name, const void *v, socklen_t l)
{
	if (!setsockopt(sk, level, name, v, l))
		return 0;
	int err = errno;
	if ((err != EPERM && err != EACCES) || rst_sk_priv_fd < 0 || !sk_priv_opt(level, name) ||
	    l > sizeof(((struct priv_req *)NULL)->val))
		return -1;
	if (!ask(sk, level, name, v, l))
		return 0;
	errno = errno == EPERM || errno == EACCES ? errno : err; /* the server's refusal, else ours */
	return -1;
}

/* ---------------------------------------------------------------- dump */

/* net.core.NAME (wmem_max, rmem_max), 0 if unknown. */
static int core_max(const char *name)
{
	char p[64], v[32];
	snprintf(p, sizeof(p), "/proc/sys/net/core/%s", name);
	return proc_read_value(p, v, sizeof(v)) ? 0 : atoi(v);
}

/* A queue of bytes the restore puts back (tcp-repair.c grow_buf: twice it and 64 KiB) above twice
 * net.core.NAME, which the plain option gives at most. */
static int queue_check(size_t bytes, const char *what, const char *name, struct cr_err *e)
{
	int max = core_max(name);
	if (!bytes || max <= 0 || (uint64_t)bytes * 2 + 65536 <= (uint64_t)max * 2)
		return 0;
	return cr_fail_errno(e, EPERM,
			     "TCP %s of %zu bytes: its restore needs a buffer above net.core.%s (%d), "
			     "which needs CAP_NET_ADMIN over the host, which crshim lacks",
			     what, bytes, name, max);
}

int sk_priv_dump_check(const InetSkEntry *ie, struct cr_err *e)
{
	static int allowed = -1; /* (the same for every socket of every dump of this process) */
	if (allowed < 0)
		allowed = priv_allowed();
	if (allowed)
		return 0;
	for (size_t i = 0; i < ie->n_opts; i++) {
		const SkOptEntry *o = ie->opts[i];
		int v;
		if (!sk_priv_opt(o->level, o->name) || o->val.len != sizeof(v))
			continue;
		memcpy(&v, o->val.data, sizeof(v));
		bool snd = o->name == SO_SNDBUFFORCE, rcv = o->name == SO_RCVBUFFORCE;
		int max = snd ? core_max("wmem_max") : rcv ? core_max("rmem_max") : 0;
		if ((o->name == SO_DEBUG || o->name == SO_PREFER_BUSY_POLL) && v)
			return cr_fail_errno(
			    e, EPERM,
			    "%s is on: setting it needs CAP_NET_ADMIN over the host, which crshim "
			    "lacks",
			    o->name == SO_DEBUG ? "SO_DEBUG" : "SO_PREFER_BUSY_POLL");
		if (max > 0 && v > max)
			return cr_fail_errno(
			    e, EPERM,
			    "%s of %lld bytes is above net.core.%s (%d): setting it (%s) needs "
			    "CAP_NET_ADMIN over the host, which crshim lacks",
			    snd ? "SO_SNDBUF" : "SO_RCVBUF", (long long)v * 2, snd ? "wmem_max" : "rmem_max",
			    max, snd ? "SO_SNDBUFFORCE" : "SO_RCVBUFFORCE");
	}
	const TcpStreamEntry *t = ie->tcp;
	return (t && (queue_check(t->outq_data.len, "send queue", "wmem_max", e) ||
		      queue_check(t->inq_data.len, "receive queue", "rmem_max", e))) ||
		       (ie->has_closed_rcv && queue_check(ie->closed_rcv.len, "receive queue", "rmem_max", e))
		   ? -1
		   : 0;
}
