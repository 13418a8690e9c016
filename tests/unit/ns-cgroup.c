/* Unit tests of ns/'s cgroup helpers and PID namespace ids on real kernel objects: the hierarchies crshim
 * sees match /proc/self/cgroup, a cgroup's properties read and written back (pids.max, the devices list as
 * deny-all then each allowed line), bad properties refused, the --manage-cgroups mode names, the ids of a
 * task in a PID namespace of its own; a v1 hierarchy mounted only outside /sys/fs/cgroup, which crshim mounts
 * for itself, leaves no mount and no fd behind after a dump or a failed one; when crshim may enter a
 * cgroup (pids.max, frozen). Cgroups made here are named cov-unit-PID and removed. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "ns-int.h"
#include "ns.h"
#include "pid.h"
#include "tap.h"

static struct cr_err err;

static const char *prop(const CgDir *d, const char *name)
{
	for (size_t i = 0; i < d->n_props; i++)
		if (!strcmp(d->props[i]->name, name))
			return d->props[i]->value;
	return NULL;
}

/* The value of property name as ns_cg_props_read reads it from dir into out ("" when it is not read); 0 when
 * the read succeeded. */
static int read_prop(const char *hname, const char *dir, const char *name, char *out, size_t len)
{
	CgDir *d = malloc(sizeof(*d));
	if (!d)
		abort();
	cg_dir__init(d);
	cr_err_clear(&err);
	int r = ns_cg_props_read(hname, dir, d, &err);
	const char *v = prop(d, name);
	snprintf(out, len, "%s", v ? v : "");
	cg_dir__free_unpacked(d, NULL);
	return r;
}

/* A hierarchy that holds controller ctrl (v1: in its name; v2 "": in cgroup.controllers). */
static const struct ns_cg_hier *hier_with(const struct ns_cg_hier *h, size_t n, const char *ctrl)
{
	for (size_t i = 0; i < n; i++) {
		char c[512];
		if (h[i].name[0]) {
			snprintf(c, sizeof(c), ",%s,", h[i].name);
			char want[64];
			snprintf(want, sizeof(want), ",%s,", ctrl);
			if (strstr(c, want))
				return &h[i];
			continue;
		}
		char path[300];
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", h[i].mnt);
		FILE *f = fopen(path, "re");
		if (f && fgets(c, sizeof(c), f) && strstr(c, ctrl)) {
			fclose(f);
			return &h[i];
		}
		if (f)
			fclose(f);
	}
	return NULL;
}

/* val written to the file at path (one write, closed on every path): true when all went in. */
static bool put_file(const char *path, const char *val)
{
	FILE *w = fopen(path, "we");
	if (!w)
		return false;
	bool in = fputs(val, w) >= 0;
	return !fclose(w) && in;
}

/* A new cgroup cov-unit-PID in a hierarchy with controller ctrl (v1 only: v1only) into dir; NULL (and a
 * diag line: the caller skips) when there is none or it cannot be made. */
static const struct ns_cg_hier *new_cgroup(const struct ns_cg_hier *h, size_t nh, const char *ctrl,
					   bool v1only, char *dir, size_t len)
{
	const struct ns_cg_hier *x = hier_with(h, nh, ctrl);
	if (!x || (v1only && !x->name[0]) || geteuid()) {
		diag("skip %s: %s", ctrl, geteuid() ? "not root" : "no such hierarchy");
		return NULL;
	}
	snprintf(dir, len, "%s/cov-unit-%d", x->mnt, getpid());
	if (mkdir(dir, 0755)) {
		diag("skip %s: mkdir %s: %s", ctrl, dir, strerror(errno));
		return NULL;
	}
	return x;
}

/* Whether a cgroup v1 hierarchy of /proc/self/cgroup ("cpu,cpuacct", "name=x") is mounted anywhere here: a
 * named one may be left unmounted (another tool's test suite made it), and then nothing can be found of it.
 */
static bool hier_mounted(const char *name)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - cgroup ");
		char *opts = sep ? strchr(sep + strlen(" - cgroup "), ' ') : NULL;
		if (!opts)
			continue;
		opts[strcspn(opts, "\n")] = ',';
		opts[0] = ',';
		char want[300];
		snprintf(want, sizeof(want), ",%s,", name);
		found = strstr(opts, want) != NULL;
	}
	if (f)
		fclose(f);
	return found;
}

static void test_hiers(struct ns_cg_hier *h, size_t *nh)
{
	*nh = ns_cg_hiers(h, 16);
	ok(*nh > 0, "some cgroup hierarchies mounted: %zu", *nh);
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int all = 1, lines = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = '\0';
		const char *name = a + 1;
		const struct ns_cg_hier *x = ns_cg_hier_of(h, *nh, name);
		char procs[300];
		struct stat st;
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", x ? x->mnt : "/nonexistent");
		if (!x && !hier_mounted(name)) { /* (e.g. net_prio, as CRIU's cgroup_ifpriomap leaves it) */
			diag("hierarchy '%s' of /proc/self/cgroup is mounted nowhere: not looked for", name);
			continue;
		}
		if (!x || stat(procs, &st)) {
			diag("hierarchy '%s' of /proc/self/cgroup: %s", name,
			     x ? "no cgroup.procs" : "not found");
			all = 0;
		}
		lines++;
	}
	if (f)
		fclose(f);
	ok(lines > 0 && all, "each of the %d hierarchies of /proc/self/cgroup found, at a cgroup root",
	   lines);
	ok(ns_cg_hier_of(h, *nh, "no-such-controller") == NULL, "an unknown hierarchy: NULL");
	struct ns_cg_hier one[1];
	ok(ns_cg_hiers(one, 1) == 1, "at most max hierarchies");
	ns_cg_hiers_close(one, 1);
}

/* ns_cg_props_write of the properties name1=value1 and, when name2 is set, name2=value2, into dir. */
static int write_props(const char *dir, char *name1, char *value1, char *name2, char *value2)
{
	CgProp p1 = CG_PROP__INIT, p2 = CG_PROP__INIT;
	p1.name = name1, p1.value = value1;
	p2.name = name2, p2.value = value2;
	CgProp *pl[] = {&p1, &p2};
	CgDir w = CG_DIR__INIT;
	w.props = pl, w.n_props = name2 ? 2 : 1;
	cr_err_clear(&err);
	return ns_cg_props_write(dir, &w, &err);
}

static void test_props(const struct ns_cg_hier *h, size_t nh)
{
	char dir[400], v[4096];
	const struct ns_cg_hier *p = new_cgroup(h, nh, "pids", false, dir, sizeof(dir));
	if (!p)
		return;
	ok(read_prop(p->name, dir, "pids.max", v, sizeof(v)) == 0, "read the properties of a new cgroup (%s)",
	   err.msg);
	is_str(v, "max", "pids.max of a new cgroup is max");
	read_prop(p->name, dir, "cpu.weight", v, sizeof(v));
	ok(!v[0] || !p->name[0], "no v2 files read for a v1 hierarchy");

	/* the empty value: left as the kernel made it */
	ok(write_props(dir, "pids.max", "17", "pids.max", "") == 0, "write pids.max 17 (%s)", err.msg);
	ok(read_prop(p->name, dir, "pids.max", v, sizeof(v)) == 0, "read back");
	is_str(v, "17", "pids.max is 17, the empty value skipped");

	ok(write_props(dir, "../pids.max", "17", NULL, NULL) < 0 && err.errnum == EBADMSG &&
	       strstr(err.msg, "bad property"),
	   "a property name with a / is refused: %s", err.msg);
	ok(write_props(dir, ".hidden", "17", NULL, NULL) < 0 && err.errnum == EBADMSG,
	   "a property name with a leading dot");
	ok(write_props(dir, NULL, "17", NULL, NULL) < 0 && err.errnum == EBADMSG, "no name");
	ok(write_props(dir, "pids.nonexistent", "1", NULL, NULL) < 0 && strstr(err.msg, "pids.nonexistent"),
	   "a file the cgroup lacks: one error naming it (%s)", err.msg);
	ok(write_props(dir, "pids.max", "not-a-number", NULL, NULL) < 0 &&
	       strstr(err.msg, "write not-a-number"),
	   "a value the kernel refuses: %s", err.msg);
	ok(rmdir(dir) == 0, "the cgroup removed");

	/* the devices list (v1 only): deny all, then each allowed line */
	const struct ns_cg_hier *dv = new_cgroup(h, nh, "devices", true, dir, sizeof(dir));
	if (!dv)
		return;
	char parent[4096] = "", ppath[300];
	snprintf(ppath, sizeof(ppath), "%s/devices.list", dv->mnt);
	FILE *pf = fopen(ppath, "re");
	size_t plen = pf ? fread(parent, 1, sizeof(parent) - 1, pf) : 0;
	if (pf)
		fclose(pf);
	while (plen && parent[plen - 1] == '\n')
		parent[--plen] = '\0';
	ok(read_prop(dv->name, dir, "devices.list", v, sizeof(v)) == 0,
	   "devices.list read from a new cgroup");
	is_str(v, parent, "a new cgroup has its parent's devices list");
	ok(write_props(dir, "devices.list", "c 1:3 rwm\nc 1:5 r\n", NULL, NULL) == 0,
	   "devices.list written back (%s)", err.msg);
	ok(read_prop(dv->name, dir, "devices.list", v, sizeof(v)) == 0, "read back");
	is_str(v, "c 1:3 rwm\nc 1:5 r", "only the two allowed devices, in order");
	ok(write_props(dir, "devices.list", "bogus line", NULL, NULL) < 0 && strstr(err.msg, "'bogus line'"),
	   "a bad device line: %s", err.msg);
	ok(rmdir(dir) == 0, "the devices cgroup removed");
}

static void test_modes(void)
{
	const char *names[] = {"soft", "ignore", "none", "props", "full", "strict"};
	int distinct = 1;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < i; j++)
			distinct &= ns_cg_mode_of(names[i]) != ns_cg_mode_of(names[j]);
	int all = 1;
	for (int i = 0; i < 6; i++)
		all &= ns_cg_mode_of(names[i]) >= 0;
	ok(all && distinct, "the six --manage-cgroups modes have distinct values");
	ok(ns_cg_mode_of("Soft") < 0 && ns_cg_mode_of("") < 0 && ns_cg_mode_of("softer") < 0,
	   "unknown mode names: -1");
}

static void test_pid(void)
{
	struct ns_pid_ids ids;
	ok(ns_pid_ids(getpid(), &ids, &err) == 0, "own ids (%s)", err.msg);
	int lv = ids.levels;
	ok(lv >= 1, "at least one level");
	if (lv == 1)
		ok(ids.pid == getpid() && ids.pgid == getpgrp() && ids.sid == getsid(0),
		   "one level: our own ids");
	pid_t chain[8];
	is_int(ns_pid_chain(getpid(), chain, 8, &err), lv, "chain as long as the levels");
	is_int(chain[0], getpid(), "the chain starts with our id");
	ok(ns_pid_chain(getpid(), chain, 0, &err) < 0 && err.errnum == E2BIG, "no room: E2BIG");
	ok(ns_pid_ids(999999999, &ids, &err) < 0 && err.errnum == ENOENT, "no such pid: ENOENT");
	ok(ns_pid_chain(999999999, chain, 8, &err) < 0 && strstr(err.msg, "/proc/999999999/status"),
	   "no such pid: the chain names the file");
	ok(ns_same(getpid(), "pid", getpid(), "pid_for_children"), "pid and pid_for_children the same");
	ok(!ns_same(getpid(), "pid", getpid(), "mnt"), "pid and mnt differ");
	ok(ns_same(getpid(), "pid", 999999999, "pid"), "a task without namespaces counts as the same");
	ok(!ns_other(getpid(), "net") && !ns_other(999999999, "net"),
	   "ns_other: not for ourselves nor the gone");
	uint64_t nsid[NS_TASK_IDS];
	struct stat nst;
	ok(ns_read_task_ids(getpid(), nsid, &err) == 0, "ns_read_task_ids of ours (%s)", err.msg);
	ok(!stat("/proc/self/ns/net", &nst) && nsid[NS_NET] == (uint64_t)nst.st_ino &&
	       !stat("/proc/self/ns/pid_for_children", &nst) && nsid[NS_PID_CHILD] == (uint64_t)nst.st_ino &&
	       !stat("/proc/self/ns/user", &nst) && nsid[NS_USER] == (uint64_t)nst.st_ino,
	   "ns_read_task_ids: the inodes a stat gives (net, pid_for_children, user)");
	ok(ns_read_task_ids(999999999, nsid, &err) == 0 && !nsid[NS_NET] && !nsid[NS_TIME_CHILD],
	   "ns_read_task_ids of a gone task: none (0)");

	/* our own PID namespace, to go back to for our later children (LeakSanitizer clones at exit: into a
	 * namespace whose init is gone that fails) */
	int self_ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (geteuid() || self_ns < 0 || unshare(CLONE_NEWPID)) {
		diag("skip PID namespace ids: %s", geteuid() ? "not root" : strerror(errno));
		if (self_ns >= 0)
			close(self_ns);
		return;
	}
	int p[2];
	if (pipe(p))
		abort();
	pid_t c = fork();
	if (c == 0) {
		char x;
		close(p[1]);
		(void)!read(p[0], &x, 1); /* until the parent closes its end */
		_exit(0);
	}
	close(p[0]);
	ok(ns_pid_ids(c, &ids, &err) == 0, "a PID 1 of a new namespace: ids read");
	ok(ids.levels == lv + 1 && ids.pid == 1, "one level more, PID 1 in it (%d levels, pid %d)",
	   ids.levels, ids.pid);
	ok(ids.pgid == 0 && ids.sid == 0, "its group and session are outside its namespace: 0 0 (%d %d)",
	   ids.pgid, ids.sid);
	ok(ns_pid_chain(c, chain, 8, &err) == lv + 1 && chain[0] == c && chain[lv] == 1, "chain: %d ... 1",
	   c);
	ok(ns_other(c, "pid") && !ns_other(c, "mnt"), "ns_other: pid yes, mnt no");
	ok(ns_same(getpid(), "pid_for_children", c, "pid"), "our pid_for_children is its pid namespace");
	close(p[1]);
	waitpid(c, NULL, 0);
	ok(setns(self_ns, CLONE_NEWPID) == 0, "our children in our own PID namespace again");
	close(self_ns);
}

/* Lines of /proc/self/mountinfo, entries of /proc/self/fd. */
static int count_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	int n = 0;
	for (int c; f && (c = fgetc(f)) != EOF;)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static int count_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static int no_image(void *arg, enum img_kind k, int id, struct cr_err *e)
{
	(void)arg, (void)k, (void)id, (void)e;
	return 0;
}

/* ns_cg_dump of the tree pids (1) into dir; its result. */
static int dump_one(pid_t pid, int dirfd)
{
	static struct cr_opts o;
	bool zombie = false;
	struct ns_dump_args a = {
	    .o = &o, .dirfd = dirfd, .pids = &pid, .zombie = &zombie, .n = 1, .created = no_image};
	o.manage_cgroups = CR_CG_SOFT;
	cr_err_clear(&err);
	return ns_cg_dump(&a, false, &err);
}

/* The pids hierarchy mounted only at a dir of /tmp (a mount namespace of the test's own, the host's
 * /sys/fs/cgroup/pids taken off there): crshim mounts it for itself (cg_own_mount), attached nowhere; the
 * hierarchies closed, a dump and a failed dump leave no mount and no fd. */
static void test_own_mount(void)
{
	char mnt[64], cg[128], procs[160], v[16];
	if (geteuid() || access("/sys/fs/cgroup/pids/tasks", F_OK)) {
		diag("skip own mount: %s", geteuid() ? "not root" : "no v1 pids hierarchy");
		return;
	}
	snprintf(mnt, sizeof(mnt), "/tmp/cov-unit-cg-%d", getpid());
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    umount2("/sys/fs/cgroup/pids", MNT_DETACH) || mkdir(mnt, 0700) ||
	    mount("cgroup", mnt, "cgroup", 0, "pids")) {
		diag("skip own mount: %s", strerror(errno));
		return;
	}
	int mi0 = count_lines("/proc/self/mountinfo"), fd0 = count_fds();
	struct ns_cg_hier h[16];
	size_t nh = ns_cg_hiers(h, 16);
	const struct ns_cg_hier *x = ns_cg_hier_of(h, nh, "pids");
	ok(x && x->fd >= 0 && !strncmp(x->mnt, "/proc/self/fd/", 14),
	   "pids mounted only at %s: crshim's own mount of it (%s)", mnt, x ? x->mnt : "none");
	is_int(count_lines("/proc/self/mountinfo"), mi0, "no mount attached for it");
	ns_cg_hiers_close(h, nh);
	is_int(count_fds(), fd0, "its fd closed with the hierarchies");

	snprintf(cg, sizeof(cg), "%s/cov-unit-%d", mnt, getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	int go[2];
	if (mkdir(cg, 0755) || pipe(go))
		abort();
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(go[1]);
		(void)!read(go[0], &b, 1);
		_exit(0);
	}
	close(go[0]);
	snprintf(v, sizeof(v), "%d", c);
	int pfd = open(procs, O_WRONLY | O_CLOEXEC);
	ok(pfd >= 0 && write(pfd, v, strlen(v)) == (ssize_t)strlen(v), "a task in pids cgroup %s", cg);
	if (pfd >= 0)
		close(pfd);
	char img[96];
	snprintf(img, sizeof(img), "/tmp/cov-unit-img-%d", getpid());
	int dirfd = mkdir(img, 0700) ? -1 : open(img, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd0 = count_fds();
	ok(dump_one(c, dirfd) == 0, "its cgroups dumped (%s)", err.msg);
	is_int(count_lines("/proc/self/mountinfo"), mi0, "after a dump: no mount left");
	is_int(count_fds(), fd0, "after a dump: no fd left");
	ok(dump_one(999999999, dirfd) < 0, "a dump of a gone task fails (%s)", err.msg);
	is_int(count_lines("/proc/self/mountinfo"), mi0, "after a failed dump: no mount left");
	is_int(count_fds(), fd0, "after a failed dump: no fd left");

	close(go[1]);
	waitpid(c, NULL, 0);
	if (dirfd >= 0)
		close(dirfd);
	tap_rm_dir(img);
	rmdir(cg);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}

/* ns_cg_room_for_crshim on a v1 pids cgroup (pids.max), a v1 memory one (memory.limit_in_bytes) and a v1
 * freezer one (freezer.state). */
static void test_room(const struct ns_cg_hier *h, size_t nh)
{
	char dir[400], sub[450], why[600], f[500];
	const struct ns_cg_hier *p = new_cgroup(h, nh, "pids", true, dir, sizeof(dir));
	if (!p)
		return;
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	if (mkdir(sub, 0755))
		abort();
	ok(ns_cg_room_for_crshim(sub, p->mnt, 0, why, sizeof(why)), "no pids.max: crshim may enter");
	snprintf(f, sizeof(f), "%s/pids.max", dir);
	ok(put_file(f, "10"), "pids.max 10 above it");
	ok(!ns_cg_room_for_crshim(sub, p->mnt, 0, why, sizeof(why)) && strstr(why, "pids.max 10"),
	   "pids.max of a cgroup above with room for fewer than 16: not (%s)", why);
	ok(put_file(f, "1000"), "pids.max 1000");
	ok(ns_cg_room_for_crshim(sub, p->mnt, 0, why, sizeof(why)), "room enough: crshim may enter");
	rmdir(sub);
	rmdir(dir);

	/* a memory limit: 16 MiB and the bytes crshim makes there */
	const struct ns_cg_hier *m = new_cgroup(h, nh, "memory", true, dir, sizeof(dir));
	if (m) {
		snprintf(f, sizeof(f), "%s/memory.limit_in_bytes", dir);
		ok(put_file(f, "67108864"), "memory.limit_in_bytes 64 MiB");
		ok(ns_cg_room_for_crshim(dir, m->mnt, 0, why, sizeof(why)),
		   "an empty cgroup of 64 MiB: crshim may enter");
		ok(ns_cg_room_for_crshim(dir, m->mnt, 40 << 20, why, sizeof(why)), "and make 40 MiB there");
		ok(!ns_cg_room_for_crshim(dir, m->mnt, 60 << 20, why, sizeof(why)) &&
		       strstr(why, "memory.limit_in_bytes 67108864"),
		   "not to make 60 MiB there (%s)", why);
		rmdir(dir);
	}

	const struct ns_cg_hier *fz = new_cgroup(h, nh, "freezer", true, dir, sizeof(dir));
	if (!fz)
		return;
	snprintf(f, sizeof(f), "%s/freezer.state", dir);
	ok(ns_cg_room_for_crshim(dir, fz->mnt, 0, why, sizeof(why)),
	   "a thawed freezer cgroup: crshim may enter");
	ok(put_file(f, "FROZEN"), "frozen");
	ok(!ns_cg_room_for_crshim(dir, fz->mnt, 0, why, sizeof(why)) && strstr(why, "frozen"),
	   "a frozen cgroup: not (%s)", why);
	put_file(f, "THAWED");
	rmdir(dir);
}

int main(void)
{
	struct ns_cg_hier h[16];
	size_t nh;
	test_hiers(h, &nh);
	test_props(h, nh);
	test_room(h, nh);
	ns_cg_hiers_close(h, nh);
	test_modes();
	test_pid();
	test_own_mount();
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	return done_testing();
}
