/* zdtm_reaper CMD ARGS...: run CMD as a child subreaper so that orphaned test
 * processes (daemonized tests, tasks restored with -d) are reaped at once
 * instead of lingering as zombies under pid 1. Exits with CMD's status.
 * Bounded: once CMD is gone, what is still left gets ZDTM_REAPER_GRACE seconds
 * (default 10), then SIGKILL (named on stderr), so one leftover cannot hang a run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Our children now (orphans adopted after CMD ended), from /proc. */
static int children(pid_t *out, int max)
{
	char path[64];
	int n = 0;
	long v;
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fscanf(f, "%ld", &v) == 1)
		out[n++] = (pid_t)v;
	fclose(f);
	return n;
}

static void kill_one(pid_t p)
{
	char path[64], comm[64] = "?";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	fprintf(stderr, "zdtm_reaper: leftover process %d (%s) killed\n", (int)p, comm);
	kill(p, SIGKILL);
	kill(p, SIGCONT);
}

/* CMD is gone: reap what remains for a grace period, then kill it. Exit status 1 if anything had to be
 * killed. */
static int reap_leftovers(int ret)
{
	const char *g = getenv("ZDTM_REAPER_GRACE");
	long grace_ms = (g && *g ? atol(g) : 10) * 1000, waited = 0;
	struct timespec ts = {0, 100 * 1000 * 1000};
	pid_t kids[256];
	int killed = 0, st;
	for (;;) {
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0)
			continue;
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break; /* ECHILD: all reaped */
		if (waited >= grace_ms) {
			int n = children(kids, 256);
			for (int i = 0; i < n; i++)
				kill_one(kids[i]);
			killed += n;
		}
		nanosleep(&ts, NULL);
		waited += 100;
	}
	return killed && !ret ? 1 : ret;
}

int main(int argc, char **argv)
{
	pid_t child, p;
	int st, ret = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD [ARGS...]\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		perror("PR_SET_CHILD_SUBREAPER");
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "exec %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	for (;;) {
		p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			return ret; /* no child left */
		}
		if (p == child) {
			ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
	}
	return reap_leftovers(ret);
}
