/* glibc's rseq registration survives: the area's cpu_id is refreshed by the
 * kernel after a poke, matches getcpu, sched_getcpu works, and re-registering
 * the same area reports EBUSY (i.e. it is registered). */
#include <sched.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef RSEQ_SIG
#define RSEQ_SIG 0x53053053
#endif

static void nop(int s)
{
	(void)s;
}

int main(int argc, char **argv)
{
	volatile struct rseq *rs; /* the kernel rewrites it (cpu_id) */
	int i, ok = 0;

	test_init(argc, argv);
	if (__rseq_size == 0)
		test_skip("glibc did not register rseq");
	rs = (volatile struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	if ((int)rs->cpu_id < 0)
		fail("cpu_id %d before dump", (int)rs->cpu_id);
	signal(SIGUSR1, nop);
	test_daemon();
	test_waitsig();

	errno = 0;
	if (syscall(SYS_rseq, rs, __rseq_size < 32 ? 32 : __rseq_size, 0, RSEQ_SIG) != -1 || errno != EBUSY)
		fail("rseq area not registered after restore (re-register: errno %d)", errno);
	for (i = 0; i < 20 && !ok; i++) {
		unsigned cpu = ~0u;
		rs->cpu_id = (uint32_t)-2; /* scribble; the kernel must rewrite it */
		raise(SIGUSR1);		   /* signal delivery refreshes the rseq area */
		syscall(SYS_getcpu, &cpu, NULL, NULL);
		ok = (int)rs->cpu_id >= 0 && rs->cpu_id == cpu && rs->cpu_id_start == cpu;
	}
	if (!ok)
		fail("cpu_id %d not refreshed by the kernel", (int)rs->cpu_id);
	if (sched_getcpu() < 0)
		fail("sched_getcpu");
	pass();
	return 0;
}
