/* Inet sockets held by a process of another network namespace than their own: the test makes a TCP listener
 * and a UDP socket (127.0.0.1, ports of the kernel's choice) and forks a child that keeps them and unshares a
 * network namespace of its own (the test closes its copies); the child makes a TCP listener and a UDP socket
 * there and passes them to the test over a unix socket, and a grandchild, in a third network namespace that
 * only its socket keeps once it exited, passes a UDP socket of it too. After C/R each socket is bound to its
 * address and port, is in the namespace it was in (the test's, the child's, the third: SIOCGSKNS) and not
 * its holder's, and works: a client made in its namespace connects to the listener (accepted, a byte through)
 * or sends the UDP socket a datagram. Before: the dump refused them (not in the sock_diag table of their
 * holder's network namespace). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/sockios.h>
#include "ns_world.h"

struct sk {
	int fd, type;
	struct sockaddr_in a;
};

static int make(struct sk *s, int type)
{
	socklen_t l = sizeof(s->a);
	s->type = type;
	s->a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	s->fd = socket(AF_INET, type, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&s->a, l) ||
	    (type == SOCK_STREAM && listen(s->fd, 4)) || getsockname(s->fd, (struct sockaddr *)&s->a, &l))
		return -1;
	return 0;
}

static unsigned long ino_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned long ino_path(const char *fmt, int pid)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), fmt, pid);
	return stat(p, &st) ? 0 : (unsigned long)st.st_ino;
}

/* The socket's namespace (0: none) */
static unsigned long sk_ns(int fd)
{
	int ns = ioctl(fd, SIOCGSKNS);
	unsigned long ino = ns < 0 ? 0 : ino_fd(ns);
	if (ns >= 0)
		close(ns);
	return ino;
}

/* A client made in the socket's namespace reaches it: 0 */
static int works(const struct sk *s)
{
	int ns = ioctl(s->fd, SIOCGSKNS), own = open("/proc/self/ns/net", O_RDONLY), c = -1, k = -1, r = -1;
	char b = 0;
	if (ns < 0 || own < 0 || setns(ns, CLONE_NEWNET))
		goto out;
	c = socket(AF_INET, s->type, 0);
	if (setns(own, CLONE_NEWNET) || c < 0)
		goto out;
	if (s->type == SOCK_STREAM) {
		if (!connect(c, (const struct sockaddr *)&s->a, sizeof(s->a)) &&
		    (k = accept(s->fd, NULL, NULL)) >= 0 && write(c, "x", 1) == 1 && read(k, &b, 1) == 1)
			r = b == 'x' ? 0 : -1;
	} else {
		struct pollfd p = {.fd = s->fd, .events = POLLIN};
		if (sendto(c, "y", 1, 0, (const struct sockaddr *)&s->a, sizeof(s->a)) == 1 &&
		    poll(&p, 1, 5000) == 1 && recv(s->fd, &b, 1, MSG_DONTWAIT) == 1)
			r = b == 'y' ? 0 : -1;
	}
out:
	if (k >= 0)
		close(k);
	if (c >= 0)
		close(c);
	if (ns >= 0)
		close(ns);
	if (own >= 0)
		close(own);
	return r;
}

/* The socket is still bound where it was, in namespace want (not its holder's), and works: 0 */
static int check(const struct sk *s, unsigned long want)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	if (getsockname(s->fd, (struct sockaddr *)&a, &l) || a.sin_port != s->a.sin_port ||
	    a.sin_addr.s_addr != s->a.sin_addr.s_addr)
		return 1;
	unsigned long ns = sk_ns(s->fd);
	if (!ns || ns != want || ns == ino_path("/proc/%d/ns/net", getpid()))
		return 2;
	return works(s) ? 4 : 0;
}

static int send_fds(int sp, const int *fds, int n)
{
	char buf[CMSG_SPACE(3 * sizeof(int))] = {0};
	struct iovec io = {.iov_base = "f", .iov_len = 1};
	struct msghdr m = {.msg_iov = &io,
			   .msg_iovlen = 1,
			   .msg_control = buf,
			   .msg_controllen = CMSG_SPACE(n * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(sp, &m, 0) == 1 ? 0 : -1;
}

static int recv_fds(int sp, int *fds, int n)
{
	char buf[CMSG_SPACE(3 * sizeof(int))], x;
	struct iovec io = {.iov_base = &x, .iov_len = 1};
	struct msghdr m = {
	    .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf)};
	if (recvmsg(sp, &m, 0) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
	return 0;
}

/* The grandchild: a UDP socket of a namespace of its own, passed on; then it exits. */
static int grandchild(int sp)
{
	struct sk u;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") || make(&u, SOCK_DGRAM))
		return 1;
	return send_fds(sp, &u.fd, 1) || write(sp, &u.a, sizeof(u.a)) != (ssize_t)sizeof(u.a) ? 1 : 0;
}

/* The child: keeps the test's l1 and u1, in a namespace of its own; passes its l2 and u2 to the test. */
static int child(int sp, const struct sk *l1, const struct sk *u1)
{
	struct sk l2, u2;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") || make(&l2, SOCK_STREAM) ||
	    make(&u2, SOCK_DGRAM))
		return 64;
	int fds[2] = {l2.fd, u2.fd};
	if (send_fds(sp, fds, 2) || write(sp, &l2.a, sizeof(l2.a)) != (ssize_t)sizeof(l2.a) ||
	    write(sp, &u2.a, sizeof(u2.a)) != (ssize_t)sizeof(u2.a))
		return 65;
	close(l2.fd), close(u2.fd);
	pid_t g = fork();
	if (g == 0)
		_exit(grandchild(sp));
	int st = 0;
	if (g < 0 || waitpid(g, &st, 0) != g || st)
		return 66;
	close(sp);
	test_waitsig();
	unsigned long test_ns = ino_path("/proc/%d/ns/net", getppid());
	return check(l1, test_ns) | check(u1, test_ns) << 3;
}

int main(int argc, char **argv)
{
	struct sk l1, u1, l2, u2, u3;
	int sp[2];
	test_init(argc, argv);
	if (make(&l1, SOCK_STREAM) || make(&u1, SOCK_DGRAM) || socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		fail("sockets");
	unsigned long test_ns = ino_path("/proc/%d/ns/net", getpid());
	pid_t ch = fork();
	if (ch == 0) {
		close(sp[0]);
		test_forked();
		_exit(child(sp[1], &l1, &u1));
	}
	close(sp[1]);
	close(l1.fd), close(u1.fd);
	int fds[2];
	if (ch < 0 || recv_fds(sp[0], fds, 2) || read(sp[0], &l2.a, sizeof(l2.a)) != (ssize_t)sizeof(l2.a) ||
	    read(sp[0], &u2.a, sizeof(u2.a)) != (ssize_t)sizeof(u2.a) || recv_fds(sp[0], &u3.fd, 1) ||
	    read(sp[0], &u3.a, sizeof(u3.a)) != (ssize_t)sizeof(u3.a)) {
		fail("the child's sockets");
		return 1;
	}
	close(sp[0]);
	l2.fd = fds[0], l2.type = SOCK_STREAM;
	u2.fd = fds[1], u2.type = SOCK_DGRAM;
	u3.type = SOCK_DGRAM;
	unsigned long child_ns = ino_path("/proc/%d/ns/net", ch), third = sk_ns(u3.fd);
	if (child_ns == test_ns || !third || third == test_ns || third == child_ns)
		fail("namespaces before C/R: test %lu child %lu third %lu", test_ns, child_ns, third);
	test_daemon();
	test_waitsig();

	child_ns = ino_path("/proc/%d/ns/net", ch);
	test_ns = ino_path("/proc/%d/ns/net", getpid());
	third = sk_ns(u3.fd);
	int r;
	if ((r = check(&l2, child_ns)))
		fail("the child's TCP listener held by the test: %d (1: address, 2: namespace, 4: works)", r);
	if ((r = check(&u2, child_ns)))
		fail("the child's UDP socket held by the test: %d", r);
	if (third == test_ns || third == child_ns || (r = check(&u3, third)))
		fail("the UDP socket of the third namespace: %d", r);
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail(
		    "child: status 0x%x (bits 0-2: the test's TCP listener it holds, 3-5: its UDP socket; 1: "
		    "address, 2: namespace, 4: works; 64+: setup)",
		    st);
	return test_pass();
}
