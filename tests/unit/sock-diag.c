/* Unit tests of ns/sock-diag.c and ns/sock-diag-inet.c: unix and inet sockets found through
 * NETLINK_SOCK_DIAG (libnl-3). */
#include <errno.h>
#include <sched.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sock-diag.h"
#include "tap.h"

static uint32_t ino_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (uint32_t)st.st_ino;
}

/* Inet: a TCP listener with a pending connection, a UDP socket connected and shut down, an IPv6 TCP socket
 * bound only, an unbound one (in no table). */
static void t_inet(void)
{
	struct cr_err e = {0};
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t l = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	int u = socket(AF_INET, SOCK_DGRAM, 0), b6 = socket(AF_INET6, SOCK_STREAM, 0);
	int fresh = socket(AF_INET, SOCK_DGRAM, 0);
	ok(!bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 6) &&
	       !getsockname(lfd, (struct sockaddr *)&a, &l) && !connect(c, (struct sockaddr *)&a, sizeof(a)),
	   "TCP listener with a pending connection");
	ok(!connect(u, (struct sockaddr *)&a, sizeof(a)) && !shutdown(u, SHUT_RD), "UDP connected, SHUT_RD");
	ok(!bind(b6, (struct sockaddr *)&a6, sizeof(a6)), "IPv6 TCP bound only");

	struct ns_inet_table t;
	ok(!ns_inet_collect(getpid(), &t, &e), "inet collect (%s)", e.msg);
	diag("%zu inet sockets", t.n);
	const struct ns_inet_sk *ls = ns_inet_find(&t, ino_of(lfd)), *us = ns_inet_find(&t, ino_of(u));
	const struct ns_inet_sk *bs = ns_inet_find(&t, ino_of(b6)), *cs = ns_inet_find(&t, ino_of(c));
	ok(ls && us && cs, "listener, client and UDP socket found");
	if (ls) {
		ok(ls->family == AF_INET && ls->protocol == IPPROTO_TCP && ls->state == 10,
		   "tcp4, listening");
		is_int(ls->sport, ntohs(a.sin_port), "listener's port");
		ok(!memcmp(ls->src, &a.sin_addr, 4), "listener's address");
		is_int((int)ls->rqueue, 1, "one connection not accepted");
		is_int((int)ls->wqueue, 6, "backlog 6");
	}
	if (cs)
		ok(cs->state == 1 && cs->dport == ntohs(a.sin_port), "client established to the listener");
	if (us) {
		ok(us->protocol == IPPROTO_UDP && us->state == 1 && us->dport == ntohs(a.sin_port),
		   "UDP connected");
		is_int(us->shutdown, 1, "RCV_SHUTDOWN");
	}
	if (bs) /* before Linux 6.8 bound-only TCP sockets are in no table */
		ok(bs->family == AF_INET6 && bs->state == 7 && bs->sport,
		   "IPv6 TCP bound only, closed, a port");
	else
		diag("no bound-only TCP socket in sock_diag (Linux < 6.8)");
	ok(!ns_inet_find(&t, ino_of(fresh)), "an unbound UDP socket is in no table");
	ns_inet_table_free(&t);
	ok(!ns_inet_collect(0, &t, &e) && ns_inet_find(&t, ino_of(lfd)), "pid 0: our own namespace");
	ns_inet_table_free(&t);
	ok(ns_inet_collect(-1, &t, &e) < 0 && strstr(e.msg, "/proc/-1/ns/net"), "no such task: %s", e.msg);
	close(lfd), close(c), close(u), close(b6), close(fresh);
}

/* A child in a net namespace of its own with a unix socket: found in the child's table, not in ours. */
static void t_netns(void)
{
	struct cr_err e = {0};
	int go[2], back[2];
	uint32_t ino = 0;
	char c;
	if (pipe(go) || pipe(back))
		return (void)ok(0, "pipes");
	pid_t pid = fork();
	if (pid == 0) {
		int sp[2];
		if (unshare(CLONE_NEWNET) || socketpair(AF_UNIX, SOCK_DGRAM, 0, sp))
			_exit(1);
		ino = ino_of(sp[0]);
		if (write(back[1], &ino, sizeof(ino)) != sizeof(ino) || read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	if (read(back[0], &ino, sizeof(ino)) != sizeof(ino)) {
		diag("skipped: no net namespace of our own (not root?)");
		waitpid(pid, NULL, 0);
		return;
	}
	struct ns_unix_table t;
	ok(!ns_unix_collect(pid, &t, &e) && ns_unix_find(&t, ino), "unix: found in the task's namespace (%s)",
	   e.msg);
	ns_unix_table_free(&t);
	ok(!ns_unix_collect(0, &t, &e) && !ns_unix_find(&t, ino), "unix: not in ours");
	ns_unix_table_free(&t);
	ok(ns_unix_collect(-1, &t, &e) < 0 && strstr(e.msg, "/proc/-1/ns/net"), "unix: no such task: %s",
	   e.msg);
	if (write(go[1], "g", 1) != 1)
		diag("write: %s", strerror(errno));
	waitpid(pid, NULL, 0);
	close(go[0]), close(go[1]), close(back[0]), close(back[1]);
}

int main(void)
{
	t_inet();
	t_netns();

	struct cr_err e = {0};
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		return perror("socketpair"), 1;
	ok(write(sp[0], "hello", 5) == 5, "write 5 bytes");
	shutdown(sp[1], SHUT_WR);

	/* a listener with an abstract name and one connection not yet accepted */
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int nl = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "crshim-unit-diag-%d", (int)getpid());
	socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)nl);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(l >= 0 && !bind(l, (struct sockaddr *)&a, alen) && !listen(l, 7), "abstract listener");
	ok(!connect(c, (struct sockaddr *)&a, alen), "connect (not accepted)");

	struct ns_unix_table t;
	ok(!ns_unix_collect(getpid(), &t, &e), "collect (%s)", e.msg);
	diag("%zu unix sockets", t.n);
	const struct ns_unix_sk *s0 = ns_unix_find(&t, ino_of(sp[0])), *s1 = ns_unix_find(&t, ino_of(sp[1]));
	ok(s0 && s1, "both ends of the pair found");
	if (s0 && s1) {
		ok(s0->peer == s1->ino && s1->peer == s0->ino, "peers");
		ok(s0->type == SOCK_STREAM && s0->state == 1, "stream, established");
		is_int((int)s1->rqueue, 5, "5 bytes queued for the reader");
		is_int(s1->shutdown, 2, "SHUT_WR on the reader's end");
		is_int((int)s0->namelen, 0, "not bound");
	}
	const struct ns_unix_sk *ls = ns_unix_find(&t, ino_of(l)), *cs = ns_unix_find(&t, ino_of(c));
	ok(ls && cs, "listener and client found");
	if (ls && cs) {
		ok(ls->state == 10, "listening");
		ok(ls->namelen == (size_t)nl + 1 && !ls->name[0] &&
		       !memcmp(ls->name + 1, a.sun_path + 1, (size_t)nl),
		   "abstract name");
		is_int((int)ls->nicons, 1, "one pending connection");
		ok(ls->nicons == 1 && ls->icons[0] == cs->ino, "its client");
		is_int((int)ls->rqueue, 1, "accept queue length");
		is_int((int)ls->wqueue, 7, "backlog");
		ok(cs->state == 1, "the client is connected (to the embryo, which has no inode)");
	}
	struct ns_unix_sk one;
	ok(!ns_unix_get(ino_of(sp[0]), &one, &e), "exact query (%s)", e.msg);
	ok(one.ino == ino_of(sp[0]) && one.peer == ino_of(sp[1]), "exact query: inode and peer");
	free(one.icons);
	ok(ns_unix_get(1, &one, &e) < 0 && e.errnum == ENOENT, "no such socket: ENOENT (%s)", e.msg);
	ns_unix_table_free(&t);
	return done_testing();
}
