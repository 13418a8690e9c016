/* A test in cgroups of its own, with the properties a runtime sets (v1 cpuset, cpu, memory, pids; v2
 * membership in the unified hierarchy), and a child in a pids cgroup below it: after a restore with the
 * .desc's
 * --manage-cgroups mode both are back in their cgroups with the properties the mode gives. The cgroups are
 * named zdtm-cgroup-PID (the .desc's pre-restore removes them or changes properties between dump and restore)
 * and removed at the end. CG_KEEP_CHANGED: the mode does not write properties of existing cgroups (none). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"
#define CG "/sys/fs/cgroup"

static char name[64], orig[8][256];
static const char *const hiers[] = {"cpuset", "cpu", "memory", "pids", "unified"};
#define NH 5

static const struct {
	const char *h, *file, *value, *changed; /* changed: what pre-restore writes (NULL: nothing) */
} props[] = {
    {"cpuset", "cpuset.cpus", "0", NULL},
    {"cpuset", "cpuset.mems", "0", NULL},
    {"cpu", "cpu.shares", "512", "1024"},
    {"cpu", "cpu.cfs_period_us", "100000", NULL},
    {"cpu", "cpu.cfs_quota_us", "50000", NULL},
    {"memory", "memory.limit_in_bytes", "67108864", NULL},
    {"memory", "memory.soft_limit_in_bytes", "33554432", NULL},
    {"pids", "pids.max", "77", "99"},
};

static int cg_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	int r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
	close(fd);
	return r;
}

static int cg_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The path of pid in hierarchy h ("unified": the "0::" line). */
static void cg_of(pid_t pid, const char *h, char *out, size_t len)
{
	char p[64], line[1024];
	snprintf(p, sizeof(p), "/proc/%d/cgroup", pid);
	FILE *f = fopen(p, "r");
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		if (strcmp(c1 + 1, strcmp(h, "unified") ? h : ""))
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		snprintf(out, len, "%s", c2 + 1);
	}
	if (f)
		fclose(f);
}

static void cleanup(pid_t child)
{
	char p[2048];
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	for (int i = 0; i < NH; i++) {
		snprintf(p, sizeof(p), CG "/%s%s/cgroup.procs", hiers[i],
			 strcmp(orig[i], "/") ? orig[i] : "");
		cg_write(p, "0");
		snprintf(p, sizeof(p), CG "/%s/%s/sub", hiers[i], name);
		rmdir(p);
		snprintf(p, sizeof(p), CG "/%s/%s", hiers[i], name);
		rmdir(p);
	}
}

int main(int argc, char **argv)
{
	char p[2048], v[1024];
	int go[2];
	test_init(argc, argv);
	snprintf(name, sizeof(name), "zdtm-cgroup-%d", getpid());
	for (int i = 0; i < NH; i++) {
		snprintf(p, sizeof(p), CG "/%s", hiers[i]);
		if (access(p, F_OK))
			test_skip("no %s hierarchy at %s", hiers[i], p);
		cg_of(getpid(), hiers[i], orig[i], sizeof(orig[i]));
		snprintf(p, sizeof(p), CG "/%s/%s", hiers[i], name);
		if (mkdir(p, 0755))
			fail("setup: mkdir %s: %m", p);
	}
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		snprintf(p, sizeof(p), CG "/%s/%s/%s", props[i].h, name, props[i].file);
		if (cg_write(p, props[i].value))
			fail("setup: %s = %s: %m", p, props[i].value);
	}
	for (int i = 0; i < NH; i++) {
		snprintf(p, sizeof(p), CG "/%s/%s/cgroup.procs", hiers[i], name);
		if (cg_write(p, "0"))
			fail("setup: join %s: %m", p);
	}
	snprintf(p, sizeof(p), CG "/pids/%s/sub", name);
	if (mkdir(p, 0755))
		fail("setup: mkdir %s: %m", p);
	snprintf(p, sizeof(p), CG "/pids/%s/sub/pids.max", name);
	if (cg_write(p, "5"))
		fail("setup: %s: %m", p);
	if (pipe(go))
		fail("setup: pipe");
	pid_t child = fork();
	if (child == 0) {
		test_forked();
		snprintf(p, sizeof(p), CG "/pids/%s/sub/cgroup.procs", name);
		if (cg_write(p, "0"))
			_exit(2);
		close(go[0]);
		close(go[1]);
		for (;;)
			pause();
	}
	close(go[1]);
	char c;
	if (read(go[0], &c, 1) != 0)
		fail("setup: child");
	if (test_failures) {
		cleanup(child);
		return 1;
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NH; i++) {
		char want[128];
		snprintf(want, sizeof(want), "/%s", name);
		cg_of(getpid(), hiers[i], v, sizeof(v));
		if (strcmp(v, want))
			fail("in %s cgroup '%s', want '%s'", hiers[i], v, want);
		cg_of(child, hiers[i], v, sizeof(v));
		if (!strcmp(hiers[i], "pids"))
			strcat(want, "/sub");
		if (strcmp(v, want))
			fail("child in %s cgroup '%s', want '%s'", hiers[i], v, want);
	}
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		const char *want = CG_KEEP_CHANGED && props[i].changed ? props[i].changed : props[i].value;
		snprintf(p, sizeof(p), CG "/%s/%s/%s", props[i].h, name, props[i].file);
		if (cg_read(p, v, sizeof(v)) || strcmp(v, want))
			fail("%s is '%s', want '%s'", p, v, want);
	}
	snprintf(p, sizeof(p), CG "/pids/%s/sub/pids.max", name);
	if (cg_read(p, v, sizeof(v)) || strcmp(v, CG_KEEP_CHANGED ? "6" : "5"))
		fail("%s is '%s', want '%s'", p, v, CG_KEEP_CHANGED ? "6" : "5");
	cleanup(child);
	if (!test_failures)
		pass();
	return 0;
}
