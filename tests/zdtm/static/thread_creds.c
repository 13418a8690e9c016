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

struct th {
	pthread_t t;
	uid_t uid;
	gid_t gid;
	pid_t tid;
	volatile int ready, go;
	char bad[128];
};

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
	struct th *t = a;
	uid_t u;
	gid_t g;
	t->tid = (pid_t)syscall(SYS_gettid);
	if (syscall(SYS_setresgid, t->gid, t->gid, t->gid) || syscall(SYS_setresuid, t->uid, t->uid, t->uid))
		snprintf(t->bad, sizeof(t->bad), "setresuid/gid failed");
	t->ready = 1;
	while (!t->go)
		usleep(1000);
	ids(&u, &g);
	if (u != t->uid || g != t->gid)
		snprintf(t->bad, sizeof(t->bad), "thread %d: ids %d/%d, want %d/%d", t->tid, (int)u, (int)g,
			 (int)t->uid, (int)t->gid);
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
	static struct th th[2] = {{.uid = 1000, .gid = 1000}, {.uid = 0, .gid = 2000}};
	uid_t u;
	gid_t g;

	test_init(argc, argv);
	if (getuid() != 0)
		test_skip("needs root");
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i].t, NULL, fn, &th[i]))
			fail("pthread_create");
	for (int i = 0; i < 2; i++)
		while (!th[i].ready)
			usleep(1000);
	for (int i = 0; i < 2; i++)
		if (th[i].bad[0] || task_id(th[i].tid, "\nUid:\t") != (int)th[i].uid)
			fail("setup: thread %d: %s", i, th[i].bad);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++)
		if (task_id(th[i].tid, "\nUid:\t") != (int)th[i].uid ||
		    task_id(th[i].tid, "\nGid:\t") != (int)th[i].gid)
			fail("thread %d (tid %d): status Uid %d Gid %d, want %d %d", i, th[i].tid,
			     task_id(th[i].tid, "\nUid:\t"), task_id(th[i].tid, "\nGid:\t"), (int)th[i].uid,
			     (int)th[i].gid);
	ids(&u, &g);
	if (u != 0 || g != 0)
		fail("main thread: ids %d/%d, want 0/0", (int)u, (int)g);
	for (int i = 0; i < 2; i++) {
		th[i].go = 1;
		pthread_join(th[i].t, NULL);
		if (th[i].bad[0])
			fail("%s", th[i].bad);
	}
	if (!test_failures)
		pass();
	return 0;
}
