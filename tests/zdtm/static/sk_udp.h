/* Helpers of the sk_udp_queue* tests: datagrams sent from known senders, then read back in order with
 * their data and sender checked. */
#ifndef ZDTM_SK_UDP_H
#define ZDTM_SK_UDP_H
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

/* A UDP socket bound to addr (port 0: any), its address in *me. */
static inline int udp_bound(int fam, const char *addr, struct sockaddr_storage *me)
{
	memset(me, 0, sizeof(*me));
	socklen_t l = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	me->ss_family = (sa_family_t)fam;
	void *a = fam == AF_INET ? (void *)&((struct sockaddr_in *)me)->sin_addr
				 : (void *)&((struct sockaddr_in6 *)me)->sin6_addr;
	int fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 || inet_pton(fam, addr, a) != 1 || bind(fd, (struct sockaddr *)me, l) ||
	    getsockname(fd, (struct sockaddr *)me, &l))
		fail("udp socket on %s", addr);
	return fd;
}

static inline socklen_t udp_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* a as an IPv6 socket sees it: IPv4 addresses v4-mapped. */
static inline struct sockaddr_storage udp_as6(const struct sockaddr_storage *a)
{
	struct sockaddr_storage r = *a;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)a;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&r;
		memset(&r, 0, sizeof(r));
		s6->sin6_family = AF_INET6, s6->sin6_port = s4->sin_port;
		s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], &s4->sin_addr, 4);
	}
	return r;
}

static inline int udp_same(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
	return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
}

static inline const char *udp_str(const struct sockaddr_storage *a)
{
	static char buf[4][80];
	static int k;
	char s[INET6_ADDRSTRLEN] = "?";
	char *o = buf[k++ & 3];
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a;
		inet_ntop(AF_INET, &x->sin_addr, s, sizeof(s));
		snprintf(o, 80, "%s:%u", s, ntohs(x->sin_port));
	} else {
		const struct sockaddr_in6 *x = (const void *)a;
		inet_ntop(AF_INET6, &x->sin6_addr, s, sizeof(s));
		snprintf(o, 80, "[%s]:%u", s, ntohs(x->sin6_port));
	}
	return o;
}

/* One expected datagram: len bytes of datagen(seed) from sender from. */
struct udp_dg {
	size_t len;
	uint64_t seed;
	struct sockaddr_storage from;
};

static inline void udp_send(int fd, const struct sockaddr_storage *to, size_t len, uint64_t seed)
{
	static uint8_t buf[65536];
	datagen(buf, len, seed);
	if (sendto(fd, buf, len, 0, (const struct sockaddr *)to, udp_len(to)) != (ssize_t)len)
		fail("sendto %s (%zu bytes)", udp_str(to), len);
}

/* Wait (up to 10 s) until fd has something to read. */
static inline void udp_wait(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (poll(&p, 1, 10000) != 1)
		fail("nothing arrived");
}

/* Read the next n datagrams of fd: those of want, in order, with their senders. */
static inline void udp_read(const char *what, int fd, const struct udp_dg *want, size_t n)
{
	static uint8_t buf[65536 + 16];
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_storage from;
		socklen_t l = sizeof(from);
		memset(&from, 0, sizeof(from));
		ssize_t r = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &l);
		if (r < 0) {
			fail("%s: datagram %zu of %zu: missing", what, i, n);
			return;
		}
		if ((size_t)r != want[i].len || datachk(buf, (size_t)r, want[i].seed, NULL))
			fail("%s: datagram %zu: %zd bytes, not the %zu sent", what, i, r, want[i].len);
		if (!udp_same(&from, &want[i].from))
			fail("%s: datagram %zu: from %s, not %s", what, i, udp_str(&from),
			     udp_str(&want[i].from));
	}
}

/* Read fd's queue: exactly the n datagrams of want, in order, with their senders; then nothing. */
static inline void udp_check(const char *what, int fd, const struct udp_dg *want, size_t n)
{
	char b;
	udp_read(what, fd, want, n);
	if (recv(fd, &b, 1, MSG_DONTWAIT) >= 0)
		fail("%s: more datagrams than the %zu sent", what, n);
}

/* Fork a process outside the dumped tree (double fork: reparented to the runner's reaper, in a session of
 * its own) with only fds 0-2 and the nk of keep open: true in it, false in the test (once the middle one is
 * reaped). */
static inline bool udp_fork_outside(const int *keep, size_t nk)
{
	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		test_forked();
		if (fork())
			_exit(0);
		setsid();
		for (int fd = 3; fd < 1024; fd++) { /* the test's sockets stay the test's only */
			bool k = false;
			for (size_t i = 0; i < nk; i++)
				k |= fd == keep[i];
			if (!k)
				close(fd);
		}
		return true;
	}
	waitpid(pid, NULL, 0);
	return false;
}

/* A sender outside the dumped tree (udp_fork_outside: reparented to the runner's reaper): it sends, for each
 * byte k read from the returned pipe, datagram k of its list, and says so with a byte on *ack. After EOF
 * it keeps its sockets (ports busy) until a datagram comes to one of them, 120 s at most. */
struct udp_out {
	int fd;				   /* its socket */
	const struct sockaddr_storage *to; /* where datagram k goes */
	size_t len;
	uint64_t seed;
};

static inline int udp_outsider(struct udp_out *o, size_t n, int *ack)
{
	int go[2], back[2], keep[n + 2];
	if (pipe(go) || pipe(back))
		fail("pipe");
	keep[0] = go[0], keep[1] = back[1];
	for (size_t i = 0; i < n; i++)
		keep[i + 2] = o[i].fd;
	if (udp_fork_outside(keep, n + 2)) {
		alarm(300);
		unsigned char k;
		while (read(go[0], &k, 1) == 1 && k < n) {
			udp_send(o[k].fd, o[k].to, o[k].len, o[k].seed);
			if (write(back[1], &k, 1) != 1)
				_exit(1);
		}
		struct pollfd p[8];
		size_t np = 0;
		for (size_t i = 0; i < n && np < 8; i++)
			p[np++] = (struct pollfd){o[i].fd, POLLIN, 0};
		poll(p, np, 120000);
		_exit(0);
	}
	close(go[0]), close(back[1]);
	for (size_t i = 0; i < n; i++) /* the outsider's, not ours (the same fd may come twice) */
		if (o[i].fd >= 0 && fcntl(o[i].fd, F_GETFD) >= 0)
			close(o[i].fd);
	*ack = back[0];
	return go[1];
}

/* Tell the outsider to send its datagram k and wait until it has. */
static inline void udp_outsider_send(int go, int ack, unsigned char k)
{
	unsigned char r;
	if (write(go, &k, 1) != 1 || read(ack, &r, 1) != 1 || r != k)
		fail("the outside sender did not send datagram %u", k);
}

#endif
