/* What a process of the tree shares with its parent through clone flags, found with kcmp: the fd table
 * (CLONE_FILES), cwd/root/umask (CLONE_FS). Stored in pstree_entry.clone_share; restore creates the process
 * with those flags from its parent (restore-child.c). A process sharing the address space of another one
 * (CLONE_VM without CLONE_THREAD) is handled by dump-sharedvm.c instead. */
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

int dump_clone_share(struct dump_ctx *c, size_t n, struct cr_err *e)
{
	for (size_t i = 1; i < n; i++) {
		const struct dump_ctx *p = dump_ctx_find(c, n, c[i].ppid);
		c[i].clone_share = 0;
		if (c[i].zombie)
			continue;
		if (c[i].vm_owner || !p || p->zombie)
			continue;
		if (dump_kcmp_same(p->pid, c[i].pid, KCMP_FILES)) {
			for (size_t k = 1; k < n; k++)
				if (c[k].ppid == c[i].pid)
					return cr_fail(
					    e,
					    "task %d shares its fd table with its parent %d (CLONE_FILES) "
					    "and has children (%d): not supported yet",
					    c[i].pid, p->pid, c[k].pid);
			c[i].clone_share |= CLONE_FILES;
		}
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
	return 0;
}
