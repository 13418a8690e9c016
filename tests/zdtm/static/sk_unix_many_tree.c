/* A tree of 300 processes that all hold the same 20 unix socket pairs (the children inherit them: 12040
 * socket fds in the tree, as CRIU's session03 has). The dump reads the tree's sockets once for all; after
 * restore every child is there and each pair still carries a message both ways. Before: each process's
 * dump read the fds of every process of the tree again (a readlink per fd: 3.6 million here, 0.2 s or more
 * for each process), and the dump took longer than the runner's 60 s (CRIU's session03, 286 processes with
 * 622 socket fds each, took 4 s for each process: zdtm.py killed it after 60 s). */
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define KIDS 300
#define PAIRS 20

int main(int argc, char **argv)
{
	int sk[PAIRS][2];
	pid_t k[KIDS];
	struct rlimit rl;

	test_init(argc, argv);
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < 2 * PAIRS + 16) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur < 2 * PAIRS + 16 || setrlimit(RLIMIT_NOFILE, &rl))
			fail("RLIMIT_NOFILE %llu: too low", (unsigned long long)rl.rlim_cur);
	}
	for (int i = 0; i < PAIRS; i++)
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sk[i]))
			fail("socketpair %d", i);
	for (int i = 0; i < KIDS; i++) {
		k[i] = test_fork();
		if (k[i] == 0) {
			for (;;)
				pause();
		}
		if (k[i] < 0)
			fail("fork");
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < KIDS; i++)
		if (kill(k[i], 0))
			fail("child %d is gone", k[i]);
	for (int i = 0; i < PAIRS; i++) {
		char b = 0;
		if (send(sk[i][0], "a", 1, MSG_DONTWAIT) != 1 || recv(sk[i][1], &b, 1, MSG_DONTWAIT) != 1 ||
		    b != 'a' || send(sk[i][1], "b", 1, MSG_DONTWAIT) != 1 ||
		    recv(sk[i][0], &b, 1, MSG_DONTWAIT) != 1 || b != 'b') {
			fail("pair %d carries no message", i);
			break;
		}
	}
	for (int i = 0; i < KIDS; i++) {
		kill(k[i], SIGKILL);
		waitpid(k[i], NULL, 0);
	}
	return test_pass();
}
