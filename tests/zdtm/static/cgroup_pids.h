/* The cgroup v1 pids hierarchy for the cgroup tests that make cgroups of their own there (cgroup_thread,
 * cgroup_deleg, cgroup_spare_none): writing a number into a cgroup file, a task's cgroup in it, the test's
 * own cgroup. */
#ifndef ZDTM_CGROUP_PIDS_H
#define ZDTM_CGROUP_PIDS_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CG "/sys/fs/cgroup/pids"

static inline int cg_write(const char *path, long v)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "%ld", v), fd = open(path, O_WRONLY);
	int r = fd < 0 ? -1 : (write(fd, b, (size_t)n) == n ? 0 : -1);
	if (fd >= 0)
		close(fd);
	return r;
}

/* the pids line of /proc/self/task/TID/cgroup */
static inline void cg_of(pid_t tid, char *out, size_t len)
{
	char p[64], line[512];
	snprintf(p, sizeof(p), "/proc/self/task/%d/cgroup", tid);
	FILE *f = fopen(p, "r");
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strncmp(c1 + 1, "pids:", 5))
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		snprintf(out, len, "%s", c2 + 1);
	}
	if (f)
		fclose(f);
}

/* The test's cgroup dir to make, CG/ORIG/TAG-PID (orig: its cgroup now); skips the test without the
 * hierarchy or root. */
static inline void cg_test_top(const char *tag, char *orig, size_t olen, char *top, size_t tlen)
{
	if (getuid() != 0 || access(CG "/tasks", W_OK))
		test_skip("no writable cgroup v1 pids hierarchy at " CG);
	cg_of(getpid(), orig, olen);
	snprintf(top, tlen, CG "%s/%s-%d", strcmp(orig, "/") ? orig : "", tag, getpid());
}

/* The test back in its cgroup orig. */
static inline void cg_back(const char *orig)
{
	char p[1024];
	snprintf(p, sizeof(p), CG "%s/cgroup.procs", strcmp(orig, "/") ? orig : "");
	cg_write(p, getpid());
}

#endif
