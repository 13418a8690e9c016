/* Threads with seccomp filters of their own (no_new_privs): one filter of all threads (TSYNC: mincore
 * fails with errno 1001), then one of thread 1 only (getppid: 1002) and one the leader installed without
 * TSYNC after the threads were made (sysinfo: 1003). After restore each thread has the same filters
 * (Seccomp_filters of each, and what each syscall returns in each thread); before, the dump was refused
 * (CRIU's seccomp_filter_threads). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "seccomp_errno.h"

static pthread_barrier_t bar;
static volatile int bad[3];
static volatile pid_t tids[3];

/* 0 if nr returns -1 with errno err (err 0: does not fail with one of ours) */
static int returns(int nr, int err)
{
	errno = 0;
	long r = nr == SYS_mincore   ? syscall(nr, NULL, 0, NULL)
		 : nr == SYS_sysinfo ? syscall(nr, NULL)
				     : syscall(nr);
	if (!err)
		return errno >= 1001 && errno <= 1003;
	return !(r == -1 && errno == err);
}

/* thread i: mincore 1001 always, getppid 1002 in thread 1, sysinfo 1003 in the leader (i == 0) */
static int check(int i)
{
	int n = returns(SYS_mincore, 1001) + returns(SYS_getppid, i == 1 ? 1002 : 0) +
		returns(SYS_sysinfo, i == 0 ? 1003 : 0);
	return n;
}

static int nfilters(pid_t tid)
{
	char path[64], line[128];
	int n = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static void *thread(void *arg)
{
	int i = (int)(long)arg;
	tids[i] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar); /* started */
	pthread_barrier_wait(&bar); /* the leader's TSYNC one */
	if (i == 1 && seccomp_errno_filter(SYS_getppid, 1002, 0))
		bad[i] = 100;
	pthread_barrier_wait(&bar); /* the filters made */
	pthread_barrier_wait(&bar); /* after the restore */
	bad[i] += check(i);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	test_init(argc, argv);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail("PR_SET_NO_NEW_PRIVS");
	tids[0] = getpid();
	pthread_barrier_init(&bar, NULL, 3);
	for (long i = 1; i <= 2; i++)
		if (pthread_create(&th[i - 1], NULL, thread, (void *)i))
			fail("pthread_create");
	pthread_barrier_wait(&bar);
	if (seccomp_errno_filter(SYS_mincore, 1001, SECCOMP_FILTER_FLAG_TSYNC))
		fail("seccomp (TSYNC): %m");
	pthread_barrier_wait(&bar);
	if (seccomp_errno_filter(SYS_sysinfo, 1003, 0))
		fail("seccomp: %m");
	pthread_barrier_wait(&bar);
	int want[3] = {2, 2, 1}, before[3];
	for (int i = 0; i < 3; i++)
		if ((before[i] = nfilters(tids[i])) != want[i])
			fail("thread %d: %d filters before, want %d", i, before[i], want[i]);
	test_daemon();
	test_waitsig();
	for (int i = 0; i < 3; i++)
		if (nfilters(tids[i]) != before[i])
			fail("thread %d: %d filters after the restore, %d before", i, nfilters(tids[i]),
			     before[i]);
	bad[0] = check(0);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 3; i++)
		if (bad[i])
			fail("thread %d: %d of its syscalls did not return what its filters say", i, bad[i]);
	return test_pass();
}
