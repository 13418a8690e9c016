/*
 * Seizing a whole tree that keeps changing while it is seized: tasks fork, exit, exec, become zombies,
 * threads come and go. Top-down: a task, all its threads, then its children (read once the task is stopped:
 * it cannot fork any more). A task of the tree that exits before it stops is dropped (a zombie now, or gone
 * if its parent does not wait for children); only the root's exit fails the dump. Once every task is stopped,
 * the tree is read again (threads, children, parents, states): new children are seized, and a tree that
 * changed under us (a stopped task killed, a thread's exec) is released and seized again, until a pass finds
 * it stable or the time is up (one error line).
 */
#define LOG_PREFIX "seize: "
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "arch.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "dump.h"

/* A tree that is still not stable after this long fails the dump. */
#define SEIZE_STABLE_MS 20000
/* A main thread that ended while other threads live is an exec by one of them in progress, which ends within
 * moments (the other threads are killed), or a pthread_exit in main, which stays: this long and it is that.
 */
#define SEIZE_LEADER_DEAD_MS 2000

/* ---------------- threads ---------------- */

static bool thread_known(const struct dump_ctx *c, pid_t tid)
{
	if (tid == c->pid)
		return true;
	for (size_t i = 0; i < c->nth; i++)
		if (c->th[i].tid == tid)
			return true;
	return false;
}

/* A thread that is gone, or dead and only still listed (zombie, exiting). */
static bool thread_dead(pid_t pid, pid_t tid)
{
	char buf[256];
	const char *p = proc_stat_comm_end(pid, tid, buf, sizeof(buf));
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x';
}

/* seize_thread_scan: a thread seized but gone before its stop could be waited for (ECHILD): it exec'ed, and
 * took the process's PID (the leader we hold is gone); only a new seize of the task is right. */
#define THREADS_EXEC (-2)

/* Seize every thread but the leader (already seized) that is not seized yet. Returns the number of unknown
 * threads this scan met, seized or gone meanwhile: one that exited before we got it may have started
 * another; THREADS_EXEC (see above), -1 on error. */
static int seize_thread_scan(struct dump_ctx *c, struct cr_err *e)
{
	char path[64];
	int found = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", c->pid);
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return cr_fail_errno(e, ESRCH, "task %d is gone", c->pid);
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid <= 0 || thread_known(c, tid))
			continue;
		if (c->nth == c->th_cap) {
			size_t ncap = c->th_cap ? c->th_cap * 2 : 8;
			void *n = realloc(c->th, ncap * sizeof(*c->th));
			if (!n)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			c->th = n;
			c->th_cap = ncap;
		}
		struct dump_thread *t = &c->th[c->nth];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		found++;
		if (seize_task(tid, &t->s, e)) {
			/* it exited meanwhile (EPERM: a thread already dead, not yet gone from the list) */
			if (e->errnum == ESRCH || (e->errnum == EPERM && thread_dead(c->pid, tid))) {
				pr_debug("task %d: thread %d ended while it was seized\n", c->pid, tid);
				cr_err_clear(e);
				continue;
			}
			if (e->errnum == ECHILD) {
				pr_debug("task %d: thread %d exec'ed while it was seized\n", c->pid, tid);
				cr_err_clear(e);
				return THREADS_EXEC;
			}
			return cr_wrap(e, "thread %d", tid);
		}
		c->nth++;
	}
	return found;
}

/* Scan /proc/PID/task again until a scan finds no new thread (a running thread may create threads until it
 * is stopped). */
static int seize_threads(struct dump_ctx *c, struct cr_err *e)
{
	for (int round = 0; round < 1000; round++) {
		int r = seize_thread_scan(c, e);
		if (r <= 0)
			return r;
	}
	return cr_fail_errno(e, EBUSY, "task %d keeps creating threads", c->pid);
}

void seize_release_threads(struct dump_ctx *c)
{
	struct cr_err e2;
	for (size_t i = 0; i < c->nth; i++) {
		struct dump_thread *t = &c->th[i];
		if (t->s.attached && t->regs_ok)
			arch_set_gpregs(t->tid, t->regs_resume, &e2);
		seize_release(&t->s, &e2);
	}
}

void seize_release_task(struct dump_ctx *c)
{
	struct cr_err e2;
	seize_release_threads(c);
	if (c->s.attached && c->regs_ok)
		arch_set_gpregs(c->pid, c->regs_resume, &e2);
	seize_release(&c->s, &e2);
}

/* ---------------- the tree ---------------- */

bool dump_tree_has(const struct dump_tree *tr, pid_t pid)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->c[i].pid == pid)
			return true;
	return false;
}

int dump_tree_add(struct dump_tree *tr, struct cr_opts *o, pid_t pid, pid_t ppid, struct cr_err *e)
{
	if (tr->n == tr->cap) {
		size_t ncap = tr->cap ? tr->cap * 2 : 8;
		void *n = realloc(tr->c, ncap * sizeof(*tr->c));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		tr->c = n;
		tr->cap = ncap;
	}
	struct dump_ctx *c = &tr->c[tr->n];
	memset(c, 0, sizeof(*c));
	c->o = o, c->pid = pid, c->ppid = ppid, c->dirfd = o->imgdir_fd, c->root = tr->n == 0;
	c->shm = tr->shm, c->fdsh = tr->fdsh, c->ipc_shm = tr->ipc_shm, c->trk = tr->trk, c->px = tr->px;
	c->mmt = tr->mmt;
	tr->n++;
	return 0;
}

/* The state letter of a task from /proc/PID/stat, 0 when it is gone. */
static char stat_state(pid_t pid, struct proc_stat *st)
{
	struct cr_err e;
	if (proc_parse_stat(pid, st, &e))
		return 0;
	return st->state;
}

/* A zombie leader whose other threads still live (stat field 20, the thread count, counts the leader until
 * it is reaped): not a dead process but one in the middle of an exec by another thread (or whose main thread
 * called pthread_exit). */
static bool leader_only_dead(const struct proc_stat *st)
{
	return st->state == 'Z' && st->f[20] > 1;
}

#define WHY_LEADER_DEAD "a process's main thread ended while its other threads live (an exec by a thread?)"

/* Task idx of the tree (not the root) ended before it was stopped: a zombie now (*dropped false), or gone
 * (its parent does not wait for its children: *dropped true, removed from the tree). 0, 2 if only its main
 * thread ended (WHY_LEADER_DEAD), or -1 if it is alive after all (e keeps the seize error). */
static int child_ended(struct dump_tree *tr, size_t idx, bool *dropped)
{
	struct dump_ctx *c = &tr->c[idx];
	struct proc_stat st;
	char s = stat_state(c->pid, &st);
	*dropped = false;
	if (s == 'Z' && leader_only_dead(&st))
		return 2;
	if (s == 'Z') {
		c->zombie = true;
		c->exit_code = (int)st.f[52];
		pr_info("task %d (child of %d) exited while it was seized: a zombie, exit code %#x\n", c->pid,
			c->ppid, c->exit_code);
		return 0;
	}
	if (s && s != 'X')
		return -1;
	pr_info("task %d (child of %d) exited while it was seized and is gone\n", c->pid, c->ppid);
	memmove(c, c + 1, (tr->n - idx - 1) * sizeof(*c));
	tr->n--;
	*dropped = true;
	return 0;
}

/* The children of every thread of tree task idx (seized: the set cannot change any more); *added: how many
 * were new. 0, 2 for a child in the middle of an exec by a thread (WHY_LEADER_DEAD), -1 on error. */
static int add_children(struct dump_tree *tr, size_t idx, size_t *added, struct cr_err *e)
{
	size_t nth = tr->c[idx].nth;
	pid_t pid = tr->c[idx].pid;
	for (size_t k = 0; k <= nth; k++) {
		pid_t tid = k ? tr->c[idx].th[k - 1].tid : pid;
		char name[64];
		__cleanup_free char *ch = NULL;
		snprintf(name, sizeof(name), "task/%d/children", tid);
		if (proc_read(pid, name, &ch, NULL, e)) {
			if (k) { /* a thread that is gone now: the tree changed, seen by seize_verify */
				cr_err_clear(e);
				continue;
			}
			return cr_wrap(e, "task %d", pid);
		}
		for (char *p = ch, *end; *p; p = end) {
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v <= 0 || dump_tree_has(tr, (pid_t)v))
				continue;
			if (dump_tree_add(tr, tr->c[idx].o, (pid_t)v, pid, e))
				return -1;
			(*added)++;
			struct dump_ctx *c = &tr->c[tr->n - 1];
			if (!stat_state(c->pid, &c->stat)) { /* reaped by a thread of its parent meanwhile */
				tr->n--;
				continue;
			}
			if (leader_only_dead(&c->stat))
				return 2;
			if (c->stat.state == 'Z') {
				c->zombie = true;
				c->exit_code = (int)c->stat.f[52];
			}
		}
	}
	return 0;
}

/* Seize task idx of the tree with all its threads: 0, 1 when it ended first (a zombie now or dropped:
 * *dropped), 2 when only its main thread ended (WHY_LEADER_DEAD), -1 on error. */
static int seize_one(struct dump_tree *tr, size_t idx, bool *dropped, struct cr_err *e)
{
	struct dump_ctx *c = &tr->c[idx];
	*dropped = false;
	/* (a child that ended since add_children met it: PTRACE_SEIZE says ESRCH, or EPERM to a zombie) */
	if (seize_task(c->pid, &c->s, e)) {
		/* a thread of it exec'ed while it was seized: its pid is that thread's now, which we do not
		 * trace (the wait says ECHILD); seize the tree again */
		if (e->errnum == ECHILD) {
			pr_debug("task %d: a thread exec'ed while it was seized\n", c->pid);
			cr_err_clear(e);
			return 2;
		}
		/* gone (ESRCH), exited before the stop (ESRCH) or a zombie (EPERM) */
		int k =
		    idx && (e->errnum == ESRCH || e->errnum == EPERM) ? child_ended(tr, idx, dropped) : -1;
		if (k >= 0) {
			cr_err_clear(e);
			return k ? k : 1;
		}
		return -1;
	}
	int th = seize_threads(c, e);
	if (th == THREADS_EXEC)
		return 2;
	if (th < 0)
		return -1;
	if (c->nth)
		pr_debug("task %d: %zu more threads seized\n", c->pid, c->nth);
	return 0;
}

/* Everything is stopped: is the tree still what we seized? 0 yes, 1 no (*why), -1 on error. New children are
 * added to the tree (*added). */
static int seize_verify(struct dump_tree *tr, size_t *added, const char **why, struct cr_err *e)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct dump_ctx *c = &tr->c[i];
		/* c->stat of the last pass, once every task is stopped, is the dump's (fields 5-8, 19, 22,
		 * 24-28, 38, 45-52: none changes while it is stopped) */
		struct proc_stat *st = &c->stat;
		char s = stat_state(c->pid, st);
		if (c->zombie) {
			if (s != 'Z') {
				*why = "a zombie was reaped";
				return 1;
			}
			continue;
		}
		if (s != 't') {
			*why = s ? "a seized task left its stop" : "a seized task is gone";
			return 1;
		}
		if (i && st->f[4] != c->ppid) {
			*why = "a task got a new parent";
			return 1;
		}
		for (size_t k = 0; k < c->nth; k++)
			if (c->th[k].s.attached && thread_dead(c->pid, c->th[k].tid)) {
				*why = "a seized thread is gone";
				return 1;
			}
		/* (no thread is made while all are stopped: with as many threads as seized, none is new and
		 * the list is not read again; stat field 20 is the count) */
		int r = st->f[20] == (int64_t)c->nth + 1 ? 0 : seize_thread_scan(c, e);
		if (r == THREADS_EXEC) {
			*why = WHY_LEADER_DEAD;
			return 1;
		}
		if (r < 0)
			return -1;
		if (r > 0) {
			*why = "new threads";
			return 1;
		}
		int r2 = add_children(tr, i, added, e);
		if (r2 == 2)
			*why = WHY_LEADER_DEAD;
		if (r2)
			return r2 < 0 ? -1 : 1;
	}
	return 0;
}

/* Let every task of the tree go and keep only the root's entry, empty, for the next round. */
static void seize_reset(struct dump_tree *tr)
{
	for (size_t i = tr->n; i-- > 0;) {
		struct dump_ctx *c = &tr->c[i];
		seize_release_task(c);
		free(c->th);
		c->th = NULL;
		c->nth = c->th_cap = 0;
		if (i)
			proc_status_free(&c->st);
	}
	struct dump_ctx *root = &tr->c[0];
	memset(&root->s, 0, sizeof(root->s));
	root->zombie = false;
	tr->n = 1;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* One round: 0 stable, 1 changed (why), -1 on error. */
static int seize_round(struct dump_tree *tr, const char **why, struct cr_err *e)
{
	size_t from = 0;
	for (int pass = 0; pass < 1000; pass++) {
		for (size_t i = from; i < tr->n; i++) {
			bool dropped;
			if (tr->c[i].zombie)
				continue;
			int r = seize_one(tr, i, &dropped, e);
			if (r == 0) {
				size_t added = 0;
				r = add_children(tr, i, &added, e);
			}
			if (r < 0)
				return -1;
			if (r == 2) {
				*why = WHY_LEADER_DEAD;
				return 1;
			}
			if (dropped)
				i--;
		}
		from = tr->n;
		size_t added = 0;
		int r = seize_verify(tr, &added, why, e);
		if (r || !added)
			return r;
		pr_debug("tree of task %d: %zu new children met once it was stopped\n", tr->c[0].pid, added);
	}
	*why = "it keeps growing";
	return 1;
}

/* The process of the tree whose main thread ended while its other threads live, 0 if none (any more). */
static pid_t leader_dead_pid(const struct dump_tree *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct proc_stat st;
		if (stat_state(tr->c[i].pid, &st) == 'Z' && leader_only_dead(&st))
			return tr->c[i].pid;
	}
	return 0;
}

int seize_tree(struct dump_tree *tr, struct cr_err *e)
{
	struct timespec t0, ld_t0 = {0, 0};
	pid_t ld_pid = 0; /* leader_dead_pid since ld_t0 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int round = 1;; round++) {
		const char *why = "";
		int r = seize_round(tr, &why, e);
		if (r <= 0) {
			if (!r && tr->n > 1)
				pr_info("tree of task %d: %zu processes%s\n", tr->c[0].pid, tr->n,
					round > 1 ? " (stable after a new seize)" : "");
			return r;
		}
		pr_info("tree of task %d changed while it was seized (%s): seizing it again\n", tr->c[0].pid,
			why);
		pid_t ld = !strcmp(why, WHY_LEADER_DEAD) ? leader_dead_pid(tr) : 0;
		if (ld && ld == ld_pid && ms_since(&ld_t0) > SEIZE_LEADER_DEAD_MS) {
			seize_reset(tr);
			return cr_fail_errno(
			    e, ENOTSUP,
			    "task %d: its main thread ended (pthread_exit) while its other threads "
			    "live, for %.1f s: not supported",
			    ld, (double)ms_since(&ld_t0) / 1000);
		}
		if (ld != ld_pid) {
			ld_pid = ld;
			clock_gettime(CLOCK_MONOTONIC, &ld_t0);
		}
		seize_reset(tr);
		long ms = ms_since(&t0);
		if (ms > SEIZE_STABLE_MS)
			return cr_fail_errno(
			    e, EBUSY,
			    "tree of task %d keeps changing while it is seized (%s): not stable "
			    "after %d rounds in %.1f s",
			    tr->c[0].pid, why, round, (double)ms / 1000);
		struct timespec nap = {0, (round < 50 ? round : 50) * 1000000L};
		nanosleep(&nap, NULL);
	}
}
