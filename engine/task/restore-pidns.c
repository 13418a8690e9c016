/* PID namespaces of a restored tree (see dump-pidns.c): every task gets its ids in each PID namespace below
 * ours back through clone3 set_tid (innermost first, ours last); the init of a namespace (the root, or a
 * nested one whose parent is one level up) is cloned with CLONE_NEWPID, and threads get their tids the same
 * way in the blob. Ids that the images hold in crshim's view (file owners, timer notify threads, terminal
 * groups) are given to the task as it sees them (rst_pidns_vid). */
#define LOG_PREFIX "restore-pidns: "
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "restore.h"

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
		if (x->pid == id)
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
	th->set_tid_size = lv + 1;
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
	for (size_t i = 0; i < t->ntree && !x; i++)
		for (size_t k = 1; k < t->tree[i].pst->n_threads && !t->tree[i].helper; k++)
			if (t->tree[i].pst->threads[k] == f->fown->pid)
				x = &t->tree[i];
	if (!x)
		return 0; /* a leader (set by the task itself) or gone */
	__cleanup_close int fd = (int)syscall(SYS_pidfd_getfd, pidfd, fi->fd, 0);
	struct f_owner_ex own = {.type = F_OWNER_TID, .pid = f->fown->pid};
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
