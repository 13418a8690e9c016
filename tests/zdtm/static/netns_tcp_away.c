/* An established TCP connection (both ends and their listener, 127.0.0.1) made in a second network namespace
 * (the test unshares one, sets its lo up, connects, and goes back to its own), held by the test, in its own
 * namespace, and by a child forked after (one description of both), with data queued both ways. After C/R
 * (--tcp-established) the sockets are in the second namespace (SIOCGSKNS; one), not the test's, the queued
 * data reads back exactly and new data flows both ways. Before: crshim made them in their namespace but their
 * network lock, the relock and the probe of the peer passed them over (not inet sockets any more once made
 * by crshim for their holders). */
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <linux/sockios.h>
#include "ns_world.h"

#define LEN 70000

/* (a stalled connection fails, not hangs) */
static int xread(int fd, char *to, size_t len)
{
	return read_exact(fd, to, len, 5000);
}

struct pair {
	int l, c, a; /* listener, client, accepted */
};

static char sent_c[LEN], sent_a[LEN], got[LEN]; /* sent by the client, by the accepted socket; read */

/* An established connection and its listener in this thread's network namespace, LEN bytes queued each way:
 * 0, or -1. */
static int pair_make(struct pair *p)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(s);
	datagen(sent_c, LEN, 1);
	datagen(sent_a, LEN, 2);
	p->l = socket(AF_INET, SOCK_STREAM, 0), p->c = socket(AF_INET, SOCK_STREAM, 0), p->a = -1;
	if (p->l < 0 || p->c < 0 || bind(p->l, (struct sockaddr *)&s, l) || listen(p->l, 4) ||
	    getsockname(p->l, (struct sockaddr *)&s, &l) || connect(p->c, (struct sockaddr *)&s, sizeof(s)) ||
	    (p->a = accept(p->l, NULL, NULL)) < 0)
		return -1;
	return write(p->c, sent_c, LEN) != LEN || write(p->a, sent_a, LEN) != LEN ? -1 : 0;
}

/* After C/R: the queued data reads back exactly and new data flows both ways (NULL), or what failed. */
static const char *pair_check(const struct pair *p)
{
	if (xread(p->a, got, LEN) || memcmp(got, sent_c, LEN))
		return "client to server data lost";
	if (xread(p->c, got, LEN) || memcmp(got, sent_a, LEN))
		return "server to client data lost";
	if (write(p->c, "more", 4) != 4 || xread(p->a, got, 4) || memcmp(got, "more", 4) ||
	    write(p->a, "back", 4) != 4 || xread(p->c, got, 4) || memcmp(got, "back", 4))
		return "no new data over the connection";
	return NULL;
}

#ifndef NTA_OTHER_MAIN
int main(int argc, char **argv)
{
	struct pair p;
	struct stat own;
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		fail("second network namespace");
	if (pair_make(&p))
		fail("connection");
	unsigned long away = nsw_sk_ns(p.c, 0);
	if (setns(home, CLONE_NEWNET) || stat("/proc/self/ns/net", &own) || own.st_ino == away)
		fail("back home");
	pid_t ch = test_fork();
	if (ch == 0) { /* holds them too */
		test_waitsig();
		_exit(0);
	}
	if (ch < 0)
		fail("fork");

	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, p.c, p.c) ||
	    syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, p.a, p.a))
		fail("not one description with the child");
	away = nsw_sk_ns(p.c, 0); /* (a new one after C/R) */
	if (stat("/proc/self/ns/net", &own) || !away || own.st_ino == away || nsw_sk_ns(p.a, 0) != away ||
	    nsw_sk_ns(p.l, 0) != away)
		fail("not in the second namespace");
	const char *w = pair_check(&p);
	if (w)
		fail("%s", w);
	kill(ch, SIGTERM);
	waitpid(ch, NULL, 0);
	pass();
	return 0;
}
#endif
