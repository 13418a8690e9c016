/* Threads: several threads, each with its own general registers, SSE registers, TLS, name and TID, busy
 * in a register loop or asleep in nanosleep; all must be the same after restore. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NTHR 6

static __thread uint64_t tls_val;
static volatile int stop;
static pthread_barrier_t bar;

/* Values kept in r12 and xmm9 over a spin of a few million iterations: changed registers show. */
static int reg_loop(uint64_t v)
{
	uint64_t o1, o2;
	asm volatile("mov %[v], %%r12\n\t"
		     "movq %[v], %%xmm9\n\t"
		     "mov $3000000, %%ecx\n\t"
		     "1: pause\n\t"
		     "dec %%ecx\n\t"
		     "jnz 1b\n\t"
		     "mov %%r12, %[o1]\n\t"
		     "movq %%xmm9, %[o2]\n\t"
		     : [o1] "=&r"(o1), [o2] "=&r"(o2)
		     : [v] "r"(v)
		     : "r12", "rcx", "xmm9", "memory");
	return o1 == v && o2 == v;
}

static void *thr_fn(void *arg)
{
	struct zthr *t = arg;
	char name[16], cur[16];
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	t->tid = (pid_t)syscall(SYS_gettid);
	t->self = (void *)pthread_self();
	tls_val = 0x1111111111111111ull * (uint64_t)(t->idx + 1);
	snprintf(name, sizeof(name), "zthr-%d", t->idx);
	prctl(PR_SET_NAME, name);
	pthread_barrier_wait(&bar);
	while (!stop) {
		if (t->idx % 2) {
			if (!reg_loop(tls_val + 7)) {
				snprintf(t->why, sizeof(t->why), "registers changed");
				t->bad = 1;
			}
		} else {
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	if (tls_val != 0x1111111111111111ull * (uint64_t)(t->idx + 1))
		snprintf(t->why, sizeof(t->why), "TLS value %#llx", (unsigned long long)tls_val), t->bad = 1;
	if ((pid_t)syscall(SYS_gettid) != t->tid)
		snprintf(t->why, sizeof(t->why), "tid %ld, was %d", syscall(SYS_gettid), t->tid), t->bad = 1;
	if ((void *)pthread_self() != t->self)
		snprintf(t->why, sizeof(t->why), "pthread_self changed"), t->bad = 1;
	prctl(PR_GET_NAME, cur);
	if (strcmp(cur, name))
		snprintf(t->why, sizeof(t->why), "name '%s', want '%s'", cur, name), t->bad = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct zthr t[NTHR];
	test_init(argc, argv);
	zthr_start(t, NTHR, thr_fn, &bar);
	char path[64], *buf;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t[1].tid);
	test_daemon();
	test_waitsig();
	if (read_file(path, &buf) < 0 || strncmp(buf, "zthr-1", 6))
		fail("thread %d: /proc comm is not zthr-1", t[1].tid);
	stop = 1;
	zthr_join(t, NTHR);
	return test_pass();
}
