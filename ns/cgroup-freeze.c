/* --freeze-cgroup PATH at dump (as CRIU): the tasks of the cgroup are frozen (v1 freezer.state FROZEN, v2
 * cgroup.freeze 1), so that none forks or exits while crshim seizes them; each of its threads is seized
 * (PTRACE_SEIZE + PTRACE_INTERRUPT: the stop waits until the thaw), then the cgroup is thawed and the
 * stops come. A cgroup its runtime had frozen already (containerd pauses a task before it checkpoints
 * it) is frozen again once the dump is over; crshim thaws the others. */
#define LOG_PREFIX "cgroup: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns-int.h"

struct ns_cg_frz {
	char dir[PATH_MAX];
	bool v2;
	bool was_frozen;
	pid_t *tids; /* seized while frozen */
	size_t n;
};

static int write_small(const char *path, const char *v)
{
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd >= 0 && write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
}

static bool is_frozen(const struct ns_cg_frz *f)
{
	char p[PATH_MAX + 32], buf[4096];
	snprintf(p, sizeof(p), "%s/%s", f->dir, f->v2 ? "cgroup.events" : "freezer.state");
	if (proc_read_small(p, buf, sizeof(buf)) < 0)
		return false;
	return f->v2 ? strstr(buf, "frozen 1") != NULL : !strncmp(buf, "FROZEN", 6);
}

static int set_frozen(const struct ns_cg_frz *f, bool on, struct cr_err *e)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/%s", f->dir, f->v2 ? "cgroup.freeze" : "freezer.state");
	if (write_small(p, f->v2 ? (on ? "1" : "0") : (on ? "FROZEN" : "THAWED")))
		return cr_fail_sys(e, "--freeze-cgroup: %s %s", on ? "freeze" : "thaw", p);
	if (!on)
		return 0;
	for (int i = 0; i < 5000; i++) { /* FREEZING until every task is in the refrigerator */
		if (is_frozen(f))
			return 0;
		struct timespec nap = {0, 1000000};
		nanosleep(&nap, NULL);
	}
	return cr_fail_errno(e, ETIMEDOUT, "--freeze-cgroup %s: not frozen after 5 s", f->dir);
}

/* Every thread of the cgroup (v1 tasks, v2 cgroup.threads). */
static int list_tids(struct ns_cg_frz *f, struct cr_err *e)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/%s", f->dir, f->v2 ? "cgroup.threads" : "tasks");
	__cleanup_fclose FILE *in = fopen(p, "re");
	if (!in)
		return cr_fail_sys(e, "--freeze-cgroup: open %s", p);
	int tid;
	size_t cap = 0;
	while (fscanf(in, "%d", &tid) == 1) {
		if (arr_room(&f->tids, &cap, f->n, sizeof(*f->tids), 64))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		f->tids[f->n++] = tid;
	}
	return 0;
}

int ns_cg_freeze(const char *path, int (*preseize)(pid_t tid), struct ns_cg_frz **out, struct cr_err *e)
{
	char p[PATH_MAX + 32];
	*out = NULL;
	if (!path || !path[0])
		return 0;
	struct ns_cg_frz *f = calloc(1, sizeof(*f));
	if (!f)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*out = f;
	snprintf(f->dir, sizeof(f->dir), "%s", path);
	snprintf(p, sizeof(p), "%s/freezer.state", path);
	if (access(p, F_OK)) {
		snprintf(p, sizeof(p), "%s/cgroup.freeze", path);
		if (access(p, F_OK))
			return cr_fail_errno(e, ENOENT,
					     "--freeze-cgroup %s: not a freezer cgroup (no freezer.state or "
					     "cgroup.freeze)",
					     path);
		f->v2 = true;
	}
	f->was_frozen = is_frozen(f);
	if (!f->was_frozen && set_frozen(f, true, e))
		return -1;
	if (list_tids(f, e))
		return -1;
	for (size_t i = 0; i < f->n; i++)
		if (preseize(f->tids[i]) && errno != ESRCH)
			return cr_fail_sys(e, "--freeze-cgroup: seize thread %d", f->tids[i]);
	pr_info("%s%s: %zu threads seized while frozen\n", path,
		f->was_frozen ? " (frozen by its owner)" : "", f->n);
	return set_frozen(f, false, e);
}

static bool traced_by_me(pid_t tid)
{
	char p[64], line[128];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	__cleanup_fclose FILE *f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			return atoi(line + 10) == (int)getpid();
	return false;
}

void ns_cg_freeze_done(struct ns_cg_frz *f)
{
	if (!f)
		return;
	/* threads of the cgroup that the dump did not take (not in the tree, or the dump failed before
	 * it met them): their interrupt stop, then let them go */
	for (size_t i = 0; i < f->n; i++) {
		int st;
		if (!traced_by_me(f->tids[i]))
			continue;
		if (waitpid(f->tids[i], &st, __WALL) == f->tids[i] && WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, f->tids[i], NULL, NULL);
	}
	struct cr_err e;
	if (f->was_frozen && set_frozen(f, true, &e))
		pr_warn("%s\n", e.msg);
	else if (!f->was_frozen && is_frozen(f) && set_frozen(f, false, &e))
		pr_warn("%s\n", e.msg);
	free(f->tids);
	free(f);
}
