/* Dump of registers, signals, timers, rseq, prctl values and rlimits: core-PID.img, sigacts-PID.img. */
#define LOG_PREFIX "dump-core: "
#include <errno.h>
#include <linux/membarrier.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/ptrace.h>

#include "arch.h"
#include "base/cleanup.h"
#include "dump.h"
#include "base/fault.h"
#include "base/log.h"
#include "task/seccomp.h"
#include "task/timer-list.h"
#include "restorer/restorer-args.h" /* (RST_SI_COPY_*: crshim's copy of a timer's signal) */

/* Scratch layout for the remote reads (offsets in bytes, within DUMP_SCR_CORE). */
#define SCR_SIGACT 0 /* 64 x 32 bytes, signal n at (n-1)*32 */
#define SCR_SAS 2048
#define SCR_TSC 2072	/* after the 24 bytes of the sigaltstack */
#define SCR_ITIMER 2080 /* 3 x 32 */
#define SCR_TIDADDR 2176
#define SCR_PDEATH 2184
#define SCR_SUBREAPER 2188
#define SCR_MPOL_MODE 2192  /* get_mempolicy(): the mode (4 bytes) */
#define SCR_MPOL_NODES 2200 /* ... and its nodemask: DUMP_MPOL_NODES bits */
/* one itimerspec (32 bytes) per timer of a batch, then a timespec (16) each, then another (16) each */
#define SCR_TIMER 2328
#define SCR_NTIMERS ((DUMP_SCR_CORE - SCR_TIMER) / 64)
#define SCR_TIMER_NOW (SCR_TIMER + SCR_NTIMERS * 32)
#define SCR_TIMER_AFTER (SCR_TIMER_NOW + SCR_NTIMERS * 16)

/* The remote syscalls of a dump, run in one batch (infect_batch): what each is for the messages. */
struct rcalls {
	struct infect_call v[DUMP_NSIG + 16 + 4 * SCR_NTIMERS + DUMP_MPOL_Q];
	const char *what[DUMP_NSIG + 16 + 4 * SCR_NTIMERS + DUMP_MPOL_Q];
	size_t n;
};

static size_t add(struct rcalls *rc, const char *what, long nr, unsigned long a0, unsigned long a1,
		  unsigned long a2, unsigned long a3)
{
	rc->what[rc->n] = what;
	rc->v[rc->n] = (struct infect_call){nr, {a0, a1, a2, a3, 0, 0}, 0};
	return rc->n++;
}

/* The result of call i, or an error if it failed. */
static int ok(const struct rcalls *rc, size_t i, struct cr_err *e)
{
	long r = rc->v[i].ret;
	return r < 0 && r > -4096 ? cr_fail_errno(e, (int)-r, "remote %s", rc->what[i]) : 0;
}

/* An rt_sigaction per signal that is ignored or caught, and SIGCHLD (whose SA_NOCLDSTOP/SA_NOCLDWAIT matter
 * with SIG_DFL too); the others are SIG_DFL, and their flags and mask have no effect (not saved). */
static void add_sigacts(struct dump_ctx *c, struct rcalls *rc)
{
	/* the signals whose action is not SIG_DFL (c->st: read once the task was stopped; only its threads
	 * and the processes that share its actions, CLONE_SIGHAND, all stopped, change them) */
	uint64_t s = c->in.scratch, nd = c->st.sigign | c->st.sigcgt | (1ULL << (SIGCHLD - 1));
	for (int sig = 1; sig <= DUMP_NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && (nd & (1ULL << (sig - 1))))
			add(rc, "rt_sigaction", __NR_rt_sigaction, (unsigned long)sig, 0,
			    s + SCR_SIGACT + (uint64_t)(sig - 1) * 32, 8);
}

/* The membarrier registrations of the address space: no call reads them, but an expedited barrier of a kind
 * not registered fails with EPERM (EINVAL: not supported here, so not registered either). The probe's barrier
 * itself only orders the task's own threads' memory accesses. */
static const unsigned long membarrier_probe[] = {MEMBARRIER_CMD_PRIVATE_EXPEDITED,
						 MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE,
						 MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ};
static const char *const membarrier_what[] = {"private expedited", "private expedited sync-core",
					      "private expedited rseq"};
/* each kind's registration command is the bit above its own (MEMBARRIER_CMD_REGISTER_*) */
_Static_assert(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED == MEMBARRIER_CMD_PRIVATE_EXPEDITED << 1 &&
		   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE ==
		       MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE << 1 &&
		   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ == MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ
									 << 1,
	       "membarrier command bits");

/* Linux 6.3+ reads them: the MEMBARRIER_CMD_REGISTER_* bits of the kinds registered, the global expedited
 * one too (which no barrier tells: its barrier works whether registered or not); before, the probes. */
#define CR_MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#define CR_PR_GET_MDWE 66 /* Linux 6.3 */

static int membarrier_result(struct dump_ctx *c, const struct rcalls *rc, size_t first, struct cr_err *e)
{
	long regs = rc->v[first++].ret;
	c->rem.membarrier = 0;
	if (regs >= 0) {
		c->rem.membarrier = (uint32_t)regs;
		pr_debug("task %d: membarrier registrations 0x%lx\n", c->pid, regs);
		return 0;
	}
	if (regs != -EINVAL && regs != -ENOSYS)
		return cr_fail_errno(e, (int)-regs, "remote membarrier (get registrations)");
	for (size_t i = 0; i < ARRAY_SIZE(membarrier_probe); i++) {
		long ret = rc->v[first + i].ret;
		if (!ret) {
			c->rem.membarrier |= (uint32_t)(membarrier_probe[i] << 1);
			pr_debug("task %d: membarrier %s registered\n", c->pid, membarrier_what[i]);
		} else if (ret != -EPERM && ret != -EINVAL && ret != -ENOSYS) {
			return cr_fail_errno(e, (int)-ret, "remote membarrier (%s)", membarrier_what[i]);
		}
	}
	return 0;
}

/* clock_gettime of its clock, timer_gettime (into the scratch) and timer_getoverrun of timers [from, from+n):
 * the expiry is that time plus the time left (read in the task, in its time namespace) */
static void add_timers(struct dump_ctx *c, struct rcalls *rc, size_t from, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long id = (unsigned long)c->rem.timers[from + i].id;
		add(rc, "clock_gettime", __NR_clock_gettime,
		    (unsigned long)(long)c->rem.timers[from + i].clock,
		    c->in.scratch + SCR_TIMER_NOW + i * 16, 0, 0);
		add(rc, "timer_gettime", __NR_timer_gettime, id, c->in.scratch + SCR_TIMER + i * 32, 0, 0);
		/* (the clock again: how long the read took, timer_list_modes; one of a task without the
		 * batch code, a remote syscall each, waits for a CPU in between on a loaded machine) */
		add(rc, "clock_gettime", __NR_clock_gettime,
		    (unsigned long)(long)c->rem.timers[from + i].clock,
		    c->in.scratch + SCR_TIMER_AFTER + i * 16, 0, 0);
		add(rc, "timer_getoverrun", __NR_timer_getoverrun, id, 0, 0, 0);
	}
}

static int timers_result(struct dump_ctx *c, const struct rcalls *rc, size_t first, size_t from, size_t n,
			 struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	for (size_t i = 0; i < n; i++) {
		if (ok(rc, first + 4 * i + 1, e))
			return cr_wrap(e, "timer %d", r->timers[from + i].id);
		long ov = rc->v[first + 4 * i + 3].ret;
		r->timer_overrun[from + i] = ov < 0 ? 0 : (int)ov;
	}
	struct timespec after[SCR_NTIMERS];
	if (!n ||
	    infect_read(&c->in, c->in.scratch + SCR_TIMER, &r->timer_val[from], n * sizeof(r->timer_val[0]),
			e) ||
	    infect_read(&c->in, c->in.scratch + SCR_TIMER_NOW, &r->timer_now[from],
			n * sizeof(r->timer_now[0]), e) ||
	    infect_read(&c->in, c->in.scratch + SCR_TIMER_AFTER, after, n * sizeof(after[0]), e))
		return n ? -1 : 0;
	for (size_t i = 0; i < n; i++) { /* (a clock it cannot read: no expiry) */
		const struct timespec *t0 = &r->timer_now[from + i];
		r->timer_read_ns[from + i] =
		    (after[i].tv_sec - t0->tv_sec) * 1000000000LL + after[i].tv_nsec - t0->tv_nsec;
		if (rc->v[first + 4 * i].ret)
			r->timer_now[from + i] = (struct timespec){0, -1};
	}
	return 0;
}

static int timers_alloc(struct dump_ctx *c, struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	if (proc_parse_timers(c->pid, &r->timers, &r->ntimers, e))
		return -1;
	if (!r->ntimers)
		return 0;
	r->timer_val = calloc(r->ntimers, sizeof(*r->timer_val));
	r->timer_overrun = calloc(r->ntimers, sizeof(*r->timer_overrun));
	r->timer_now = calloc(r->ntimers, sizeof(*r->timer_now));
	r->timer_owner = calloc(r->ntimers, sizeof(*r->timer_owner));
	r->timer_pend_ov = malloc(r->ntimers * sizeof(*r->timer_pend_ov));
	r->timer_mode = calloc(r->ntimers, sizeof(*r->timer_mode));
	r->timer_read_ns = calloc(r->ntimers, sizeof(*r->timer_read_ns));
	r->timer_pend_copy = calloc(r->ntimers, sizeof(*r->timer_pend_copy));
	r->timer_taken_ov = malloc(r->ntimers * sizeof(*r->timer_taken_ov));
	if (!r->timer_val || !r->timer_overrun || !r->timer_now || !r->timer_owner || !r->timer_pend_ov ||
	    !r->timer_mode || !r->timer_read_ns || !r->timer_pend_copy || !r->timer_taken_ov)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->ntimers; i++)
		r->timer_pend_ov[i] = -1, r->timer_taken_ov[i] = -1;
	return 0;
}

/* The timers past the first batch's room, a batch of them at a time. */
static int remote_timers_rest(struct dump_ctx *c, struct cr_err *e)
{
	for (size_t from = SCR_NTIMERS; from < c->rem.ntimers; from += SCR_NTIMERS) {
		struct rcalls rc = {.n = 0};
		size_t n = c->rem.ntimers - from < SCR_NTIMERS ? c->rem.ntimers - from : SCR_NTIMERS;
		add_timers(c, &rc, from, n);
		if (infect_batch(&c->in, rc.v, rc.n, e) || timers_result(c, &rc, 0, from, n, e))
			return -1;
	}
	return 0;
}

/* Whether clock is the CPU-time clock of the calling thread: CLOCK_THREAD_CPUTIME_ID, or as glibc passes it,
 * a per-thread CPU clock of tid 0 (the kernel's MAKE_THREAD_CPUCLOCK(0, ...): -2 for its CPUCLOCK_SCHED). */
static bool own_thread_cpu_clock(int clock)
{
	return clock == CLOCK_THREAD_CPUTIME_ID || (clock < 0 && (clock & 4) && !(~clock >> 3));
}

#define TIMER_OWNER_PROBE (-1)
#define TIMER_OWNER_NONE (-2)
#define TIMER_PEND_STALE (-2) /* timer_pend_ov: its pending signal is stale (stale_again) */
static int timer_sig_queued(const struct dump_ctx *c, int id, int *pend, struct cr_err *e);
static int pending_overruns(struct dump_ctx *c, struct cr_err *e);

static bool timer_disarmed(const struct itimerspec *v)
{
	return !v->it_value.tv_sec && !v->it_value.tv_nsec;
}

static int scratch_write(const struct dump_ctx *c, uint64_t at, const void *buf, size_t len, struct cr_err *e)
{
	struct iovec l = {(void *)(uintptr_t)buf, len}, r = {(void *)(uintptr_t)at, len};
	return process_vm_writev(c->pid, &l, 1, &r, 1, 0) == (ssize_t)len
		   ? 0
		   : cr_fail_sys(e, "task %d: its scratch memory", c->pid);
}

/* Whether timer i, on the CPU-time clock of the thread that made it, counts the time of the thread in runs
 * in: read twice in a row there, its time left drops (that thread runs between the reads; the others are
 * stopped). A disarmed one (arm) is armed for the reads, 1000 s of CPU time ahead (it cannot expire), and
 * disarmed again. */
static int cpu_timer_probe(struct dump_ctx *c, struct infect *in, size_t i, bool arm, bool *mine,
			   struct cr_err *e)
{
	static const struct itimerspec set[2] = {{{0, 0}, {1000, 0}}, {{0, 0}, {0, 0}}};
	uint64_t s = c->in.scratch + SCR_TIMER;
	unsigned long id = (unsigned long)c->rem.timers[i].id;
	struct itimerspec v[2];
	long r[4] = {0, 0, 0, 0};
	int ret = 0;
	if (arm)
		ret = scratch_write(c, s + 64, set, sizeof(set), e) ||
		      infect_sys(in, &r[0], e, __NR_timer_settime, id, 0, s + 64, 0, 0, 0);
	for (size_t k = 0; !ret && !r[0] && k < 2; k++)
		ret = infect_sys(in, &r[1 + k], e, __NR_timer_gettime, id, s + k * 32, 0, 0, 0, 0);
	struct cr_err e2;
	if (arm && !r[0] && infect_sys(in, &r[3], ret ? &e2 : e, __NR_timer_settime, id, 0, s + 96, 0, 0, 0))
		ret = -1;
	for (size_t k = 0; !ret && k < 4; k++)
		if (r[k] < 0)
			ret = cr_fail_errno(e, (int)-r[k], "remote timer_%s", k % 3 ? "gettime" : "settime");
	if (ret || infect_read(&c->in, s, v, sizeof(v), e))
		return cr_wrap(e, "timer %lu", id);
	*mine =
	    v[1].it_value.tv_sec < v[0].it_value.tv_sec ||
	    (v[1].it_value.tv_sec == v[0].it_value.tv_sec && v[1].it_value.tv_nsec < v[0].it_value.tv_nsec);
	return 0;
}

/* The timers on the CPU-time clock of the thread that made it (/proc/PID/timers says ClockID -2 or 3: not
 * which thread) in a process with threads, probed in the thread of in (tid), by the leader first
 * (timer_owner TIMER_OWNER_PROBE: not known yet). A disarmed one is armed for its probe unless timer_settime
 * would change something the program sees: its overrun count reset, its own pending signal made stale
 * (TIMER_OWNER_NONE). The restore makes one of another thread than the first on that thread's clock. */
static int thread_cpu_timers(struct dump_ctx *c, struct infect *in, pid_t tid, struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	for (size_t i = 0; c->nth && i < r->ntimers; i++) {
		bool mine = false;
		if (r->timer_owner[i] != TIMER_OWNER_PROBE)
			continue;
		if (cpu_timer_probe(c, in, i, timer_disarmed(&r->timer_val[i]), &mine, e))
			return cr_wrap(e, "thread %d", tid);
		if (mine) {
			r->timer_owner[i] = tid;
			pr_debug("task %d: POSIX timer %d counts the CPU time of thread %d\n", c->pid,
				 r->timers[i].id, tid);
		}
	}
	return 0;
}

/* The timers of thread_cpu_timers, TIMER_OWNER_PROBE (TIMER_OWNER_NONE: a disarmed one not to be armed) */
static int thread_cpu_timers_init(struct dump_ctx *c, struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	for (size_t i = 0; c->nth && i < r->ntimers; i++) {
		int pend = 0;
		if (!own_thread_cpu_clock(r->timers[i].clock))
			continue;
		if (timer_disarmed(&r->timer_val[i]) && !r->timer_overrun[i] &&
		    timer_sig_queued(c, r->timers[i].id, &pend, e))
			return -1;
		r->timer_owner[i] = TIMER_OWNER_PROBE;
		if (timer_disarmed(&r->timer_val[i]) && (r->timer_overrun[i] || pend))
			r->timer_owner[i] = TIMER_OWNER_NONE;
	}
	return thread_cpu_timers(c, &c->in, c->pid, e);
}

/* A timer of thread_cpu_timers whose thread none of them told: refused (a pending signal of its periodic
 * expiry: its time left stands still; its thread exited; a disarmed one not armed for the probe). */
static int thread_cpu_refuse(const struct dump_ctx *c, struct cr_err *e)
{
	for (size_t i = 0; c->nth && i < c->rem.ntimers; i++)
		if (c->rem.timer_owner[i] < 0)
			return cr_fail_errno(
			    e, ENOTSUP,
			    "task %d: POSIX timer %d on CLOCK_THREAD_CPUTIME_ID in a process with "
			    "threads: which thread's CPU time it counts cannot be told%s: not "
			    "supported",
			    c->pid, c->rem.timers[i].id,
			    c->rem.timer_owner[i] == TIMER_OWNER_NONE
				? " (disarmed, with an overrun count or its signal pending)"
				: "");
	return 0;
}

static int remote_all(struct dump_ctx *c, struct rcalls *rc, struct infect_call *more, size_t nmore,
		      struct cr_err *e);

/* Timer i's expiry the dump read: its clock's time in the task plus its time left (0: disarmed, no time). */
static int64_t timer_at(const struct dump_remote *r, size_t i)
{
	const struct timespec *now = &r->timer_now[i], *v = &r->timer_val[i].it_value;
	if (now->tv_nsec < 0 || timer_disarmed(&r->timer_val[i]))
		return 0;
	return timer_ns_sum(now->tv_sec, now->tv_nsec, v->tv_sec, v->tv_nsec);
}

/* How the armed CLOCK_REALTIME timers were armed (timer_mode): relative or TIMER_ABSTIME; those not told
 * yet only (again: a periodic one whose signal was pending is not on the list until pending_overrun took
 * it, and leaves it at its next expiry). The expiry of one found there is its hrtimer's (timer_now set to
 * that less the time left). */
static void timer_modes(struct dump_ctx *c, bool again)
{
	struct dump_remote *r = &c->rem;
	if (!r->ntimers)
		return;
	int64_t *at = calloc(r->ntimers, sizeof(*at));
	for (size_t i = 0; at && i < r->ntimers; i++)
		if (r->timers[i].clock == CLOCK_REALTIME &&
		    (!again || r->timer_mode[i] == TIMER_MODE_UNKNOWN))
			at[i] = timer_at(r, i);
	int *mode = at ? calloc(r->ntimers, sizeof(*mode)) : NULL;
	if (mode)
		timer_list_modes(at, r->timer_read_ns, mode, r->ntimers);
	for (size_t i = 0; mode && i < r->ntimers; i++) {
		if (!at[i] || (again && mode[i] == TIMER_MODE_UNKNOWN))
			continue;
		r->timer_mode[i] = mode[i];
		const struct timespec *v = &r->timer_val[i].it_value;
		int64_t was = timer_at(r, i), now = at[i] - v->tv_sec * 1000000000LL - v->tv_nsec;
		if (mode[i] != TIMER_MODE_UNKNOWN && was != INT64_MAX && at[i] != was && now > 0) {
			r->timer_now[i] = (struct timespec){now / 1000000000LL, now % 1000000000LL};
			pr_debug("task %d: POSIX timer %d: its expiry %+lld ns from the one read (its "
				 "hrtimer's)\n",
				 c->pid, r->timers[i].id, (long long)(at[i] - was));
		}
		pr_debug("task %d: POSIX timer %d (CLOCK_REALTIME) armed %s\n", c->pid, r->timers[i].id,
			 mode[i] == TIMER_MODE_REL   ? "relative"
			 : mode[i] == TIMER_MODE_ABS ? "absolute"
						     : "relative or absolute: not known");
	}
	free(mode);
	free(at);
}

/* The answer of get_mempolicy into the scratch (ret: its result; a kernel without NUMA: none). */
static void mpol_read(struct dump_mpol *m, long ret, const uint8_t *scratch)
{
	m->ok = ret == 0;
	if (!m->ok)
		return;
	memcpy(&m->mode, scratch + SCR_MPOL_MODE, 4);
	memcpy(m->nodes, scratch + SCR_MPOL_NODES, sizeof(m->nodes));
	for (m->len = sizeof(m->nodes); m->len && !m->nodes[m->len - 1]; m->len--)
		;
}

static void fill_mpol(CoreEntry *ce, const struct dump_mpol *m)
{
	if (!m->ok || !m->mode) /* MPOL_DEFAULT */
		return;
	ce->mempolicy = m->mode, ce->has_mempolicy = 1;
	ce->mempolicy_nodes = (ProtobufCBinaryData){m->len, (uint8_t *)m->nodes}, ce->has_mempolicy_nodes = 1;
}

int dump_core_remote(struct dump_ctx *c, struct infect_call *more, size_t nmore, struct cr_err *e)
{
	if (nmore > DUMP_MPOL_Q)
		return cr_fail_errno(e, E2BIG, "task %d: %zu remote calls more than the batch holds", c->pid,
				     nmore);
	struct rcalls *rc = calloc(1, sizeof(*rc));
	if (!rc)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = remote_all(c, rc, more, nmore, e);
	free(rc);
	return ret;
}

/* Every remote read of the task in one batch (but the timers past the scratch's room), the nmore calls
 * more at its end. */
static int remote_all(struct dump_ctx *c, struct rcalls *rc, struct infect_call *more, size_t nmore,
		      struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	uint64_t s = c->in.scratch;
	if (timers_alloc(c, e))
		return -1;
	add_sigacts(c, rc);
	size_t first = rc->n;
	add(rc, "sigaltstack", __NR_sigaltstack, 0, s + SCR_SAS, 0, 0);
	add(rc, "getitimer(REAL)", __NR_getitimer, ITIMER_REAL, s + SCR_ITIMER, 0, 0);
	add(rc, "getitimer(VIRTUAL)", __NR_getitimer, ITIMER_VIRTUAL, s + SCR_ITIMER + 32, 0, 0);
	add(rc, "getitimer(PROF)", __NR_getitimer, ITIMER_PROF, s + SCR_ITIMER + 64, 0, 0);
	add(rc, "prctl(PR_GET_TID_ADDRESS)", __NR_prctl, PR_GET_TID_ADDRESS, s + SCR_TIDADDR, 0, 0);
	add(rc, "prctl(PR_GET_PDEATHSIG)", __NR_prctl, PR_GET_PDEATHSIG, s + SCR_PDEATH, 0, 0);
	add(rc, "prctl(PR_GET_CHILD_SUBREAPER)", __NR_prctl, PR_GET_CHILD_SUBREAPER, s + SCR_SUBREAPER, 0, 0);
	size_t dumpable = add(rc, "prctl(PR_GET_DUMPABLE)", __NR_prctl, PR_GET_DUMPABLE, 0, 0, 0);
	size_t thp = add(rc, "prctl(PR_GET_THP_DISABLE)", __NR_prctl, PR_GET_THP_DISABLE, 0, 0, 0);
	size_t secb = add(rc, "prctl(PR_GET_SECUREBITS)", __NR_prctl, PR_GET_SECUREBITS, 0, 0, 0);
	size_t slack = add(rc, "prctl(PR_GET_TIMERSLACK)", __NR_prctl, PR_GET_TIMERSLACK, 0, 0, 0);
	size_t brk = add(rc, "brk(0)", __NR_brk, 0, 0, 0, 0);
	size_t mb = add(rc, "membarrier", __NR_membarrier, CR_MEMBARRIER_CMD_GET_REGISTRATIONS, 0, 0, 0);
	for (size_t i = 0; i < ARRAY_SIZE(membarrier_probe); i++)
		add(rc, "membarrier", __NR_membarrier, membarrier_probe[i], 0, 0, 0);
	/* (an error, where an architecture has no such thing: not saved) */
	size_t tsc = add(rc, "prctl(PR_GET_TSC)", __NR_prctl, PR_GET_TSC, s + SCR_TSC, 0, 0);
	size_t mce = add(rc, "prctl(PR_MCE_KILL_GET)", __NR_prctl, PR_MCE_KILL_GET, 0, 0, 0);
	size_t mdwe = add(rc, "prctl(PR_GET_MDWE)", __NR_prctl, CR_PR_GET_MDWE, 0, 0, 0);
	unsigned long ca0, ca1;
	long cnr = arch_cpuid_get_call(&ca0, &ca1);
	size_t cpuid = cnr < 0 ? SIZE_MAX : add(rc, "cpuid faulting", cnr, ca0, ca1, 0, 0);
	size_t mpol = add(rc, "get_mempolicy", __NR_get_mempolicy, s + SCR_MPOL_MODE, s + SCR_MPOL_NODES,
			  DUMP_MPOL_NODES, 0);
	size_t tm = rc->n, ntm = r->ntimers < SCR_NTIMERS ? r->ntimers : SCR_NTIMERS;
	add_timers(c, rc, 0, ntm);
	size_t mo = rc->n;
	for (size_t i = 0; i < nmore; i++)
		rc->v[add(rc, "more", 0, 0, 0, 0, 0)] = more[i];
	if (infect_batch(&c->in, rc->v, rc->n, e))
		return -1;
	for (size_t i = 0; i < nmore; i++) /* (their results are the caller's to judge) */
		more[i].ret = rc->v[mo + i].ret;
	for (size_t i = 0; i < mb; i++) /* the results: the calls that return a value are read below */
		if (i != slack && i != brk && ok(rc, i, e))
			return i < first ? cr_wrap(e, "signal %lu", rc->v[i].a[0]) : -1;
	if (membarrier_result(c, rc, mb, e) || timers_result(c, rc, tm, 0, ntm, e))
		return -1;
	r->dumpable = (int32_t)rc->v[dumpable].ret;
	r->thp_disabled = (int32_t)rc->v[thp].ret;
	r->securebits = (uint32_t)rc->v[secb].ret;
	r->brk = (uint64_t)rc->v[brk].ret;
	r->timerslack = (uint64_t)rc->v[slack].ret;
	r->mce_kill = rc->v[mce].ret < 0 ? -1 : (int32_t)rc->v[mce].ret;
	r->mdwe = rc->v[mdwe].ret < 0 ? 0 : (uint32_t)rc->v[mdwe].ret; /* (EINVAL: before Linux 6.3) */
	r->cpuid_fault = cpuid != SIZE_MAX && rc->v[cpuid].ret == 0;
	uint8_t buf[SCR_TIMER];
	if (infect_read(&c->in, s, buf, sizeof(buf), e))
		return -1;
	r->tsc = -1;
	if (!rc->v[tsc].ret)
		memcpy(&r->tsc, buf + SCR_TSC, 4);
	mpol_read(&r->mpol, rc->v[mpol].ret, buf);
	for (int sig = 1; sig <= DUMP_NSIG; sig++)
		r->sigact_valid[sig] = false;
	for (size_t i = 0; i < first; i++)
		r->sigact_valid[rc->v[i].a[0]] = true;
	for (int sig = 1; sig <= DUMP_NSIG; sig++)
		if (r->sigact_valid[sig])
			memcpy(&r->sigact[sig], buf + SCR_SIGACT + (sig - 1) * 32, sizeof(r->sigact[sig]));
		else
			memset(&r->sigact[sig], 0, sizeof(r->sigact[sig]));
	memcpy(&r->sas, buf + SCR_SAS, sizeof(r->sas));
	memcpy(r->itimer, buf + SCR_ITIMER, sizeof(r->itimer));
	memcpy(&r->tid_address, buf + SCR_TIDADDR, 8);
	memcpy(&r->pdeathsig, buf + SCR_PDEATH, 4);
	memcpy(&r->subreaper, buf + SCR_SUBREAPER, 4);
	if (remote_timers_rest(c, e))
		return -1;
	timer_modes(c, false);
	return thread_cpu_timers_init(c, e) || pending_overruns(c, e) ? -1 : 0;
}

void dump_core_free(struct dump_ctx *c)
{
	free(c->rem.timers);
	free(c->rem.timer_val);
	free(c->rem.timer_overrun);
	free(c->rem.timer_now);
	free(c->rem.timer_owner);
	free(c->rem.timer_pend_ov);
	free(c->rem.timer_mode);
	free(c->rem.timer_read_ns);
	free(c->rem.timer_pend_copy);
	free(c->rem.timer_taken_ov);
	c->rem.timer_pend_copy = NULL;
	c->rem.timer_taken_ov = NULL;
	c->rem.timer_mode = NULL;
	c->rem.timer_read_ns = NULL;
	c->rem.timer_now = NULL;
	c->rem.timer_owner = NULL;
	c->rem.timer_pend_ov = NULL;
	c->rem.timers = NULL;
	c->rem.timer_val = NULL;
	c->rem.timer_overrun = NULL;
}

/* ---------------- writing ---------------- */

struct siginfo_list {
	ProtobufCBinaryData *v;
	uint8_t *raw;
	size_t n;
};

static int peek_siginfo(pid_t pid, int shared, struct siginfo_list *l, struct cr_err *e)
{
	enum { BATCH = 32, SZ = 128 };
	size_t cap = 0;
	memset(l, 0, sizeof(*l));
	for (;;) {
		if (l->n + BATCH > cap) {
			cap = cap ? cap * 2 : BATCH;
			uint8_t *n = realloc(l->raw, cap * SZ);
			if (!n)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			l->raw = n;
		}
		struct ptrace_peeksiginfo_args a = {
		    .off = l->n, .flags = shared ? PTRACE_PEEKSIGINFO_SHARED : 0, .nr = BATCH};
		long r = ptrace(PTRACE_PEEKSIGINFO, pid, &a, l->raw + l->n * SZ);
		if (r < 0)
			return cr_fail_sys(e, "task %d: PTRACE_PEEKSIGINFO%s", pid,
					   shared ? " (shared)" : "");
		if (r == 0)
			break;
		l->n += (size_t)r;
	}
	if (!l->n)
		return 0;
	l->v = calloc(l->n, sizeof(*l->v));
	if (!l->v)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < l->n; i++)
		l->v[i] = (ProtobufCBinaryData){SZ, l->raw + i * SZ};
	return 0;
}

struct ptrace_rseq_conf {
	uint64_t ptr;
	uint32_t len, sig, flags, pad;
};

static void fill_itimer(ItimerEntry *t, const struct itimerval *v)
{
	t->isec = (uint64_t)v->it_interval.tv_sec, t->has_isec = 1;
	t->iusec = (uint64_t)v->it_interval.tv_usec, t->has_iusec = 1;
	t->vsec = (uint64_t)v->it_value.tv_sec, t->has_vsec = 1;
	t->vusec = (uint64_t)v->it_value.tv_usec, t->has_vusec = 1;
}

static int fill_rlimits(struct dump_ctx *c, CoreEntry *ce, RlimitEntry *rl, RlimitEntry **rlp,
			struct cr_err *e)
{
	struct proc_rlimit lim[PROC_NR_RLIMITS];
	if (proc_parse_limits(c->pid, lim, e))
		return -1;
	for (int i = 0; i < PROC_NR_RLIMITS; i++) {
		rlimit_entry__init(&rl[i]);
		rl[i].resource = (uint32_t)i, rl[i].has_resource = 1;
		rl[i].cur = lim[i].cur, rl[i].has_cur = 1;
		rl[i].max = lim[i].max, rl[i].has_max = 1;
		rlp[i] = &rl[i];
	}
	ce->n_rlimits = PROC_NR_RLIMITS;
	ce->rlimits = rlp;
	return 0;
}

/* Scheduling policy and real-time priority (the nice value is in the stat fields). */
static int fill_sched(pid_t pid, CoreEntry *ce, struct cr_err *e)
{
	struct sched_param sp = {0};
	int pol = sched_getscheduler(pid);
	if (pol < 0 || sched_getparam(pid, &sp))
		return cr_fail_sys(e, "task %d: sched_getscheduler/sched_getparam", pid);
	if ((pol & ~SCHED_RESET_ON_FORK) == 6 /* SCHED_DEADLINE */)
		return cr_fail(e, "task %d runs under SCHED_DEADLINE: not supported yet", pid);
	ce->sched_policy = (uint32_t)pol, ce->has_sched_policy = 1;
	ce->sched_prio = (uint32_t)sp.sched_priority, ce->has_sched_prio = 1;
	return 0;
}

/* What the kernel keeps of a thread's scheduling besides its policy (read from outside): the CPUs it may
 * run on and its I/O priority; PR_GET_TSC and PR_MCE_KILL_GET as the thread read them (-1: no answer). */
static int fill_sched_more(pid_t tid, CoreEntry *ce, cpu_set_t *cpus, int32_t tsc, int32_t mce,
			   struct cr_err *e)
{
	long n = syscall(SYS_sched_getaffinity, tid, sizeof(*cpus), cpus);
	if (n < 0)
		return cr_fail_sys(e, "task %d: sched_getaffinity", tid);
	ce->cpu_affinity = (ProtobufCBinaryData){(size_t)n, (uint8_t *)cpus}, ce->has_cpu_affinity = 1;
	long io = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, tid);
	if (io < 0)
		return cr_fail_sys(e, "task %d: ioprio_get", tid);
	ce->ioprio = (uint32_t)io, ce->has_ioprio = 1;
	ce->tsc = tsc, ce->has_tsc = tsc > 0;
	ce->mce_kill = mce, ce->has_mce_kill = mce >= 0;
	return 0;
}

static int task_has_thread(const struct dump_ctx *c, pid_t tid)
{
	for (size_t i = 0; i < c->nth; i++)
		if (c->th[i].tid == tid)
			return 1;
	return tid == c->pid;
}

static int fill_timers(struct dump_ctx *c, CoreEntry *ce, PosixTimerEntry **pt, char *boot_id, size_t len,
		       struct cr_err *e)
{
	struct dump_remote *r = &c->rem;
	if (!r->ntimers)
		return 0;
	if (thread_cpu_refuse(c, e))
		return -1;
	if (proc_read_small("/proc/sys/kernel/random/boot_id", boot_id, len) <= 0)
		*boot_id = '\0';
	boot_id[strcspn(boot_id, "\n")] = '\0';
	PosixTimerEntry *t = calloc(r->ntimers, sizeof(*t));
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	PosixTimerEntry **tp = calloc(r->ntimers, sizeof(*tp));
	if (!t || !tp) {
		free(t);
		free(tp);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->ntimers; i++) {
		const struct proc_timer *p = &r->timers[i];
		const struct itimerspec *v = &r->timer_val[i];
		posix_timer_entry__init(&t[i]);
		t[i].id = p->id, t[i].has_id = 1;
		t[i].clock_id = p->clock, t[i].has_clock_id = 1;
		t[i].notify = p->notify, t[i].has_notify = 1;
		if ((p->notify & 4 /* SIGEV_THREAD_ID */) && p->notify_tid &&
		    !task_has_thread(c, p->notify_tid)) {
			/* its thread exited: it expires without a signal (timer_create refuses such a target)
			 */
			t[i].notify = SIGEV_NONE;
			eng_notice(c->o,
				   "pid %d: POSIX timer %d signals thread %d, which has exited: restored as "
				   "SIGEV_NONE (no signal either way; /proc/PID/timers says notify none)",
				   c->pid, p->id, p->notify_tid);
		}
		t[i].signo = p->signo, t[i].has_signo = 1;
		t[i].sival = p->sival, t[i].has_sival = 1;
		t[i].notify_tid = p->notify_tid, t[i].has_notify_tid = 1;
		t[i].isec = (uint64_t)v->it_interval.tv_sec, t[i].has_isec = 1;
		t[i].insec = (uint64_t)v->it_interval.tv_nsec, t[i].has_insec = 1;
		t[i].vsec = (uint64_t)v->it_value.tv_sec, t[i].has_vsec = 1;
		t[i].vnsec = (uint64_t)v->it_value.tv_nsec, t[i].has_vnsec = 1;
		t[i].overrun = r->timer_overrun[i], t[i].has_overrun = 1;
		if (r->timer_pend_ov[i] > 0 || r->timer_pend_ov[i] == TIMER_PEND_STALE)
			t[i].pending_overrun = r->timer_pend_ov[i] > 0 ? r->timer_pend_ov[i] : -1;
		t[i].has_pending_overrun = t[i].pending_overrun != 0;
		if (r->timer_owner[i] > 0 && r->timer_owner[i] != c->pid)
			t[i].cpu_tid = r->timer_owner[i], t[i].has_cpu_tid = 1;
		if (r->timer_mode[i] == TIMER_MODE_REL)
			t[i].relative = 1, t[i].has_relative = 1;
		if (r->timer_now[i].tv_nsec >= 0) {
			t[i].now_sec = r->timer_now[i].tv_sec, t[i].has_now_sec = 1;
			t[i].now_nsec = r->timer_now[i].tv_nsec, t[i].has_now_nsec = 1;
			t[i].boot_id = *boot_id ? boot_id : NULL;
		}
		tp[i] = &t[i];
	}
	ce->n_posix_timers = r->ntimers;
	ce->posix_timers = tp;
	*pt = t;
	return 0;
}

/* Whether siginfo si is crshim's copy of a timer's signal, queued by a restore (engine/restorer/restorer.c
 * timer_sig_queue): a plain siginfo that counts the expiries it says, not the timer's own. */
static bool si_copy(const uint8_t *si)
{
	uint64_t m;
	memcpy(&m, si + RST_SI_COPY_AT, sizeof(m));
	return m == RST_SI_COPY_MAGIC;
}

/* Whether l holds the own signal of POSIX timer id (si_code SI_TIMER, si_timerid; not a copy). */
static int timer_sig_in(const struct siginfo_list *l, int id)
{
	for (size_t i = 0; i < l->n; i++) {
		int32_t code, tid;
		memcpy(&code, l->v[i].data + 8, sizeof(code));
		memcpy(&tid, l->v[i].data + 16, sizeof(tid));
		if (code == SI_TIMER && tid == id && !si_copy(l->v[i].data))
			return 1;
	}
	return 0;
}

/* Whether timer id's own signal is pending (*pend 1): in the process's queue, or a thread's. */
static int timer_sig_queued(const struct dump_ctx *c, int id, int *pend, struct cr_err *e)
{
	*pend = 0;
	for (size_t i = 0; !*pend && i < c->nth + 2; i++) {
		struct siginfo_list l;
		if (peek_siginfo(i < 2 ? c->pid : c->th[i - 2].tid, i == 1, &l, e))
			return -1;
		*pend = timer_sig_in(&l, id);
		free(l.v), free(l.raw);
	}
	return 0;
}

#define PO_MAX 12 /* the signals of a timer's number pending_overrun takes at most (its scratch room) */

/* The pending signals of a timer's number, in the order the first thread takes them: its own queue's (the
 * n0 first), then the process's; own: the index of the timer's own. */
struct po_plan {
	size_t n, n0, own;
	uint8_t si[PO_MAX][128]; /* (PTRACE_PEEKSIGINFO: 128 bytes each) */
};

/* The signals of timer p's number in l added to pl; how many are its own (its id, and its value: not that
 * of a timer of that id deleted since; not crshim's copy); *other set when one is another timer's own, or
 * more than PO_MAX in all. */
static int plan_add(struct po_plan *pl, const struct siginfo_list *l, const struct proc_timer *p, bool *other)
{
	int own = 0;
	for (size_t i = 0; i < l->n; i++) {
		const uint8_t *d = l->v[i].data;
		int32_t signo, code, id;
		uint64_t val;
		memcpy(&signo, d, 4), memcpy(&code, d + 8, 4), memcpy(&id, d + 16, 4),
		    memcpy(&val, d + 24, 8);
		if (signo != p->signo)
			continue;
		if (pl->n == PO_MAX) {
			*other = true;
			continue;
		}
		if (code == SI_TIMER && !si_copy(d)) {
			if (id == p->id && val == p->sival)
				own++, pl->own = pl->n;
			else
				*other = true;
		}
		memcpy(pl->si[pl->n++], d, 128);
	}
	return own;
}

/* The signals of timer i's number pending in the own queue of the thread the remote calls run in (c->in: the
 * first, or one whose SIGEV_THREAD_ID timers thread_pending_overruns takes) and the process's (pl): 1 when
 * pending_overrun may take them all and queue them back in their order, its own among them once, no other
 * timer's own (taking it would move that timer on, or drop it when stale), PO_MAX at most; 0: not; -1:
 * error. */
static int timer_sig_plan(const struct dump_ctx *c, size_t i, struct po_plan *pl, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	struct siginfo_list l[2];
	bool other = false;
	if (peek_siginfo(c->in.pid, 0, &l[0], e))
		return -1;
	if (peek_siginfo(c->pid, 1, &l[1], e)) {
		free(l[0].v), free(l[0].raw);
		return -1;
	}
	pl->n = 0;
	int own = plan_add(pl, &l[0], p, &other);
	pl->n0 = pl->n;
	own += plan_add(pl, &l[1], p, &other);
	for (size_t k = 0; k < 2; k++)
		free(l[k].v), free(l[k].raw);
	return own == 1 && !other;
}

/* Waits (1 s at most) for timer id's own signal to be queued again. */
static int timer_sig_wait(const struct dump_ctx *c, int id, struct cr_err *e)
{
	for (int n = 0; n < 1000; n++) {
		int pend;
		if (timer_sig_queued(c, id, &pend, e))
			return -1;
		if (pend)
			return 0;
		usleep(1000);
	}
	return cr_fail_errno(e, ETIME, "task %d: POSIX timer %d: its signal not queued again", c->pid, id);
}

/* The scratch of pending_overrun (the signal actions' room, read before) */
#define SCR_PO_SET 0
#define SCR_PO_ZERO 8
#define SCR_PO_INFO 32
#define SCR_PO_NOW 160
#define SCR_PO_VAL 176
#define SCR_PO_ARM 208
#define SCR_PO_AFTER 272
#define SCR_PO_TAKEN 512 /* the signals taken, 128 bytes each */
_Static_assert(SCR_PO_TAKEN + PO_MAX * 128 <= SCR_SAS, "pending_overrun: its scratch");

/* The id of the thread the remote calls run in (c->in) as the task sees it (vpid: the task's). */
static unsigned long po_vtid(const struct dump_ctx *c, long vpid)
{
	for (size_t k = 0; c->in.pid != c->pid && k < c->nth; k++)
		if (c->th[k].tid == c->in.pid)
			return (unsigned long)(c->ns_levels ? c->ns_tids[(k + 2) * c->ns_levels - 1]
							    : c->in.pid);
	return (unsigned long)vpid;
}

/* What pending_overrun took (its siginfo still in the scratch, at si), queued back by the task as it was
 * (any si_code: a task may queue its own signals so): to the own queue of the thread the remote calls run in
 * (thread), else the process's (rt_sigqueueinfo of that thread's id: to its process, and the kernel lets a
 * task queue a kill()'s si_code only with its own); vpid: the task's pid as it sees it. */
static int po_queue_back(struct dump_ctx *c, int sig, long vpid, bool thread, uint64_t si, struct cr_err *e)
{
	unsigned long pid = (unsigned long)vpid, tid = po_vtid(c, vpid);
	struct rcalls rc = {.n = 0};
	if (thread)
		add(&rc, "rt_tgsigqueueinfo", __NR_rt_tgsigqueueinfo, pid, tid, (unsigned long)sig, si);
	else
		add(&rc, "rt_sigqueueinfo", __NR_rt_sigqueueinfo, tid, (unsigned long)sig, si, 0);
	if (infect_batch(&c->in, rc.v, rc.n, e) || ok(&rc, 0, e))
		return cr_wrap(e, "signal %d taken, not queued back", sig);
	return 0;
}

/* Timer i armed again as it was at the dump's read (from scratch room s): TIMER_ABSTIME at the expiry read
 * when it is a CLOCK_REALTIME one so armed (timer_mode), else relative with the time left then. */
static int timer_rearm_as_was(struct dump_ctx *c, size_t i, uint64_t s, struct cr_err *e)
{
	struct itimerspec v = c->rem.timer_val[i];
	int64_t at = timer_at(&c->rem, i);
	bool abs = c->rem.timer_mode[i] == TIMER_MODE_ABS && at;
	struct rcalls rc = {.n = 0};
	if (abs)
		v.it_value = (struct timespec){at / 1000000000LL, at % 1000000000LL};
	add(&rc, "timer_settime", __NR_timer_settime, (unsigned long)c->rem.timers[i].id,
	    abs ? TIMER_ABSTIME : 0, s, 0);
	if (scratch_write(c, s, &v, sizeof(v), e) || infect_batch(&c->in, rc.v, rc.n, e) || ok(&rc, 0, e))
		return cr_wrap(e, "POSIX timer %d: armed again", c->rem.timers[i].id);
	return 0;
}

/* Timer i, armed to expire at once by stale_make (its value 1 ns, its interval), armed again as it was
 * (timer_rearm_as_was; at the fault point dump-timer-rearm the first try fails, as a failed remote call
 * would): tried again when that fails (3 times in all), so that a dump failing there leaves it as it was.
 * Any failure is the dump's (-1, e), even when a later try did it. */
static int stale_rearm(struct dump_ctx *c, size_t i, uint64_t s, struct cr_err *e)
{
	int ret = fault_check(c->o, FI_DUMP_TIMER_REARM, e);
	for (int k = ret ? 1 : 0; k < 3; k++) {
		struct cr_err e2;
		if (!timer_rearm_as_was(c, i, s, ret ? &e2 : e))
			return ret;
		pr_warn("task %d: POSIX timer %d: %s\n", c->pid, c->rem.timers[i].id, ret ? e2.msg : e->msg);
		ret = -1;
	}
	pr_err("task %d: POSIX timer %d: left armed to expire at once (1 ns, then its interval), not as it "
	       "was\n",
	       c->pid, c->rem.timers[i].id);
	return -1;
}

/* Timer i's own signal, stale, made again: the timer armed to expire at once (it queues its signal), then,
 * once that signal is pending (or not, when that fails), armed again as it was (stale_rearm), which makes
 * the signal stale. */
static int stale_make(struct dump_ctx *c, size_t i, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	const struct itimerspec now = {c->rem.timer_val[i].it_interval, {0, 1}};
	uint64_t s = c->in.scratch + SCR_PO_ARM;
	struct rcalls rc = {.n = 0};
	struct cr_err e2;
	add(&rc, "timer_settime", __NR_timer_settime, (unsigned long)p->id, TIMER_ABSTIME, s, 0);
	if (scratch_write(c, s, &now, sizeof(now), e) || infect_batch(&c->in, rc.v, rc.n, e) || ok(&rc, 0, e))
		return cr_wrap(e, "POSIX timer %d: armed to expire at once", p->id);
	int ret = timer_sig_wait(c, p->id, e);
	if (stale_rearm(c, i, s + sizeof(now), ret ? &e2 : e))
		ret = -1;
	return ret ? cr_wrap(e, "POSIX timer %d: its stale signal queued again", p->id) : 0;
}

/* Timer i's stale signal, dropped by its taking, put back as the dump fails there (made: stale_make was
 * tried): made again (stale_make), else, not pending again, its siginfo peeked before (si) queued back by
 * the task (vpid), which the kernel then delivers when it is taken (it is no timer's any more): marked as
 * crshim's copy (RST_SI_COPY_MAGIC), as every signal crshim queues in a timer's place, so that a later dump
 * takes it for the plain signal it is, not for the timer's own. */
static void stale_back(struct dump_ctx *c, size_t i, const uint8_t *si, long vpid, bool made)
{
	const struct proc_timer *p = &c->rem.timers[i];
	const uint64_t copy = RST_SI_COPY_MAGIC;
	struct cr_err e2;
	int pend = 0;
	if (!made && !stale_make(c, i, &e2)) {
		pr_debug("task %d: POSIX timer %d: its stale signal made again\n", c->pid, p->id);
		return;
	}
	if (!timer_sig_queued(c, p->id, &pend, &e2) && pend) {
		pr_warn("task %d: POSIX timer %d: its signal pending again\n", c->pid, p->id);
		return;
	}
	if (scratch_write(c, c->in.scratch + SCR_PO_INFO, si, 128, &e2) ||
	    scratch_write(c, c->in.scratch + SCR_PO_INFO + RST_SI_COPY_AT, &copy, sizeof(copy), &e2) ||
	    po_queue_back(c, p->signo, vpid, p->notify & 4 /* SIGEV_THREAD_ID */, c->in.scratch + SCR_PO_INFO,
			  &e2))
		pr_err("task %d: POSIX timer %d: its stale signal: %s: lost\n", c->pid, p->id, e2.msg);
	else
		pr_warn("task %d: POSIX timer %d: its stale signal queued back, no longer stale\n", c->pid,
			p->id);
}

/* Timer i's own signal (its siginfo si, peeked before), stale (the timer armed again since it was queued,
 * its time left one interval at most), dropped by its taking (pending_overrun): made again (stale_make).
 * Whatever fails, it is put back (stale_back; at the fault point dump-timer-lost as when stale_make failed
 * before the timer queued it: by the task). */
static int stale_again(struct dump_ctx *c, size_t i, const uint8_t *si, long vpid, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	int fault = fault_check(c->o, FI_DUMP_TIMER_STALE, e),
	    lost = !fault && fault_check(c->o, FI_DUMP_TIMER_LOST, e);
	if (fault || lost || stale_make(c, i, e)) {
		stale_back(c, i, si, vpid, !fault);
		return -1;
	}
	c->rem.timer_pend_ov[i] = TIMER_PEND_STALE;
	pr_debug("task %d: POSIX timer %d: its pending signal was stale, queued again\n", c->pid, p->id);
	return 0;
}

#define PO_LATE (-2) /* po_rearm: armed, its signal not queued yet (it comes late) */

/* Timer i armed again where the signal pending_overrun took was queued: its next expiry (now + val) less
 * ov intervals and one (TIMER_ABSTIME: it expires at once, queues its signal, which counts the same when
 * taken, and every expiry until then too). */
static int po_rearm(struct dump_ctx *c, size_t i, const struct timespec *now, const struct itimerspec *val,
		    int ov, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	const struct itimerspec *v = &c->rem.timer_val[i];
	int64_t iv = v->it_interval.tv_sec * 1000000000LL + v->it_interval.tv_nsec;
	int64_t at = now->tv_sec * 1000000000LL + now->tv_nsec + val->it_value.tv_sec * 1000000000LL +
		     val->it_value.tv_nsec - ((int64_t)ov + 1) * iv;
	struct itimerspec arm = {v->it_interval, {at / 1000000000LL, at % 1000000000LL}};
	uint64_t s = c->in.scratch + SCR_PO_ARM;
	struct rcalls rc = {.n = 0};
	if (at <= 0)
		return cr_fail_errno(e, EIO, "POSIX timer %d: queued before its clock began", p->id);
	add(&rc, "timer_settime", __NR_timer_settime, (unsigned long)p->id, TIMER_ABSTIME, s, 0);
	if (scratch_write(c, s, &arm, sizeof(arm), e) || infect_batch(&c->in, rc.v, rc.n, e) || ok(&rc, 0, e))
		return cr_wrap(e, "POSIX timer %d: armed again", p->id);
	return timer_sig_wait(c, p->id, e) ? PO_LATE : 0;
}

/* The signal pending_overrun took (timer i's own: its siginfo at si, ov, now, val) queued again: by the timer
 * armed again (po_rearm), else, when that fails, by the task (po_queue_back), as pending_overrun does at once
 * for a timer on CLOCK_REALTIME. Both give the program that very siginfo, but a CLOCK_REALTIME timer armed
 * again (TIMER_ABSTIME) would follow clock_settime from then on, which one armed relative does not; queued
 * back, a timer's signal no longer stands for its expiries (the next one queues another signal, which counts
 * the expiries after it): it is marked as crshim's copy (timer_pend_copy; a later dump of a tree left
 * running takes it for one), which the image holds as the timer's own (pend_copy_own). */
static int po_again(struct dump_ctx *c, size_t i, const struct timespec *now, const struct itimerspec *val,
		    int ov, long vpid, uint64_t si, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	const uint64_t copy = RST_SI_COPY_MAGIC;
	bool rearm = p->clock != CLOCK_REALTIME;
	for (int k = 0; k < 2; k++, rearm = !rearm) {
		int r = rearm ? po_rearm(c, i, now, val, ov, e)
			: scratch_write(c, si + RST_SI_COPY_AT, &copy, sizeof(copy), e)
			    ? -1
			    : po_queue_back(c, p->signo, vpid, p->notify & 4 /* SIGEV_THREAD_ID */, si, e);
		c->rem.timer_pend_copy[i] = !rearm && !r;
		if (r == 0 || r == PO_LATE)
			return r ? -1 : 0;
		pr_warn("task %d: %s\n", c->pid, e->msg);
	}
	return -1;
}

/* Timer i moved on by the taking of its signal (pending_overrun): its next expiry (now + val; the clock read
 * again at after_at in the task, 0: not) for the image, and its mode (timer_modes), told now that it is on
 * the list. */
static void po_next(struct dump_ctx *c, size_t i, const struct timespec *now, const struct itimerspec *val,
		    uint64_t after_at)
{
	struct timespec after;
	struct cr_err e2;
	c->rem.timer_val[i].it_value = val->it_value, c->rem.timer_now[i] = *now;
	if (after_at && !infect_read(&c->in, after_at, &after, sizeof(after), &e2))
		c->rem.timer_read_ns[i] =
		    (after.tv_sec - now->tv_sec) * 1000000000LL + after.tv_nsec - now->tv_nsec;
	timer_modes(c, true);
}

/* The signals sig pending_overrun took (in its scratch), [from, to) of them, queued back by the task in
 * their order, each to the queue it came from (the first thread's own for the plan's n0 first). Whatever
 * fails, the others are queued back: -1, e says the first that failed (each is logged, lost). */
static int po_put_back(struct dump_ctx *c, int sig, const struct po_plan *pl, size_t from, size_t to,
		       long vpid, struct cr_err *e)
{
	int ret = 0;
	for (size_t k = from; k < to; k++) {
		struct cr_err e2;
		if (!po_queue_back(c, sig, vpid, k < pl->n0, c->in.scratch + SCR_PO_TAKEN + k * 128, &e2))
			continue;
		pr_err("task %d: %s: lost\n", c->pid, e2.msg);
		if (!ret)
			*e = e2;
		ret = -1;
	}
	return ret;
}

/* Whether the n signals taken (got) are those of the plan, in its order: 1; 2: all but the timer's own,
 * which the kernel dropped (stale: its timer armed again since it was queued); 0: not. */
static int po_match(const struct po_plan *pl, const struct proc_timer *p, const uint8_t (*got)[128], size_t n)
{
	bool stale = n + 1 == pl->n;
	if (n != pl->n && !stale)
		return 0;
	for (size_t k = 0; k < n; k++) {
		size_t j = stale && k >= pl->own ? k + 1 : k;
		int32_t signo, code, id, ov;
		uint64_t val;
		memcpy(&signo, got[k], 4), memcpy(&code, got[k] + 8, 4), memcpy(&id, got[k] + 16, 4);
		memcpy(&ov, got[k] + 20, 4), memcpy(&val, got[k] + 24, 8);
		if (j == pl->own ? signo != p->signo || code != SI_TIMER || id != p->id || val != p->sival ||
				       ov < 0 || si_copy(got[k])
				 : memcmp(got[k], pl->si[j], 128) != 0)
			return 0;
	}
	return stale ? 2 : 1;
}

/* The signals of the plan (pl: timer i's own, and those of its number before and after it) taken in the
 * task (rt_sigtimedwait): the expiries its own counted missed (si_overrun) to timer_pend_ov; all queued back
 * in their order, its own queued again in its place (po_again). Whatever fails once they are taken, they
 * are queued back: the tree goes on with them when the dump fails. Its own found stale (dropped by its
 * taking): the others queued back, it made again (stale_again). */
static int pending_overrun(struct dump_ctx *c, size_t i, const struct po_plan *pl, struct cr_err *e)
{
	const struct proc_timer *p = &c->rem.timers[i];
	uint64_t s = c->in.scratch, set = 1ULL << (p->signo - 1), zero[2] = {0, 0};
	struct rcalls rc = {.n = 0};
	struct timespec now;
	struct itimerspec val;
	size_t m = pl->n, n = 0;
	if (scratch_write(c, s + SCR_PO_SET, &set, sizeof(set), e) ||
	    scratch_write(c, s + SCR_PO_ZERO, zero, sizeof(zero), e))
		return -1;
	for (size_t k = 0; k < m; k++)
		add(&rc, "rt_sigtimedwait", __NR_rt_sigtimedwait, s + SCR_PO_SET, s + SCR_PO_TAKEN + k * 128,
		    s + SCR_PO_ZERO, 8);
	add(&rc, "clock_gettime", __NR_clock_gettime, (unsigned long)(long)p->clock, s + SCR_PO_NOW, 0, 0);
	add(&rc, "timer_gettime", __NR_timer_gettime, (unsigned long)p->id, s + SCR_PO_VAL, 0, 0);
	add(&rc, "getpid", __NR_getpid, 0, 0, 0, 0);
	/* (the clock again: how long the read took, for timer_modes once the timer is armed again) */
	add(&rc, "clock_gettime", __NR_clock_gettime, (unsigned long)(long)p->clock, s + SCR_PO_AFTER, 0, 0);
	if (infect_batch(&c->in, rc.v, rc.n, e))
		return -1;
	long vpid = rc.v[m + 2].ret;
	while (n < m && rc.v[n].ret == p->signo)
		n++;
	uint8_t got[PO_MAX][128]; /* (what was taken; queued back from the scratch) */
	int ret = n < m && rc.v[n].ret != -EAGAIN ? ok(&rc, n, e) : 0;
	if (!ret && ((n && infect_read(&c->in, s + SCR_PO_TAKEN, got, n * 128, e)) || ok(&rc, m + 2, e)))
		ret = -1;
	int match = ret ? 0 : po_match(pl, p, (const uint8_t(*)[128])got, n);
	struct cr_err e2;
	if (match == 2) { /* its own stale, dropped: the others back, it made again */
		ret = po_put_back(c, p->signo, pl, 0, n, vpid, e);
		if (stale_again(c, i, pl->si[pl->own], vpid, ret ? &e2 : e))
			ret = -1;
		return ret;
	}
	if (!ret && !match)
		ret = cr_fail_errno(
		    e, EIO, "task %d: POSIX timer %d: took %zu signals of its number, not the %zu pending",
		    c->pid, p->id, n, m);
	int32_t ov = 0;
	if (!ret) {
		memcpy(&ov, got[pl->own] + 20, sizeof(ov));
		c->rem.timer_taken_ov[i] = ov; /* (timer_getoverrun reads it from now on) */
		ret = ok(&rc, m, e) || ok(&rc, m + 1, e) ||
			      infect_read(&c->in, s + SCR_PO_NOW, &now, sizeof(now), e) ||
			      infect_read(&c->in, s + SCR_PO_VAL, &val, sizeof(val), e)
			  ? -1
			  : 0;
	}
	/* (its mode read right away: at its next expiry it queues its signal, off the list again) */
	if (!ret)
		po_next(c, i, &now, &val, rc.v[m + 3].ret ? 0 : s + SCR_PO_AFTER);
	/* (a CLOCK_REALTIME one's own then queued back by the task, marked as crshim's copy, before its next
	 * expiry, when that comes later, queues its own again: po_again) */
	bool copy = p->clock == CLOCK_REALTIME, back = false;
	if (!ret && copy) {
		const uint64_t mark = RST_SI_COPY_MAGIC;
		ret = scratch_write(c, s + SCR_PO_TAKEN + pl->own * 128 + RST_SI_COPY_AT, &mark, sizeof(mark),
				    e);
		if (!ret && po_put_back(c, p->signo, pl, 0, n, vpid, e))
			return -1;
		back = !ret;
		c->rem.timer_pend_copy[i] = back;
	}
	if (!ret)
		ret = fault_check(c->o, FI_DUMP_TIMER_TAKEN, e);
	if (ret) { /* all back as they were taken */
		if (!back)
			po_put_back(c, p->signo, pl, 0, n, vpid, &e2);
		return -1;
	}
	ret = copy ? 0 : po_put_back(c, p->signo, pl, 0, pl->own, vpid, e);
	if (!copy && po_again(c, i, &now, &val, ov, vpid, s + SCR_PO_TAKEN + pl->own * 128, ret ? &e2 : e))
		ret = -1;
	if (!copy && po_put_back(c, p->signo, pl, pl->own + 1, n, vpid, ret ? &e2 : e))
		ret = -1;
	if (ret)
		return ret;
	c->rem.timer_pend_ov[i] = ov;
	pr_debug("task %d: POSIX timer %d: its pending signal counts %d expiries missed (%zu signals of its "
		 "number taken and queued back)\n",
		 c->pid, p->id, ov, m);
	return 0;
}

/* The periodic timers whose own signal is pending: taken when the program sees nothing of it
 * (pending_overrun: the signals of its number taken with it and all queued back in their order): a timer that
 * signals the process or the thread the remote calls run in (c->in: the first; thread_pending_overruns: each
 * other in turn), no other timer's own signal of its number in their queues
 * (timer_sig_plan), its overrun count 0 (timer_settime makes it so), not on a thread's own CPU-time clock
 * (its time read by the first thread); else timer_overrun_notice says it. A CLOCK_REALTIME one with an
 * overrun count too, when the tree will not go on (no --leave-running): only so can the dump tell how it was
 * armed (it is on /proc/timer_list once its signal is taken), which the restore keeps; its count then reads
 * that of the signal taken, which a failed dump's line says (dump.c timer_counts_changed). */
static int pending_overruns(struct dump_ctx *c, struct cr_err *e)
{
	const struct dump_remote *r = &c->rem;
	for (size_t i = 0; !c->o->pre_dump && i < r->ntimers; i++) {
		const struct proc_timer *p = &r->timers[i];
		const struct itimerspec *v = &r->timer_val[i];
		int64_t iv = v->it_interval.tv_sec * 1000000000LL + v->it_interval.tv_nsec;
		/* (further than an interval: armed again since its signal was queued, which is stale) */
		if (!iv || v->it_value.tv_sec * 1000000000LL + v->it_value.tv_nsec > iv ||
		    (r->timer_overrun[i] && (p->clock != CLOCK_REALTIME || c->o->leave_running)) ||
		    own_thread_cpu_clock(p->clock) ||
		    /* (a process's CPU clock starts again near 0 at restore: no expiry that far back) */
		    p->clock == CLOCK_PROCESS_CPUTIME_ID || p->clock < 0 || p->signo <= 0 || p->signo > 64 ||
		    !(p->notify == SIGEV_SIGNAL ? c->in.pid == c->pid
						: p->notify == (SIGEV_SIGNAL | 4 /* SIGEV_THREAD_ID */) &&
						      p->notify_tid == c->in.pid))
			continue;
		/* (a CLOCK_REALTIME one whose next expiry came before the list was read, its own signal
		 * pending again: off the list again, how it was armed not told; taken again, its next
		 * expiry an interval ahead; 3 times at most) */
		for (int round = 0; round < 3; round++) {
			struct po_plan pl;
			int take = timer_sig_plan(c, i, &pl, e);
			if (take < 0 || (take && pending_overrun(c, i, &pl, e)))
				return -1;
			if (!take || p->clock != CLOCK_REALTIME || r->timer_mode[i] != TIMER_MODE_UNKNOWN ||
			    r->timer_pend_ov[i] == TIMER_PEND_STALE)
				break;
		}
	}
	return 0;
}

/* The timers whose own signal the dump took and queued back as crshim's copy (pending_overrun): the image
 * holds that copy (of its queue, l) as the timer's own, which the restore has the timer queue again (marked:
 * it would be a plain siginfo), unless the timer queued its own again since (its next expiry came before
 * the copy was queued back, or before the queue was read): then the copy stays a plain one, counting what it
 * counts, put before that one in the image when it came after it (the older expiries first, as the kernel
 * would have them), and the timer's own pending signal is that one, whose expiries missed are not known
 * (timer_pend_ov -1). */
static void pend_copy_own(struct dump_ctx *c, struct siginfo_list *pend, struct siginfo_list *pend_sh)
{
	for (size_t i = 0; i < c->rem.ntimers; i++) {
		const struct proc_timer *p = &c->rem.timers[i];
		struct siginfo_list *l = (p->notify & 4 /* SIGEV_THREAD_ID */) ? pend : pend_sh;
		size_t own = SIZE_MAX, copy = SIZE_MAX;
		if (!c->rem.timer_pend_copy[i])
			continue;
		if ((p->notify & 4) && p->notify_tid != c->pid) {
			/* (another thread's timer, taken there: its copy stays a plain one in that thread's
			 * queue, counting what it counts; the timer has no own signal pending) */
			c->rem.timer_pend_ov[i] = -1;
			continue;
		}
		for (size_t k = 0; k < l->n; k++) {
			int32_t code, id, ov;
			uint64_t val;
			const uint8_t *d = l->v[k].data;
			memcpy(&code, d + 8, 4), memcpy(&id, d + 16, 4), memcpy(&ov, d + 20, 4);
			memcpy(&val, d + 24, 8);
			if (code != SI_TIMER || id != p->id)
				continue;
			if (!si_copy(d) && own == SIZE_MAX)
				own = k;
			else if (si_copy(d) && val == p->sival && ov == c->rem.timer_pend_ov[i])
				copy = k;
		}
		if (own == SIZE_MAX && copy != SIZE_MAX) {
			memset(l->v[copy].data + RST_SI_COPY_AT, 0, sizeof(uint64_t));
			continue;
		}
		c->rem.timer_pend_ov[i] = -1;
		pr_debug("task %d: POSIX timer %d: its own signal queued again since the dump took it\n",
			 c->pid, p->id);
		if (own != SIZE_MAX && copy != SIZE_MAX && own < copy) {
			uint8_t t[128];
			memcpy(t, l->v[own].data, sizeof(t));
			memcpy(l->v[own].data, l->v[copy].data, sizeof(t));
			memcpy(l->v[copy].data, t, sizeof(t));
		}
	}
}

/* The restore gives a timer its overrun count back (timer_getoverrun(), set when its last signal was taken)
 * by having its signal taken again in the thread it goes to (engine/restorer/restorer.c timer_dances): not
 * when that signal is pending (taken, it counts anew). Said here, and a pending signal of a periodic timer
 * whose missed expiries were not read (pending_overruns). */
static void timer_overrun_notice(struct dump_ctx *c, const struct siginfo_list *pend,
				 const struct siginfo_list *pend_sh)
{
	for (size_t i = 0; i < c->rem.ntimers; i++) {
		const struct proc_timer *p = &c->rem.timers[i];
		int ov = c->rem.timer_overrun[i];
		const struct itimerspec *v = &c->rem.timer_val[i];
		bool periodic = v->it_interval.tv_sec || v->it_interval.tv_nsec;
		if (periodic && c->rem.timer_pend_ov[i] == -1 &&
		    (timer_sig_in(pend, p->id) || timer_sig_in(pend_sh, p->id)))
			eng_notice(
			    c->o,
			    "pid %d: the pending signal of periodic POSIX timer %d counts (si_overrun) only "
			    "the expiries after the restore",
			    c->pid, p->id);
		bool pending = timer_sig_in(pend, p->id) || timer_sig_in(pend_sh, p->id);
		if (ov > 0 && pending)
			eng_notice(
			    c->o,
			    "pid %d: the overrun count (timer_getoverrun %d) of POSIX timer %d reads 0 after "
			    "restore until its pending signal is taken",
			    c->pid, ov, p->id);
		/* (restorer.c timer_arm_rel: relative, it cannot be armed in the past) */
		if (periodic && c->rem.timer_mode[i] == TIMER_MODE_REL && (pending || ov > 0))
			eng_notice(
			    c->o,
			    "pid %d: POSIX timer %d (CLOCK_REALTIME, armed relative) is restored relative: "
			    "its overrun count (timer_getoverrun) reads 0 %s",
			    c->pid, p->id,
			    pending ? "after its pending signal (queued by the task) is taken, until "
				      "its next one"
				    : "until its next signal is taken");
	}
}

static int write_sigacts(struct dump_ctx *c, struct cr_err *e)
{
	struct img_writer *w;
	if (img_create(c->dirfd, IMG_SIGACTS, c->pid, &w, e))
		return -1;
	for (int sig = 1; sig <= DUMP_NSIG; sig++) {
		const struct dump_sigact *a = &c->rem.sigact[sig];
		if (!c->rem.sigact_valid[sig] || (!a->handler && !a->flags && !a->mask))
			continue;
		SigactionEntry se = SIGACTION_ENTRY__INIT;
		se.signo = sig, se.has_signo = 1;
		se.handler = a->handler, se.has_handler = 1;
		se.flags = a->flags, se.has_flags = 1;
		se.restorer = a->restorer, se.has_restorer = 1;
		se.mask = a->mask, se.has_mask = 1;
		if (img_write_or_drop(w, &se.base, e))
			return -1;
	}
	if (img_commit(w, e))
		return -1;
	return dump_created(c, IMG_SIGACTS, c->pid, e);
}

/* comm from the stat of the stopped task (seize_verify's, c->stat: the text of /proc/PID/comm, which only the
 * task itself can change) */
static int fill_task_misc(struct dump_ctx *c, CoreEntry *ce, struct cr_err *e)
{
	char path[64], adj[16];
	ce->comm = c->stat.comm;
	snprintf(path, sizeof(path), "/proc/%d/personality", c->pid);
	if (proc_read_small(path, adj, sizeof(adj)) < 0)
		return cr_fail_sys(e, "read %s", path);
	ce->personality = (uint32_t)strtoul(adj, NULL, 16), ce->has_personality = 1;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", c->pid);
	if (proc_read_small(path, adj, sizeof(adj)) > 0)
		ce->oom_score_adj = (int32_t)strtol(adj, NULL, 10), ce->has_oom_score_adj = 1;
	snprintf(path, sizeof(path), "/proc/%d/coredump_filter", c->pid);
	if (proc_read_small(path, adj, sizeof(adj)) > 0)
		ce->coredump_filter = (uint32_t)strtoul(adj, NULL, 16), ce->has_coredump_filter = 1;
	char ag[64];
	snprintf(path, sizeof(path), "/proc/%d/autogroup", c->pid); /* "/autogroup-N nice X" */
	const char *nice = proc_read_small(path, ag, sizeof(ag)) > 0 ? strstr(ag, " nice ") : NULL;
	if (nice)
		ce->autogroup_nice = (int32_t)strtol(nice + 6, NULL, 10), ce->has_autogroup_nice = 1;
	snprintf(path, sizeof(path), "/proc/%d/loginuid", c->pid); /* (no file: a kernel without audit) */
	if (proc_read_small(path, adj, sizeof(adj)) > 0)
		ce->loginuid = (uint32_t)strtoul(adj, NULL, 10), ce->has_loginuid = 1;
	if (syscall(SYS_get_robust_list, c->pid, &ce->robust_list, &ce->robust_len))
		return cr_fail_sys(e, "get_robust_list(%d)", c->pid);
	ce->has_robust_list = ce->has_robust_len = 1;
	return 0;
}

/* A thread stopped inside an rseq critical section: the kernel moves it to the section's abort handler on
 * its way back to user space (it was preempted), and forgets the section (clears rseq_cs) whenever it
 * returns to user space outside it. The dump's remote syscalls are such a return, and so is the restorer's
 * rseq registration: a thread resumed (after the dump, or restored) inside the section would finish it
 * unguarded. So the section is aborted here, before any remote syscall, in the registers the task is
 * resumed with and in the image's, as the kernel would have done. (The flags that asked for no restart
 * are refused by kernels since 6.0: the task gets SIGSEGV.) Read what fails: nothing to do. */
void dump_rseq_cs_abort(pid_t tid, void *regs_resume, void *regs_image)
{
	struct ptrace_rseq_conf rc = {0};
	struct {
		uint32_t version, flags;
		uint64_t start_ip, post_commit_offset, abort_ip;
	} cs;
	uint64_t csp = 0, ip = arch_regs_ip(regs_image);
	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, tid, (void *)sizeof(rc), &rc) < 0 || !rc.ptr)
		return;
	struct iovec l = {&csp, sizeof(csp)}, r = {(void *)(uintptr_t)(rc.ptr + 8), sizeof(csp)};
	if (process_vm_readv(tid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(csp) || !csp)
		return;
	l = (struct iovec){&cs, sizeof(cs)}, r = (struct iovec){(void *)(uintptr_t)csp, sizeof(cs)};
	if (process_vm_readv(tid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(cs))
		return; /* a bad pointer: the kernel kills the thread on its next return, dumped or not */
	if (ip < cs.start_ip || ip - cs.start_ip >= cs.post_commit_offset)
		return;
	pr_info("thread %d: ip %#llx in an rseq critical section: it resumes at its abort handler %#llx\n",
		tid, (unsigned long long)ip, (unsigned long long)cs.abort_ip);
	arch_regs_set_ip(regs_resume, cs.abort_ip);
	arch_regs_set_ip(regs_image, cs.abort_ip);
}

/* Syscall user dispatch (PR_SET_SYSCALL_USER_DISPATCH, per thread) is not restored: refused, before the
 * parasite's syscalls (which its selector could turn into SIGSYS). ptrace reads it since Linux 6.4 (before:
 * an error, not known). */
int dump_sud_refuse(pid_t tid, struct cr_err *e)
{
	struct {
		uint64_t mode, selector, offset, len;
	} sud = {0, 0, 0, 0};
	if (ptrace(0x4211 /* PTRACE_GET_SYSCALL_USER_DISPATCH_CONFIG */, tid, (void *)sizeof(sud), &sud) <
		0 ||
	    !sud.mode)
		return 0;
	return cr_fail_errno(e, ENOTSUP, "thread %d: syscall user dispatch is on: not supported", tid);
}

/* What the core image of every thread holds: its sigaltstack (as the thread read it) and its rseq
 * registration. ce points into sas and rseq afterwards. */
static int fill_sas_rseq(CoreEntry *ce, pid_t tid, const struct dump_sas *s, SigaltstackEntry *sas,
			 RseqEntry *rseq, struct cr_err *e)
{
	sas->sp = s->sp, sas->has_sp = 1;
	sas->size = s->size, sas->has_size = 1;
	sas->flags = s->flags, sas->has_flags = 1;
	ce->sas = sas;
	struct ptrace_rseq_conf rc = {0};
	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, tid, (void *)sizeof(rc), &rc) < 0)
		return cr_fail_sys(e, "thread %d: PTRACE_GET_RSEQ_CONFIGURATION", tid);
	if (rc.ptr) {
		rseq->ptr = rc.ptr, rseq->has_ptr = 1;
		rseq->len = rc.len, rseq->has_len = 1;
		rseq->flags = rc.flags, rseq->has_flags = 1;
		rseq->sig = rc.sig, rseq->has_sig = 1;
		ce->rseq = rseq;
	}
	return 0;
}

/* A thread's pending SIGTRAP would be taken by the restore's own traps: refused. */
static int pending_sigtrap(pid_t pid, const struct siginfo_list *l, struct cr_err *e)
{
	for (size_t i = 0; i < l->n; i++) {
		int32_t signo;
		memcpy(&signo, l->v[i].data, sizeof(signo));
		if (signo == SIGTRAP)
			return cr_fail_errno(e, ENOTSUP, "task %d: a pending SIGTRAP: not supported", pid);
	}
	return 0;
}

int dump_core_write(struct dump_ctx *c, struct cr_err *e)
{
	CoreEntry ce = CORE_ENTRY__INIT;
	ItimerEntry it[3] = {ITIMER_ENTRY__INIT, ITIMER_ENTRY__INIT, ITIMER_ENTRY__INIT};
	SigaltstackEntry sas = SIGALTSTACK_ENTRY__INIT;
	RseqEntry rseq = RSEQ_ENTRY__INIT;
	RlimitEntry rl[PROC_NR_RLIMITS], *rlp[PROC_NR_RLIMITS];
	__cleanup_free PosixTimerEntry *pt = NULL;
	struct siginfo_list pend = {0}, pend_sh = {0};
	struct dump_remote *r = &c->rem;
	char boot_id[40];
	cpu_set_t cpus;
	int ret = -1;

	ce.arch = (char *)arch_name();
	ce.gpregs = (ProtobufCBinaryData){arch_gpregs_size(), c->regs_image}, ce.has_gpregs = 1;
	ce.xstate = (ProtobufCBinaryData){c->xstate_len, c->xstate}, ce.has_xstate = 1;
	ce.sigmask = c->s.sigmask, ce.has_sigmask = 1;
	if (fill_task_misc(c, &ce, e))
		goto out;
	if (peek_siginfo(c->pid, 0, &pend, e) || peek_siginfo(c->pid, 1, &pend_sh, e))
		goto out;
	/* the process's own and shared pending SIGTRAP are queued again after the restore's final trap
	 * (engine/restore.c); a shared one with threads could go to a thread still in the blob */
	if (c->nth && pending_sigtrap(c->pid, &pend_sh, e))
		goto out;
	ce.n_pending = pend.n, ce.pending = pend.v;
	ce.n_pending_shared = pend_sh.n, ce.pending_shared = pend_sh.v;
	pend_copy_own(c, &pend, &pend_sh);
	if (fill_sas_rseq(&ce, c->pid, &r->sas, &sas, &rseq, e))
		goto out;
	ce.tid_address = r->tid_address, ce.has_tid_address = 1;
	ce.pdeathsig = r->pdeathsig, ce.has_pdeathsig = 1;
	ce.dumpable = r->dumpable, ce.has_dumpable = 1;
	ce.no_new_privs = c->st.no_new_privs != 0, ce.has_no_new_privs = 1;
	ce.child_subreaper = r->subreaper != 0, ce.has_child_subreaper = 1;
	ce.thp_disabled = r->thp_disabled, ce.has_thp_disabled = 1;
	for (int i = 0; i < 3; i++)
		fill_itimer(&it[i], &r->itimer[i]);
	ce.itimer_real = &it[0], ce.itimer_virt = &it[1], ce.itimer_prof = &it[2];
	if (fill_timers(c, &ce, &pt, boot_id, sizeof(boot_id), e) || fill_rlimits(c, &ce, rl, rlp, e))
		goto out;
	timer_overrun_notice(c, &pend, &pend_sh);
	ce.task_state = c->s.was_stopped ? 1 : 0, ce.has_task_state = 1;
	if (c->s.was_stopped && c->s.group_stop_sig)
		ce.stop_signo = c->s.group_stop_sig, ce.has_stop_signo = 1;
	ce.nice = (int32_t)c->stat.f[19], ce.has_nice = 1;
	ce.in_syscall_eintr = c->in_syscall_eintr != 0, ce.has_in_syscall_eintr = 1;
	ce.timerslack_ns = r->timerslack, ce.has_timerslack_ns = 1;
	ce.membarrier = r->membarrier, ce.has_membarrier = r->membarrier != 0;
	fill_mpol(&ce, &r->mpol);
	ce.cpuid_faulting = r->cpuid_fault != 0, ce.has_cpuid_faulting = r->cpuid_fault != 0;
	ce.mdwe = r->mdwe, ce.has_mdwe = r->mdwe != 0;
	if (fill_sched(c->pid, &ce, e) || fill_sched_more(c->pid, &ce, &cpus, r->tsc, r->mce_kill, e) ||
	    dump_seccomp(c->pid, c->st.seccomp, &ce.seccomp, e))
		goto out;
	if (dump_write_one(c, IMG_CORE, &ce.base, e))
		goto out;
	ret = write_sigacts(c, e);
	c->seccomp = ce.seccomp; /* (for thread_seccomp: read once per process, not once per thread) */
	ce.seccomp = NULL;
out:
	dump_seccomp_free(ce.seccomp);
	free(ce.posix_timers);
	free(pend.v), free(pend.raw), free(pend_sh.v), free(pend_sh.raw);
	return ret;
}

/* ---------------- threads other than the leader ---------------- */

/* The pending signals of the SIGEV_THREAD_ID timers of the thread of in, taken there (pending_overruns with
 * the remote calls in that thread, on the leader's scratch): only the thread takes its own queue's. Before,
 * such a CLOCK_REALTIME timer whose signal was pending (off /proc/timer_list until it is taken) came back
 * armed absolute. */
static int thread_pending_overruns(struct dump_ctx *c, struct infect *in, struct cr_err *e)
{
	struct infect lead = c->in;
	in->scratch = lead.scratch, in->scratch_len = lead.scratch_len;
	c->in = *in;
	int ret = pending_overruns(c, e);
	*in = c->in, c->in = lead;
	in->scratch = 0, in->scratch_len = 0; /* (the leader's: infect_stop of the thread leaves it) */
	return ret;
}

int dump_core_thread_remote(struct dump_ctx *c, struct dump_thread *t, struct cr_err *e)
{
	struct infect in;
	uint64_t s = c->in.scratch;
	uint8_t buf[SCR_TIMER];
	struct {
		const char *what;
		long nr;
		unsigned long a0, a1, a2;
		long ret;
	} q[] = {
	    {"sigaltstack", __NR_sigaltstack, 0, s + SCR_SAS, 0, 0},
	    {"PR_GET_TID_ADDRESS", __NR_prctl, PR_GET_TID_ADDRESS, s + SCR_TIDADDR, 0, 0},
	    /* per thread, as all credentials, and so are the rest */
	    {"PR_GET_SECUREBITS", __NR_prctl, PR_GET_SECUREBITS, 0, 0, 0},
	    {"PR_GET_TIMERSLACK", __NR_prctl, PR_GET_TIMERSLACK, 0, 0, 0},
	    {"PR_GET_PDEATHSIG", __NR_prctl, PR_GET_PDEATHSIG, s + SCR_PDEATH, 0, 0},
	    /* (an error, where an architecture or kernel has no such thing: not saved) */
	    {"PR_GET_TSC", __NR_prctl, PR_GET_TSC, s + SCR_TSC, 0, 0},
	    {"PR_MCE_KILL_GET", __NR_prctl, PR_MCE_KILL_GET, 0, 0, 0},
	    {"get_mempolicy", __NR_get_mempolicy, s + SCR_MPOL_MODE, s + SCR_MPOL_NODES, DUMP_MPOL_NODES, 0},
	    {"cpuid faulting", -1, 0, 0, 0, 0},
	};
	q[8].nr = arch_cpuid_get_call(&q[8].a0, &q[8].a1);
	if (infect_start_thread(&in, &c->in, &t->s, t->regs_resume, fault_injected(c->o, FI_NO_VDSO_SYSCALL),
				e))
		return cr_wrap(e, "thread %d", t->tid);
	int ret = 0;
	for (size_t i = 0; !ret && i < ARRAY_SIZE(q); i++) {
		if (q[i].nr < 0) { /* none on this architecture */
			q[i].ret = -ENOSYS;
			continue;
		}
		ret = infect_sys(&in, &q[i].ret, e, q[i].nr, q[i].a0, q[i].a1, q[i].a2, 0, 0, 0);
		if (!ret && i < 5 && q[i].ret < 0 && q[i].ret > -4096)
			ret = cr_fail_errno(e, (int)-q[i].ret, "remote %s", q[i].what);
	}
	if (!ret) /* (its own CPU-time clock's timers) */
		ret = thread_cpu_timers(c, &in, t->tid, e);
	if (!ret)
		ret = thread_pending_overruns(c, &in, e);
	struct cr_err e2;
	if (infect_stop(&in, ret ? &e2 : e)) /* no scratch of its own: only a poked instruction to undo */
		ret = -1;
	if (ret)
		return cr_wrap(e, "thread %d", t->tid);
	if (infect_read(&c->in, s, buf, sizeof(buf), e))
		return -1;
	memcpy(&t->sas, buf + SCR_SAS, sizeof(t->sas));
	memcpy(&t->tid_address, buf + SCR_TIDADDR, 8);
	memcpy(&t->pdeathsig, buf + SCR_PDEATH, 4);
	t->securebits = (uint32_t)q[2].ret;
	t->timerslack = (uint64_t)q[3].ret;
	t->tsc = -1;
	if (!q[5].ret)
		memcpy(&t->tsc, buf + SCR_TSC, 4);
	t->mce_kill = q[6].ret < 0 ? -1 : (int32_t)q[6].ret;
	mpol_read(&t->mpol, q[7].ret, buf);
	t->cpuid_fault = q[8].ret == 0;
	return 0;
}

/* A thread's seccomp state: filters of its own (installed by each thread at restore, past those all share)
 * are kept; strict mode must be the leader's (it allows no seccomp call afterwards). */
static int thread_seccomp(struct dump_ctx *c, pid_t tid, int mode, SeccompEntry **sc, struct cr_err *e)
{
	const SeccompEntry *lead =
	    c->seccomp; /* (dump_core_write's, as the leader's core is written first) */
	if (dump_seccomp(tid, mode, sc, e))
		return -1;
	bool strict =
	    (*sc && (*sc)->mode == SECCOMP_MODE_STRICT) || (lead && lead->mode == SECCOMP_MODE_STRICT);
	int same = dump_seccomp_same(*sc, lead);
	if (same && strict)
		return cr_fail(
		    e,
		    "thread %d of task %d has another seccomp mode than its leader (one of them strict): "
		    "not supported yet",
		    tid, c->pid);
	return 0;
}

int dump_core_write_thread(struct dump_ctx *c, struct dump_thread *t, struct cr_err *e)
{
	CoreEntry ce = CORE_ENTRY__INIT;
	SigaltstackEntry sas = SIGALTSTACK_ENTRY__INIT;
	RseqEntry rseq = RSEQ_ENTRY__INIT;
	CredsEntry tcr = CREDS_ENTRY__INIT;
	struct proc_status tst = {0};
	struct proc_stat tstat;
	cpu_set_t cpus;
	struct siginfo_list pend = {0};
	int ret = -1;

	ce.arch = (char *)arch_name();
	ce.gpregs = (ProtobufCBinaryData){arch_gpregs_size(), t->regs_image}, ce.has_gpregs = 1;
	ce.xstate = (ProtobufCBinaryData){t->xstate_len, t->xstate}, ce.has_xstate = 1;
	ce.sigmask = t->s.sigmask, ce.has_sigmask = 1;
	if (proc_parse_stat(t->tid, &tstat, e)) /* (its comm and nice) */
		return -1;
	ce.comm = tstat.comm;
	if (syscall(SYS_get_robust_list, t->tid, &ce.robust_list, &ce.robust_len))
		return cr_fail_sys(e, "get_robust_list(%d)", t->tid);
	ce.has_robust_list = ce.has_robust_len = 1;
	if (peek_siginfo(t->tid, 0, &pend, e))
		goto out;
	if (pending_sigtrap(t->tid, &pend, e))
		goto out;
	ce.n_pending = pend.n, ce.pending = pend.v;
	if (fill_sas_rseq(&ce, t->tid, &t->sas, &sas, &rseq, e))
		goto out;
	ce.tid_address = t->tid_address, ce.has_tid_address = 1;
	ce.in_syscall_eintr = t->in_syscall_eintr != 0, ce.has_in_syscall_eintr = 1;
	int own = dump_creds_thread(c, t, &tcr, &tst, e); /* (its status read: tst) */
	if (own < 0 || thread_seccomp(c, t->tid, tst.seccomp, &ce.seccomp, e))
		goto out;
	/* its own scheduling and task flags (the leader's are in core-PID.img) */
	ce.pdeathsig = t->pdeathsig, ce.has_pdeathsig = 1;
	ce.no_new_privs = tst.no_new_privs != 0, ce.has_no_new_privs = 1;
	ce.timerslack_ns = t->timerslack, ce.has_timerslack_ns = 1;
	ce.nice = (int32_t)tstat.f[19], ce.has_nice = 1;
	fill_mpol(&ce, &t->mpol);
	ce.cpuid_faulting = t->cpuid_fault != 0, ce.has_cpuid_faulting = t->cpuid_fault != 0;
	if (fill_sched(t->tid, &ce, e) || fill_sched_more(t->tid, &ce, &cpus, t->tsc, t->mce_kill, e))
		goto out;
	if (own)
		ce.thread_creds = &tcr;
	if (img_write_one(c->dirfd, IMG_CORE, t->tid, &ce.base, e))
		goto out;
	ret = dump_created(c, IMG_CORE, t->tid, e);
out:
	dump_seccomp_free(ce.seccomp);
	proc_status_free(&tst);
	free(pend.v), free(pend.raw);
	return ret;
}
