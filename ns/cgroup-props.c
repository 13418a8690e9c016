/* The properties of a cgroup that a container runtime sets, per hierarchy (v1 controllers and v2), read at
 * dump where the file is present and written back in the same order at restore (cpuset before the rest,
 * the period before the quota, the device list as deny-all then each allowed line, net_prio.ifpriomap a line
 * at a time). */
#define LOG_PREFIX "cgroup: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns-int.h"
#include "cgroup.h"

static const struct {
	const char *ctrl; /* a controller of the hierarchy ("" : v2) */
	const char *files[8];
} props[] = {
    {"cpuset", {"cpuset.cpus", "cpuset.mems"}},
    {"cpu", {"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us"}},
    {"memory", {"memory.limit_in_bytes", "memory.soft_limit_in_bytes", "memory.swappiness"}},
    {"pids", {"pids.max"}},
    {"blkio", {"blkio.weight", "blkio.bfq.weight"}},
    {"devices", {"devices.list"}},
    {"net_cls", {"net_cls.classid"}},
    {"net_prio", {"net_prio.ifpriomap"}},
    {"",
     {"cpuset.cpus", "cpuset.mems", "cpu.weight", "cpu.max", "memory.high", "memory.max", "pids.max",
      "io.weight"}},
};

/* Does hierarchy hname ("cpu,cpuacct", "" for v2) hold controller ctrl? */
static bool has_ctrl(const char *hname, const char *ctrl)
{
	if (!ctrl[0] || !hname[0])
		return !ctrl[0] && !hname[0];
	size_t l = strlen(ctrl);
	for (const char *p = hname; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, ctrl, l) && (p[l] == ',' || !p[l]))
			return true;
	}
	return false;
}

static int add_prop(CgDir *d, const char *name, const char *value)
{
	CgProp **np = realloc(d->props, (d->n_props + 1) * sizeof(void *));
	if (!np)
		return -1;
	d->props = np;
	CgProp *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	cg_prop__init(p);
	p->name = strdup(name);
	p->value = strdup(value);
	d->props[d->n_props++] = p;
	return p->name && p->value ? 0 : -1;
}

int ns_cg_props_read(const char *hname, const char *dir, CgDir *d, struct cr_err *e)
{
	char path[PATH_MAX], val[8192];
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		if (!has_ctrl(hname, props[i].ctrl))
			continue;
		for (size_t f = 0; f < 8 && props[i].files[f]; f++) {
			snprintf(path, sizeof(path), "%s/%s", dir, props[i].files[f]);
			if (proc_read_value(path, val, sizeof(val))) {
				if (errno == ENOENT)
					continue;
				return cr_fail_sys(e, "read %s", path);
			}
			if (add_prop(d, props[i].files[f], val))
				return cr_fail_errno(e, ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int write_str(const char *path, const char *v)
{
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t l = strlen(v);
	return write(fd, v, l) == (ssize_t)l ? 0 : -1;
}

/* devices.list back: deny all, then allow each line ("a *:* rwm" allows all again). */
static int write_devices(const char *dir, const char *list, struct cr_err *e)
{
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof(path), "%s/devices.deny", dir);
	if (write_str(path, "a"))
		return cr_fail_sys(e, "write a to %s", path);
	snprintf(path, sizeof(path), "%s/devices.allow", dir);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		if (line[0] && write_str(path, line))
			return cr_fail_sys(e, "write '%s' to %s", line, path);
		p += l + (p[l] == '\n');
	}
	return 0;
}

/* net_prio.ifpriomap back, a line ("IFNAME PRIO") at a time; a device gone since the dump is left out. */
static int write_ifpriomap(const char *dir, const char *map, struct cr_err *e)
{
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof(path), "%s/net_prio.ifpriomap", dir);
	for (const char *p = map; *p;) {
		size_t l = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		p += l + (p[l] == '\n');
		if (!line[0] || !write_str(path, line))
			continue;
		if (errno != ENODEV)
			return cr_fail_sys(e, "write '%s' to %s", line, path);
		pr_info("%s: '%s': no such device here, left out\n", path, line);
	}
	return 0;
}

int ns_cg_props_write(const char *dir, const CgDir *d, struct cr_err *e)
{
	char path[PATH_MAX];
	for (size_t i = 0; i < d->n_props; i++) {
		const CgProp *p = d->props[i];
		if (!p->name || !p->value || strchr(p->name, '/') || p->name[0] == '.')
			return cr_fail_errno(e, EBADMSG, "cgroup.img: a bad property of %s", dir);
		if (!strcmp(p->name, "devices.list") || !strcmp(p->name, "net_prio.ifpriomap")) {
			if (p->name[0] == 'd' ? write_devices(dir, p->value, e)
					      : write_ifpriomap(dir, p->value, e))
				return -1;
			continue;
		}
		/* an empty cpuset of a new cgroup stays as the kernel made it; v2 cpuset.cpus "" is "all" */
		if (!p->value[0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, p->name);
		if (write_str(path, p->value))
			return cr_fail_sys(e, "write %s to %s", p->value, path);
		pr_debug("%s = %s\n", path, p->value);
	}
	return 0;
}
