/* Per-thread kernel state of several threads: each its own sigaltstack, robust futex list head, rseq
 * registration (glibc registers one per thread) and clear_child_tid (checked by joining: the join waits
 * for the kernel to clear it). All the same after restore. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NTHR 4

static pthread_barrier_t bar;

static void *thr_fn(void *arg)
{
	struct zthr *t = arg;
	// cppcheck-suppress constVariable ; the kernel writes to them (sigaltstack), cppcheck cannot see it
	static char stacks[NTHR][65536];
	stack_t ss = {.ss_sp = stacks[t->idx], .ss_size = 16384 + 4096 * (size_t)t->idx}, cur;
	struct robust_list_head *head0, *head1;
	size_t len0, len1;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (sigaltstack(&ss, NULL))
		snprintf(t->why, sizeof(t->why), "sigaltstack"), t->bad = 1;
	syscall(SYS_get_robust_list, 0, &head0, &len0);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* after restore */
	if (sigaltstack(NULL, &cur) || cur.ss_sp != ss.ss_sp || cur.ss_size != ss.ss_size)
		snprintf(t->why, sizeof(t->why), "sigaltstack %p+%zu, want %p+%zu", cur.ss_sp, cur.ss_size,
			 ss.ss_sp, ss.ss_size),
		    t->bad = 1;
	syscall(SYS_get_robust_list, 0, &head1, &len1);
	if (head1 != head0 || len1 != len0)
		snprintf(t->why, sizeof(t->why), "robust list %p, want %p", (void *)head1, (void *)head0),
		    t->bad = 1;
	if (__rseq_size) {
		/* registering the same area again fails with EBUSY only if it is registered */
		void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
		unsigned len = __rseq_size;
		long r = syscall(SYS_rseq, area, len, 0, RSEQ_SIG);
		if (r < 0 && errno == EINVAL &&
		    len != 32) /* glibc registers 32 bytes, __rseq_size may be less */
			r = syscall(SYS_rseq, area, len = 32, 0, RSEQ_SIG);
		if (r == 0 || errno != EBUSY)
			snprintf(t->why, sizeof(t->why), "rseq not registered (%ld, errno %d)", r, errno),
			    t->bad = 1;
		if (r == 0)
			syscall(SYS_rseq, area, len, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct zthr t[NTHR];
	test_init(argc, argv);
	zthr_start(t, NTHR, thr_fn, &bar);
	test_daemon();
	test_waitsig();
	pthread_barrier_wait(&bar);
	zthr_join(t, NTHR);
	return test_pass();
}
