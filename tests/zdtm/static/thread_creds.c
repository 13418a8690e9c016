/* Threads with credentials of their own (raw setresuid/setresgid act on the calling thread only): one
 * thread with uid/gid 1000, one with gid 2000 only, the main thread root. After restore each thread has its
 * own ids again (status of each task and the thread's own getresuid/getresgid). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

static const struct {
	uid_t uid;
	gid_t gid;
} want[2] = {{1000, 1000}, {0, 2000}};
static pthread_barrier_t bar;

static void ids(uid_t *u, gid_t *g)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	syscall(SYS_getresuid, &ru, &eu, &su);
	syscall(SYS_getresgid, &rg, &eg, &sg);
	*u = ru == eu && eu == su ? ru : (uid_t)-2;
	*g = rg == eg && eg == sg ? rg : (gid_t)-2;
}

static void *fn(void *a)
{
	struct zthr *t = a;
	uid_t u, uid = want[t->idx].uid;
	gid_t g, gid = want[t->idx].gid;
	t->tid = (pid_t)syscall(SYS_gettid);
	if (syscall(SYS_setresgid, gid, gid, gid) || syscall(SYS_setresuid, uid, uid, uid))
		zthr_bad(t, "setresuid/gid failed");
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* after restore */
	ids(&u, &g);
	if (u != uid || g != gid)
		zthr_bad(t, "ids %d/%d, want %d/%d", (int)u, (int)g, (int)uid, (int)gid);
	return NULL;
}

/* The Uid:/Gid: lines of a task, first field (real id). */
static int task_id(pid_t tid, const char *key)
{
	char path[64], *buf, *p;
	int v = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (read_file(path, &buf) < 0)
		return -1;
	p = strstr(buf, key);
	if (p)
		v = atoi(p + strlen(key));
	free(buf);
	return v;
}

int main(int argc, char **argv)
{
	static struct zthr th[2];
	uid_t u;
	gid_t g;

	test_init(argc, argv);
	if (getuid() != 0)
		test_skip("needs root");
	zthr_start(th, 2, fn, &bar);
	for (int i = 0; i < 2; i++)
		if (th[i].bad || task_id(th[i].tid, "\nUid:\t") != (int)want[i].uid)
			fail("setup: thread %d: %s", i, th[i].why);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++)
		if (task_id(th[i].tid, "\nUid:\t") != (int)want[i].uid ||
		    task_id(th[i].tid, "\nGid:\t") != (int)want[i].gid)
			fail("thread %d (tid %d): status Uid %d Gid %d, want %d %d", i, th[i].tid,
			     task_id(th[i].tid, "\nUid:\t"), task_id(th[i].tid, "\nGid:\t"), (int)want[i].uid,
			     (int)want[i].gid);
	ids(&u, &g);
	if (u != 0 || g != 0)
		fail("main thread: ids %d/%d, want 0/0", (int)u, (int)g);
	pthread_barrier_wait(&bar);
	zthr_join(th, 2);
	return test_pass();
}
