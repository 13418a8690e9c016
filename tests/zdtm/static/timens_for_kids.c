/* A time namespace made for the children only: unshare(CLONE_NEWTIME) without a fork, its monotonic clock
 * 100 days ahead. The dump must be refused with one line (as CRIU does: crfail), the test left running:
 * a child forked afterwards still starts in that namespace, its clock 100 days ahead (before the fix the
 * dump went on and the restored task made its children in its own time namespace). */
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define AHEAD (100 * 86400LL)

static long long mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (unshare(CLONE_NEWTIME))
		test_skip("unshare(CLONE_NEWTIME): no time namespaces here");
	FILE *f = fopen("/proc/self/timens_offsets", "w");
	if (!f || fprintf(f, "monotonic %lld 0\n", AHEAD) < 0 || fclose(f))
		fail("write /proc/self/timens_offsets");
	test_daemon();
	test_waitsig();
	int p[2];
	long long theirs = 0, ours;
	if (pipe(p))
		fail("pipe");
	pid_t kid = fork();
	if (kid == 0) {
		theirs = mono();
		_exit(write(p[1], &theirs, sizeof(theirs)) == sizeof(theirs) ? 0 : 1);
	}
	ours = mono();
	if (read(p[0], &theirs, sizeof(theirs)) != sizeof(theirs) || waitpid(kid, NULL, 0) != kid)
		fail("child");
	else if (theirs - ours < AHEAD - 60 || theirs - ours > AHEAD + 60)
		fail("the child's monotonic clock is %lld s ahead of ours, want %lld", theirs - ours, AHEAD);
	return test_pass();
}
