/* PID namespaces of a restored tree (see dump-pidns.c): every task gets its ids in each PID namespace below
 * ours back through clone3 set_tid (innermost first, ours last); the init of a namespace (the root, or a
 * nested one whose parent is one level up) is cloned with CLONE_NEWPID, and threads get their tids the same
 * way in the blob. Ids that the images hold in crshim's view (file owners, timer notify threads, terminal
 * groups) are given to the task as it sees them (rst_pidns_vid). */
#define LOG_PREFIX "restore-pidns: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns.h"
#include "pid.h"
#include "restore.h"
#include "task/pidns-last.h"
#include "task/seize.h"

/* Is PID free here (wait: once a zombie holding it is reaped)? Else one line naming who holds it. */
static int check_pid_free(pid_t pid, bool wait, struct cr_err *e)
{
	char path[64], comm[64] = "?";
	snprintf(path, sizeof(path), "/proc/%d", pid);
	/* A zombie (a dump just killed it) holds its PID until its parent reaps it: give the parent ~3 s. */
	for (int i = 0; wait && i < 300; i++) {
		if (access(path, F_OK) && errno == ENOENT)
			return 0;
		if (!seize_task_dead(pid)) /* (asked only of a PID that is there: no error line in the log) */
			break;
		usleep(10000);
	}
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	return cr_fail_errno(e, EEXIST, "PID %d is already in use by '%s'", pid, comm);
}

static int check_pids(struct rst_task *t, bool wait, struct cr_err *e)
{
	if (check_pid_free(t->pid, wait, e))
		return -1;
	for (size_t i = 0; i < t->nr_tcores; i++)
		if (check_pid_free(t->pst->threads[i + 1], wait, e))
			return cr_wrap(e, "thread of task %d", t->pid);
	return 0;
}

/* The PIDs of task t and its threads are free here (a restore keeping the old host PIDs). */
int rst_check_pids(struct rst_task *t, struct cr_err *e)
{
	return check_pids(t, true, e);
}

/* Images of a crshim that knew only the root's namespace: inventory pidns and pstree ns_pid. */
static int old_ids(struct rst_task *t, bool pidns, struct cr_err *e)
{
	if (!pidns)
		return 0;
	if (t->pst->n_threads > 1)
		return cr_fail_errno(e, EBADMSG,
				     "pstree.img: task %d: no ids of its threads in its namespace", t->pid);
	t->ns_levels = 1;
	t->ns_ids[0] = t->pst->ns_pid;
	return 0;
}

static int task_ids(struct rst_task *t, bool pidns, struct cr_err *e)
{
	const PstreeEntry *p = t->pst;
	if (!p->has_ns_levels)
		return old_ids(t, pidns, e);
	if (p->ns_levels >= RST_PID_LEVELS || p->n_ns_tids != p->n_threads * p->ns_levels)
		return cr_fail_errno(e, EBADMSG, "pstree.img: task %d: %u PID namespace levels, %zu ids",
				     t->pid, p->ns_levels, p->n_ns_tids);
	t->ns_levels = p->ns_levels;
	for (uint32_t l = 0; l < t->ns_levels; l++)
		t->ns_ids[l] = p->ns_tids[l];
	for (size_t i = 0; i < p->n_ns_tids; i++)
		if (p->ns_tids[i] <= 0)
			return cr_fail_errno(e, EBADMSG, "pstree.img: task %d: id %d in a PID namespace",
					     t->pid, p->ns_tids[i]);
	return 0;
}

int rst_pidns_plan(struct rst_task *ts, size_t n, struct cr_err *e)
{
	const InventoryEntry *inv = ts[0].inv;
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		const struct rst_task *par = i ? rst_tree_task(ts, i, t->pst->ppid) : NULL;
		uint32_t plv = par ? par->ns_levels : 0;
		if (task_ids(t, inv->pidns, e))
			return -1;
		t->vpid = t->ns_levels ? t->ns_ids[t->ns_levels - 1] : 0;
		if (t->ns_levels == plv + 1 && t->vpid == 1) {
			t->ns_init = true;
			t->mntns_proc = i ? t->pst->ns_mnt_proc : inv->mntns_proc;
			if (i)
				pr_info("task %d is PID 1 of a namespace %u levels below ours%s\n", t->pid,
					t->ns_levels, t->mntns_proc ? " (own mounts, a fresh /proc)" : "");
		} else if (t->ns_levels != plv) {
			return cr_fail_errno(
			    e, EBADMSG,
			    "pstree.img: task %d is PID %d %u PID namespace levels below ours, "
			    "its parent %u levels",
			    t->pid, t->vpid, t->ns_levels, plv);
		}
	}
	return 0;
}

/* A helper (a session or group leader that is gone) is made in its creator's namespace; its inner PID
 * came from a member's NSsid/NSpgid, which is enough only one level down. */
int rst_pidns_helpers(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *h = &ts[i];
		const struct rst_task *s = h->helper ? rst_tree_task(ts, n, h->spawn_ppid) : NULL;
		if (!s || !s->ns_levels)
			continue;
		if (s->ns_levels > 1 || h->vpid <= 0)
			return cr_fail(
			    e,
			    "not supported yet: session or group %d, whose leader is gone, inside a "
			    "nested PID namespace",
			    h->pid);
		h->ns_levels = 1;
		h->ns_ids[0] = h->vpid;
	}
	return 0;
}

uint32_t rst_pidns_set_tid(const struct rst_task *t, pid_t set_tid[RST_PID_LEVELS])
{
	uint32_t lv = t->ns_levels;
	for (uint32_t l = 0; l < lv; l++)
		set_tid[l] = t->ns_ids[lv - 1 - l];
	if (t->fresh_hpid || t->handover) /* ours: what the kernel gives */
		return lv;
	set_tid[lv] = t->pid;
	return lv + 1;
}

pid_t rst_pidns_vid(const struct rst_task *t, pid_t id)
{
	uint32_t lt = t->ns_levels;
	if (!lt || id <= 0)
		return id;
	for (size_t i = 0; i < t->ntree; i++) {
		const struct rst_task *x = &t->tree[i];
		if (rst_ipid(x) == id)
			return x->ns_levels >= lt ? x->ns_ids[lt - 1] : 0;
	}
	for (size_t i = 0; i < t->ntree; i++) { /* a thread */
		const struct rst_task *x = &t->tree[i];
		const PstreeEntry *p = x->pst;
		for (size_t k = 1; !x->helper && k < p->n_threads; k++)
			if (p->threads[k] == id && x->ns_levels >= lt && p->n_ns_tids)
				return p->ns_tids[k * x->ns_levels + lt - 1];
	}
	return 0; /* outside the tree: not seen in its namespace */
}

void rst_pidns_thread(const struct rst_task *t, size_t k, struct rst_thread *th)
{
	const PstreeEntry *p = t->pst;
	uint32_t lv = t->ns_levels;
	th->tid = p->threads[k];
	if (!lv || !p->n_ns_tids)
		return;
	const int32_t *chain = &p->ns_tids[k * lv];
	for (uint32_t l = 0; l < lv; l++)
		th->set_tid[l] = chain[lv - 1 - l];
	th->set_tid[lv] = th->tid;
	th->set_tid_size = t->fresh_hpid ? lv : lv + 1;
	th->tid = chain[lv - 1];
}

/* A file owned by a thread other than a leader (F_OWNER_TID): the thread is made by the blob after the
 * task's fds, so crshim sets that owner once every thread is there, on a pidfd_getfd copy (the owner
 * belongs to the open file description), with the TID in its own view. */
static int fown_thread(const struct rst_task *t, int pidfd, const FdinfoEntry *fi, struct cr_err *e)
{
	const FileEntry *f = rst_file_by_id(t, fi->id);
	if (!f || !f->fown || f->fown->type != F_OWNER_TID || !f->fown->pid)
		return 0;
	const struct rst_task *x = NULL;
	size_t xk = 0;
	for (size_t i = 0; i < t->ntree && !x; i++)
		for (size_t k = 1; k < t->tree[i].pst->n_threads && !t->tree[i].helper && !x; k++)
			if (t->tree[i].pst->threads[k] == f->fown->pid)
				x = &t->tree[i], xk = k;
	if (!x)
		return 0; /* a leader (set by the task itself) or gone */
	__cleanup_close int fd = (int)syscall(SYS_pidfd_getfd, pidfd, fi->fd, 0);
	struct f_owner_ex own = {.type = F_OWNER_TID, .pid = rst_htid(x, xk)}; /* ours: crshim sets it */
	if (fd < 0 || fcntl(fd, F_SETOWN_EX, &own))
		return cr_fail_sys(e, "task %d fd %d: owner thread %d", t->pid, fi->fd, own.pid);
	pr_info("task %d fd %d: owner thread %d\n", t->pid, fi->fd, own.pid);
	return 0;
}

int rst_pidns_fown_threads(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		__cleanup_close int pidfd = -1;
		if (t->zombie || t->helper)
			continue;
		for (size_t j = 0; j < t->nr_fdinfo; j++) {
			const FileEntry *f = rst_file_by_id(t, t->fdinfo[j]->id);
			if (!f || !f->fown || f->fown->type != F_OWNER_TID)
				continue;
			if (pidfd < 0)
				pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
			if (pidfd < 0)
				return cr_fail_sys(e, "pidfd_open %d", t->pid);
			if (fown_thread(t, pidfd, t->fdinfo[j], e))
				return -1;
		}
	}
	return 0;
}

void rst_pidns_last_pid(const struct rst_task *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rst_task *t = &ts[i];
		struct cr_err e2;
		int32_t next;
		if (t->zombie || t->helper || !t->pst->has_ns_last_pid)
			continue;
		if (pidns_last_pid(t->pid, t->pst->ns_last_pid, &next, &e2))
			pr_warn(
			    "task %d: the last PID of its PID namespace not set to %d (its next fork may get "
			    "another PID): %s\n",
			    t->pid, t->pst->ns_last_pid, e2.msg);
		else
			pr_info("task %d: the last PID of its PID namespace set to %d\n", t->pid,
				t->pst->ns_last_pid);
	}
}

/* Fresh PIDs in crshim's namespace (fresh_hpid): the root is PID 1 of a new PID namespace, so the tree
 * needs only its ids inside it; its PIDs in ours are what the kernel gives (the original tree may still
 * run, or the same images be restored twice side by side). crshim then finds each task by its ids inside
 * (NSpid) to seize and signal it. */
bool rst_pidns_fresh_maybe(const struct rst_task *root)
{
	const PstreeEntry *p = root->n_all_pst ? root->all_pst[0] : NULL;
	if (!p)
		return false;
	if (p->has_ns_levels)
		return p->ns_levels == 1 && p->n_ns_tids >= 1 && p->ns_tids[0] == 1;
	return root->inv && root->inv->pidns && p->ns_pid == 1 && p->n_threads <= 1;
}

int rst_pidns_fresh(struct rst_task *ts, size_t n, bool born, struct cr_err *e)
{
	if (!ts[0].fresh_hpid && !born)
		return 0;
	const char *why = !ts[0].ns_init      ? "its root is no namespace's init"
			  : !ts[0].fresh_hpid ? "no ids of its tasks inside it"
					      : NULL;
	if (born && why) /* its tasks are made in its user namespace: they cannot choose PIDs in ours */
		return cr_fail(
		    e, "not supported yet: a tree whose user namespace owns its PID namespace, with %s", why);
	if (born) {
		pr_info("the tree is born in its user namespace, which owns its PID namespace: its PIDs in "
			"ours are fresh\n");
		return 0;
	}
	struct cr_err busy = {0};
	/* free: kept as they were (the old PIDs, as before); a zombie of the dump still holding one: fresh */
	for (size_t i = 0; i < n && !why; i++) /* (a handover helper's PID is the kernel's) */
		if (!ts[i].handover && check_pids(&ts[i], false, &busy))
			break;
	if (!why && !ns_pids_choosable()) {
		pr_info(
		    "the tree's root is PID 1 of a new PID namespace and crshim cannot choose PIDs in its "
		    "own (an ancestor of its user namespace owns it): its PIDs in ours are fresh\n");
		return 0;
	}
	if (!why && busy.msg[0]) {
		pr_info(
		    "the tree's root is PID 1 of a new PID namespace and %s: its PIDs in ours are fresh\n",
		    busy.msg);
		return 0;
	}
	if (!why)
		why = "they are free";
	pr_info("the tree keeps its PIDs in our namespace too: %s\n", why);
	for (size_t i = 0; i < n; i++)
		ts[i].fresh_hpid = false;
	for (size_t i = 0; i < n; i++)
		if (!ts[i].helper && rst_check_pids(&ts[i], e))
			return -1;
	return 0;
}

/* Does the NSpid chain of pid x (ours first) end with the ids chain[0..lv-1] (outermost first)? */
static bool chain_is(pid_t x, const pid_t *chain, uint32_t lv)
{
	pid_t ids[RST_PID_LEVELS + 1];
	struct cr_err e2;
	int got = ns_pid_chain(x, ids, RST_PID_LEVELS + 1, &e2);
	if (got != (int)lv + 1)
		return false;
	for (uint32_t l = 0; l < lv; l++)
		if (ids[l + 1] != chain[l])
			return false;
	return true;
}

/* x descends from the root (nested namespaces: ids there are not unique across containers). */
static bool under_root(pid_t x, pid_t root)
{
	for (int depth = 0; depth < 256 && x > 1; depth++) {
		char buf[512];
		int ppid = 0;
		char st;
		if (x == root)
			return true;
		const char *p = proc_stat_comm_end(x, 0, buf, sizeof(buf));
		if (!p || sscanf(p + 2, "%c %d", &st, &ppid) != 2)
			return false;
		x = ppid;
	}
	return false;
}

int rst_pidns_find(struct rst_task *t, struct cr_err *e)
{
	const struct rst_task *root = &t->tree[0];
	char want_ns[64], link[64], path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", root->pid);
	ssize_t wl = readlink(path, want_ns, sizeof(want_ns) - 1);
	if (wl <= 0)
		return cr_fail_sys(e, "readlink %s", path);
	want_ns[wl] = '\0';
	__cleanup_closedir DIR *d = opendir("/proc");
	if (!d)
		return cr_fail_sys(e, "open /proc");
	const struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long x = strtol(de->d_name, &end, 10);
		if (*end || x <= 1 || x == root->pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/pid", x);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (t->ns_levels == 1 ? strcmp(link, want_ns) != 0 : !strcmp(link, want_ns))
			continue;
		if (!chain_is((pid_t)x, t->ns_ids, t->ns_levels) ||
		    (t->ns_levels > 1 && !under_root((pid_t)x, root->pid)))
			continue;
		pr_debug("task %d is %ld in our PID namespace\n", t->pid, x);
		t->ipid = t->pid;
		t->pid = (pid_t)x;
		return 1;
	}
	return 0;
}

/* Zombie or helper t among the children of host pid par: by its ids inside (a zombie has no
 * /proc/PID/ns any more to compare). */
static bool find_child(struct rst_task *t, pid_t par)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", par, par);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (r <= 0)
		return false;
	buf[r] = '\0';
	for (char *s = buf, *end; *s; s = end) {
		long x = strtol(s, &end, 10);
		if (end == s)
			break;
		if (x > 1 && chain_is((pid_t)x, t->ns_ids, t->ns_levels)) {
			pr_debug("%s %d is %ld in our PID namespace\n", t->zombie ? "zombie" : "helper",
				 t->pid, x);
			t->ipid = t->pid;
			t->pid = (pid_t)x;
			return true;
		}
	}
	return false;
}

size_t rst_pidns_find_unseized(struct rst_task *ts, size_t n)
{
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		struct rst_task *t = &ts[i];
		if (!t->fresh_hpid || t->ipid || !(t->zombie || t->helper) || t->handover)
			continue;
		/* its parent (the spawner's own with CLONE_PARENT), else its spawner */
		const struct rst_task *p = rst_tree_task(ts, n, t->pst->ppid);
		const struct rst_task *sp = rst_tree_task(ts, n, t->spawn_ppid);
		left += !(p && rst_pid_known(p) && find_child(t, p->pid)) &&
			!(sp && sp != p && rst_pid_known(sp) && find_child(t, sp->pid));
	}
	return left;
}

int rst_pidns_find_threads(struct rst_task *t, struct cr_err *e)
{
	const PstreeEntry *p = t->pst;
	uint32_t lv = t->ns_levels;
	if (!t->fresh_hpid || p->n_threads <= 1 || t->htids)
		return 0;
	if (p->n_ns_tids < p->n_threads * lv)
		return cr_fail_errno(e, EBADMSG, "pstree.img: task %d: no ids of its threads", rst_ipid(t));
	t->htids = calloc(p->n_threads - 1, sizeof(*t->htids));
	if (!t->htids)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return cr_fail_sys(e, "open %s", path);
	const struct dirent *de;
	size_t found = 0;
	while ((de = readdir(d))) {
		char *end;
		long x = strtol(de->d_name, &end, 10);
		if (*end || x <= 0 || x == t->pid)
			continue;
		for (size_t k = 1; k < p->n_threads; k++)
			if (!t->htids[k - 1] && chain_is((pid_t)x, &p->ns_tids[k * lv], lv)) {
				t->htids[k - 1] = (pid_t)x;
				found++;
				break;
			}
	}
	if (found != p->n_threads - 1)
		return cr_fail_errno(e, ESRCH, "task %d: %zu of its %zu threads found", rst_ipid(t), found,
				     p->n_threads - 1);
	return 0;
}
