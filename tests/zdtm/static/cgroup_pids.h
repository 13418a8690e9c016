/* The cgroup v1 pids hierarchy for the cgroup tests that make cgroups of their own there (cgroup_thread,
 * cgroup_deleg): writing a number into a cgroup file, and a task's cgroup in it. */
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

#endif
