/* Threads whose own seccomp filters were installed as root without no_new_privs, before they became other
 * uids (raw setresuid: per thread): thread 0 uid 1000 with creds of its own (getppid fails with errno 1002),
 * thread 1 and the leader uid 2000 (thread 1: sysinfo 1003). Installing a filter without no_new_privs needs
 * CAP_SYS_ADMIN, which the threads' creds no longer have: after restore each thread has its filters (what its
 * syscalls return, Seccomp_filters) and its capability sets (CapEff/CapPrm, none) again; before, the restore
 * failed (seccomp: EACCES in the thread, after its creds). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "seccomp_errno.h"

static pthread_barrier_t bar;
static const uid_t uids[2] = {1000, 2000};

/* 0 if getppid and sysinfo return what thread i's filters say (i 2: the leader, none) */
static int check(int i)
{
	errno = 0;
	long r = syscall(SYS_getppid);
	int bad = i == 0 ? !(r == -1 && errno == 1002) : r < 0;
	errno = 0;
	r = syscall(SYS_sysinfo, NULL);
	bad += i == 1 ? !(r == -1 && errno == 1003) : errno >= 1001;
	return bad;
}

/* a line of /proc/self/task/TID/status (its value in v) */
static int status(pid_t tid, const char *key, char *v, size_t n)
{
	char path[64], line[256];
	int found = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			snprintf(v, n, "%s", line + strlen(key) + 1);
			found = 0;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

static const char *keys[] = {"Uid", "Seccomp", "Seccomp_filters", "NoNewPrivs", "CapEff", "CapPrm"};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void snap(pid_t tid, char (*v)[64])
{
	for (size_t k = 0; k < NKEYS; k++)
		if (status(tid, keys[k], v[k], 64))
			snprintf(v[k], 64, "(none)");
}

static void *fn(void *a)
{
	struct zthr *t = a;
	uid_t u = uids[t->idx];
	t->tid = (pid_t)syscall(SYS_gettid);
	if (seccomp_errno_filter(t->idx == 0 ? SYS_getppid : SYS_sysinfo, t->idx == 0 ? 1002 : 1003, 0))
		zthr_bad(t, "seccomp: %m");
	else if (syscall(SYS_setresuid, u, u, u))
		zthr_bad(t, "setresuid: %m");
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* after restore */
	if (check(t->idx))
		zthr_bad(t, "its syscalls do not return what its filters say");
	return NULL;
}

int main(int argc, char **argv)
{
	static struct zthr th[2];
	static char before[3][NKEYS][64], after[3][NKEYS][64];

	test_init(argc, argv);
	if (getuid() != 0)
		test_skip("needs root");
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0))
		test_skip("no_new_privs is set");
	zthr_start(th, 2, fn, &bar);
	for (int i = 0; i < 2; i++)
		if (th[i].bad)
			fail("setup: thread %d: %s", i, th[i].why);
	if (syscall(SYS_setresuid, uids[1], uids[1], uids[1]))
		fail("setresuid: %m");
	pid_t tids[3] = {th[0].tid, th[1].tid, (pid_t)syscall(SYS_gettid)};
	for (int i = 0; i < 3; i++)
		snap(tids[i], before[i]);
	if (strncmp(before[0][2], "\t1", 2) || strncmp(before[1][2], "\t1", 2) ||
	    strncmp(before[2][4], "\t0000000000000000", 17))
		fail("setup: filters %s %s, leader CapEff %s", before[0][2], before[1][2], before[2][4]);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < 3; i++) {
		snap(tids[i], after[i]);
		for (size_t k = 0; k < NKEYS; k++)
			if (strcmp(before[i][k], after[i][k]))
				fail("thread %d: %s was%s is%s", i, keys[k], before[i][k], after[i][k]);
	}
	if (check(2))
		fail("leader: its syscalls do not return what its filters say");
	pthread_barrier_wait(&bar);
	zthr_join(th, 2);
	return test_pass();
}
