/* The main thread and a second one run an rseq critical section all the time (glibc's rseq registration): a
 * long loop between the section's start and its commit, so the dump nearly always stops a thread inside it.
 * At the commit the section reads its rseq_cs pointer back: it must still point at the section. After a
 * restore that resumed a thread inside the section while the kernel had forgotten it (rseq_cs cleared when
 * the restorer registered rseq), the section runs on unguarded and reads 0: FAIL. The kernel moving a
 * thread to the abort handler (preempted, signal) is fine: the section is then simply run again. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/rseq.h>
#include "zdtmtst.h"

struct cnt {
	uint64_t done, aborted, unguarded;
};

/* One pass of the critical section: 0 committed, 1 aborted by the kernel. *seen: rseq_cs at the commit. */
static __attribute__((noinline)) int cs_once(struct rseq *rs, uint64_t *seen)
{
	uint32_t aborted = 0;
	asm volatile(
	    ".pushsection __rseq_cs, \"aw\"\n\t"
	    ".balign 32\n\t"
	    "3:\n\t"
	    ".long 0, 0\n\t"		  /* version, flags */
	    ".quad 1f, (2f - 1f), 4f\n\t" /* start_ip, post_commit_offset, abort_ip */
	    ".popsection\n\t"
	    "leaq 3b(%%rip), %%rax\n\t"
	    "movq %%rax, %[cs]\n\t"
	    "1:\n\t"
	    "mov $2000000, %%rcx\n\t"
	    "5:\n\t"
	    "dec %%rcx\n\t"
	    "jnz 5b\n\t"
	    "movq %[cs], %%rax\n\t"
	    "movq %%rax, %[seen]\n\t"
	    "2:\n\t"
	    ".pushsection __rseq_failure, \"ax\"\n\t"
	    ".byte 0x0f, 0xb9, 0x3d\n\t" /* nopl <sig>(%%rip): the signature right before the handler */
	    ".long 0x53053053\n\t"
	    "4:\n\t"
	    "movl $1, %[ab]\n\t"
	    "jmp 2b\n\t"
	    ".popsection\n\t"
	    : [cs] "+m"(rs->rseq_cs), [seen] "+m"(*seen), [ab] "+m"(aborted)
	    :
	    : "memory", "cc", "rax", "rcx");
	// cppcheck-suppress knownConditionTrueFalse ; aborted is an output of the asm above (the abort
	// handler)
	return aborted != 0;
}

static void run(struct cnt *c, const volatile int *stop)
{
	struct rseq *rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	while (!*stop && !zdtm_sigterm) {
		uint64_t seen = 0;
		if (cs_once(rs, &seen)) {
			c->aborted++;
			continue;
		}
		c->done++;
		if (!seen)
			c->unguarded++;
	}
}

static volatile int stop_thr, stop_main;
static struct cnt thr_cnt;

static void *thr_fn(void *arg)
{
	(void)arg;
	run(&thr_cnt, &stop_thr);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thr;
	struct cnt main_cnt = {0};

	test_init(argc, argv);
	if (__rseq_size == 0)
		test_skip("glibc did not register rseq (glibc.pthread.rseq=0?)");
	test_daemon();
	if (pthread_create(&thr, NULL, thr_fn, NULL))
		fail("pthread_create");
	run(&main_cnt, &stop_main); /* until SIGTERM (whichever thread takes it, its section aborts) */
	stop_thr = 1;
	pthread_join(thr, NULL);
	test_msg("main: %llu done, %llu aborted; thread: %llu done, %llu aborted\n",
		 (unsigned long long)main_cnt.done, (unsigned long long)main_cnt.aborted,
		 (unsigned long long)thr_cnt.done, (unsigned long long)thr_cnt.aborted);
	if (main_cnt.unguarded)
		fail("main thread: %llu critical sections committed with rseq_cs cleared",
		     (unsigned long long)main_cnt.unguarded);
	if (thr_cnt.unguarded)
		fail("second thread: %llu critical sections committed with rseq_cs cleared",
		     (unsigned long long)thr_cnt.unguarded);
	return test_pass();
}
