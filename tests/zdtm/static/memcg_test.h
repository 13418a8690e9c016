/* A v1 memory cgroup of the test's own, for the tests of what crshim makes for the tree and charges to its
 * memory cgroup (sk_unix_memcg, shm_memcg): TAG-PID below the test's cgroup in the host's hierarchy, or, in a
 * mount namespace without /sys/fs/cgroup/memory (mode ns, where the test is PID 1 of its PID namespace), in
 * the hierarchy the test mounts at /zdtm_memcg, named TAG-nsINO (the inode of its PID namespace). */
#ifndef ZDTM_MEMCG_TEST_H
#define ZDTM_MEMCG_TEST_H
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define CGM_HOST "/sys/fs/cgroup/memory"
#define CGM_OWN "/zdtm_memcg"

static char memcg_top[512], memcg_orig[256];
static const char *memcg_mnt = CGM_HOST;

/* A number in the test's cgroup's file (-1: none). */
static inline long memcg_val(const char *file)
{
	char p[600], b[32] = "";
	snprintf(p, sizeof(p), "%s/%s", memcg_top, file);
	int fd = open(p, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 ? atol(b) : -1;
}

/* The value of a line "key N" of the test's cgroup's memory.stat (-1: none). */
static inline long memcg_stat(const char *key)
{
	char p[600], line[256];
	long v = -1;
	snprintf(p, sizeof(p), "%s/memory.stat", memcg_top);
	FILE *f = fopen(p, "r");
	size_t kl = strlen(key);
	while (f && v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			v = atol(line + kl + 1);
	if (f)
		fclose(f);
	return v;
}

/* The number v into the test's cgroup's file (fail() when it cannot be written). */
static inline void memcg_put(const char *file, long v)
{
	char p[600], s[32];
	snprintf(p, sizeof(p), "%s/%s", memcg_top, file);
	snprintf(s, sizeof(s), "%ld", v);
	int fd = open(p, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		fail("setup: %s = %s: %m", p, s);
	if (fd >= 0)
		close(fd);
	test_msg("%s: %s\n", p, s);
}

static inline int memcg_into(const char *dir)
{
	char p[600], v[16];
	int n = snprintf(v, sizeof(v), "%d", getpid());
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	int fd = open(p, O_WRONLY);
	int r = fd < 0 || write(fd, v, (size_t)n) != n ? -1 : 0;
	if (fd >= 0)
		close(fd);
	return r;
}

/* The test into a new memory cgroup of its own (skips without one). */
static inline void memcg_setup(const char *tag)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char l[512];
	while (f && fgets(l, sizeof(l), f)) {
		char *c = strstr(l, ":memory:");
		if (c && strchr(l, ':') == c)
			snprintf(memcg_orig, sizeof(memcg_orig), "%.*s", (int)strcspn(c + 8, "\n"), c + 8);
	}
	if (f)
		fclose(f);
	if (!memcg_orig[0])
		test_skip("no cgroup v1 memory hierarchy");
	if (getuid() != 0)
		test_skip("not root: no cgroup of its own");
	if (access(CGM_HOST "/tasks", W_OK)) {
		memcg_mnt = CGM_OWN;
		if ((mkdir(CGM_OWN, 0755) && errno != EEXIST) ||
		    mount("cgroup", CGM_OWN, "cgroup", 0, "memory") || access(CGM_OWN "/tasks", W_OK))
			test_skip("no writable cgroup v1 memory hierarchy at " CGM_HOST
				  ", and none mounted here: %m");
	}
	if (!strcmp(memcg_orig, "/"))
		memcg_orig[0] = 0;
	struct stat pidns;
	if (getpid() == 1 && !stat("/proc/self/ns/pid", &pidns)) /* (pid 1 of every test in mode ns) */
		snprintf(memcg_top, sizeof(memcg_top), "%s%s/%s-ns%lu", memcg_mnt, memcg_orig, tag,
			 (unsigned long)pidns.st_ino);
	else
		snprintf(memcg_top, sizeof(memcg_top), "%s%s/%s-%d", memcg_mnt, memcg_orig, tag, getpid());
	if (mkdir(memcg_top, 0755) || memcg_into(memcg_top))
		fail("setup: into %s: %m", memcg_top);
}

/* The test back in its cgroup, its own removed. */
static inline void memcg_cleanup(void)
{
	char p[600];
	snprintf(p, sizeof(p), "%s%s", memcg_mnt, memcg_orig);
	memcg_into(p);
	rmdir(memcg_top);
}

#endif
