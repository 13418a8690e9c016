/* Sessions and process groups of a restored tree.
 *
 * A process gets its session only by inheriting it at clone time or by setsid(); its group by inheriting
 * it or by setpgid() to a group of its own session that still exists. So the plan decides, for every
 * process of the images, who clones it and when:
 *  - its parent, after the parent's own setsid (the usual case: same session as the parent, or a leader);
 *  - its parent before the parent's setsid, when it is still in the session the parent was born in;
 *  - a session leader of the tree that is its sibling, with CLONE_PARENT (an orphan adopted by a
 *    subreaper, in a session of a living sibling);
 *  - a helper with CLONE_PARENT when its session's leader is gone: the helper takes the dead leader's
 *    PID, calls setsid(), clones the orphans into its session and exits. Its parent reaps it;
 *  - a handover helper when it is an orphan of its PID namespace's init in the session of a living leader
 *    further down (not the init's child): the leader clones a helper (a PID of the kernel's), which clones
 *    the orphan and exits at once; the leader reaps it before it may become a subreaper, so the kernel hands
 *    the orphan to the init (what CRIU's restore does too).
 * A group whose leader is gone gets a helper as well (setpgid(0, 0) in the right session), which stays
 * (alive or as a zombie) until every member has joined; then crshim lets the helpers go.
 * A dead leader that is a zombie of the images (its members adopted by a subreaper) is no helper: it is
 * made like a helper (setsid or setpgid, its members cloned with CLONE_PARENT), then exits with its status;
 * as a zombie it keeps its group and session for the members that join later.
 * When no one process reaches every member of a dead leader's session by clones (their parents lead sessions
 * of their own, each with members of two such sessions: CRIU's session02), the history is played with
 * orphans (plan_cross): the helper, a child of one parent, clones the other parents' members as its own
 * children (or that parent itself, born in the session), and when it exits the kernel hands them to their
 * parent, a subreaper for the time (or of the images, or the PID namespace's init); crshim lets such helpers
 * exit one by one, deepest first, each once the subreapers for the time above it are ready.
 * The passes here visit the tasks in the images' order and take a task's parent as planned already (and
 * rst_pidns_plan looks it up among the tasks before it): restore-load.c refuses images where a
 * parent is not listed before its children, which the dump never writes (seize-tree.c adds a task's children
 * after it, and a tree whose parents changed while it was seized is seized again). */
#define LOG_PREFIX "restore-tree: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "restore.h"

/* Why task t failed, if it said so: the blob's failed step or the child's message (read without waiting). */
int rst_task_reason(struct rst_task *t, struct cr_err *e)
{
	const struct rst_args *a = t->args;
	char msg[600];
	if (a && a->state == RST_FAILED) {
		const char *name = strerrorname_np(a->err_errno);
		return cr_fail_errno(e, a->err_errno, "restorer: %s 0x%llx-0x%llx: %s", a->err_step,
				     (unsigned long long)a->err_a, (unsigned long long)a->err_b,
				     name ? name : "?");
	}
	if (t->err_pipe[0] < 0)
		return 0;
	ssize_t n = read(t->err_pipe[0], msg, sizeof(msg) - 1); /* O_NONBLOCK (restore_run) */
	size_t skip = 0; /* the child's "I am here" (and "my mount namespace stands") */
	while (n > 0 && (size_t)n > skip &&
	       (msg[skip] == RST_BORN_MARK || msg[skip] == RST_STAND_MARK || msg[skip] == RST_ADOPTED_MARK)) {
		/* read here, the mark is gone from the pipe: seize_tree must not wait for it */
		t->born_seen |= msg[skip] == RST_BORN_MARK;
		t->adopt_done |= msg[skip++] == RST_ADOPTED_MARK;
	}
	if (n <= 0 || (size_t)n == skip)
		return 0;
	msg[n] = '\0';
	int sharer, end = 0; /* a process sharing its fd table ended (files/restore-fdtable.c): its reason */
	if (sscanf(msg + skip, "task %d " RST_SHARER_ENDED "%n", &sharer, &end) == 1 && end > 0)
		for (size_t i = 0; i < t->ntree; i++)
			if (t->tree[i].pid == sharer && &t->tree[i] != t && rst_task_reason(&t->tree[i], e))
				return -1;
	return cr_fail_errno(e, 0, "task %d: %s", t->pid, msg + skip);
}

/* Let task t go on (its go pipe). When it is gone already (killed with its PID namespace when another task
 * failed), the failure that killed it is the one to report: the first task that said why. */
int rst_task_go(struct rst_task *t, const char *what, struct cr_err *e)
{
	if (write(t->go_pipe[1], "g", 1) != 1) {
		int err = errno;
		for (size_t i = 0; i < t->ntree; i++)
			if (rst_task_reason(&t->tree[i], e))
				return -1;
		if (t->ntree == 0 && rst_task_reason(t, e))
			return -1;
		return cr_fail_errno(e, err, "%s %d", what, t->pid);
	}
	close(t->go_pipe[1]);
	t->go_pipe[1] = -1;
	return 0;
}

struct rst_task *rst_tree_task(struct rst_task *ts, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rst_ipid(&ts[i]) == pid)
			return &ts[i];
	return NULL;
}

/* The session a task is in right after its clone (-1: not known, outside the tree). */
static int born_sid(struct rst_task *ts, size_t n, const struct rst_task *t)
{
	for (int depth = 0; depth < 4096; depth++) {
		if (t->root)
			return t->pst->sid == t->pid ? -1 : t->pst->sid;
		const struct rst_task *s = rst_tree_task(ts, n, t->spawn_ppid);
		if (!s)
			return -1;
		if (!t->before_setsid)
			return s->pst->sid;
		t = s;
	}
	return -1;
}

static bool has_before_children(const struct rst_task *ts, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (ts[i].spawn_ppid == pid && ts[i].before_setsid)
			return true;
	return false;
}

/* Make session leader x be born in session sid: clone it before its (also leading) parent's setsid. */
static bool want_born(struct rst_task *ts, size_t n, struct rst_task *x, pid_t sid, int depth)
{
	if (born_sid(ts, n, x) == sid)
		return true;
	if (depth > 64 || x->root || x->helper || x->clone_parent || x->pst->sid != x->pid ||
	    has_before_children(ts, n, x->pid))
		return false;
	struct rst_task *p = rst_tree_task(ts, n, x->spawn_ppid);
	if (!p || p->pst->sid != p->pid || !want_born(ts, n, p, sid, depth + 1))
		return false;
	x->before_setsid = true;
	return born_sid(ts, n, x) == sid;
}

/* Add a helper task with PID pid (a dead session or group leader), cloned by spawn (with CLONE_PARENT
 * and before its setsid as the flags say). The array may move. */
static struct rst_task *add_helper(struct rst_task **tsp, size_t *np, pid_t pid, pid_t sid, pid_t vpid,
				   const struct rst_task *like, struct cr_err *e)
{
	char path[32];
	pid_t spawn = like->spawn_ppid;
	bool cp = like->clone_parent, before = like->before_setsid, fresh = like->fresh_hpid;
	bool handover = like->handover; /* (its PID is the kernel's: pid only names it in the plan) */
	/* (like is in the array that the realloc below may move: nothing of it is read after it) */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (!fresh && !handover && !access(path, F_OK)) { /* fresh PIDs: rst_pidns_fresh checks it */
		cr_fail_errno(e, EEXIST, "PID %d (a session or group leader, gone in the images) is in use",
			      pid);
		return NULL;
	}
	struct rst_task *nt = realloc(*tsp, (*np + 1) * sizeof(*nt));
	PstreeEntry *pe = calloc(1, sizeof(*pe));
	if (nt)
		*tsp = nt;
	if (!nt || !pe) {
		free(pe);
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	struct rst_task *h = &nt[(*np)++];
	memset(h, 0, sizeof(*h));
	pstree_entry__init(pe);
	const struct rst_task *sp = rst_tree_task(nt, *np, spawn);
	pe->pid = pid, pe->has_pid = 1;
	pe->sid = sid, pe->has_sid = 1;
	pe->pgid = pid, pe->has_pgid = 1;
	pe->ppid = cp && sp ? sp->pst->ppid : spawn, pe->has_ppid = 1;
	h->pid = pid;
	h->pst = h->own_pst = pe;
	h->helper = true;
	h->dirfd = -1;
	h->pm.pages_fd = -1;
	h->err_pipe[0] = h->err_pipe[1] = h->go_pipe[0] = h->go_pipe[1] = -1;
	h->userns_fd = -1;
	h->spawn_ppid = spawn, h->clone_parent = cp, h->before_setsid = before;
	h->vpid = vpid;
	h->fresh_hpid = fresh;
	h->handover = handover;
	pr_info("helper %d (session %d, group %d) cloned by %d%s%s%s\n", pid, sid, pid, spawn,
		cp ? " with CLONE_PARENT" : "", before ? " before its setsid" : "",
		handover ? ", exits at once (its children go to their namespace's init)" : "");
	return h;
}

/* Ids of the root's session and group that are outside the tree (shell job): not ours to make. */
static bool external_id(const struct rst_task *ts, pid_t id)
{
	const PstreeEntry *r = ts[0].pst;
	return (id == r->sid && r->sid != r->pid) || (id == r->pgid && r->pgid != r->pid);
}

/* Who adopts the children of z when it exits: the nearest subreaper above it, or the init of its PID
 * namespace (NULL: outside the tree). */
static const struct rst_task *orphan_reaper(struct rst_task *ts, size_t n, const struct rst_task *z)
{
	const struct rst_task *x = z;
	for (int depth = 0; depth < 4096; depth++) {
		x = rst_tree_task(ts, n, x->pst->ppid);
		if (!x || x->helper)
			return NULL;
		if ((x->core && x->core->child_subreaper) || x->ns_init)
			return x;
		if (x->root)
			return NULL;
	}
	return NULL;
}

/* A zombie of the images that clones members of its session or group as its own children, which the kernel
 * hands to their reaper (the parent in the images) when it exits: it exits only on crshim's go, once that
 * reaper is a subreaper again. */
bool rst_zombie_hands_over(const struct rst_task *z)
{
	for (size_t i = 0; z->zombie && i < z->ntree; i++)
		if (z->tree[i].spawn_ppid == z->pid && !z->tree[i].clone_parent)
			return true;
	return false;
}

/* An orphan of par (its PID namespace's init) in the session of l, a living leader below par: a helper that
 * l clones after its setsid can clone it and exit at once, and the kernel hands it to par, if no process
 * from l's parent up to par is a subreaper (l sets its own flag only after it reaped the helper). */
static bool handed_over(struct rst_task *ts, size_t n, const struct rst_task *l, const struct rst_task *par,
			pid_t sid)
{
	if (!par->ns_init || l->helper || l->zombie || l->pst->sid != sid || l->ns_levels != par->ns_levels)
		return false;
	const struct rst_task *x = l;
	for (int depth = 0; depth < 4096; depth++) {
		x = rst_tree_task(ts, n, x->pst->ppid);
		if (!x || x->helper)
			return false;
		if (x == par)
			return true;
		if (x->core && x->core->child_subreaper)
			return false;
	}
	return false;
}

/* A PID and an id inside the PID namespace that no process or thread of the images has: the handover
 * helper's (CRIU's restore uses a free PID for it as well). */
static void free_ids(const struct rst_task *ts, size_t n, pid_t *pid, pid_t *vpid)
{
	*pid = *vpid = 0;
	for (size_t i = 0; i < n; i++) {
		const PstreeEntry *p = ts[i].pst;
		*pid = rst_ipid(&ts[i]) > *pid ? rst_ipid(&ts[i]) : *pid;
		for (size_t k = 0; k < p->n_threads; k++)
			*pid = p->threads[k] > *pid ? p->threads[k] : *pid;
		for (size_t k = 0; k < p->n_ns_tids; k++)
			*vpid = p->ns_tids[k] > *vpid ? p->ns_tids[k] : *vpid;
		/* and the ids of dead leaders, which their helpers take (plan_group runs later) */
		const pid_t ids[] = {p->pgid, p->sid}, vids[] = {ts[i].vpid, p->ns_pgid, p->ns_sid};
		for (size_t k = 0; k < 2; k++)
			*pid = ids[k] > *pid ? ids[k] : *pid;
		for (size_t k = 0; k < 3; k++)
			*vpid = vids[k] > *vpid ? vids[k] : *vpid;
	}
	(*pid)++, (*vpid)++;
}

/* Task i is cloned by a handover helper of leader lpid (handed_over). */
static int plan_handover(struct rst_task **tsp, size_t *np, size_t i, pid_t lpid, struct cr_err *e)
{
	struct rst_task *ts = *tsp, *t = &ts[i];
	pid_t hpid, hvpid, tpid = t->pid, sid = t->pst->sid;
	free_ids(ts, *np, &hpid, &hvpid);
	t->spawn_ppid = lpid, t->clone_parent = false, t->handover = true; /* what the helper is like */
	struct rst_task *h = add_helper(tsp, np, hpid, sid, hvpid, t, e);
	ts = *tsp, t = &ts[i];
	t->handover = false;
	if (!h)
		return cr_wrap(e, "task %d", tpid);
	const struct rst_task *l = rst_tree_task(ts, *np, lpid);
	h->own_pst->pgid = l->pst->pgid; /* it leads nothing: it stays in its creator's group */
	t->spawn_ppid = hpid;
	return 0;
}

/* Leader x (a process of the images) may be born in another session than its parent's: cloned by a helper
 * with CLONE_PARENT, or by its parent before that one's setsid. Not when its birth is planned already, or
 * it shares anything with its parent (clone_share) or is made otherwise (a namespace's init, a zombie, an
 * address-space sharer). */
static bool free_born(const struct rst_task *ts, size_t n, const struct rst_task *x, const struct rst_task *m)
{
	return x->pst->sid == x->pid && !x->root && !x->helper && !x->zombie && !x->ns_init &&
	       !x->clone_parent && !x->before_setsid && !x->handover && x->spawn_ppid == x->pst->ppid &&
	       x->ns_levels == m->ns_levels && !x->pst->clone_share && !rst_svm_sharer(x) &&
	       !has_before_children(ts, n, x->pid);
}

/* The processes that may clone the helper of a gone session leader so that member m is born in its session,
 * nearest first: m's parent, then, while the last one is a leader that may be born in the session (it is
 * cloned by the helper, its members below by their parents before their setsid), its parent. */
#define DEAD_REACH 64
static size_t dead_reach(struct rst_task *ts, size_t n, const struct rst_task *m, pid_t *out)
{
	size_t k = 0;
	const struct rst_task *x = rst_tree_task(ts, n, m->pst->ppid);
	while (x && k < DEAD_REACH) {
		out[k++] = x->pid;
		if (!free_born(ts, n, x, m))
			break;
		x = rst_tree_task(ts, n, x->pst->ppid);
	}
	return k;
}

/* A member of session sid (whose leader is gone) that its parent cannot clone: not in that session, nor a
 * leader born in it below a member (then its parent clones it before its setsid: plan_session's want_born;
 * zdtm session_dead_below). */
static bool dead_entry(struct rst_task *ts, size_t n, const struct rst_task *m, pid_t sid)
{
	const struct rst_task *p = rst_tree_task(ts, n, m->pst->ppid);
	if (m->helper || m->root || m->pst->sid != sid || !p || p->pst->sid == sid)
		return false;
	for (int depth = 0; p && depth < DEAD_REACH && free_born(ts, n, p, m); depth++) {
		p = rst_tree_task(ts, n, p->pst->ppid);
		if (p && p->pst->sid == sid)
			return false;
	}
	return true;
}

/* Member m is born in the session of helper h, cloned by hp: the processes between (leaders) are born in it
 * as well, the top one cloned by h with CLONE_PARENT, each below by its parent before that one's setsid. */
static void dead_chain(struct rst_task *ts, size_t n, struct rst_task *m, pid_t hp, pid_t h)
{
	for (int depth = 0; m && depth < DEAD_REACH + 1; depth++) {
		if (m->pst->ppid == hp) {
			m->spawn_ppid = h, m->clone_parent = true;
			return;
		}
		m->before_setsid = true;
		m = rst_tree_task(ts, n, m->pst->ppid);
	}
}

/* x is on the spawn line above y: y's spawner, or its spawner's, ... */
static bool spawns_above(struct rst_task *ts, size_t n, const struct rst_task *x, const struct rst_task *y)
{
	for (int depth = 0; depth < 4096 && y; depth++) {
		y = rst_tree_task(ts, n, y->spawn_ppid);
		if (y && y == x)
			return true;
	}
	return false;
}

static bool image_subreaper(const struct rst_task *x)
{
	return x->core && x->core->child_subreaper;
}

/* A member that a helper may clone as it likes: its parent would have, nothing shared with it. */
static bool cross_member(const struct rst_task *m, const struct rst_task *first)
{
	return !m->zombie && !m->helper && !m->ns_init && !m->clone_parent && !m->before_setsid &&
	       !m->handover && m->spawn_ppid == m->pst->ppid && !m->pst->clone_share && !m->pst->files_with &&
	       !rst_svm_sharer(m) && m->ns_levels == first->ns_levels;
}

/* How the helper of a gone session leader, cloned by a, makes the members of parent b (not a):
 *  CROSS_ADOPT: b is above a on the spawn line: the helper clones them as its own children and b, a
 *   subreaper for the time (adopter), adopts them when the helper exits;
 *  CROSS_BORN: b leads a session and its parent q (a subreaper of the images or its PID namespace's init) is
 *   a or above it: the helper clones b, born in the session, which clones its members before its setsid;
 *   q adopts b when the helper exits. */
enum { CROSS_NO, CROSS_ADOPT, CROSS_BORN };
static int cross_kind(struct rst_task *ts, size_t n, const struct rst_task *a, const struct rst_task *b,
		      const struct rst_task *m)
{
	if (b->ns_init || b->helper || b->zombie || rst_svm_sharer(b) || b->ns_levels != m->ns_levels)
		return CROSS_NO;
	if (spawns_above(ts, n, b, a))
		return CROSS_ADOPT;
	const struct rst_task *q = rst_tree_task(ts, n, b->pst->ppid);
	/* (a sibling sharing b's fd table is cloned by b: rst_fdtable_check) */
	for (size_t k = 0; k < n; k++)
		if (ts[k].pst && ts[k].pst->files_with == b->pid)
			return CROSS_NO;
	if (q && free_born(ts, n, b, m) && (image_subreaper(q) || q->ns_init) &&
	    (q == a || spawns_above(ts, n, q, a)))
		return CROSS_BORN;
	return CROSS_NO;
}

#define CROSS_MAX 64
/* The members of session sid that its helper must make (dead_entry), their indices; 0: more than max or one
 * a helper may not clone. */
static size_t cross_members(struct rst_task *ts, size_t n, pid_t sid, size_t *out, size_t max)
{
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		if (!dead_entry(ts, n, &ts[j], sid))
			continue;
		if (k == max || !cross_member(&ts[j], k ? &ts[out[0]] : &ts[j]))
			return 0;
		out[k++] = j;
	}
	return k;
}

/* A parent of the members (by index) that the helper cloned by a can serve, every one. */
static bool cross_fits(struct rst_task *ts, size_t n, const size_t *mem, size_t nm, const struct rst_task *a)
{
	for (size_t k = 0; k < nm; k++) {
		const struct rst_task *b = rst_tree_task(ts, n, ts[mem[k]].pst->ppid);
		if (!b || (b != a && cross_kind(ts, n, a, b, &ts[mem[0]]) == CROSS_NO))
			return false;
	}
	return true;
}

/* Session sid, whose leader is gone, with members under parents that no one helper reaches through clones
 * (CRIU's session02: two such sessions, each with a member under the same two leaders): the helper is
 * cloned by one of the parents (a), clones a's members with CLONE_PARENT and the others as cross_kind says;
 * its orphans are adopted when it exits (rst_tree_release lets such helpers go one by one, deepest first;
 * cross_check plays that history before anything is made). 1: no parent can clone it. */
static int plan_cross(struct rst_task **tsp, size_t *np, size_t i, struct cr_err *e)
{
	struct rst_task *ts = *tsp, *t = &ts[i];
	pid_t sid = t->pst->sid, tpid = t->pid;
	size_t mem[CROSS_MAX], nm = cross_members(ts, *np, sid, mem, CROSS_MAX);
	const struct rst_task *a = NULL;
	for (size_t k = 0; k < nm && !a; k++) {
		const struct rst_task *c = rst_tree_task(ts, *np, ts[mem[k]].pst->ppid);
		if (c && cross_fits(ts, *np, mem, nm, c))
			a = c;
	}
	if (!a)
		return 1;
	int kind[CROSS_MAX];
	for (size_t k = 0; k < nm; k++) {
		const struct rst_task *b = rst_tree_task(ts, *np, ts[mem[k]].pst->ppid);
		kind[k] = b == a ? CROSS_NO : cross_kind(ts, *np, a, b, &ts[mem[0]]);
	}
	struct rst_task like = *t;
	pid_t apid = a->pid;
	like.spawn_ppid = apid, like.clone_parent = like.before_setsid = like.handover = false;
	struct rst_task *h = add_helper(tsp, np, sid, sid, t->vpid ? t->pst->ns_sid : 0, &like, e);
	if (!h)
		return cr_wrap(e, "task %d", tpid);
	h->orphaner = true;
	ts = *tsp;
	for (size_t k = 0; k < nm; k++) {
		struct rst_task *m = &ts[mem[k]], *b = rst_tree_task(ts, *np, m->pst->ppid);
		if (kind[k] == CROSS_BORN) {
			struct rst_task *q = rst_tree_task(ts, *np, b->pst->ppid);
			m->before_setsid = true;
			b->spawn_ppid = sid;
			q->adopter = q->adopter || !q->ns_init;
			continue;
		}
		m->spawn_ppid = sid;
		m->clone_parent = kind[k] == CROSS_NO;
		b->adopter = b->adopter || kind[k] == CROSS_ADOPT;
	}
	pr_info("session %d: helper cloned by %d, %zu members, orphans adopted when it exits\n", sid, apid,
		nm);
	return 0;
}

/* Session sid, whose leader is gone and which task i is in: one helper takes the leader's PID and makes the
 * session again, cloned by the nearest process from which every member of the session can be reached (its
 * parent, or a leader above it born in the session: dead_reach). */
static int plan_dead_session(struct rst_task **tsp, size_t *np, size_t i, bool cross_first, struct cr_err *e)
{
	int r = cross_first ? plan_cross(tsp, np, i, e) : 1;
	if (r <= 0)
		return r;
	struct rst_task *ts = *tsp, *t = &ts[i];
	pid_t sid = t->pst->sid, tpid = t->pid, cand[DEAD_REACH], other[DEAD_REACH];
	size_t nc = dead_reach(ts, *np, t, cand);
	for (size_t k = 0; k < *np && nc; k++) {
		if (!dead_entry(ts, *np, &ts[k], sid))
			continue;
		size_t no = dead_reach(ts, *np, &ts[k], other), keep = 0;
		for (size_t a = 0; a < nc; a++)
			for (size_t b = 0; b < no; b++)
				if (cand[a] == other[b]) {
					cand[keep++] = cand[a];
					break;
				}
		nc = keep;
	}
	r = nc || cross_first ? 1
			      : plan_cross(tsp, np, i, e); /* (their parents lead sessions born elsewhere) */
	if (!nc && r)
		return r < 0 ? -1
			     : cr_fail(
				   e,
				   "not supported yet: task %d (child of %d) is in session %d: its leader is "
				   "gone, no one helper can reach all its members",
				   tpid, t->pst->ppid, sid);
	if (!nc)
		return 0;
	struct rst_task like = *t;
	like.spawn_ppid = cand[0], like.clone_parent = like.before_setsid = like.handover = false;
	if (!add_helper(tsp, np, sid, sid, t->vpid ? t->pst->ns_sid : 0, &like, e))
		return cr_wrap(e, "task %d", tpid);
	ts = *tsp;
	for (size_t k = 0; k < *np; k++)
		if (dead_entry(ts, *np, &ts[k], sid))
			dead_chain(ts, *np, &ts[k], cand[0], sid);
	return 0;
}

/* Who clones task i so that it is born in its session. */
static int plan_session(struct rst_task **tsp, size_t *np, size_t i, bool cross_first, struct cr_err *e)
{
	struct rst_task *ts = *tsp, *t = &ts[i];
	const struct rst_task *par = rst_tree_task(ts, *np, t->pst->ppid);
	pid_t sid = t->pst->sid;
	if (!par)
		return cr_fail_errno(e, EBADMSG, "task %d: parent %d is not in the images", t->pid,
				     t->pst->ppid);
	if (sid == t->pid || sid == par->pst->sid)
		return 0;
	if (t->spawn_ppid != t->pst->ppid && born_sid(ts, *np, t) == sid)
		return 0; /* planned with its session's members already (plan_cross) */
	if (par->pst->sid == par->pid && want_born(ts, *np, (struct rst_task *)par, sid, 0)) {
		t->before_setsid = true;
		return 0;
	}
	struct rst_task *l = rst_tree_task(ts, *np, sid);
	if (l && !l->helper && l->pst->ppid == par->pid && l->pst->sid == sid) {
		t->spawn_ppid = l->pid, t->clone_parent = true; /* a sibling leads its session */
		return 0;
	}
	if (l && l->zombie && l->pst->sid == sid && orphan_reaper(ts, *np, l) == par) {
		t->spawn_ppid = l->pid; /* a zombie's child: adopted by par when the zombie exits */
		return 0;
	}
	if (!l && !external_id(ts, sid))
		return plan_dead_session(tsp, np, i, cross_first, e);
	if (l && l->helper && l->pst->ppid == t->pst->ppid && l->pst->sid == sid) {
		t->spawn_ppid = l->pid, t->clone_parent = true;
		return 0;
	}
	if (l && handed_over(ts, *np, l, par, sid))
		return plan_handover(tsp, np, i, l->pid, e);
	return cr_fail(e,
		       "not supported yet: task %d (child of %d) is in session %d, which neither its parent "
		       "nor a sibling leads",
		       t->pid, t->pst->ppid, sid); /* par may have moved with the array */
}

/* A group whose leader is gone: a helper of the member's session leads it. */
static int plan_group(struct rst_task **tsp, size_t *np, size_t i, struct cr_err *e)
{
	struct rst_task *ts = *tsp, *t = &ts[i];
	pid_t pgid = t->pst->pgid;
	if (pgid == t->pid || rst_tree_task(ts, *np, pgid) || external_id(ts, pgid))
		return 0;
	if (t->pst->sid == t->pid)
		return cr_fail_errno(e, EBADMSG, "task %d leads session %d but is in group %d", t->pid,
				     t->pst->sid, pgid);
	pid_t tpid = t->pid; /* t may move with the array */
	struct rst_task *h = add_helper(tsp, np, pgid, t->pst->sid, t->vpid ? t->pst->ns_pgid : 0, t, e);
	return h ? 0 : cr_wrap(e, "task %d", tpid);
}

/* Each adopter for the time whose children (in the images) are all its own clears its flag. */
static void cross_settle(const struct rst_task *ts, size_t n, const long *cur, long *on)
{
	for (size_t p = 0; p < n; p++) {
		bool all = on[p] && !image_subreaper(&ts[p]);
		for (size_t c = 0; all && c < n; c++)
			all = ts[c].helper || ts[c].pst->ppid != rst_ipid(&ts[p]) || cur[c] == (long)p;
		on[p] = on[p] && !all;
	}
}

/* The reaper of the orphans of helper h at its exit (the kernel's choice), -1: none in the tree or one whose
 * flag's time is not known (a subreaper of the images that is no adopter sets it late). */
static long cross_reaper(const struct rst_task *ts, const long *cur, const long *on, size_t h)
{
	for (long x = cur[h], depth = 0; x >= 0 && depth < 4096; x = cur[x], depth++) {
		if (on[x] || ts[x].ns_init || (ts[x].adopter && image_subreaper(&ts[x])))
			return x;
		if (image_subreaper(&ts[x]))
			return -1;
	}
	return -1;
}

/* The history plan_cross planned, played before anything is made: each task's parent after its clone, then
 * the helpers whose orphans are adopted end one by one, deepest first (rst_tree_release), each adopter for
 * the time clearing its flag once its children are its own. Every process must end up under its parent. */
static int cross_check(struct rst_task *ts, size_t n, const size_t *ord, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		long s = ts[i].spawn_idx;
		if (ts[i].handover || (s >= 0 && ts[s].zombie && !ts[i].clone_parent))
			return cr_fail(
			    e,
			    "not supported yet: helpers whose orphans are adopted and task %d handed "
			    "over by a helper or zombie in one tree",
			    rst_ipid(&ts[i]));
	}
	long *cur = calloc(2 * n, sizeof(*cur)), *on = cur ? cur + n : NULL; /* (on: a subreaper now) */
	if (!cur)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		size_t i = ord[k]; /* (spawners first) */
		long s = ts[i].spawn_idx;
		cur[i] = s < 0 ? -1 : ts[i].clone_parent ? cur[s] : s;
		on[i] = ts[i].adopter;
	}
	cross_settle(ts, n, cur, on);
	for (size_t k = n; k-- > 0;) {
		size_t h = ord[k];
		if (!ts[h].orphaner)
			continue;
		long r = cross_reaper(ts, cur, on, h);
		for (size_t c = 0; c < n; c++)
			if (cur[c] == (long)h)
				cur[c] = r;
		cur[h] = -1;
		cross_settle(ts, n, cur, on);
	}
	size_t bad = 0;
	for (size_t i = 1; i < n && !bad; i++) {
		const struct rst_task *p = rst_tree_task(ts, n, ts[i].pst->ppid);
		bad = !ts[i].helper && (!p || cur[i] != p - ts) ? i : 0;
	}
	free(cur);
	if (bad)
		return cr_fail(
		    e,
		    "not supported yet: task %d would not end up under its parent %d (helpers whose "
		    "orphans are adopted)",
		    rst_ipid(&ts[bad]), ts[bad].pst->ppid);
	return 0;
}

/* One plan of who clones whom (cross_first: a gone session leader's helper as plan_cross has it, where
 * possible, before the one that reaches every member by clones only). */
static int plan_pass(struct rst_task **tsp, size_t *np, size_t nimg, bool cross_first, struct cr_err *e)
{
	for (size_t i = 1; i < nimg; i++)
		if (plan_session(tsp, np, i, cross_first, e))
			return -1;
	for (size_t i = 1; i < nimg; i++)
		if (plan_group(tsp, np, i, e))
			return -1;
	if (rst_pidns_helpers(*tsp, *np, e))
		return -1;
	struct rst_task *ts = *tsp;
	bool cross = false;
	for (size_t i = 0; i < *np; i++) {
		const struct rst_task *s = i ? rst_tree_task(ts, *np, ts[i].spawn_ppid) : NULL;
		ts[i].tree = ts;
		ts[i].ntree = *np;
		ts[i].spawn_idx = s ? s - ts : -1;
		cross = cross || ts[i].orphaner;
	}
	__cleanup_free size_t *ord = cross ? rst_tree_order(ts, *np) : NULL;
	if (cross && !ord)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	return cross ? cross_check(ts, *np, ord, e) : 0;
}

/* Back to the images' tree: no helper, each task cloned by its parent. */
static void plan_reset(struct rst_task *ts, size_t *np, size_t nimg)
{
	for (size_t i = nimg; i < *np; i++)
		free(ts[i].own_pst);
	*np = nimg;
	ts[0].spawn_ppid = 0;
	for (size_t i = 0; i < nimg; i++) {
		struct rst_task *t = &ts[i];
		t->spawn_ppid = i ? t->pst->ppid : 0; /* (plan_session may place a task before its turn) */
		t->clone_parent = t->before_setsid = t->handover = t->adopter = false;
	}
}

int rst_tree_plan(struct cr_opts *o, struct rst_task **tsp, size_t *np, struct cr_err *e)
{
	(void)o;
	size_t nimg = *np;
	plan_reset(*tsp, np, nimg);
	if (rst_pidns_plan(*tsp, nimg, e)) /* the same PIDs inside PID namespaces (restore-pidns.c) */
		return -1;
	if (plan_pass(tsp, np, nimg, false, e)) {
		/* a tree whose gone session leaders' helpers must be cloned as plan_cross has it, even where
		 * clones alone reach the members of one (CRIU's session02) */
		struct cr_err first = *e;
		plan_reset(*tsp, np, nimg);
		if (plan_pass(tsp, np, nimg, true, e)) {
			*e = first;
			return -1;
		}
		pr_info("planned again, with helpers whose orphans are adopted: the error above is not the "
			"restore's\n");
	}
	struct rst_task *ts = *tsp;
	bool svm = false;
	for (size_t i = 0; i < *np; i++)
		svm = svm || rst_svm_sharer(&ts[i]);
	for (size_t i = 0; i < *np; i++)
		ts[i].svm_any = svm;
	if (*np > nimg)
		pr_info("%zu helper tasks for sessions/groups whose leader is gone\n", *np - nimg);
	return 0;
}

/* The clones between task t and the root: a task's spawner is one less. */
static size_t spawn_depth(const struct rst_task *t)
{
	size_t d = 0;
	for (; t->spawn_idx >= 0 && d < 4096; d++)
		t = &t->tree[t->spawn_idx];
	return d;
}

/* A task waits for its go before it clones its own, so the one that clones a task has its go first. The
 * images' order is not enough: a task cloned with CLONE_PARENT (an orphan in its sibling's session, or one
 * a zombie leader hands over) may come before its spawner among its parent's children (in a PID namespace
 * whose init is the root, every orphan is the root's child). Sorted by depth in the spawn tree, the images'
 * order kept within a depth. */
size_t *rst_tree_order(const struct rst_task *ts, size_t n)
{
	size_t *depth = calloc(n ? n : 1, sizeof(*depth)), *start = calloc(4098, sizeof(*start));
	size_t *ord = calloc(n ? n : 1, sizeof(*ord));
	if (depth && start && ord) {
		for (size_t i = 0; i < n; i++) {
			depth[i] = spawn_depth(&ts[i]);
			start[depth[i] + 1]++;
		}
		for (size_t d = 1; d < 4098; d++)
			start[d] += start[d - 1];
		for (size_t i = 0; i < n; i++)
			ord[start[depth[i]]++] = i;
	} else {
		free(ord);
		ord = NULL;
	}
	free(depth);
	free(start);
	return ord;
}

static int stat_ids(pid_t pid, int *pgid, int *sid)
{
	char buf[512];
	const char *p = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
	char st;
	int ppid;
	if (!p || sscanf(p + 2, "%c %d %d %d", &st, &ppid, pgid, sid) != 4 || st == 'X')
		return -1;
	return 0;
}

/* A helper that ran and ended (a zombie: its parent reaps it only after the release). One that is not
 * there yet is still being created by its parent. */
bool rst_helper_ended(pid_t pid)
{
	char buf[512];
	const char *p = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* A helper ended before its release: its message (if any). */
int rst_helper_died(struct rst_task *h, struct cr_err *e)
{
	char msg[512];
	fcntl(h->err_pipe[0], F_SETFL, O_NONBLOCK);
	ssize_t r = read(h->err_pipe[0], msg, sizeof(msg) - 1);
	if (r > 0) {
		msg[r] = '\0';
		return cr_fail_errno(e, EFAULT, "helper %d: %s", h->pid, msg);
	}
	return cr_fail_errno(e, EFAULT, "helper %d (session/group leader) ended early", h->pid);
}

/* A zombie of the images that failed before its exit (making its session/group, cloning its members): its
 * message. 0 when it said nothing. */
int rst_zombie_failed(struct rst_task *z, struct cr_err *e)
{
	char msg[512];
	if (z->err_pipe[0] < 0)
		return 0;
	fcntl(z->err_pipe[0], F_SETFL, O_NONBLOCK);
	ssize_t r = read(z->err_pipe[0], msg, sizeof(msg) - 1);
	if (r <= 0)
		return 0;
	msg[r] = '\0';
	return cr_fail_errno(e, EFAULT, "zombie %d: %s", z->pid, msg);
}

/* Every zombie of the images has ended (its parent sees it at once) and none failed on the way. */
int rst_tree_zombies(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *z = &ts[i];
		if (!z->zombie)
			continue;
		if (z->go_pipe[1] >= 0) { /* its children's reaper is ready: it may exit */
			if (rst_task_go(z, "release zombie", e))
				return -1;
		}
		/* fresh PIDs: found first (by its parent, known by now) */
		for (int tries = 0; !rst_pid_known(z) || !rst_helper_ended(z->pid); tries++) {
			if (!rst_pid_known(z))
				rst_pidns_find_unseized(ts, n);
			if (rst_zombie_failed(z, e))
				return -1;
			if (tries > 20000)
				return cr_fail_errno(e, ETIMEDOUT, "zombie %d did not end", z->pid);
			usleep(500);
		}
		if (rst_zombie_failed(z, e))
			return -1;
	}
	return 0;
}

static bool names_helper(struct rst_task *ts, size_t n, pid_t id)
{
	struct rst_task *h = rst_tree_task(ts, n, id);
	return h && h->helper;
}

/* Task id of the images in our namespace now (fresh PIDs: the kernel's once found, -1 before). */
static pid_t now_pid(struct rst_task *ts, size_t n, pid_t id)
{
	const struct rst_task *x = rst_tree_task(ts, n, id);
	return !x ? id : rst_pid_known(x) ? x->pid : -1;
}

static pid_t stat_ppid(pid_t pid)
{
	char buf[512];
	const char *p = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
	char st;
	int ppid;
	return p && sscanf(p + 2, "%c %d", &st, &ppid) == 2 ? ppid : -1;
}

/* Each temporary adopter (plan_cross) whose children are all its own has said it is no subreaper any more;
 * once h has exited (gone), the children h cloned as its own are under their parents too. */
static int cross_wait(struct rst_task *ts, size_t n, const struct rst_task *h, bool gone, struct cr_err *e)
{
	for (int tries = 0;; tries++) {
		size_t waiting = rst_pidns_find_unseized(ts, n);
		for (size_t i = 0; i < n; i++) {
			struct rst_task *t = &ts[i];
			if (gone && t->spawn_idx == h - ts && !t->clone_parent)
				waiting +=
				    !rst_pid_known(t) || stat_ppid(t->pid) != now_pid(ts, n, t->pst->ppid);
			if (!t->adopter || image_subreaper(t) || t->adopt_done)
				continue;
			bool all = rst_pid_known(t);
			for (size_t c = 0; all && c < n; c++)
				all = ts[c].helper || ts[c].pst->ppid != rst_ipid(t) ||
				      (rst_pid_known(&ts[c]) && stat_ppid(ts[c].pid) == t->pid);
			if (all && rst_task_reason(t, e))
				return -1;
			waiting += all && !t->adopt_done;
		}
		for (size_t i = 0; tries % 16 == 15 && i < n; i++)
			if (!ts[i].zombie && !ts[i].helper && rst_task_reason(&ts[i], e))
				return -1;
		if (!waiting)
			return 0;
		if (tries > 60000)
			return cr_fail_errno(
			    e, ETIMEDOUT,
			    gone ? "helper %d released: its orphans not adopted by their parents"
				 : "helper %d not released: the adopters above it not ready",
			    h->pid);
		usleep(500);
	}
}

/* The helpers whose own children are adopted when they exit (plan_cross): one by one, deepest first, each
 * once the adopters for the time before it are ready, and its orphans under their parents before the next
 * (the order cross_check played). */
static int release_orphaners(struct rst_task *ts, size_t n, struct cr_err *e)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any = any || ts[i].orphaner;
	if (!any)
		return 0;
	__cleanup_free size_t *ord = rst_tree_order(ts, n);
	if (!ord)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t k = n; k-- > 0;) {
		struct rst_task *h = &ts[ord[k]];
		if (!h->orphaner)
			continue;
		if (cross_wait(ts, n, h, false, e) || rst_task_go(h, "release helper", e) ||
		    cross_wait(ts, n, h, true, e))
			return -1;
		pr_info("helper %d released: its orphans are adopted\n", h->pid);
	}
	return 0;
}

/* Every member of a helper's session or group is in it: the helpers may go. */
int rst_tree_release(struct rst_task *ts, size_t n, struct cr_err *e)
{
	size_t nh = 0;
	for (size_t i = 0; i < n; i++)
		nh += ts[i].helper && !ts[i].handover; /* (a handover helper is gone by now) */
	if (!nh)
		return 0;
	for (int tries = 0;; tries++) {
		size_t waiting = rst_pidns_find_unseized(ts, n); /* fresh PIDs: not found yet */
		for (size_t i = 0; i < n; i++) {
			struct rst_task *t = &ts[i];
			int pgid, sid;
			if (!rst_pid_known(t))
				continue;
			if (t->helper) {
				if (rst_helper_ended(t->pid))
					return rst_helper_died(t, e);
				waiting += stat_ids(t->pid, &pgid, &sid) || pgid != t->pid;
				continue;
			}
			/* a task that failed meanwhile (a PID namespace's init takes the others along) */
			if (!t->zombie && tries % 16 == 0 && rst_task_reason(t, e))
				return -1;
			if (!names_helper(ts, n, t->pst->pgid) && !names_helper(ts, n, t->pst->sid))
				continue;
			if (stat_ids(t->pid, &pgid, &sid)) {
				if (t->zombie) { /* not cloned yet (a zombie stays until the restore is over)
						  */
					waiting++;
					continue;
				}
				return cr_fail_errno(e, ESRCH, "task %d ended during the restore", t->pid);
			}
			waiting += pgid != now_pid(ts, n, t->pst->pgid) || sid != now_pid(ts, n, t->pst->sid);
		}
		if (!waiting)
			break;
		if (tries > 20000)
			return cr_fail_errno(e, ETIMEDOUT, "%zu tasks did not get into their session/group",
					     waiting);
		usleep(500);
	}
	if (release_orphaners(ts, n, e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct rst_task *h = &ts[i];
		if (!h->helper || h->handover || h->orphaner)
			continue;
		if (rst_task_go(h, "release helper", e))
			return -1;
	}
	pr_info("%zu helpers released\n", nh);
	return 0;
}
