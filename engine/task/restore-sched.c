/* Restore: the scheduling state of each thread that the kernel keeps per thread, set by crshim from
 * outside once the threads exist (they are traced and stopped): the CPUs each may run on and its I/O
 * priority, and for the threads other than the leader their policy, real-time priority and nice value
 * (the leader set its own before the blob, and the threads it cloned there took them; restore-child.c).
 * crshim does it rather than the threads: a lower nice value, a real-time policy and a real-time I/O class
 * need CAP_SYS_NICE (or CAP_SYS_ADMIN) of the host's user namespace, which a tree restored in a user
 * namespace of its own does not have. */
#define LOG_PREFIX "restore: "
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "restore.h"

static int thread_sched(const struct rst_task *t, const CoreEntry *c, pid_t tid, bool leader,
			struct cr_err *e)
{
	if (c->has_cpu_affinity && c->cpu_affinity.len &&
	    syscall(SYS_sched_setaffinity, tid, c->cpu_affinity.len, c->cpu_affinity.data)) {
		if (errno != EINVAL)
			return cr_fail_sys(e, "task %d: thread %d: sched_setaffinity", rst_ipid(t), tid);
		/* none of its CPUs is here (another host, a smaller cpuset): the restore's are kept */
		pr_warn("task %d: thread %d: none of the CPUs it was bound to can be used here: it runs on "
			"the CPUs crshim may use\n",
			rst_ipid(t), tid);
	}
	if (c->has_ioprio && c->ioprio && syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, tid, c->ioprio))
		return cr_fail_sys(e, "task %d: thread %d: ioprio_set(%#x)", rst_ipid(t), tid, c->ioprio);
	if (leader)
		return 0;
	if (c->has_sched_policy) {
		struct sched_param sp = {.sched_priority = c->has_sched_prio ? (int)c->sched_prio : 0};
		if (sched_setscheduler(tid, (int)c->sched_policy, &sp))
			return cr_fail_sys(e, "task %d: thread %d: sched_setscheduler(%#x, %d)", rst_ipid(t),
					   tid, c->sched_policy, sp.sched_priority);
	}
	if (c->has_nice && setpriority(PRIO_PROCESS, (id_t)tid, c->nice))
		return cr_fail_sys(e, "task %d: thread %d: setpriority(%d)", rst_ipid(t), tid, c->nice);
	return 0;
}

int rst_task_sched(const struct rst_task *t, struct cr_err *e)
{
	if (thread_sched(t, t->core, t->pid, true, e))
		return -1;
	for (size_t i = 0; i < t->nr_tcores; i++)
		if (thread_sched(t, t->tcores[i], rst_htid(t, i + 1), false, e))
			return -1;
	return 0;
}
