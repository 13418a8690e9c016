/* What a process of the tree shares with its parent through clone flags, found with kcmp: the fd table
 * (CLONE_FILES), cwd/root/umask (CLONE_FS). Stored in pstree_entry.clone_share; restore creates the process
 * with those flags from its parent (restore-child.c, files/restore-fdtable.c). A process whose table is
 * that of a sibling but not of its parent gets that sibling's pid (files_with). A table shared other than
 * through these (check_fd_tables) is refused. A process sharing the address space of
 * another one (CLONE_VM without CLONE_THREAD) is handled by dump-sharedvm.c instead. */
#define LOG_PREFIX "dump-share: "
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"
#include "base/proc.h"

bool dump_kcmp_same(pid_t a, pid_t b, int type)
{
	return syscall(SYS_kcmp, a, b, type, 0, 0) == 0;
}

const struct dump_ctx *dump_ctx_find(const struct dump_ctx *c, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].pid == pid)
			return &c[i];
	return NULL;
}

/* Shared fs info with a root other than "/": the processes would chroot each other (not supported). */
static int check_root(const struct dump_ctx *c, struct cr_err *e)
{
	__cleanup_free char *root = NULL;
	if (proc_readlink(c->pid, "root", &root, e))
		return -1;
	if (strcmp(root, "/"))
		return cr_fail(
		    e,
		    "task %d shares its fs info (CLONE_FS) with its parent %d and has the root %s: not "
		    "supported yet",
		    c->pid, c->ppid, root);
	return 0;
}

/* kcmp orders the tables (its result 1: less, 2: greater); qsort_r over indices into c */
static int table_cmp(const void *a, const void *b, void *arg)
{
	const struct dump_ctx *c = arg;
	pid_t pa = c[*(const size_t *)a].pid, pb = c[*(const size_t *)b].pid;
	long r = syscall(SYS_kcmp, pa, pb, KCMP_FILES, 0, 0);
	if (r == 1 || r == 2)
		return r == 1 ? -1 : 1;
	return r == 0 ? 0 : (pa > pb) - (pa < pb);
}

/* x is not made sharing its table by its parent nor by its address-space owner */
static bool table_root(const struct dump_ctx *x)
{
	return !(x->clone_share & CLONE_FILES) && !(x->vm_owner && (x->vm_flags & CLONE_FILES));
}

/* In the group ix[lo..hi) of processes sharing one table: each such process that has a sibling (same parent)
 * of the group that is one too, earlier in c, gets that sibling's pid (files_with): the first of them
 * restores the table, the restore has it clone the others (a process whose sharing parent ended and that was
 * reparented to a parent of another table). */
static void table_siblings(struct dump_ctx *c, const size_t *ix, size_t lo, size_t hi)
{
	for (size_t a = lo; a < hi; a++) {
		struct dump_ctx *x = &c[ix[a]];
		size_t best = ix[a];
		x->files_with = 0;
		if (!table_root(x) || x->vm_owner)
			continue;
		for (size_t b = lo; b < hi; b++) {
			const struct dump_ctx *s = &c[ix[b]];
			if (ix[b] < best && table_root(s) && !s->vm_owner && s->ppid == x->ppid)
				best = ix[b];
		}
		if (best != ix[a]) {
			x->files_with = c[best].pid;
			pr_info("task %d shares the fd table of its sibling %d\n", x->pid, c[best].pid);
		}
	}
}

/* A table shared (CLONE_FILES) is restored by one of its processes and the others are created sharing it
 * by their parent (or address-space owner) of the same table, or (files_with) by a sibling that restores it:
 * each group of processes sharing one table must have just one that is none of these (e.g. not one
 * reparented to a process none of whose children restores the table, nor one that got the table through a
 * process of another table). */
static int check_fd_tables(struct dump_ctx *c, size_t n, struct cr_err *e)
{
	__cleanup_free size_t *ix = calloc(n + 1, sizeof(*ix));
	size_t m = 0;
	if (!ix)
		return cr_fail(e, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!c[i].zombie)
			ix[m++] = i;
	qsort_r(ix, m, sizeof(*ix), table_cmp, (void *)c);
	for (size_t lo = 0, hi; lo < m; lo = hi) {
		size_t first = SIZE_MAX;
		for (hi = lo + 1; hi < m && dump_kcmp_same(c[ix[lo]].pid, c[ix[hi]].pid, KCMP_FILES); hi++)
			;
		if (hi - lo > 1)
			table_siblings(c, ix, lo, hi);
		for (size_t k = lo; k < hi; k++) {
			const struct dump_ctx *x = &c[ix[k]];
			if (!table_root(x) || x->files_with)
				continue; /* made sharing it */
			if (first == SIZE_MAX) {
				first = ix[k];
				continue;
			}
			return cr_fail(e,
				       "tasks %d and %d share an fd table (CLONE_FILES), but not through a "
				       "parent that shares it too: not supported yet",
				       c[first].pid, x->pid);
		}
	}
	return 0;
}

int dump_clone_share(struct dump_ctx *c, size_t n, struct cr_err *e)
{
	for (size_t i = 1; i < n; i++) {
		const struct dump_ctx *p = dump_ctx_find(c, n, c[i].ppid);
		c[i].clone_share = 0, c[i].files_with = 0;
		if (c[i].zombie)
			continue;
		if (c[i].vm_owner || !p || p->zombie)
			continue;
		if (dump_kcmp_same(p->pid, c[i].pid, KCMP_FILES))
			c[i].clone_share |= CLONE_FILES;
		if (dump_kcmp_same(p->pid, c[i].pid, KCMP_FS)) {
			if (check_root(&c[i], e))
				return -1;
			/* a task sharing its fs info cannot enter one (one born in it enters none) */
			if (!c[i].born && proc_in_other_userns(c[i].pid))
				return cr_fail(
				    e,
				    "task %d shares its fs info (CLONE_FS) with its parent %d inside a user "
				    "namespace: not supported yet",
				    c[i].pid, p->pid);
			c[i].clone_share |= CLONE_FS;
		}
		if (c[i].clone_share)
			pr_info("task %d shares with its parent %d:%s%s\n", c[i].pid, p->pid,
				(c[i].clone_share & CLONE_FILES) ? " fd table" : "",
				(c[i].clone_share & CLONE_FS) ? " fs info" : "");
	}
	return check_fd_tables(c, n, e);
}
