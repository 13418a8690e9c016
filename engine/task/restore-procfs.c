/* Restore: what is set through a process's own /proc files, written by crshim through its /proc
 * (/proc/PID/...) once the process exists, as the process's mount tree may have no /proc (CRIU's
 * clean_mntns unmounts it); before, the process wrote /proc/self/... itself. */
#define LOG_PREFIX "restore: "
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

/* oom_score_adj (one value per process; children copy it when cloned, so any time after t is created
 * will do). Left alone when it has the value already: a lower one than the minimum needs
 * CAP_SYS_RESOURCE, as it did for the process itself. */
static int rst_task_coredump_filter(const struct rst_task *t, struct cr_err *e)
{
	const CoreEntry *c = t->core;
	char path[64], val[16];
	if (!c->has_coredump_filter)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/coredump_filter", (int)t->pid);
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	int len = snprintf(val, sizeof(val), "%#x", c->coredump_filter);
	if (fd < 0 || write(fd, val, (size_t)len) != len)
		return cr_fail_sys(e, "task %d: write %s to %s", rst_ipid(t), val, path);
	return 0;
}

/* The nice value of its autogroup (the restored session's, a new one), when not what it is already. */
static int rst_task_autogroup(const struct rst_task *t, struct cr_err *e)
{
	const CoreEntry *c = t->core;
	char path[64], cur[64] = "", val[16];
	if (!c->has_autogroup_nice)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)t->pid);
	const char *nice = proc_read_small(path, cur, sizeof(cur)) > 0 ? strstr(cur, " nice ") : NULL;
	if (nice && strtol(nice + 6, NULL, 10) == c->autogroup_nice)
		return 0;
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC); /* (no seek) */
	int len = snprintf(val, sizeof(val), "%d", c->autogroup_nice);
	/* Without CAP_SYS_ADMIN the kernel takes one such change in the whole system every 100 ms and says
	 * EAGAIN to the others (a restore of two sessions makes two at once): wait for a turn, 5 s at most.
	 */
	for (int i = 0; fd >= 0 && write(fd, val, (size_t)len) != len; i++) {
		if (errno != EAGAIN || i == 250)
			return cr_fail_sys(e, "task %d: write %s to %s", rst_ipid(t), val, path);
		usleep(20000);
	}
	if (fd < 0)
		return cr_fail_sys(e, "task %d: open %s", rst_ipid(t), path);
	return 0;
}

/* oom_score_adj, coredump_filter and the autogroup's nice value. */
int rst_task_oom_adj(const struct rst_task *t, struct cr_err *e)
{
	const CoreEntry *c = t->core;
	char path[64], cur[16] = "", adj[16];
	if (rst_task_coredump_filter(t, e) || rst_task_autogroup(t, e))
		return -1;
	if (!c->has_oom_score_adj)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)t->pid);
	__cleanup_close int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "task %d: open %s", rst_ipid(t), path);
	ssize_t n = read(fd, cur, sizeof(cur) - 1);
	if (n > 0 && strtol(cur, NULL, 10) == c->oom_score_adj)
		return 0;
	int len = snprintf(adj, sizeof(adj), "%d", c->oom_score_adj);
	if (pwrite(fd, adj, (size_t)len, 0) != len)
		return cr_fail_sys(e, "task %d: write %s to %s", rst_ipid(t), adj, path);
	return 0;
}
