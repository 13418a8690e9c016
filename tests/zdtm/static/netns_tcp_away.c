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
static int xread(int fd, char *buf, size_t len)
{
	return read_exact(fd, buf, len, 5000);
}

int main(int argc, char **argv)
{
	static char a[LEN], b[LEN], buf[LEN];
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(s);
	struct stat own;
	test_init(argc, argv);
	datagen(a, LEN, 1);
	datagen(b, LEN, 2);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		fail("second network namespace");
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0), afd = -1;
	if (lfd < 0 || cfd < 0 || bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l) || connect(cfd, (struct sockaddr *)&s, sizeof(s)) ||
	    (afd = accept(lfd, NULL, NULL)) < 0)
		fail("connection");
	unsigned long away = nsw_sk_ns(cfd, 0);
	if (setns(home, CLONE_NEWNET) || stat("/proc/self/ns/net", &own) || own.st_ino == away)
		fail("back home");
	if (write(cfd, a, LEN) != LEN || write(afd, b, LEN) != LEN)
		fail("write");
	pid_t ch = test_fork();
	if (ch == 0) { /* holds them too */
		test_waitsig();
		_exit(0);
	}
	if (ch < 0)
		fail("fork");

	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, cfd, cfd) ||
	    syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, afd, afd))
		fail("not one description with the child");
	away = nsw_sk_ns(cfd, 0); /* (a new one after C/R) */
	if (stat("/proc/self/ns/net", &own) || !away || own.st_ino == away || nsw_sk_ns(afd, 0) != away ||
	    nsw_sk_ns(lfd, 0) != away)
		fail("not in the second namespace");
	if (xread(afd, buf, LEN) || memcmp(buf, a, LEN))
		fail("client to server data lost");
	if (xread(cfd, buf, LEN) || memcmp(buf, b, LEN))
		fail("server to client data lost");
	if (write(cfd, "more", 4) != 4 || xread(afd, buf, 4) || memcmp(buf, "more", 4) ||
	    write(afd, "back", 4) != 4 || xread(cfd, buf, 4) || memcmp(buf, "back", 4))
		fail("no new data over the connection");
	kill(ch, SIGTERM);
	waitpid(ch, NULL, 0);
	pass();
	return 0;
}
