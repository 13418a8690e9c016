/* A UDP socket (IPv6, bound to ::1) shared by a parent and its child through fork, with datagrams from two
 * senders queued. After restore both still hold one socket (kcmp), the child takes the first datagram and
 * the parent then finds the others, in order, with their data and senders: one queue, put back once. */
#include <signal.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "sk_udp.h"

int main(int argc, char **argv)
{
	struct sockaddr_storage ra, a1, a2;
	struct udp_dg want[5];
	sigset_t m;
	int st;
	test_init(argc, argv);
	int r = udp_bound(AF_INET6, "::1", &ra);
	int s1 = udp_bound(AF_INET6, "::1", &a1), s2 = udp_bound(AF_INET6, "::1", &a2);
	for (int i = 0; i < 5; i++) {
		want[i] = (struct udp_dg){(size_t)(100 * i + 3), (uint64_t)i + 7, i % 2 ? a2 : a1};
		udp_send(i % 2 ? s2 : s1, &ra, want[i].len, want[i].seed);
	}
	udp_wait(r);
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		int sig;
		test_forked();
		sigwait(&m, &sig);
		udp_read("child", r, want, 1);
		_exit(test_failures ? 1 : 0);
	}

	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, r, r) != 0)
		fail("the UDP socket is not one socket of parent and child any more");
	kill(pid, SIGUSR1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child did not find the first datagram (status %#x)", st);
	udp_check("parent", r, want + 1, 4);
	pass();
	return 0;
}
