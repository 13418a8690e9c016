/* A tree of 301 processes that all hold the same 20 unix socket pairs (the children inherit them: 12040
 * socket fds in the tree, as CRIU's session03 has). After restore every child is there, each of its 40
 * fds is the root's socket (the same inode, not a copy), and each pair still carries a message both ways
 * (its ends are each other's peers). A correctness test: how fast the dump is (it once read the fds of
 * every process again for each process, 3.6 million readlinks here, and went past the runner's 60 s) is
 * measured and bounded by contrib/bench.sh's unix-tree part (make bench-unix-tree), not here; the .desc's
 * timeout only bounds a hang on a loaded machine. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define KIDS 300
#define PAIRS 20

/* fd's link in /proc/PID/fd ("socket:[INO]"), "" if unreadable */
static void fd_link(pid_t pid, int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, buf, len - 1);
	buf[n < 0 ? 0 : n] = 0;
}

/* Each of the child's socket fds is the root's socket, not one of its own. */
static void same_sockets(pid_t kid, int sk[PAIRS][2])
{
	char mine[64], its[64];
	for (int i = 0; i < 2 * PAIRS; i++) {
		int fd = sk[i / 2][i % 2];
		fd_link(getpid(), fd, mine, sizeof(mine));
		fd_link(kid, fd, its, sizeof(its));
		if (strncmp(mine, "socket:[", 8) || strcmp(mine, its)) {
			fail("child %d fd %d is '%s', the root's '%s'", kid, fd, its, mine);
			return;
		}
	}
}

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
		else
			same_sockets(k[i], sk);
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
