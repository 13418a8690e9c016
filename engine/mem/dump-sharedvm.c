/* Processes that share the address space of another process of the tree without being its threads
 * (clone(CLONE_VM[|CLONE_SIGHAND|CLONE_FILES|CLONE_FS]) without CLONE_THREAD), found with kcmp. The first
 * process of the tree order in an address space owns it: its memory is dumped once, in its images; each
 * sharer keeps its own registers, signal mask, pending signals, creds, fd table, ... and names the owner
 * (pstree_entry.vm_owner) with the clone flags that recreate it from the owner's restorer
 * (restore-sharedvm.c). What restore cannot recreate is refused here with one line. */
#define LOG_PREFIX "dump-sharedvm: "
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"
#include "base/proc.h"

/* What the sharer shares with its parent when that one is not the owner cannot be recreated. */
static int check_parent(const struct dump_ctx *s, const struct dump_ctx *own, const struct dump_ctx *p,
			struct cr_err *e)
{
	if (!p || p == own || p->zombie)
		return 0;
	if (!(s->vm_flags & CLONE_FILES) && dump_kcmp_same(p->pid, s->pid, KCMP_FILES))
		return cr_fail(
		    e,
		    "task %d shares the address space of %d and the fd table of its parent %d: not "
		    "supported yet",
		    s->pid, own->pid, p->pid);
	if (!(s->vm_flags & CLONE_FS) && dump_kcmp_same(p->pid, s->pid, KCMP_FS))
		return cr_fail(e,
			       "task %d shares the address space of %d and the fs info of its parent %d: not "
			       "supported yet",
			       s->pid, own->pid, p->pid);
	return 0;
}

/* Restrictions of the restore: no threads, no children, cloned by the owner (or its sibling), in the
 * owner's session or leading its own, with the root "/" when it has its own fs info. */
static int check_sharer(const struct dump_ctx *c, size_t n, const struct dump_ctx *s,
			const struct dump_ctx *own, int64_t own_sid, struct cr_err *e)
{
	if (s->nth)
		return cr_fail(e, "task %d shares the address space of %d and has threads: not supported yet",
			       s->pid, own->pid);
	/* in a user namespace that does not own the PID namespace: the owner's restorer clones it outside
	 * (its pid is chosen from there), then each enters it, which a process sharing its fs info may not */
	if (!s->born && (s->vm_flags & CLONE_FS) && proc_in_other_userns(s->pid))
		return cr_fail(
		    e,
		    "task %d shares the address space and the fs info (CLONE_FS) of %d inside a user "
		    "namespace that does not own its PID namespace: not supported yet",
		    s->pid, own->pid);
	for (size_t k = 0; k < n; k++)
		if (c[k].ppid == s->pid)
			return cr_fail(
			    e,
			    "task %d shares the address space of %d and has children (%d): not supported yet",
			    s->pid, own->pid, c[k].pid);
	if (s->ppid != own->pid && (own->root || s->ppid != own->ppid))
		return cr_fail(e,
			       "task %d shares the address space of %d, which is neither its parent nor its "
			       "sibling: not supported yet",
			       s->pid, own->pid);
	if (s->stat.f[6] != s->pid && s->stat.f[6] != own_sid)
		return cr_fail(e,
			       "task %d shares the address space of %d but is in another session (%lld): not "
			       "supported yet",
			       s->pid, own->pid, (long long)s->stat.f[6]);
	if (!(s->vm_flags & CLONE_FS)) {
		__cleanup_free char *root = NULL;
		if (proc_readlink(s->pid, "root", &root, e))
			return -1;
		if (strcmp(root, "/"))
			return cr_fail(e,
				       "task %d shares the address space of %d and has the root %s: not "
				       "supported yet",
				       s->pid, own->pid, root);
	}
	return check_parent(s, own, dump_ctx_find(c, n, s->ppid), e);
}

/* Task s shares the address space of the earlier task own: its clone flags, checked against what restore
 * can make. */
static int sharer(struct dump_ctx *c, size_t n, struct dump_ctx *s, const struct dump_ctx *own,
		  struct cr_err *e)
{
	struct proc_stat ost; /* the root's stat is read only later */
	if (proc_parse_stat(own->pid, &ost, e) || proc_parse_stat(s->pid, &s->stat, e))
		return cr_wrap(e, "task %d", s->pid);
	s->vm_flags = CLONE_VM;
	if (dump_kcmp_same(own->pid, s->pid, KCMP_SIGHAND))
		s->vm_flags |= CLONE_SIGHAND;
	if (dump_kcmp_same(own->pid, s->pid, KCMP_FILES))
		s->vm_flags |= CLONE_FILES;
	if (dump_kcmp_same(own->pid, s->pid, KCMP_FS))
		s->vm_flags |= CLONE_FS;
	if (s->ppid != own->pid)
		s->vm_flags |= CLONE_PARENT;
	if (check_sharer(c, n, s, own, ost.f[6], e))
		return -1;
	s->vm_owner = own->pid;
	s->exit_signal = (int)s->stat.f[38];
	pr_info("task %d shares the address space of %d:%s%s%s%s, exit signal %d\n", s->pid, own->pid,
		(s->vm_flags & CLONE_SIGHAND) ? " signal handlers" : "",
		(s->vm_flags & CLONE_FILES) ? " fd table" : "", (s->vm_flags & CLONE_FS) ? " fs info" : "",
		(s->vm_flags & CLONE_PARENT) ? " (its sibling)" : "", s->exit_signal);
	return 0;
}

/* The order of two tasks' address spaces (kcmp's order of its obfuscated pointers: total and stable), then
 * the tree order: sorting gathers the sharers of an address space behind its first task in the tree. */
struct vm_sort {
	const struct dump_ctx *c;
	bool failed; /* kcmp failed: the order is not to be trusted */
};

static int vm_cmp(const void *pa, const void *pb, void *arg)
{
	struct vm_sort *vs = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	long r = syscall(SYS_kcmp, vs->c[a].pid, vs->c[b].pid, KCMP_VM, 0, 0);
	if (r == 1)
		return -1;
	if (r == 2)
		return 1;
	if (r != 0)
		vs->failed = true;
	return a < b ? -1 : a > b;
}

/* Each task's owner: the first task of the tree order with its address space. O(n log n) kcmp calls with a
 * sort (kcmp of every pair took most of the dump time of a tree of 2000 processes); one kcmp of every
 * earlier task when kcmp cannot order them. idx: room for n. */
static void find_owners(struct dump_ctx *c, size_t n, size_t *owner, size_t *idx)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		owner[i] = i;
		if (!c[i].zombie)
			idx[m++] = i;
	}
	struct vm_sort vs = {c, false};
	qsort_r(idx, m, sizeof(*idx), vm_cmp, &vs);
	for (size_t k = 1; !vs.failed && k < m; k++) {
		size_t head = owner[idx[k - 1]];
		long r = syscall(SYS_kcmp, c[head].pid, c[idx[k]].pid, KCMP_VM, 0, 0);
		if (r < 0 || r == 3)
			vs.failed = true;
		else if (r == 0)
			owner[idx[k]] = head;
	}
	if (!vs.failed)
		return;
	pr_info("kcmp cannot order the address spaces: comparing every pair\n");
	for (size_t i = 0; i < n; i++) {
		owner[i] = i;
		for (size_t j = 0; j < i && owner[i] == i && !c[i].zombie; j++)
			if (!c[j].zombie && dump_kcmp_same(c[j].pid, c[i].pid, KCMP_VM))
				owner[i] = j;
	}
}

int dump_sharedvm(struct dump_ctx *c, size_t n, struct cr_err *e)
{
	size_t *owner = calloc(2 * n + 1, sizeof(*owner)); /* owner[n], then find_owners' idx[n] */
	if (!owner)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		c[i].vm_owner = 0, c[i].vm_flags = 0;
	find_owners(c, n, owner, owner + n);
	int ret = 0;
	for (size_t i = 1; !ret && i < n; i++)
		if (owner[i] != i)
			ret = sharer(c, n, &c[i], &c[owner[i]], e);
	free(owner);
	return ret;
}
