/* Helpers of the tests of cgroup namespaces and cgroup mounts: the cgroup of a task as /proc/PID/cgroup
 * shows it, and a pid listed in a cgroup.procs. Header only (static inline): include it after zdtmtst.h. */
#ifndef ZDTM_CGROUP_H
#define ZDTM_CGROUP_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The path of the task in the hierarchy named h ("" for v2, "cpu", "name=systemd") in /proc/PID/cgroup
 * (pid 0: self), relative to the root of the reader's cgroup namespace; "" if none. */
static inline void cg_path_of(pid_t pid, const char *h, char *out, size_t len)
{
	char p[64], l[1024];
	snprintf(p, sizeof(p), pid ? "/proc/%d/cgroup" : "/proc/self/cgroup", (int)pid);
	FILE *f = fopen(p, "r");
	out[0] = 0;
	while (f && fgets(l, sizeof(l), f)) {
		char *a = strchr(l, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b || (size_t)(b - a - 1) != strlen(h) || strncmp(a + 1, h, strlen(h)))
			continue;
		b[1 + strcspn(b + 1, "\n")] = 0;
		snprintf(out, len, "%s", b + 1);
	}
	if (f)
		fclose(f);
}

/* Is pid one of the lines of the file procs (a cgroup.procs)? */
static inline int cg_lists(const char *procs, pid_t pid)
{
	char l[64];
	int found = 0;
	FILE *f = fopen(procs, "r");
	while (f && !found && fgets(l, sizeof(l), f))
		found = atoi(l) == pid;
	if (f)
		fclose(f);
	return found;
}

#endif
