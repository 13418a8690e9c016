/* PID namespaces of a dumped tree: the ids of every process and thread in each PID namespace below ours
 * (NSpid), so that restore gives them back with clone3 set_tid (restore-pidns.c).
 *
 * What can be dumped: the root in our namespace or PID 1 of its own (one level below ours); every other
 * process in its parent's namespace, or PID 1 of a namespace one level below its parent's (a nested init).
 * Threads are in their process's namespace. Refused with one line: a root that is in a PID namespace but is
 * not its init (the init is outside the tree: CRIU needs it too), a process in a namespace whose init is not
 * its parent, and a process whose new children go into another namespace than its own (unshare or setns
 * of CLONE_NEWPID without a fork yet). */
#define LOG_PREFIX "dump-pidns: "
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "base/log.h"
#include "pid.h"
#include "task/pidns-last.h"

#define PIDNS_MAX_LEVELS 7 /* below ours: RST_PID_LEVELS - 1 (restorer-args.h) */

static const struct dump_ctx *parent_of(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i].pid == c->ppid)
			return &cs[i];
	return NULL;
}

/* The NSpid chain of the leader and of every thread (below ours) into c->ns_tids (the leader's from the
 * status read once it was stopped, c->st, when that has it). */
static int task_chain(struct dump_ctx *c, struct cr_err *e)
{
	pid_t ids[PIDNS_MAX_LEVELS + 1];
	int lv = c->st.nspid_n;
	if (lv > 0 && lv <= PIDNS_MAX_LEVELS + 1)
		memcpy(ids, c->st.nspid, (size_t)lv * sizeof(*ids));
	else
		lv = ns_pid_chain(c->pid, ids, PIDNS_MAX_LEVELS + 1, e);
	if (lv < 0)
		return cr_wrap(e, "task %d", c->pid);
	c->ns_levels = (uint32_t)(lv - 1);
	if (!c->ns_levels)
		return 0;
	c->ns_tids = calloc((c->nth + 1) * c->ns_levels, sizeof(*c->ns_tids));
	if (!c->ns_tids)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t k = 0; k <= c->nth; k++) {
		pid_t tid = k ? c->th[k - 1].tid : c->pid;
		if (k && ns_pid_chain(tid, ids, PIDNS_MAX_LEVELS + 1, e) != lv)
			return cr_fail(e, "thread %d of task %d: not in its task's PID namespace", tid,
				       c->pid);
		for (uint32_t l = 0; l < c->ns_levels; l++)
			c->ns_tids[k * c->ns_levels + l] = ids[l + 1];
	}
	return 0;
}

static pid_t inner(const struct dump_ctx *c)
{
	return c->ns_levels ? c->ns_tids[c->ns_levels - 1] : c->pid;
}

/* The mounts of pid's mount namespace as pid sees them, one line each (mount point, root, filesystem,
 * source, options; not the ids and peer groups, which a copy of a namespace renumbers), sorted; proc mounts
 * left out when skip_proc. NULL on error. */
static char **mount_lines(pid_t pid, bool skip_proc, size_t *n)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	FILE *f = fopen(path, "re");
	char **v = NULL;
	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char mp[1024], root[1024], opts[512], fs[64], src[1024], sopts[1024];
		char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %1023s %1023s %511s", root, mp, opts) != 3 ||
		    sscanf(sep + 3, "%63s %1023s %1023s", fs, src, sopts) != 3 ||
		    (skip_proc && !strcmp(fs, "proc")))
			continue;
		char **nv = realloc(v, (*n + 1) * sizeof(*nv));
		if (!nv || asprintf(&nv[*n], "%s %s %s %s %s %s", mp, root, fs, src, opts, sopts) < 0) {
			v = nv ? nv : v;
			break;
		}
		v = nv, (*n)++;
	}
	fclose(f);
	return v ? v : calloc(1, sizeof(*v));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static size_t tree_depth(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c)
{
	size_t d = 0;
	for (const struct dump_ctx *x = c; x && x->ppid && d <= n; d++)
		x = parent_of(cs, n, x);
	return d;
}

/* Does x see m (m's PID namespace is x's or one below it: an ancestor of m, or m, is in x's)? */
static bool sees(const struct dump_ctx *cs, size_t n, const struct dump_ctx *x, const struct dump_ctx *m)
{
	for (size_t hops = 0; m && hops <= n; hops++, m = m->ppid ? parent_of(cs, n, m) : NULL)
		if (ns_ids_same(m->nsid[NS_PID], x->nsid[NS_PID]))
			return true;
	return false;
}

/* A process before c in the tree (cs, made before it at restore: not deeper) whose nested mount namespace
 * (mntns) c is in, not a zombie, one of them seeing the other's PID: c entered it (setns) and enters it
 * again once that process made it (pstree_entry.mntns_join; which of them makes it: mnt_remaker). NULL if
 * none. */
static const struct dump_ctx *mnt_maker(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c)
{
	size_t i = (size_t)(c - cs);
	for (size_t j = 0; j < i; j++) {
		const struct dump_ctx *m = &cs[j];
		if (m->mntns && !m->zombie && !c->ns_init && dump_same_mnt(m, c) &&
		    (sees(cs, n, c, m) || sees(cs, n, m, c)) && tree_depth(cs, i, m) <= tree_depth(cs, i, c))
			return m;
	}
	return NULL;
}

/* c is in another mount namespace than its parent p: saved as it differs from its parent's (*nested:
 * ns/mnt-dump.c ns_mnt_nested_dump) and made again from its parent's at restore (ns/mnt-nested.c), a
 * copy it did not change too (a file it holds may be on a mount of its parent's namespace, not of its copy:
 * dump_mnt_up); its PID namespace's init with its parent's mounts but /proc: a copy of its parent's with a
 * fresh /proc (ns_mnt_proc). */
static int mnt_place(struct dump_ctx *c, const struct dump_ctx *cs, size_t n, const struct dump_ctx *p,
		     bool *nested)
{
	*nested = false;
	if (!p || c->zombie || dump_same_mnt(c, p))
		return 0;
	/* back in the namespace p's was made from (forked before p unshared): entered again at restore */
	const struct dump_ctx *q = p;
	for (size_t hops = 0; q && hops <= n && (q == p || dump_same_mnt(q, p)); hops++)
		q = q->ppid ? parent_of(cs, n, q) : NULL;
	if (q && !p->mntns_up && dump_same_mnt(c, q)) {
		c->mntns_up = true;
		pr_info("task %d: in the mount namespace its parent's was made from (task %d's)\n", c->pid,
			q->pid);
		return 0;
	}
	const struct dump_ctx *m = mnt_maker(cs, n, c);
	if (m) {
		c->mntns_join = m->pid;
		pr_info("task %d: entered the mount namespace task %d made (setns): enters it again\n",
			c->pid, m->pid);
		return 0;
	}
	size_t na, nb;
	char **a = mount_lines(c->pid, c->ns_init, &na), **b = mount_lines(p->pid, c->ns_init, &nb);
	bool same = a && b && na == nb;
	if (same) {
		qsort(a, na, sizeof(*a), cmp_str);
		qsort(b, nb, sizeof(*b), cmp_str);
		for (size_t i = 0; same && i < na; i++)
			same = !strcmp(a[i], b[i]);
	}
	free_lines(a, na);
	free_lines(b, nb);
	*nested = !same || !c->ns_init;
	pr_info("task %d: a mount namespace of its own %s\n", c->pid,
		*nested
		    ? "saved as it differs from its parent's (maybe not at all: its files may be on its "
		      "parent's mounts, not their copies)"
		    : "with its parent's mounts but /proc: restored as a copy of its parent's with a fresh "
		      "/proc");
	return 0;
}

/* How many mounts one of pid's and pp's mount namespaces has and the other not (mount_lines): the fewer,
 * the likelier pid's was made from pp's (unshare) rather than entered (setns). SIZE_MAX if unreadable. */
static size_t mnt_diff(pid_t pid, pid_t pp)
{
	size_t na, nb, d = 0, i = 0, j = 0;
	char **a = mount_lines(pid, false, &na), **b = mount_lines(pp, false, &nb);
	if (!a || !b) {
		free_lines(a, na);
		free_lines(b, nb);
		return SIZE_MAX;
	}
	qsort(a, na, sizeof(*a), cmp_str);
	qsort(b, nb, sizeof(*b), cmp_str);
	while (i < na || j < nb) {
		int k = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
		d += k != 0;
		i += k <= 0, j += k >= 0;
	}
	free_lines(a, na);
	free_lines(b, nb);
	return d;
}

/* Is a an ancestor of x? */
static bool above(const struct dump_ctx *cs, size_t n, const struct dump_ctx *a, const struct dump_ctx *x)
{
	for (size_t hops = 0; x && x->ppid && hops <= n; hops++)
		if ((x = parent_of(cs, n, x)) == a)
			return true;
	return false;
}

/* The first of c (the first process of its nested mount namespace) and the processes that enter it
 * (mntns_join) that does not see x's PID (the one that makes it: they enter it through /proc/X/ns/mnt);
 * NULL if they all see it. */
static const struct dump_ctx *unseen_by(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c,
					const struct dump_ctx *x)
{
	for (size_t i = 0; i < n; i++)
		if ((&cs[i] == c || cs[i].mntns_join == c->pid) && !sees(cs, n, &cs[i], x))
			return &cs[i];
	return NULL;
}

static bool all_see(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c, const struct dump_ctx *x)
{
	return !unseen_by(cs, n, c, x);
}

/* The nested mount namespace c makes (its first process in the tree) may have been made by one of the
 * processes that enter it (mntns_join), later in the tree or deeper, from its own parent's namespace (a
 * namespace of that parent's own: its mounts are kept, not copied): the one whose parent's namespace is the
 * closest to it makes it instead (the others, c too, enter it), unless a process in it is its ancestor (it
 * would wait for a child it has not made yet); so does one every other sees when c is in a PID namespace
 * one of them does not see. None: refused with one line. */
static int mnt_remaker(struct dump_ctx *cs, size_t n, struct dump_ctx *c, struct cr_err *e)
{
	const struct dump_ctx *pc = c->mntns ? parent_of(cs, n, c) : NULL;
	struct dump_ctx *best = c;
	size_t score = !pc || c->ns_init ? 0 : !all_see(cs, n, c, c) ? SIZE_MAX : mnt_diff(c->pid, pc->pid);
	for (size_t i = 0; i < n && score; i++) {
		struct dump_ctx *x = &cs[i];
		const struct dump_ctx *px = x->mntns_join == c->pid ? parent_of(cs, n, x) : NULL;
		bool below = px && above(cs, n, c, x);
		for (size_t j = 0; px && !below && j < n; j++)
			below = cs[j].mntns_join == c->pid && above(cs, n, &cs[j], x);
		size_t s = px && !below && all_see(cs, n, c, x) ? mnt_diff(x->pid, px->pid) : SIZE_MAX;
		if (s < score)
			best = x, score = s;
	}
	const struct dump_ctx *u = c->mntns ? unseen_by(cs, n, c, best) : NULL;
	if (u)
		return cr_fail(e,
			       "not supported yet: task %d is in the mount namespace of task %d (setns), "
			       "whose PID it does not see, and no process in it is seen by all the others",
			       u->pid, best->pid);
	if (best == c)
		return 0;
	pr_info("task %d: made the mount namespace task %d entered (closer to its parent's, or seen by the "
		"others): it makes it, the others enter it\n",
		best->pid, c->pid);
	for (size_t i = 0; i < n; i++)
		if (cs[i].mntns_join == c->pid && &cs[i] != best)
			cs[i].mntns_join = best->pid;
	best->mntns = true, best->mntns_join = 0;
	c->mntns = false, c->mntns_join = best->pid;
	return 0;
}

/* Every other process in the nested mount namespace of c got it from c (its parent is in it too, up to c,
 * or up to one back in the namespace its parent's was made from): one that entered it (setns), or whose
 * parent left it, is not restored in it. */
static int mnt_shared(const struct dump_ctx *cs, size_t n, const struct dump_ctx *c, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		const struct dump_ctx *d = &cs[i];
		if (d == c || d->zombie || !dump_same_mnt(d, c))
			continue;
		const struct dump_ctx *x = d;
		for (size_t hops = 0; x && x != c && !x->mntns_up && x->mntns_join != c->pid && hops < n;
		     hops++) {
			const struct dump_ctx *px = parent_of(cs, n, x);
			x = px && dump_same_mnt(px, d) ? px : NULL;
		}
		if (!x || (x != c && !x->mntns_up && x->mntns_join != c->pid))
			return cr_fail(e,
				       "not supported yet: task %d is in the mount namespace of task %d "
				       "without being its descendant in it (setns)",
				       d->pid, c->pid);
	}
	return 0;
}

/* Is mount id in pid's mount namespace? */
static bool mnt_has(pid_t pid, int id)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	FILE *f = fopen(path, "re");
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = atoi(line) == id;
	if (f)
		fclose(f);
	return found;
}

pid_t dump_mnt_base(const struct dump_ctx *c)
{
	const struct dump_ctx *p = c;
	if (c->root || !c->tree)
		return 0;
	for (size_t hops = 0; p && hops <= c->ntree && (p == c || dump_same_mnt(p, c)); hops++)
		p = p->ppid ? parent_of(c->tree, c->ntree, p) : NULL;
	return p ? p->pid : 0;
}

pid_t dump_mnt_up(const struct dump_ctx *c, int mnt_id)
{
	pid_t p = mnt_id < 0 ? 0 : dump_mnt_base(c);
	return p && !mnt_has(c->pid, mnt_id) && mnt_has(p, mnt_id) ? p : 0;
}

/* Where c is, against its parent p (the root: against us). */
static int task_place(struct dump_ctx *c, const struct dump_ctx *p, struct cr_err *e)
{
	uint32_t plv = p ? p->ns_levels : 0;
	if (!p && c->ns_levels > 1)
		return cr_fail(e,
			       "task %d is PID %d of a PID namespace %u levels below ours, whose init is not "
			       "in the tree: dump that namespace's init instead",
			       c->pid, inner(c), c->ns_levels);
	if (c->ns_levels == plv + 1 && inner(c) == 1) {
		c->ns_init = true; /* p is 0: our own PID namespace */
		c->ns_mnt_proc = p ? !dump_same_mnt(c, p) : ns_other(c->pid, "mnt");
	} else if (c->ns_levels == plv + 1 && !p) {
		return cr_fail(e,
			       "task %d is PID %d of a PID namespace below ours, not its init (PID 1), "
			       "which is not in the tree: dump the namespace's init instead",
			       c->pid, inner(c));
	} else if (c->ns_levels != plv || (p && !ns_ids_same(c->nsid[NS_PID], p->nsid[NS_PID]))) {
		return cr_fail(e,
			       "not supported yet: task %d (PID %d inside) is in a PID namespace that is "
			       "neither its parent %d's nor one whose init it is",
			       c->pid, inner(c), c->ppid);
	}
	if (!c->zombie && !ns_ids_same(c->nsid[NS_PID], c->nsid[NS_PID_CHILD]))
		return cr_fail(e,
			       "not supported yet: task %d makes its new children in another PID namespace "
			       "than its own (unshare/setns CLONE_NEWPID without a fork)",
			       c->pid);
	/* (the offsets of a time namespace not entered yet could be read and written, but not which of the
	 * tree's tasks it is shared with: CRIU refuses it too) */
	if (!c->zombie && !ns_ids_same(c->nsid[NS_TIME], c->nsid[NS_TIME_CHILD]))
		return cr_fail(e,
			       "not supported yet: task %d makes its new children in another time namespace "
			       "than its own (unshare(CLONE_NEWTIME) without a fork)",
			       c->pid);
	return 0;
}

/* The last PID handed out in the PID namespace c is the init of (the tree stopped: none forks meanwhile), so
 * that its next fork gets the same PID after restore. Read by a process forked there, which takes that next
 * PID and sets the namespace back for it (pidns-last.c): a tree that goes on gets it too. Not read: said, the
 * restore leaves it (the next fork gets the lowest free PID there). */
static void last_pid(struct dump_ctx *c)
{
	struct cr_err e2;
	int32_t next;
	c->ns_last_pid = -1;
	if (!c->ns_init || c->zombie)
		return;
	if (pidns_last_pid(c->pid, -1, &next, &e2))
		pr_warn("task %d: the last PID of its PID namespace not read (its next fork may get another "
			"PID after restore): %s\n",
			c->pid, e2.msg);
	else
		c->ns_last_pid = next - 1;
}

bool dump_same_mnt(const struct dump_ctx *a, const struct dump_ctx *b)
{
	if (!a->mnt_ino || !b->mnt_ino)
		return ns_same(a->pid, "mnt", b->pid, "mnt");
	return a->mnt_ino == b->mnt_ino && a->mnt_dev == b->mnt_dev;
}

int dump_pidns(struct dump_ctx *cs, size_t n, bool *pidns, bool *mntns_proc, struct cr_err *e)
{
	size_t inits = 0;
	/* (each file's dump_mnt_up compares them up to the root; a zombie has none: 0) */
	for (size_t i = 0; i < n; i++)
		cs[i].mnt_dev = 0, cs[i].mnt_ino = cs[i].nsid[NS_MNT];
	for (size_t i = 0; i < n; i++) {
		struct dump_ctx *c = &cs[i];
		struct ns_pid_ids id;
		bool nested = false;
		if (task_chain(c, e) || task_place(c, i ? parent_of(cs, i, c) : NULL, e) ||
		    mnt_place(c, cs, n, i ? parent_of(cs, i, c) : NULL, &nested))
			return -1;
		c->mntns = nested; /* (its id: dump_ns) */
		last_pid(c);
		if (c->st.nspid_n) /* (its status, read once it was stopped) */
			id = (struct ns_pid_ids){c->st.nspid_n, c->st.nspid[c->st.nspid_n - 1], c->st.nspgid,
						 c->st.nssid};
		else if (ns_pid_ids(c->pid, &id, e))
			return cr_wrap(e, "task %d", c->pid);
		c->ns_pid = id.pid, c->ns_pgid = id.pgid, c->ns_sid = id.sid;
		inits += c->ns_init && i;
	}
	for (size_t i = 0; i < n; i++)
		if (mnt_remaker(cs, n, &cs[i], e))
			return -1;
	for (size_t i = 0; i < n; i++)
		if (cs[i].mntns && mnt_shared(cs, n, &cs[i], e))
			return -1;
	*pidns = cs[0].ns_init;
	*mntns_proc = cs[0].ns_init && cs[0].ns_mnt_proc;
	if (*pidns)
		pr_info("task %d is the init of its PID namespace%s\n", cs[0].pid,
			*mntns_proc ? " (own mount namespace: restored with a fresh /proc only)" : "");
	if (inits)
		pr_info("%zu more processes are the init of a nested PID namespace\n", inits);
	return 0;
}

void dump_pidns_pstree(const struct dump_ctx *c, PstreeEntry *pe)
{
	pe->mntns = c->mntns, pe->has_mntns = c->mntns != 0; /* (dump_ns numbered them) */
	pe->mntns_join = c->mntns_join, pe->has_mntns_join = c->mntns_join != 0;
	pe->mntns_up = c->mntns_up, pe->has_mntns_up = c->mntns_up;
	if (!c->ns_levels)
		return;
	pe->ns_pid = c->ns_pid, pe->has_ns_pid = 1;
	pe->ns_pgid = c->ns_pgid, pe->has_ns_pgid = 1;
	pe->ns_sid = c->ns_sid, pe->has_ns_sid = 1;
	pe->ns_levels = c->ns_levels, pe->has_ns_levels = 1;
	pe->n_ns_tids = (c->nth + 1) * c->ns_levels, pe->ns_tids = c->ns_tids;
	pe->ns_mnt_proc = c->ns_mnt_proc && !c->root, pe->has_ns_mnt_proc = pe->ns_mnt_proc;
	pe->ns_last_pid = c->ns_last_pid, pe->has_ns_last_pid = c->ns_init && c->ns_last_pid >= 0;
}
