/* cpuid faulting (x86_64 arch_prctl(ARCH_SET_CPUID, 0), per thread): on in the main thread and in one thread,
 * off in another; after restore each has its own again (ARCH_GET_CPUID), and cpuid raises SIGSEGV where on.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "cpuid_fault.h"
#ifdef __x86_64__

static pthread_barrier_t start, stop;
static volatile int got[2] = {-1, -1};
static __thread sigjmp_buf jb;

static void segv(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

/* ARCH_GET_CPUID (1: cpuid works) checked against a cpuid run: -1 if they disagree */
static int state(void)
{
	long v = syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0);
	int faulted = 0;
	if (sigsetjmp(jb, 1))
		faulted = 1;
	else {
		unsigned int a = 0, b, c = 0, d;
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	}
	return v == !faulted ? (int)v : -1;
}

static void *thr(void *arg)
{
	int i = (int)(long)arg;
	if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, i)) /* inherited on: set again (0), off (1) */
		fail("ARCH_SET_CPUID %d in a thread", i);
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	got[i] = state();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	cpuid_fault_init(argc, argv);
	signal(SIGSEGV, segv);
	pthread_barrier_init(&start, NULL, 3);
	pthread_barrier_init(&stop, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thr, (void *)i);
	pthread_barrier_wait(&start);
	test_daemon();
	test_waitsig();
	pthread_barrier_wait(&stop);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int m = state();
	if (m != 0)
		fail("main thread: cpuid faulting %s, want on", m < 0 ? "inconsistent" : "off");
	if (got[0] != 0)
		fail("thread 0: cpuid faulting %s, want on", got[0] < 0 ? "inconsistent" : "off");
	if (got[1] != 1)
		fail("thread 1: cpuid faulting %s, want off", got[1] < 0 ? "inconsistent" : "on");
	return test_pass();
}
#endif
