/* Helpers of the sk_unix_* tests. */
#ifndef ZDTM_SK_UNIX_H
#define ZDTM_SK_UNIX_H
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

/* SO_PEERCRED of fd (pid -1 if it cannot be read). */
static inline struct ucred sk_peer(int fd)
{
	struct ucred cr = {-1, (uid_t)-1, (gid_t)-1};
	socklen_t l = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
		cr.pid = -1;
	return cr;
}

/* Move fd to number want (flags: O_CLOEXEC or 0). */
static inline void sk_place(int fd, int want, int flags)
{
	if (fd != want && dup3(fd, want, flags) != want)
		fail("dup3 %d", want);
	if (fd != want)
		close(fd);
}

/* Fds to send (sk_unix_scm_rights_*): sk_scm_file: a new file name holding "0123456789", open O_RDWR at
 * offset at; sk_scm_pipe: a pipe holding data, its write end placed at wfd; its read end. fail() on errors.
 */
static inline int sk_scm_file(const char *name, off_t at)
{
	int f = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0 || write(f, "0123456789", 10) != 10 || lseek(f, at, SEEK_SET) != at)
		fail("regular file");
	return f;
}

static inline int sk_scm_pipe(const char *data, int wfd)
{
	int p[2];
	if (pipe(p) || write(p[1], data, strlen(data)) != (ssize_t)strlen(data))
		fail("pipe");
	sk_place(p[1], wfd, 0);
	return p[0];
}

/* Move a new fd (< 30) to number want, which may be the number a later call's new fd would get. */
static inline void sk_place_new(int fd, int want)
{
	int hi = fcntl(fd, F_DUPFD, 30);
	if (fd < 0 || hi < 0)
		fail("new fd for %d", want);
	close(fd);
	sk_place(hi, want, 0);
}

/* A socketpair of type at fd numbers a and b. Both ends go above a and b first: socketpair() may give one
 * end the number a (then placing the other end there would close it). */
static inline void sk_pair(int type, int a, int b)
{
	int sp[2], hi[2];
	if (socketpair(AF_UNIX, type, 0, sp))
		fail("socketpair");
	for (int i = 0; i < 2; i++) {
		hi[i] = fcntl(sp[i], F_DUPFD, (a > b ? a : b) + 1);
		if (hi[i] < 0)
			fail("socketpair: move fd %d", sp[i]);
		close(sp[i]);
	}
	sk_place(hi[0], a, 0);
	sk_place(hi[1], b, 0);
}

/* A socket of type at fd number fd bound to name (the address in *a, its length returned, for a later
 * connect), listening with backlog when backlog > 0; fail() when a step fails. */
static inline socklen_t sk_bound(int fd, int type, const char *name, int backlog, struct sockaddr_un *a);

/* A socket of type at fd number fd, connected to a; fail() when it cannot. */
static inline void sk_connect_to(int fd, int type, const struct sockaddr_un *a, socklen_t al)
{
	sk_place(socket(AF_UNIX, type, 0), fd, 0);
	if (connect(fd, (const struct sockaddr *)a, al))
		fail("connect fd %d", fd);
}

/* An address: "@name" is abstract, anything else a path. */
static inline socklen_t sk_addr(const char *name, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t l = strlen(name);
	memcpy(a->sun_path, name, l);
	if (name[0] == '@')
		a->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + (name[0] == '@' ? 0 : 1));
}

static inline socklen_t sk_bound(int fd, int type, const char *name, int backlog, struct sockaddr_un *a)
{
	sk_place(socket(AF_UNIX, type, 0), fd, 0);
	socklen_t al = sk_addr(name, a);
	if (bind(fd, (struct sockaddr *)a, al) || (backlog > 0 && listen(fd, backlog)))
		fail("bind/listen fd %d to %s", fd, name);
	return al;
}

static inline int sk_type(int fd)
{
	int t = -1;
	socklen_t l = sizeof(t);
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l);
	return t;
}

/* getsockname (peer: getpeername) of fd is name ("" unnamed). */
static inline int sk_named(int fd, const char *name, int peer)
{
	struct sockaddr_un a, want;
	socklen_t l = sizeof(a), wl = name[0] ? sk_addr(name, &want) : (socklen_t)sizeof(sa_family_t);
	if ((peer ? getpeername(fd, (struct sockaddr *)&a, &l) : getsockname(fd, (struct sockaddr *)&a, &l)))
		return 0;
	if (!name[0])
		return l == sizeof(sa_family_t);
	return l == wl && !memcmp(a.sun_path, want.sun_path, l - offsetof(struct sockaddr_un, sun_path));
}

/* The next message queued on dgram socket fd (MSG_DONTWAIT) must be data, from a sender whose address as
 * recvfrom() gives it is name (sk_addr's form: "@x" abstract, "/x" a path; "" unnamed, no address). */
static inline void sk_expect_from(int fd, const char *data, const char *name)
{
	struct sockaddr_un from, want;
	socklen_t fl = sizeof(from), wl = name[0] ? sk_addr(name, &want) : 0;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	char buf[32] = "";
	memset(&from, 0, sizeof(from));
	ssize_t n = recvfrom(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (n != (ssize_t)strlen(data) || memcmp(buf, data, (size_t)n)) {
		fail("message %s: got %zd bytes '%s'", data, n, buf);
		return;
	}
	if (fl != wl || (name[0] && memcmp(from.sun_path, want.sun_path, wl - off)))
		fail("message %s: sender address of %u bytes '%s%s', want %u bytes '%s'", data, (unsigned)fl,
		     fl > off && !from.sun_path[0] ? "@" : "",
		     fl > off ? from.sun_path + !from.sun_path[0] : "", (unsigned)wl, name);
}

/* Read exactly len bytes (10 s at most, whatever the fd's blocking mode); 0 if they are want. */
static inline int sk_expect(int fd, const void *want, size_t len)
{
	char buf[4096];
	size_t got = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (got < len && poll(&p, 1, 10000) == 1) {
		size_t want_now = len - got < sizeof(buf) ? len - got : sizeof(buf);
		ssize_t n = recv(fd, buf, want_now, MSG_DONTWAIT);
		if (n <= 0)
			break;
		if (memcmp(buf, (const char *)want + got, (size_t)n))
			return -1;
		got += (size_t)n;
	}
	return got == len ? 0 : -1;
}

/* The next message is exactly want (len bytes): message boundaries kept. */
static inline int sk_expect_msg(int fd, const void *want, size_t len)
{
	char buf[70000];
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, 10000) != 1)
		return -1;
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	return n == (ssize_t)len && !memcmp(buf, want, len) ? 0 : -1;
}

/* Nothing more to read right now. */
static inline int sk_empty(int fd)
{
	char c;
	return recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) < 0 && errno == EAGAIN;
}

static inline int sk_send(int fd, const void *p, size_t len)
{
	return send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

/* Send the string p whole (flags: MSG_OOB or 0), else fail. */
static inline void sk_put(int fd, const char *p, int flags)
{
	if (send(fd, p, strlen(p), flags) != (ssize_t)strlen(p))
		fail("send %s to fd %d (flags %#x)", p, fd, flags);
}

/* SIOCATMARK of fd: 1 at the out-of-band mark, 0 not, -1 an error. */
static inline int sk_atmark(int fd)
{
	int v = -1;
	if (ioctl(fd, SIOCATMARK, &v))
		return -1;
	return v;
}

/* A child of the test: unshares CLONE_NEWPID and forks the new namespace's init, which runs init_main (it
 * does not return); then sets its later children's PID namespace back to its own (the dump refuses a
 * process whose new children go elsewhere), stores the init's pid in *n and waits. */
static inline void sk_nested_pidns(void (*init_main)(void), volatile int *n)
{
	int self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (self < 0 || unshare(CLONE_NEWPID))
		_exit(20);
	pid_t init = fork();
	if (init == 0) {
		close(self);
		init_main();
	}
	if (init < 0 || setns(self, CLONE_NEWPID))
		_exit(21);
	*n = init;
	close(self);
	for (;;)
		pause();
}

/* Skip the test on a kernel without CONFIG_AF_UNIX_OOB (it refuses MSG_OOB on stream sockets). */
static inline void sk_need_oob(void)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) ||
	    (send(sp[0], "x", 1, MSG_OOB) < 0 && errno == EOPNOTSUPP))
		test_skip("no MSG_OOB on unix stream sockets");
	close(sp[0]), close(sp[1]);
}

/* Send len bytes with nfds files in flight (SCM_RIGHTS). */
static inline int sk_send_fds(int fd, const void *p, size_t len, const int *fds, int nfds)
{
	union {
		char b[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = {(void *)p, len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	memset(&cb, 0, sizeof(cb));
	if (nfds > 0) {
		mh.msg_control = cb.b;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

/* Receive (without waiting) up to len bytes into buf and the files in flight that came with them (at most
 * 8) into fds; *nfds: how many. Returns the bytes received, -1 on error. cred (optional): SCM_CREDENTIALS. */
static inline ssize_t sk_recv_fds(int fd, void *buf, size_t len, int *fds, int *nfds, struct ucred *cred)
{
	union {
		char b[CMSG_SPACE(8 * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = {buf, len};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	*nfds = 0;
	if (n < 0 || (mh.msg_flags & MSG_CTRUNC))
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			*nfds = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), (size_t)*nfds * sizeof(int));
		} else if (cred && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
			memcpy(cred, CMSG_DATA(cm), sizeof(*cred));
		}
	}
	return n;
}

/* Receive one message that must be want with nwant files in flight (into fds); fail() and -1 if not. */
static inline int sk_recv_want(int fd, const char *want, int nwant, int *fds)
{
	char buf[256];
	int n = 0;
	size_t wl = strlen(want);
	ssize_t got = sk_recv_fds(fd, buf, sizeof(buf), fds, &n, NULL);
	if (got != (ssize_t)wl || memcmp(buf, want, wl) || n != nwant) {
		fail("the message: %zd bytes, %d files in flight (want %zu, %d)", got, n, wl, nwant);
		return -1;
	}
	return 0;
}
/* sk_unix_scm_epoll_other/_later: an eventfd (counter 1) at fd 5 watched by a new epoll instance (EPOLLIN,
 * data 7, its fd into *ep), and the pipes ctl and ack; fail() on errors. sk_pair_send: a stream socketpair at
 * a and b, fd sent over a to b ("xx"), then ep and fd 5 closed; -1 if the send failed. */
static inline void sk_epoll_efd(int *ep, int *ctl, int *ack)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	sk_place_new(eventfd(1, 0), 5);
	*ep = epoll_create1(0);
	if (*ep < 0 || epoll_ctl(*ep, EPOLL_CTL_ADD, 5, &ev) || pipe(ctl) || pipe(ack))
		fail("setup");
}

static inline int sk_pair_send(int a, int b, int fd, int ep)
{
	sk_pair(SOCK_STREAM, a, b);
	int r = sk_send_fds(a, "xx", 2, &fd, 1);
	close(ep);
	close(5);
	return r;
}

/* The talk of those tests' parent and child over ctl and ack. sk_step (child): a byte to ack, then wait for
 * one on ctl; -1 if either failed. sk_ep_is (child): epoll set ep reports want (1: the eventfd, data 7;
 * 0: nothing) right now. sk_go (parent): a byte to ctl, then wait for the child's on ack (fail() with why
 * if it does not come). */
static inline int sk_step(int ctl, int ack)
{
	char c = 's';
	return write(ack, &c, 1) == 1 && read(ctl, &c, 1) == 1 ? 0 : -1;
}

static inline int sk_ep_is(int ep, int want)
{
	struct epoll_event ev = {0};
	int n = epoll_wait(ep, &ev, 1, 0);
	return n == want && (!n || ev.data.u64 == 7);
}

static inline void sk_go(int ctl, int ack, const char *why)
{
	char c = 'g';
	if (write(ctl, &c, 1) != 1 || read(ack, &c, 1) != 1)
		fail("%s", why);
}

/* Parent of those tests, before the C/R: its ends of ctl and ack only (a child that fails ends its reads);
 * fd sent over a socketpair at a and b (sk_pair_send); the child's first byte. fail()s. */
static inline void sk_parent_send(int a, int b, int fd, int ep, int *ctl, int *ack)
{
	char c;
	close(ctl[0]);
	close(ack[1]);
	if (sk_pair_send(a, b, fd, ep))
		fail("sendmsg");
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not start");
}

/* Child of sk_unix_scm_epoll_later and epoll_flight_later: the eventfd at fd 5 sent over its own socketpair
 * (c, d) and closed (and ep); once told, received and read (counter 1); exits (0: all went well). */
static inline void sk_child_efd(int c, int d, int ep, int ctl, int ack)
{
	char buf[8];
	int fd = -1, n = 0;
	uint64_t v = 0;
	test_forked();
	if (sk_pair_send(c, d, 5, ep) || sk_step(ctl, ack))
		_exit(2);
	if (sk_recv_fds(d, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		_exit(3);
	if (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1)
		_exit(4);
	_exit(write(ack, "k", 1) == 1 ? 0 : 5);
}

/* Parent of sk_unix_scm_epoll_other and epoll_flight_parent, after the C/R: the eventfd in flight received
 * from b and read (counter 1); the child checks its set reports nothing; 3 added; it checks the set
 * reports the eventfd (one file, not a copy). fail()s. */
static inline void sk_parent_efd(int b, int ctl, int ack)
{
	char buf[8];
	int fd = -1, n = 0;
	uint64_t v = 0;
	if (sk_recv_fds(b, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1) {
		fail("the eventfd in flight is lost");
		return;
	}
	if (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1)
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	sk_go(ctl, ack,
	      "the child's epoll instance is lost, or reports a target though the eventfd was read");
	v = 3;
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		fail("write the eventfd");
	sk_go(ctl, ack, "the child's epoll instance does not report the eventfd the parent wrote to");
}

/* sk_unix_scm_epoll*: send epoll fd ep over socket a and close it, wait to be dumped and restored, then
 * receive it from b: the fd received, whose interest list (epoll_tfds) must still be before; fail()s. */
static inline int sk_epoll_round(int a, int b, int ep, const char *before)
{
	char buf[8], after[512];
	int n = 0, fd = -1;
	if (sk_send_fds(a, "ep", 2, &ep, 1))
		fail("sendmsg");
	close(ep);
	test_daemon();
	test_waitsig();
	if (sk_recv_fds(b, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1 || fd < 0)
		fail("the epoll instance in flight is lost");
	else if (epoll_tfds(fd, after, sizeof(after)) < 0 || strcmp(before, after))
		fail("interest list: '%s', want '%s'", after, before);
	return fd;
}

/* sk_unix_sender_gone_*: a dgram client bound to name sends data to sa and is closed (its socket file, when
 * name is a path, stays behind); fail()s. */
static inline void sk_dgram_from(const char *name, const struct sockaddr_un *sa, socklen_t sal,
				 const char *data)
{
	struct sockaddr_un a;
	socklen_t al = sk_addr(name, &a);
	int c = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (c < 0 || bind(c, (struct sockaddr *)&a, al) ||
	    sendto(c, data, strlen(data), 0, (const struct sockaddr *)sa, sal) != (ssize_t)strlen(data))
		fail("client %s", name);
	close(c);
}

#endif
