/* Unix sockets connected to a process outside the dumped tree (a helper, forked twice and reparented),
 * dumped with --ext-unix-sk: a dgram socket (bound to its own abstract name) connected to the helper's
 * dgram socket, and a stream socket connected to the helper's listener. After restore (or a dump with
 * --leave-running) both are connected to the helper again, by name: the helper echoes a ping on each. */
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { D = 60, S = 61, HD = 70, HL = 71 };
static char dname[64], lname[64], myname[64];

static void helper(void)
{
	struct pollfd p[16];
	int n = 2;
	char buf[256];
	syscall(SYS_close_range, 0, HD - 1, 0);
	syscall(SYS_close_range, HL + 1, ~0U, 0);
	setsid();
	alarm(300);
	p[0] = (struct pollfd){.fd = HD, .events = POLLIN};
	p[1] = (struct pollfd){.fd = HL, .events = POLLIN};
	for (;;) {
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;
		if (p[0].revents & POLLIN) {
			struct sockaddr_un from;
			socklen_t fl = sizeof(from);
			ssize_t r = recvfrom(HD, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
			if (r == 3 && !memcmp(buf, "bye", 3))
				_exit(0);
			if (r > 0)
				sendto(HD, buf, (size_t)r, 0, (struct sockaddr *)&from, fl);
		}
		if ((p[1].revents & POLLIN) && n < 16) {
			int c = accept(HL, NULL, NULL);
			if (c >= 0)
				p[n++] = (struct pollfd){.fd = c, .events = POLLIN};
		}
		for (int i = 2; i < n; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t r = read(p[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				close(p[i].fd);
				p[i--] = p[--n];
				continue;
			}
			if (write(p[i].fd, buf, (size_t)r) != r)
				_exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t al;
	pid_t pid;
	int st;

	test_init(argc, argv);
	snprintf(dname, sizeof(dname), "@zdtm-sk-ext-dg-%d", getpid());
	snprintf(lname, sizeof(lname), "@zdtm-sk-ext-l-%d", getpid());
	snprintf(myname, sizeof(myname), "@zdtm-sk-ext-me-%d", getpid());
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), HD, 0);
	al = sk_addr(dname, &a);
	if (bind(HD, (struct sockaddr *)&a, al))
		fail("helper dgram");
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), HL, 0);
	al = sk_addr(lname, &a);
	if (bind(HL, (struct sockaddr *)&a, al) || listen(HL, 8))
		fail("helper listener");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		if (fork() == 0)
			helper();
		_exit(0);
	}
	waitpid(pid, &st, 0);
	close(HD);
	close(HL);
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), D, 0);
	al = sk_addr(myname, &a);
	if (bind(D, (struct sockaddr *)&a, al))
		fail("bind");
	al = sk_addr(dname, &a);
	if (connect(D, (struct sockaddr *)&a, al))
		fail("connect dgram");
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), S, 0);
	al = sk_addr(lname, &a);
	if (connect(S, (struct sockaddr *)&a, al))
		fail("connect stream");
	if (sk_send(S, "hello", 5) || sk_expect(S, "hello", 5) || sk_send(D, "hi", 2) ||
	    sk_expect_msg(D, "hi", 2))
		fail("the helper does not echo");
	test_daemon();
	test_waitsig();

	if (!sk_named(D, myname, 0) || !sk_named(D, dname, 1) || !sk_named(S, lname, 1))
		fail("names: not connected to the helper by name");
	if (sk_send(D, "dgram ping", 10) || sk_expect_msg(D, "dgram ping", 10))
		fail("no echo over the dgram socket");
	if (sk_send(S, "stream ping", 11) || sk_expect(S, "stream ping", 11))
		fail("no echo over the stream socket");
	sk_send(D, "bye", 3);
	return test_pass();
}
