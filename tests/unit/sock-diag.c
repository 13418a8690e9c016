/* Unit tests of ns/sock-diag.c: unix sockets found through NETLINK_SOCK_DIAG (libnl-3). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sock-diag.h"
#include "tap.h"

static uint32_t ino_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (uint32_t)st.st_ino;
}

int main(void)
{
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
	ok(!ns_unix_collect(&t, &e), "collect (%s)", e.msg);
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
