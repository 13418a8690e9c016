/* bench-sktree N PAIRS DIR: a tree of N processes (this one and N-1 children, all asleep) that all hold the
 * same PAIRS unix socket pairs (made before the forks: N * 2 * PAIRS socket fds in the tree, as CRIU's
 * session03 has), half of them datagram, half stream. Writes DIR/ready (its pid) once every child is there,
 * then waits for SIGUSR1: checks that every child still runs and that each pair carries a byte both ways,
 * writes "OK ..." or "BAD ..." to DIR/result, kills its children and exits. Checkpointed by contrib/bench.sh
 * (its unix-tree part); start it detached (setsid). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[4096], tmp[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s", dir, name);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

/* The pair's two ends are each other's peers: a byte sent on one comes out of the other, both ways. */
static int pair_ok(const int *sk)
{
	char b = 0;
	return send(sk[0], "a", 1, MSG_DONTWAIT) == 1 && recv(sk[1], &b, 1, MSG_DONTWAIT) == 1 && b == 'a' &&
	       send(sk[1], "b", 1, MSG_DONTWAIT) == 1 && recv(sk[0], &b, 1, MSG_DONTWAIT) == 1 && b == 'b';
}

/* The tree, until SIGUSR1 and the check; 0 if all is well. */
static int tree(int n, int pairs, const char *dir, int (*sk)[2], pid_t *kid)
{
	for (int i = 0; i < pairs; i++)
		if (socketpair(AF_UNIX, i % 2 ? SOCK_STREAM : SOCK_DGRAM, 0, sk[i])) {
			perror("bench-sktree: socketpair");
			return 1;
		}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 1; i < n; i++) {
		kid[i] = fork();
		if (kid[i] < 0) {
			perror("bench-sktree: fork");
			return 1;
		}
		if (kid[i] == 0)
			for (;;)
				pause();
	}
	char text[128];
	snprintf(text, sizeof(text), "%d\n", getpid());
	if (write_file(dir, "ready", text) < 0) {
		perror("bench-sktree: write ready");
		return 1;
	}
	int sig = 0;
	while (sig != SIGUSR1)
		if (sigwait(&set, &sig))
			return 1;

	int gone = 0, bad = -1;
	for (int i = 1; i < n; i++)
		gone += kill(kid[i], 0) != 0;
	for (int i = 0; i < pairs && bad < 0; i++)
		if (!pair_ok(sk[i]))
			bad = i;
	if (gone || bad >= 0)
		snprintf(text, sizeof(text), "BAD %d of %d children gone, pair %d broken\n", gone, n - 1,
			 bad);
	else
		snprintf(text, sizeof(text), "OK %d processes, %d pairs\n", n, pairs);
	for (int i = 1; i < n; i++) {
		kill(kid[i], SIGKILL);
		waitpid(kid[i], NULL, 0);
	}
	return write_file(dir, "result", text) < 0 || gone || bad >= 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: bench-sktree N PAIRS DIR\n");
		return 2;
	}
	int n = atoi(argv[1]), pairs = atoi(argv[2]);
	const char *dir = argv[3];
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)pairs * 2 + 16) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur < (rlim_t)pairs * 2 + 16 || setrlimit(RLIMIT_NOFILE, &rl)) {
			fprintf(stderr, "bench-sktree: RLIMIT_NOFILE too low for %d pairs\n", pairs);
			return 1;
		}
	}
	int(*sk)[2] = calloc((size_t)pairs, sizeof(*sk));
	pid_t *kid = calloc((size_t)n, sizeof(*kid));
	int rc = sk && kid ? tree(n, pairs, dir, sk, kid) : 1;
	free(sk);
	free(kid);
	return rc;
}
