/* Threads whose credentials differ from the main thread's in other ways than uid/gid (raw syscalls act on the
 * calling thread only): one dropped CAP_NET_RAW from its effective and permitted sets, one has fsuid 1000 and
 * fsgid 3000, one has supplementary groups of its own, securebits (SECBIT_NO_SETUID_FIXUP) and an ambient
 * CAP_NET_BIND_SERVICE, one dropped CAP_MKNOD from its bounding set. After restore each thread has its own
 * again: its status lines (Uid Gid Groups Cap*) and what it reads itself (capget, setfsuid(-1), getgroups,
 * securebits, ambient, bounding set); the main thread keeps all its capabilities. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include "zdtmtst.h"

#define NTH 4
#define NLINES 8
static const char *keys[NLINES] = {"Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};

static pthread_barrier_t bar;
static char lines[NTH][NLINES][128]; /* each thread's status lines after setup */

static void caps(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	syscall(SYS_capget, &h, d);
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
}

static int capset(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {
	    {(uint32_t)eff, (uint32_t)prm, (uint32_t)inh},
	    {(uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32)}};
	return (int)syscall(SYS_capset, &h, d);
}

#define RAW (1ull << CAP_NET_RAW)
#define BIND (1ull << CAP_NET_BIND_SERVICE)

static int setup(int kind)
{
	uint64_t eff, prm, inh;
	uint32_t groups[3] = {5, 6, 7};
	caps(&eff, &prm, &inh);
	switch (kind) {
	case 0:
		return capset(eff & ~RAW, prm & ~RAW, inh);
	case 1:
		syscall(SYS_setfsuid, 1000);
		syscall(SYS_setfsgid, 3000);
		return (int)syscall(SYS_setfsuid, -1) == 1000 && (int)syscall(SYS_setfsgid, -1) == 3000 ? 0
													: -1;
	case 2:
		if (syscall(SYS_setgroups, 3, groups) || capset(eff, prm, inh | BIND) ||
		    syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0))
			return -1;
		return (int)syscall(SYS_prctl, PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP, 0, 0, 0);
	default:
		return (int)syscall(SYS_prctl, PR_CAPBSET_DROP, CAP_MKNOD, 0, 0, 0);
	}
}

/* What the thread sees itself. */
static void check_self(struct zthr *t)
{
	uint64_t eff, prm, inh;
	uint32_t groups[16];
	caps(&eff, &prm, &inh);
	int fsuid = (int)syscall(SYS_setfsuid, -1), fsgid = (int)syscall(SYS_setfsgid, -1);
	long ng = syscall(SYS_getgroups, 16, groups);
	long sb = syscall(SYS_prctl, PR_GET_SECUREBITS, 0, 0, 0, 0);
	long amb = syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_BIND_SERVICE, 0, 0);
	long bnd = syscall(SYS_prctl, PR_CAPBSET_READ, CAP_MKNOD, 0, 0, 0);
	int raw = (eff & RAW) != 0 && (prm & RAW) != 0;
	int kind = t->idx;
	int ok = raw == (kind != 0) && (fsuid == 1000) == (kind == 1) && (fsgid == 3000) == (kind == 1) &&
		 (ng == 3 && groups[0] == 5 && groups[2] == 7) == (kind == 2) &&
		 (sb == SECBIT_NO_SETUID_FIXUP) == (kind == 2) && (amb == 1) == (kind == 2) &&
		 (bnd == 0) == (kind == 3);
	if (!ok)
		zthr_bad(
		    t,
		    "kind %d: raw %d fsuid %d fsgid %d groups %ld securebits %ld ambient %ld bnd(mknod) %ld",
		    kind, raw, fsuid, fsgid, ng, sb, amb, bnd);
}

static void *fn(void *a)
{
	struct zthr *t = a;
	t->tid = (pid_t)syscall(SYS_gettid);
	if (setup(t->idx))
		zthr_bad(t, "setup of kind %d failed", t->idx);
	else
		check_self(t);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* after restore */
	check_self(t);
	return NULL;
}

/* The credential lines of a task's status. */
static int task_lines(pid_t tid, char lines[NLINES][128])
{
	char path[64], *buf;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (read_file(path, &buf) < 0)
		return -1;
	for (int i = 0; i < NLINES; i++) {
		char key[16];
		snprintf(key, sizeof(key), "\n%s:", keys[i]);
		char *p = strstr(buf, key);
		lines[i][0] = '\0';
		if (p)
			snprintf(lines[i], 128, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static struct zthr th[NTH];
	char now[NLINES][128], main0[NLINES][128];

	test_init(argc, argv);
	if (getuid() != 0)
		test_skip("needs root");
	zthr_start(th, NTH, fn, &bar);
	for (int i = 0; i < NTH; i++)
		if (th[i].bad || task_lines(th[i].tid, lines[i]))
			fail("setup: %s", th[i].why);
	if (task_lines((pid_t)syscall(SYS_gettid), main0))
		fail("main thread status");
	if (strcmp(lines[0][5], main0[5]) == 0 || strcmp(lines[3][6], main0[6]) == 0)
		fail("setup: thread capabilities like the main thread's");
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NTH; i++) {
		if (task_lines(th[i].tid, now))
			fail("thread %d status", th[i].tid);
		for (int k = 0; k < NLINES; k++)
			if (strcmp(now[k], lines[i][k]))
				fail("thread %d (kind %d): \"%s\", want \"%s\"", th[i].tid, i, now[k],
				     lines[i][k]);
	}
	if (task_lines((pid_t)syscall(SYS_gettid), now))
		fail("main thread status");
	for (int k = 0; k < NLINES; k++)
		if (strcmp(now[k], main0[k]))
			fail("main thread: \"%s\", want \"%s\"", now[k], main0[k]);
	pthread_barrier_wait(&bar);
	zthr_join(th, NTH);
	return test_pass();
}
