/* Restore: the per-task part of the blob's args: signal dispositions, sigaltstack, pending signals, rseq,
 * robust list, itimers, POSIX timers, rlimits and the prctl values the blob sets (after creds). */
#define LOG_PREFIX "restore: "
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "base/log.h"
#include "base/proc.h"
#include "restore.h"
#include "task/seccomp.h"
#include "task/timer-list.h"

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

size_t rst_task_seccomp_common(const struct rst_task *t)
{
	const SeccompEntry *lead = t->core->seccomp;
	size_t k = rst_seccomp_common(lead, NULL, 0);
	for (size_t i = 0; i < t->nr_tcores; i++) {
		const SeccompEntry *th = t->tcores[i]->seccomp;
		size_t j = rst_seccomp_common(lead, &th, 1);
		k = j < k ? j : k;
	}
	return k;
}

/* The filters of s from the shared ones on, which the blob installs: bytes, and copied to *p (moved on). */
static size_t seccomp_bytes(const SeccompEntry *s, size_t from)
{
	size_t n = 0;
	for (const SeccompFilterEntry *f; (f = rst_seccomp_filter(s, from)); from++)
		n += sizeof(struct rst_seccomp) + align8(f->insns.len);
	return n;
}

static int fill_seccomp(const SeccompEntry *s, size_t from, uint8_t **p, uint64_t *where, uint32_t *nr,
			struct cr_err *e)
{
	size_t n = 0;
	while (rst_seccomp_filter(s, from + n))
		n++;
	struct rst_seccomp *v = (struct rst_seccomp *)(void *)*p;
	*p += n * sizeof(*v);
	*where = (uint64_t)(uintptr_t)v, *nr = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		const SeccompFilterEntry *f = rst_seccomp_filter(s, from + i);
		if (!f->insns.len || f->insns.len % 8 || f->insns.len > 0xffff * 8)
			return cr_fail_errno(e, EBADMSG, "a seccomp filter of %zu bytes", f->insns.len);
		memcpy(*p, f->insns.data, f->insns.len);
		v[i] = (struct rst_seccomp){(uint64_t)(uintptr_t)*p, (uint32_t)(f->insns.len / 8),
					    (uint32_t)(f->has_flags ? f->flags : 0)};
		*p += align8(f->insns.len);
	}
	return 0;
}

/* Room for the timers: those of the image, and one per pending siginfo (a deleted timer's, timer_of). */
static size_t timer_slots(const struct rst_task *t)
{
	size_t n = t->core->n_posix_timers + t->core->n_pending + t->core->n_pending_shared;
	for (size_t i = 0; i < t->nr_tcores; i++)
		n += t->tcores[i]->n_pending;
	return n;
}

size_t rst_task_bytes(const struct rst_task *t)
{
	const CoreEntry *c = t->core;
	size_t k = rst_task_seccomp_common(t);
	size_t n = align8(timer_slots(t) * sizeof(struct rst_timer)) + seccomp_bytes(c->seccomp, k);
	n += (c->n_pending + c->n_pending_shared) * RST_SIGINFO_SIZE;
	if (t->creds)
		n += align8(t->creds->n_groups * sizeof(uint32_t));
	for (size_t i = 0; i < t->nr_tcores; i++) {
		const CredsEntry *tc = t->tcores[i]->thread_creds;
		n += sizeof(struct rst_thread) + t->tcores[i]->n_pending * RST_SIGINFO_SIZE +
		     RST_THREAD_STACK + seccomp_bytes(t->tcores[i]->seccomp, k);
		if (tc)
			n += sizeof(struct rst_creds) + align8(tc->n_groups * sizeof(uint32_t));
	}
	return n + 128;
}

static int fill_sigacts(struct rst_task *t, struct cr_err *e)
{
	struct rst_args *a = t->args;
	memset(a->sigact, 0, sizeof(a->sigact)); /* SIG_DFL for the signals the image does not list */
	for (size_t i = 0; i < t->nr_sigacts; i++) {
		const SigactionEntry *s = t->sigacts[i];
		if (s->signo < 1 || s->signo > RST_NSIG)
			return cr_fail_errno(e, EBADMSG, "sigacts-%d.img: bad signal %d", t->pid, s->signo);
		a->sigact[s->signo - 1] = (struct rst_sigaction){s->handler, s->flags, s->restorer, s->mask};
	}
	return 0;
}

/* The POSIX timer (of t->args->timers, filled first) whose own signal si is: Linux queues one per timer,
 * si_code SI_TIMER and si_timerid its id, to the process (SIGEV_SIGNAL) or to the thread it names. That timer
 * queues it again at restore (restorer.c restore_timers): as a plain siginfo it would be delivered after the
 * timer is disarmed, re-armed or deleted, which the kernel drops (Linux 6.13+), and without the expiries
 * missed until it is taken (si_overrun). The signal of a timer deleted since it queued it (no timer of that
 * id; or the timer of that id, made since, has another number, another target, or its own signal pending
 * already) is stale: a timer of that id, added to the list (gone; 2: before the one of its id is made),
 * queues it to where it was (tid, 0: the process) and is deleted. NULL: none (a plain siginfo, crshim's copy
 * of a timer's signal among them: RST_SI_COPY_MAGIC). */
static struct rst_timer *timer_of(const struct rst_task *t, const uint8_t *si, int32_t tid)
{
	struct rst_timer *rt = (struct rst_timer *)(uintptr_t)t->args->timers;
	uint32_t live = (uint32_t)t->core->n_posix_timers, i;
	int32_t signo, code, id;
	memcpy(&signo, si, sizeof(signo));
	memcpy(&code, si + 8, sizeof(code));
	memcpy(&id, si + 16, sizeof(id)); /* si_timerid */
	uint64_t copy;
	memcpy(&copy, si + RST_SI_COPY_AT, sizeof(copy));
	if (code != SI_TIMER || copy == RST_SI_COPY_MAGIC) /* (crshim's copy: a plain siginfo) */
		return NULL;
	for (i = 0; i < live && rt[i].id != id; i++)
		;
	if (i < live && rt[i].signo == signo && !rt[i].pending &&
	    (rt[i].notify == SIGEV_SIGNAL
		 ? !tid
		 : rt[i].notify == (SIGEV_SIGNAL | 4 /* SIGEV_THREAD_ID */) && rt[i].notify_tid == tid))
		return &rt[i];
	int shadowed = i < live;
	i = t->args->nr_timers;
	if (i >= timer_slots(t))
		return NULL;
	rt[i] = (struct rst_timer){.id = id,
				   .clock_id = CLOCK_MONOTONIC,
				   .notify = tid ? 4 /* SIGEV_THREAD_ID */ : SIGEV_SIGNAL,
				   .signo = signo,
				   .notify_tid = tid,
				   .gone = shadowed ? 2 : 1};
	memcpy(&rt[i].sival, si + 24, sizeof(rt[i].sival)); /* si_value */
	t->args->nr_timers++;
	return &rt[i];
}

/* The siginfos of v (queued to thread tid, 0: the process) to *buf (moved on), in their order: those a timer
 * queues again as a mark (si_signo RST_SI_TIMER, si_errno the timer's index), which the blob's walk of the
 * queue has that timer queue there, between the same ordinary ones (the order of signals of one number). */
static int copy_siginfos(const struct rst_task *t, ProtobufCBinaryData *v, size_t n, int32_t tid,
			 uint8_t **buf, uint64_t *where, uint32_t *nr)
{
	const struct rst_timer *rt = (const struct rst_timer *)(uintptr_t)t->args->timers;
	*where = (uint64_t)(uintptr_t)*buf;
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].len != RST_SIGINFO_SIZE)
			return -1;
		struct rst_timer *tm = timer_of(t, v[i].data, tid);
		memcpy(*buf, v[i].data, RST_SIGINFO_SIZE);
		if (tm) {
			int32_t mark[2] = {RST_SI_TIMER, (int32_t)(tm - rt)}; /* si_signo, si_errno */
			tm->pending = 1;
			memcpy(*buf, mark, sizeof(mark));
		}
		*buf += RST_SIGINFO_SIZE;
		(*nr)++;
	}
	return 0;
}

/* setitimer() of ITIMER_VIRTUAL/PROF adds one scheduler tick to the value (the kernel's TICK_NSEC), so
 * each dump/restore round would make the timer later by a tick. Measure that tick once on ourselves. */
static int64_t cpu_itimer_tick_us(void)
{
	static int64_t tick = -1;
	struct itimerval old, set = {{0, 0}, {100, 0}}, got;
	if (tick >= 0)
		return tick;
	tick = 0;
	if (setitimer(ITIMER_PROF, &set, &old))
		return tick;
	if (!getitimer(ITIMER_PROF, &got)) {
		int64_t d = ((int64_t)got.it_value.tv_sec - 100) * 1000000 + got.it_value.tv_usec;
		if (d > 0 && d < 100000)
			tick = d;
	}
	setitimer(ITIMER_PROF, &old, NULL);
	return tick;
}

static void cpu_itimer_compensate(struct rst_itimer *r)
{
	int64_t v = r->vsec * 1000000 + r->vusec, tick = cpu_itimer_tick_us();
	if (!v || !tick)
		return;
	v = v > tick ? v - tick : 1;
	r->vsec = v / 1000000;
	r->vusec = v % 1000000;
}

/* The expiry of timer p the dump read (its clock's time in the task plus the time left), kept for a clock
 * that runs on: a wall clock, or a monotonic one on the same boot (in the task's time namespace, which the
 * restore gives back); a CPU-time clock starts again at 0. 0: none (armed with the time left, as CRIU does,
 * which moves the expiry on by the time between the dump and the restore). */
static int64_t timer_expiry(const PosixTimerEntry *p, const char *boot)
{
	if (!p->has_now_sec || !p->has_now_nsec || (!p->vsec && !p->vnsec))
		return 0;
	switch (p->clock_id) {
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		if (!p->boot_id || !*boot || strcmp(p->boot_id, boot))
			return 0;
		/* fall through */
	case CLOCK_REALTIME:
	case CLOCK_TAI:
	case CLOCK_REALTIME_ALARM:
		return timer_ns_sum(p->now_sec, p->now_nsec, (int64_t)p->vsec, (int64_t)p->vnsec);
	default:
		return 0;
	}
}

static void fill_timers(struct rst_task *t, struct rst_timer *rt)
{
	char boot[40] = "";
	if (proc_read_small("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) <= 0)
		*boot = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	const CoreEntry *c = t->core;
	const ItimerEntry *it[3] = {c->itimer_real, c->itimer_virt, c->itimer_prof};
	struct rst_args *a = t->args;
	for (int w = 0; w < 3; w++) {
		if (!it[w])
			continue;
		struct rst_itimer *r = &a->itimer[w];
		*r = (struct rst_itimer){(int64_t)it[w]->isec, (int64_t)it[w]->iusec, (int64_t)it[w]->vsec,
					 (int64_t)it[w]->vusec};
		/* Expired with its signal still pending: the kernel re-arms it when the signal is taken,
		 * which a restored pending signal does not do. Arm it one interval ahead instead of disarming
		 * it. */
		if (!r->vsec && !r->vusec && (r->isec || r->iusec)) {
			r->vsec = r->isec;
			r->vusec = r->iusec;
		}
		if (w != ITIMER_REAL)
			cpu_itimer_compensate(r);
	}
	a->timers = (uint64_t)(uintptr_t)rt;
	a->nr_timers = (uint32_t)c->n_posix_timers;
	for (size_t i = 0; i < c->n_posix_timers; i++) {
		const PosixTimerEntry *p = c->posix_timers[i];
		rt[i] = (struct rst_timer){.id = p->id,
					   .clock_id = p->clock_id,
					   .notify = p->notify,
					   .signo = p->signo,
					   .notify_tid = rst_pidns_vid(t, p->notify_tid),
					   .sival = p->sival,
					   .isec = (int64_t)p->isec,
					   .insec = (int64_t)p->insec,
					   .vsec = (int64_t)p->vsec,
					   .vnsec = (int64_t)p->vnsec,
					   .overrun = p->has_overrun ? p->overrun : 0,
					   .pend_overrun = p->has_pending_overrun ? p->pending_overrun : 0,
					   .at = timer_expiry(p, boot),
					   .rel = p->has_relative && p->relative &&
						  p->clock_id == CLOCK_REALTIME};
		if (!rt[i].vsec && !rt[i].vnsec && (rt[i].isec || rt[i].insec)) { /* see the itimers above */
			rt[i].vsec = rt[i].isec;
			rt[i].vnsec = rt[i].insec;
		}
		/* on the CPU-time clock of the thread that made it, not the first: made on that thread's */
		if (p->has_cpu_tid && p->cpu_tid)
			rt[i].clock_id = (int32_t)(~(uint32_t)rst_pidns_vid(t, p->cpu_tid) << 3 | 6);
		/* SIGEV_THREAD_ID without a thread: the task itself */
		if (p->notify_tid == 0 && p->notify == 4 /* SIGEV_THREAD_ID */)
			rt[i].notify_tid = rst_pidns_vid(t, t->pid);
	}
}

static void fill_mpol(const CoreEntry *c, struct rst_mpol *m)
{
	memset(m, 0, sizeof(*m));
	if (!c->has_mempolicy)
		return;
	m->has = 1, m->mode = c->mempolicy;
	if (c->has_mempolicy_nodes)
		memcpy(m->nodes, c->mempolicy_nodes.data,
		       c->mempolicy_nodes.len < sizeof(m->nodes) ? c->mempolicy_nodes.len : sizeof(m->nodes));
}

static void fill_misc(struct rst_task *t)
{
	const CoreEntry *c = t->core;
	struct rst_args *a = t->args;
	a->pid = t->vpid ? t->vpid : t->pid; /* as the task sees itself (its PID namespace) */
	if (c->rseq && c->rseq->ptr) {
		a->has_rseq = 1;
		a->rseq_ptr = c->rseq->ptr;
		a->rseq_len = c->rseq->len;
		a->rseq_flags = c->rseq->flags;
		a->rseq_sig = c->rseq->sig;
	}
	if (c->robust_list) {
		a->has_robust = 1;
		a->robust_list = c->robust_list;
		a->robust_len = c->robust_len;
	}
	a->tid_address = c->tid_address;
	if (c->sas) {
		a->has_sas = 1;
		a->sas_sp = c->sas->sp;
		a->sas_size = c->sas->size;
		a->sas_flags = c->sas->flags;
	}
	for (size_t i = 0; i < c->n_rlimits; i++) {
		const RlimitEntry *r = c->rlimits[i];
		if (r->resource >= RST_NR_RLIMITS || !r->has_cur || !r->has_max)
			continue;
		a->rlimit[r->resource] = (struct rst_rlimit){r->cur, r->max};
		a->has_rlimit[r->resource] = 1;
	}
	a->nr_rlimits = RST_NR_RLIMITS;
	a->pdeathsig = c->pdeathsig;
	if (t->root && t->detached && !t->sibling && c->pdeathsig) { /* see restore.h */
		pr_warn("task %d: its parent death signal %d is not armed: its parent is outside the tree, "
			"and at restore (-d) it would be crshim, which exits now\n",
			t->pid, c->pdeathsig);
		a->pdeathsig = 0;
	}
	a->dumpable = c->has_dumpable ? c->dumpable : -1;
	a->no_new_privs = c->no_new_privs;
	a->tsc = c->has_tsc ? c->tsc : 0;
	a->has_mce = c->has_mce_kill, a->mce_kill = c->mce_kill;
	a->cpuid_fault = c->has_cpuid_faulting && c->cpuid_faulting;
	a->mdwe = c->has_mdwe ? c->mdwe : 0;
	fill_mpol(c, &a->mpol);
}

/* A thread's own task flags (an image without them: the leader's no_new_privs, no parent death signal). */
static void fill_thread_misc(const struct rst_task *t, const CoreEntry *c, struct rst_thread *h)
{
	h->no_new_privs = c->has_no_new_privs ? c->no_new_privs : t->args->no_new_privs;
	h->pdeathsig = c->pdeathsig;
	if (t->root && t->detached && !t->sibling) /* as the leader's (fill_misc) */
		h->pdeathsig = 0;
	h->timerslack = c->timerslack_ns;
	h->tsc = c->has_tsc ? c->tsc : 0;
	h->has_mce = c->has_mce_kill, h->mce_kill = c->mce_kill;
	h->cpuid_fault = c->has_cpuid_faulting && c->cpuid_faulting;
	fill_mpol(c, &h->mpol);
}

static struct rst_creds creds_of(const CredsEntry *c, uint32_t *groups)
{
	if (c->n_groups) /* memcpy from NULL is undefined even for 0 bytes (UBSan) */
		memcpy(groups, c->groups, c->n_groups * sizeof(uint32_t));
	return (struct rst_creds){
	    .uid = c->uid,
	    .euid = c->euid,
	    .suid = c->suid,
	    .fsuid = c->fsuid,
	    .gid = c->gid,
	    .egid = c->egid,
	    .sgid = c->sgid,
	    .fsgid = c->fsgid,
	    .cap_inh = c->cap_inh,
	    .cap_prm = c->cap_prm,
	    .cap_eff = c->cap_eff,
	    .cap_amb = c->cap_amb,
	    .securebits = c->securebits,
	    .nr_groups = rst_groups_are_own(c->groups, c->n_groups) ? RST_GROUPS_KEEP : (uint32_t)c->n_groups,
	    .groups = (uint64_t)(uintptr_t)groups};
}

static void fill_creds(struct rst_task *t, uint32_t *groups)
{
	if (!t->creds)
		return;
	t->args->has_creds = 1;
	t->args->creds = creds_of(t->creds, groups);
}

/* A thread with credentials of its own: they and its groups at *p (moved on); what its bounding set lacks
 * of the process's (the leader's, already applied by the restoring child) is dropped by the thread. */
static void fill_thread_creds(const struct rst_task *t, const CredsEntry *c, struct rst_thread *h,
			      uint8_t **p)
{
	struct rst_creds *rc = (struct rst_creds *)(void *)*p;
	uint32_t *groups = (uint32_t *)(void *)(rc + 1);
	*rc = creds_of(c, groups);
	*p = (uint8_t *)groups + align8(c->n_groups * sizeof(uint32_t));
	h->creds = (uint64_t)(uintptr_t)rc;
	if (t->creds && t->creds->has_cap_bnd && c->has_cap_bnd)
		h->cap_bnd_drop = t->creds->cap_bnd & ~c->cap_bnd;
}

static uint8_t *align_ptr(uint8_t *p, size_t a)
{
	return (uint8_t *)(((uintptr_t)p + a - 1) & ~(uintptr_t)(a - 1));
}

/* The other threads: their state, pending signals and stacks. */
static int fill_threads(struct rst_task *t, uint8_t *p, size_t k, struct cr_err *e)
{
	struct rst_args *a = t->args;
	struct rst_thread *th = (struct rst_thread *)(void *)align_ptr(p, 64);
	p = (uint8_t *)(th + t->nr_tcores);
	a->threads = (uint64_t)(uintptr_t)th;
	a->nr_threads = (uint32_t)t->nr_tcores;
	for (size_t i = 0; i < t->nr_tcores; i++) {
		const CoreEntry *c = t->tcores[i];
		struct rst_thread *h = &th[i];
		memset(h, 0, sizeof(*h));
		rst_pidns_thread(t, i + 1, h); /* its tid as the task sees it, set_tid */
		if (c->sas) {
			h->has_sas = 1;
			h->sas_sp = c->sas->sp;
			h->sas_size = c->sas->size;
			h->sas_flags = c->sas->flags;
		}
		if (c->rseq && c->rseq->ptr) {
			h->has_rseq = 1;
			h->rseq_ptr = c->rseq->ptr;
			h->rseq_len = c->rseq->len;
			h->rseq_sig = c->rseq->sig;
		}
		if (c->robust_list) {
			h->has_robust = 1;
			h->robust_list = c->robust_list;
			h->robust_len = c->robust_len;
		}
		h->tid_address = c->tid_address;
		fill_thread_misc(t, c, h);
		if (c->thread_creds)
			fill_thread_creds(t, c->thread_creds, h, &p);
		if (c->comm)
			strncpy(h->comm, c->comm, sizeof(h->comm) - 1);
		if (copy_siginfos(t, c->pending, c->n_pending, h->tid, &p, &h->pending, &h->nr_pending))
			return cr_fail_errno(e, EBADMSG, "core-%d.img: a pending siginfo is not %d bytes",
					     h->tid, RST_SIGINFO_SIZE);
		if (fill_seccomp(c->seccomp, k, &p, &h->seccomp, &h->nr_seccomp, e))
			return cr_wrap(e, "core-%d.img", h->tid);
	}
	p = align_ptr(p, 64);
	for (size_t i = 0; i < t->nr_tcores; i++) {
		p += RST_THREAD_STACK;
		th[i].stack_top = (uint64_t)(uintptr_t)p;
	}
	return 0;
}

int rst_args_task(struct rst_task *t, void *buf, struct cr_err *e)
{
	const CoreEntry *c = t->core;
	uint8_t *p = buf;
	if (fill_sigacts(t, e))
		return -1;
	fill_timers(t, (struct rst_timer *)p);
	p += align8(timer_slots(t) * sizeof(struct rst_timer));
	if (copy_siginfos(t, c->pending, c->n_pending, rst_pidns_vid(t, t->pid), &p, &t->args->pending,
			  &t->args->nr_pending) ||
	    copy_siginfos(t, c->pending_shared, c->n_pending_shared, 0, &p, &t->args->pending_shared,
			  &t->args->nr_pending_shared))
		return cr_fail_errno(e, EBADMSG, "core-%d.img: a pending siginfo is not %d bytes", t->pid,
				     RST_SIGINFO_SIZE);
	fill_misc(t);
	fill_creds(t, (uint32_t *)p);
	if (t->creds)
		p += align8(t->creds->n_groups * sizeof(uint32_t));
	size_t k = rst_task_seccomp_common(t);
	if (fill_seccomp(c->seccomp, k, &p, &t->args->seccomp, &t->args->nr_seccomp, e))
		return cr_wrap(e, "core-%d.img", t->pid);
	if (t->nr_tcores && fill_threads(t, p, k, e))
		return -1;
	pr_debug("task args: %zu sigactions, %zu timers, %zu+%zu pending signals\n", t->nr_sigacts,
		 c->n_posix_timers, c->n_pending, c->n_pending_shared);
	return 0;
}
