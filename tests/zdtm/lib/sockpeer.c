/* A TCP peer outside the dumped tree for the inet socket tests: a double fork (the server is reparented
 * to the runner's subreaper and has its own session), so that checkpoint/restore of the test with
 * --tcp-established must keep a connection whose other end it does not own. The server accepts one
 * connection, checks that every byte it receives is sockpeer_pat(offset) and echoes it back; on EOF it
 * sends "OK <bytes>\n" (or "BAD <offset>\n" at the first wrong byte) and exits. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

uint8_t sockpeer_pat(uint64_t i)
{
	uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
	return (uint8_t)(x >> 56 ^ x >> 29);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n, len -= (size_t)n;
	}
	return 0;
}

static void serve(int lfd, uint64_t pause_at, const char *gofile)
{
	static uint8_t buf[65536];
	uint64_t off = 0;
	char msg[64];
	int c = accept(lfd, NULL, NULL);
	close(lfd);
	if (c < 0)
		_exit(2);
	for (;;) {
		size_t want = sizeof(buf);
		if (gofile && off < pause_at && pause_at - off < want)
			want = (size_t)(pause_at - off);
		if (gofile && off == pause_at) {
			while (access(gofile, F_OK)) /* the test says go once it is restored */
				usleep(10000);
			gofile = NULL;
		}
		ssize_t n = sockpeer_read(c, buf, want, &off, msg, sizeof(msg));
		if (n == -1)
			_exit(3);
		if (n == -2) {
			write_all(c, msg, strlen(msg));
			_exit(4);
		}
		if (n == 0)
			break;
		if (write_all(c, buf, (size_t)n))
			_exit(5);
	}
	snprintf(msg, sizeof(msg), "OK %llu\n", (unsigned long long)off);
	write_all(c, msg, strlen(msg));
	close(c);
	_exit(0);
}

unsigned ip_addr(int family, int port, int any, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;
		s->sin_family = AF_INET;
		s->sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
		s->sin_port = htons((uint16_t)port);
		return sizeof(*s);
	}
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
	s->sin6_family = AF_INET6;
	s->sin6_addr = any ? in6addr_any : in6addr_loopback;
	s->sin6_port = htons((uint16_t)port);
	return sizeof(*s);
}

unsigned lo_addr(int family, int port, struct sockaddr_storage *ss)
{
	return ip_addr(family, port, 0, ss);
}

int sk_getint(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);
	if (getsockopt(fd, level, name, &v, &l))
		return -2;
	return v;
}

int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) ? -1 : ti.tcpi_state;
}

int tcp_wait_state(int fd, int st, int ms)
{
	for (int i = 0; i < ms && tcp_state(fd) != st; i++)
		usleep(1000);
	return tcp_state(fd) == st;
}

void dgram_expect(int fd, const char *what)
{
	char buf[64];
	size_t len = strlen(what);
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	for (int i = 0; n < 0 && i < 1000; i++) {
		usleep(1000);
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	}
	if (n != (ssize_t)len || memcmp(buf, what, len))
		fail("%s: datagram lost", what);
}

int lo_listen(int family, int *port)
{
	struct sockaddr_storage ss;
	socklen_t l = lo_addr(family, 0, &ss);
	int lfd = socket(family, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, l) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &l)) {
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					: ((struct sockaddr_in6 *)&ss)->sin6_port);
	return lfd;
}

/* The server's process (outside the tree, or a child: in it), only lfd kept. 0 in it, 1 in the caller, -1 on
 * error. */
static int server_proc(int lfd, int child)
{
	int r = child ? fork() : test_outside();
	if (r > 0)
		r = 1;
	if (r == 0) {
		alarm(300);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != lfd)
				close(fd);
	}
	return r;
}

int sockpeer_outside(int lfd)
{
	return server_proc(lfd, 0);
}

static int start(int family, int child, uint64_t pause_at, const char *gofile)
{
	int port, lfd = lo_listen(family, &port);
	if (lfd < 0)
		return -1;
	int r = server_proc(lfd, child);
	if (r == 0)
		serve(lfd, pause_at, gofile);
	close(lfd);
	return r < 0 ? -1 : port;
}

int sockpeer_start(int family, uint64_t pause_at, const char *gofile)
{
	return start(family, 0, pause_at, gofile);
}

int sockpeer_start_child(int family)
{
	return start(family, 1, 0, NULL);
}

int sockpeer_connect(int family, int port)
{
	struct sockaddr_storage ss;
	socklen_t l = lo_addr(family, port, &ss);
	int fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, l))
		return -1;
	return fd;
}

ssize_t sockpeer_bad(const uint8_t *buf, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != sockpeer_pat(off + i))
			return (ssize_t)i;
	return -1;
}

ssize_t sockpeer_read(int fd, uint8_t *buf, size_t len, uint64_t *off, char *msg, size_t mlen)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(msg, mlen, "ERR %d at %llu\n", errno, (unsigned long long)*off);
		return -1;
	}
	ssize_t bad = sockpeer_bad(buf, (size_t)n, *off);
	if (bad >= 0) {
		snprintf(msg, mlen, "BAD %llu\n", (unsigned long long)(*off + (uint64_t)bad));
		return -2;
	}
	*off += (uint64_t)n;
	return n;
}

static void fill_pat(uint8_t *buf, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = sockpeer_pat(off + i);
}

ssize_t sockpeer_send(int fd, uint64_t *off, size_t len, int flags)
{
	uint8_t buf[16384];
	size_t done = 0;
	while (done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		fill_pat(buf, n, *off);
		ssize_t w = send(fd, buf, n, flags | MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN && done)
			break;
		if (w <= 0)
			return done ? (ssize_t)done : -1;
		*off += (uint64_t)w;
		done += (size_t)w;
	}
	return (ssize_t)done;
}

int sockpeer_recv(int fd, uint64_t *off, size_t len)
{
	uint8_t buf[16384];
	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t r = recv(fd, buf, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ECONNRESET;
			return -1;
		}
		ssize_t bad = sockpeer_bad(buf, (size_t)r, *off);
		if (bad >= 0) {
			errno = EILSEQ;
			*off += (uint64_t)bad;
			return -1;
		}
		*off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

int sockpeer_finish(int fd, uint64_t sent, uint64_t *echoed)
{
	char line[64];
	size_t got = 0;
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l))
		return -1;
	/* Shut down writing only if it is not yet: a connection the test already shut down (FIN_WAIT1/2)
	 * goes to TIME_WAIT, its socket to CLOSE, as soon as the peer's FIN comes, and the peer sends it as
	 * soon as it has read our FIN; a second shutdown() then fails with ENOTCONN although nothing is
	 * wrong (a race with the peer, lost under load). The echo and the verdict are still read below. */
	if ((ti.tcpi_state == TCP_ESTABLISHED || ti.tcpi_state == TCP_CLOSE_WAIT) && shutdown(fd, SHUT_WR))
		return -1;
	if (*echoed < sent && sockpeer_recv(fd, echoed, (size_t)(sent - *echoed)))
		return -1;
	while (got < sizeof(line) - 1) {
		ssize_t r = recv(fd, line + got, sizeof(line) - 1 - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	line[got] = '\0';
	unsigned long long n;
	if (sscanf(line, "OK %llu", &n) != 1 || n != sent) {
		test_msg("peer says: %s (sent %llu)\n", line, (unsigned long long)sent);
		errno = EPROTO;
		return -1;
	}
	return 0;
}
