/* The config's cgroups at restore (cgroup v1 as on these machines: memory, cpu, pids, freezer): crshim makes
 * linux.cgroupsPath in each hierarchy, writes linux.resources there and enters it itself before the engine
 * makes the tree, so every restored task is born in it; crshim then goes back to its own cgroups. A failed
 * restore removes the cgroups crshim made. The engine (ns/cgroup-restore.c) gets cgroupsPath as its
 * --cgroup-root: the tasks go to it in every other hierarchy of the images too (in mode soft). */
#define LOG_PREFIX "bundle: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bundle.h"
#include "base/log.h"
#include "base/proc.h"

static const char *const ctrls[BUNDLE_CG_N] = {"memory", "cpu", "pids", "freezer"};

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, v, strlen(v));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

/* Our own cgroup in hierarchy ctrl, from /proc/self/cgroup ("N:ctrl[,..]:/path"). */
static int own_cgroup(const char *ctrl, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 64];
	int r = -1;
	while (f && r && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		for (char *tok = strtok(c1 + 1, ","); tok && r; tok = strtok(NULL, ","))
			if (!strcmp(tok, ctrl)) {
				c2[1 + strcspn(c2 + 1, "\n")] = '\0';
				snprintf(out, len, "%s", c2 + 1);
				r = 0;
			}
	}
	if (f)
		fclose(f);
	return r;
}

/* mkdir -p base/path; the first dir made is remembered (cleanup removes it and what is below). */
static int make_path(const char *base, const char *path, char *first, size_t len)
{
	char p[PATH_MAX];
	first[0] = '\0';
	if (snprintf(p, sizeof(p), "%s%s", base, path) >= (int)sizeof(p))
		return -1;
	for (char *s = p + strlen(base) + 1; s; s = strchr(s + 1, '/')) {
		char keep = *s;
		*s = '\0';
		if (mkdir(p, 0755) == 0 && !first[0])
			snprintf(first, len, "%s", p);
		else if (errno != EEXIST && errno != 0) {
			*s = keep;
			return -1;
		}
		errno = 0;
		*s = keep;
		if (!keep)
			break;
	}
	if (mkdir(p, 0755) == 0) { /* the leaf: made by us too (first of all when its parents were there) */
		if (!first[0])
			snprintf(first, len, "%s", p);
		return 0;
	}
	return errno != EEXIST ? -1 : 0;
}

static int set_resources(const char *dir, const char *ctrl, const struct oci_resources *r, struct cr_err *err)
{
	static const struct {
		const char *ctrl, *file;
		size_t off;
	} files[] = {
	    {"memory", "memory.limit_in_bytes", offsetof(struct oci_resources, memory_limit)},
	    {"cpu", "cpu.shares", offsetof(struct oci_resources, cpu_shares)},
	    {"cpu", "cpu.cfs_period_us", offsetof(struct oci_resources, cpu_period)},
	    {"cpu", "cpu.cfs_quota_us", offsetof(struct oci_resources, cpu_quota)},
	    {"pids", "pids.max", offsetof(struct oci_resources, pids_limit)},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int64_t v;
		char path[PATH_MAX + 64], val[32];
		if (strcmp(files[i].ctrl, ctrl))
			continue;
		memcpy(&v, (const char *)r + files[i].off, sizeof(v));
		if (v < 0 && strcmp(files[i].file, "cpu.cfs_quota_us"))
			continue;
		if (v < 0 && r->cpu_quota == -1 && r->cpu_period == -1)
			continue;
		snprintf(val, sizeof(val), v < 0 && !strcmp(files[i].file, "pids.max") ? "max" : "%lld",
			 (long long)v);
		if (snprintf(path, sizeof(path), "%s/%s", dir, files[i].file) >= (int)sizeof(path))
			return cr_fail_errno(err, ENAMETOOLONG, "cgroup %.128s", dir);
		if (write_str(path, val))
			return cr_fail_sys(err, "config linux.resources: write %s to %s", val, path);
	}
	return 0;
}

int bundle_cg_default(const char *id, char *out, size_t len)
{
	char own[256];
	if (own_cgroup("memory", own, sizeof(own)) && own_cgroup("pids", own, sizeof(own)))
		snprintf(own, sizeof(own), "/");
	int n = snprintf(out, len, "%s/%s", strcmp(own, "/") ? own : "", id);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int bundle_cg_enter(const struct oci_config *cf, struct bundle_cg *cg, struct cr_err *err)
{
	const char *p = cf->cgroups_path;
	memset(cg, 0, sizeof(*cg));
	if (!p || !p[0])
		return 0;
	if (p[0] != '/' || strstr(p, ".."))
		return cr_fail_errno(err, ENOTSUP,
				     "config linux.cgroupsPath '%.128s': only absolute cgroupfs paths", p);
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (int i = 0; i < BUNDLE_CG_N; i++) {
		char base[64], dir[PATH_MAX + 96];
		snprintf(base, sizeof(base), "/sys/fs/cgroup/%s", ctrls[i]);
		if (access(base, F_OK) || own_cgroup(ctrls[i], cg->own[i], sizeof(cg->own[i])))
			continue;
		cg->used[i] = true;
		if (make_path(base, p, cg->made[i], sizeof(cg->made[i])))
			return cr_fail_sys(err, "config linux.cgroupsPath: create %s%s", base, p);
		snprintf(dir, sizeof(dir), "%s%s", base, p);
		if (set_resources(dir, ctrls[i], &cf->resources, err))
			return -1;
		snprintf(dir, sizeof(dir), "%s%s/cgroup.procs", base, p);
		if (write_str(dir, pid))
			return cr_fail_sys(err, "config linux.cgroupsPath: enter %s", dir);
		pr_info("in cgroup %s%s (made: %s)\n", base, p, cg->made[i][0] ? cg->made[i] : "no");
	}
	return 0;
}

void bundle_cg_engine(const struct oci_config *cf, struct cr_opts *o, const char *root[1])
{
	if (o->n_cgroup_root || o->manage_cgroups != CR_CG_SOFT)
		return;
	if (!cf->cgroups_path || !cf->cgroups_path[0]) {
		o->manage_cgroups = CR_CG_IGNORE;
		return;
	}
	root[0] = cf->cgroups_path;
	o->cgroup_root = root;
	o->n_cgroup_root = 1;
}

void bundle_cg_leave(struct bundle_cg *cg)
{
	char pid[16], path[PATH_MAX + 64];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (int i = 0; i < BUNDLE_CG_N; i++) {
		if (!cg->used[i])
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s%s/cgroup.procs", ctrls[i],
			 strcmp(cg->own[i], "/") ? cg->own[i] : "");
		if (write_str(path, pid))
			pr_warn("back to cgroup %s: %s\n", path, strerror(errno));
	}
}

/* Remove what bundle_cg_enter made, deepest first. */
void bundle_cg_remove(const char *cgroups_path, struct bundle_cg *cg)
{
	for (int i = 0; i < BUNDLE_CG_N; i++) {
		char p[PATH_MAX];
		if (!cg->made[i][0])
			continue;
		if (snprintf(p, sizeof(p), "/sys/fs/cgroup/%s%s", ctrls[i], cgroups_path) >= (int)sizeof(p))
			continue;
		size_t stop = strlen(cg->made[i]);
		while (strlen(p) >= stop) {
			(void)cg_rmdir_wait(p);
			char *slash = strrchr(p, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
	}
}

/* The leaf in every hierarchy (the engine makes cgroupsPath in all those the images name). */
void bundle_cg_remove_leaf(const char *cgroups_path)
{
	if (!cgroups_path || cgroups_path[0] != '/' || strstr(cgroups_path, ".."))
		return;
	DIR *d = opendir("/sys/fs/cgroup");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char p[PATH_MAX];
		if (de->d_name[0] == '.' ||
		    snprintf(p, sizeof(p), "/sys/fs/cgroup/%s%s", de->d_name, cgroups_path) >= (int)sizeof(p))
			continue;
		if (!access(p, F_OK))
			(void)cg_rmdir_wait(p);
	}
	if (d)
		closedir(d);
}
