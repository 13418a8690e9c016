/* A thread in another cgroup than its process (cgroup v1 pids: the leader in zdtm-cgthr-PID/a, a thread in
 * zdtm-cgthr-PID/b, moved there by its tid in "tasks"; CRIU's cgroup_threads). The .desc's pre-restore
 * removes both (soft mode makes them again). After restore the thread is in b and the leader in a. Before,
 * the thread came back in its leader's cgroup (only each process's cgroups were saved). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char top[512], orig[256];
static pthread_barrier_t bar;

static void cleanup(void)
{
	char p[1024];
	cg_back(orig);
	snprintf(p, sizeof(p), "%s/b", top);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/a", top);
	rmdir(p);
	rmdir(top);
}

static volatile pid_t ttid;

static void *fn(void *arg)
{
	(void)arg;
	ttid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* after the restore */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char p[1024], want_a[512], want_b[512], a[512], b[512];
	test_init(argc, argv);
	cg_test_top("zdtm-cgthr", orig, sizeof(orig), top, sizeof(top));
	snprintf(want_a, sizeof(want_a), "%s/zdtm-cgthr-%d/a", strcmp(orig, "/") ? orig : "", getpid());
	snprintf(want_b, sizeof(want_b), "%s/zdtm-cgthr-%d/b", strcmp(orig, "/") ? orig : "", getpid());
	snprintf(p, sizeof(p), "%s/a", top);
	if (mkdir(top, 0755) || mkdir(p, 0755))
		fail("mkdir %s: %m", p);
	snprintf(p, sizeof(p), "%s/b", top);
	if (mkdir(p, 0755))
		fail("mkdir %s: %m", p);
	snprintf(p, sizeof(p), "%s/a/cgroup.procs", top);
	if (cg_write(p, getpid()))
		fail("into %s: %m", p);
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&th, NULL, fn, NULL))
		fail("pthread_create");
	pthread_barrier_wait(&bar);
	snprintf(p, sizeof(p), "%s/b/tasks", top);
	if (cg_write(p, ttid))
		fail("thread into %s: %m", p);
	cg_of(getpid(), a, sizeof(a));
	cg_of(ttid, b, sizeof(b));
	if (strcmp(a, want_a) || strcmp(b, want_b)) {
		cleanup();
		fail("setup: leader in %s, thread in %s", a, b);
	}
	test_daemon();
	test_waitsig();

	cg_of(getpid(), a, sizeof(a));
	cg_of(ttid, b, sizeof(b));
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	cleanup();
	if (strcmp(a, want_a))
		fail("leader in %s after the restore, want %s", a, want_a);
	if (strcmp(b, want_b))
		fail("thread in %s after the restore, want %s", b, want_b);
	return test_pass();
}
