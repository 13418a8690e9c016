/* The tree's cgroups (README.md "Cgroups").
 *
 * Dump: each task's cgroup in every hierarchy (/proc/PID/cgroup, read from crshim's cgroup namespace: paths
 * from the hierarchy's root), the distinct sets of them, the cgroups the tree uses (each task's and those
 * between the root task's and it) with the properties a runtime sets, and the root of the tree's cgroup
 * namespace -> cgroup.img.
 * Restore (CRIU's --manage-cgroups modes): before any task, crshim makes the cgroups that are missing and
 * writes their properties as the mode says; each task is moved into its cgroups by crshim after it is
 * cloned and before it runs (the root before crshim lets it go, then each child before its go); a failed
 * restore removes the cgroups crshim made. --cgroup-root [CTRL:]/PATH puts the root task's cgroup (and what
 * is below it) at PATH. */
#define LOG_PREFIX "cgroup: "
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "ns-int.h"
#include "cgroup.h"

#define CG_MAX_HIER 16

/* ---- the hierarchies crshim sees ---- */

static int yard_mount_retry(const char *name);

/* A mount of a hierarchy at mnt that stays while crshim uses it: the host's, under /sys/fs/cgroup. Another
 * one (a tool's mount of its own for a while, as CRIU's .criu.cgyard.XXXXXX) may go away under crshim. */
static bool cg_stable(const char *mnt)
{
	return !strncmp(mnt, "/sys/fs/cgroup", 14) && (!mnt[14] || mnt[14] == '/');
}

/* Hierarchy name is in h already (n of them): true, and it takes mnt if that is the stable one of the two
 * (the host's mount of it rather than a tool's). */
static bool prefer_stable(struct ns_cg_hier *h, size_t n, const char *name, const char *mnt)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i].name, name)) {
			if (!cg_stable(h[i].mnt) && cg_stable(mnt))
				snprintf(h[i].mnt, sizeof(h[i].mnt), "%s", mnt);
			return true;
		}
	return false;
}

/* A v1 hierarchy x crshim sees mounted only elsewhere than under /sys/fs/cgroup: crshim mounts it for itself,
 * attached nowhere (the same hierarchy); where it cannot (no CAP_SYS_ADMIN), it keeps the mount it saw. At
 * dump and restore alike; the mount, never attached, goes with its fd (ns_cg_hiers_close): nothing to
 * unmount, nothing in any mountinfo (tests/unit/ns-cgroup.c). */
static void cg_own_mount(struct ns_cg_hier *x)
{
	if (!x->name[0] || cg_stable(x->mnt))
		return;
	int fd = yard_mount_retry(x->name);
	if (fd < 0)
		return;
	pr_info(
	    "cgroup hierarchy '%s' is mounted at %s only, not under /sys/fs/cgroup: crshim mounted it for "
	    "itself\n",
	    x->name, x->mnt);
	snprintf(x->mnt, sizeof(x->mnt), "/proc/self/fd/%d", fd);
	x->fd = fd;
}

size_t ns_cg_hiers(struct ns_cg_hier *h, size_t max)
{
	__cleanup_fclose FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	size_t n = 0;
	while (f && n < max && fgets(line, sizeof(line), f)) {
		char root[256], mnt[256], fstype[32], opts[1024];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*d %*d %*s %255s %255s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%31s %*s %1023s", fstype, opts) != 2 || strcmp(root, "/"))
			continue;
		struct ns_cg_hier *x = &h[n];
		x->name[0] = '\0';
		x->fd = -1;
		if (!strcmp(fstype, "cgroup2")) {
			snprintf(x->mnt, sizeof(x->mnt), "%s", mnt);
			n += !prefer_stable(h, n, "", mnt);
			continue;
		}
		if (strcmp(fstype, "cgroup"))
			continue;
		/* super options: rw,cpu,cpuacct or rw,name=systemd: the controllers, as /proc/PID/cgroup */
		for (char *save = NULL, *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strcmp(t, "rw") || !strcmp(t, "ro") || !strncmp(t, "release_agent=", 14) ||
			    !strcmp(t, "clone_children") || !strcmp(t, "noprefix") || !strcmp(t, "xattr") ||
			    !strcmp(t, "cpuset_v2_mode") || !strcmp(t, "favordynmods") ||
			    !strcmp(t, "nosuid"))
				continue;
			size_t l = strlen(x->name);
			snprintf(x->name + l, sizeof(x->name) - l, "%s%s", l ? "," : "", t);
		}
		snprintf(x->mnt, sizeof(x->mnt), "%s", mnt);
		if (x->name[0] && !prefer_stable(h, n, x->name, mnt))
			n++;
	}
	for (size_t i = 0; i < n; i++)
		cg_own_mount(&h[i]);
	return n;
}

/* A new mount of the v1 hierarchy name, attached nowhere: its fd, or -1 (errno). */
static int yard_mount(const char *name)
{
	__cleanup_close int fs = fsopen("cgroup", FSOPEN_CLOEXEC);
	char opts[64];
	snprintf(opts, sizeof(opts), "%s", name);
	bool named = false;
	for (char *save = NULL, *t = strtok_r(opts, ",", &save); fs >= 0 && t; t = strtok_r(NULL, ",", &save))
		if (!strncmp(t, "name=", 5)
			? (named = true, fsconfig(fs, FSCONFIG_SET_STRING, "name", t + 5, 0))
			: fsconfig(fs, FSCONFIG_SET_FLAG, t, NULL, 0))
			return -1;
	/* a named hierarchy without controllers: "none" */
	if (fs < 0 || (named && !strchr(name, ',') && fsconfig(fs, FSCONFIG_SET_FLAG, "none", NULL, 0)) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return -1;
	return fsmount(fs, FSMOUNT_CLOEXEC, 0);
}

/* yard_mount, again on EBUSY (up to 0.5 s): a hierarchy of that name being destroyed (its last mount or
 * cgroup just went: a test's, or crshim's own mount of it closed a moment ago) makes the kernel restart the
 * create, which a used fs context refuses; a new context finds it gone. Its fd, or -1 (errno). */
static int yard_mount_retry(const char *name)
{
	int mnt = -1;
	for (int tries = 0; mnt < 0 && tries < 50; tries++)
		if ((mnt = yard_mount(name)) < 0 && (errno != EBUSY || usleep(10000)))
			break;
	return mnt;
}

int ns_cg_yard(struct ns_cg_hier *h, size_t *n, size_t max, const char *name)
{
	if (!name[0] || *n >= max || strlen(name) >= sizeof(h->name))
		return -1;
	int mnt = yard_mount_retry(name);
	if (mnt < 0) {
		pr_info("cgroup hierarchy '%s' is mounted nowhere here and could not be mounted: %s\n", name,
			strerror(errno));
		return -1;
	}
	struct ns_cg_hier *x = &h[(*n)++];
	snprintf(x->name, sizeof(x->name), "%s", name);
	snprintf(x->mnt, sizeof(x->mnt), "/proc/self/fd/%d", mnt);
	x->fd = mnt;
	pr_info("cgroup hierarchy '%s' is mounted nowhere here: crshim mounted it for itself\n", name);
	return 0;
}

void ns_cg_hiers_close(struct ns_cg_hier *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].fd >= 0) {
			close(h[i].fd);
			h[i].fd = -1;
		}
}

const struct ns_cg_hier *ns_cg_hier_of(const struct ns_cg_hier *h, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i].name, name))
			return &h[i];
	return NULL;
}

/* ---- dump ---- */

struct cg_line {
	char name[64];
	char path[PATH_MAX];
};

/* /proc/PID/cgroup (tid: /proc/PID/task/TID/cgroup): "ID:NAME:PATH" lines, at most max. */
static int read_cgroups_of(pid_t pid, pid_t tid, struct cg_line *l, size_t max, size_t *n, struct cr_err *e)
{
	char p[64], line[PATH_MAX + 128];
	if (tid)
		snprintf(p, sizeof(p), "/proc/%d/task/%d/cgroup", (int)pid, (int)tid);
	else
		snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)pid);
	__cleanup_fclose FILE *f = fopen(p, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", p);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		if (*n == max)
			return cr_fail_errno(e, E2BIG, "%s: more than %zu hierarchies", p, max);
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		snprintf(l[*n].name, sizeof(l[*n].name), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		snprintf(l[*n].path, sizeof(l[*n].path), "%s", c2 + 1);
		(*n)++;
	}
	return 0;
}

static int read_cgroups(pid_t pid, struct cg_line *l, size_t max, size_t *n, struct cr_err *e)
{
	return read_cgroups_of(pid, 0, l, max, n, e);
}

struct cg_owned { /* tree_owns's answers */
	uint32_t ctl;
	char *path;
	bool own;
};

struct cg_dump {
	CgroupEntry ce;
	struct ns_cg_hier h[CG_MAX_HIER];
	size_t nh;
	size_t nsub; /* directories add_subdirs found */
	pid_t *pids; /* the tree, sorted */
	size_t npids;
	struct cg_owned *owned;
	size_t nowned;
};

static int ctl_index(struct cg_dump *d, const char *name, struct cr_err *e)
{
	for (size_t i = 0; i < d->ce.n_ctls; i++)
		if (d->ce.ctls[i]->name && !strcmp(d->ce.ctls[i]->name, name))
			return (int)i;
	CgCtl **nc = realloc(d->ce.ctls, (d->ce.n_ctls + 1) * sizeof(void *));
	if (!nc)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	d->ce.ctls = nc;
	CgCtl *c = calloc(1, sizeof(*c));
	if (!c)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cg_ctl__init(c);
	c->name = strdup(name);
	nc[d->ce.n_ctls++] = c;
	return c->name ? (int)d->ce.n_ctls - 1 : cr_fail_errno(e, ENOMEM, "out of memory");
}

/* The set of the task's cgroups (a new one when no task had the same). */
static int set_of(struct cg_dump *d, const struct cg_line *l, size_t n, struct cr_err *e)
{
	char *paths[CG_MAX_HIER * 2] = {0};
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		int c = ctl_index(d, l[i].name, e);
		if (c < 0)
			return -1;
		if ((size_t)c >= CG_MAX_HIER * 2)
			return cr_fail_errno(e, E2BIG, "too many cgroup hierarchies");
		paths[c] = (char *)l[i].path;
		np = (size_t)c + 1 > np ? (size_t)c + 1 : np;
	}
	for (size_t s = 0; s < d->ce.n_sets; s++) {
		const CgSet *x = d->ce.sets[s];
		bool same = x->n_paths == np;
		for (size_t i = 0; same && i < np; i++)
			same = x->paths[i] && !strcmp(x->paths[i], paths[i] ? paths[i] : "");
		if (same)
			return (int)s;
	}
	CgSet **ns = realloc(d->ce.sets, (d->ce.n_sets + 1) * sizeof(void *));
	if (!ns)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	d->ce.sets = ns;
	CgSet *x = calloc(1, sizeof(*x));
	if (!x)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cg_set__init(x);
	ns[d->ce.n_sets++] = x;
	x->paths = calloc(np ? np : 1, sizeof(char *));
	if (!x->paths)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (; x->n_paths < np; x->n_paths++)
		if (!(x->paths[x->n_paths] = strdup(paths[x->n_paths] ? paths[x->n_paths] : "")))
			return cr_fail_errno(e, ENOMEM, "out of memory");
	return (int)d->ce.n_sets - 1;
}

static bool dir_known(const struct cg_dump *d, uint32_t ctl, const char *path)
{
	for (size_t i = 0; i < d->ce.n_dirs; i++)
		if (d->ce.dirs[i]->ctl == ctl && !strcmp(d->ce.dirs[i]->path, path))
			return true;
	return false;
}

static int add_perm(CgDir *x, const char *name, const struct stat *st, struct cr_err *e)
{
	CgPerm **np = realloc(x->perms, (x->n_perms + 1) * sizeof(void *));
	CgPerm *p = np ? calloc(1, sizeof(*p)) : NULL;
	if (np)
		x->perms = np;
	if (!p)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cg_perm__init(p);
	x->perms[x->n_perms++] = p;
	p->name = strdup(name);
	p->has_mode = p->has_uid = p->has_gid = true;
	p->mode = st->st_mode & 07777, p->uid = st->st_uid, p->gid = st->st_gid;
	return p->name ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
}

/* The owner and mode of dir, and those of its files that are not root's (a delegation). */
static int read_perms(const char *dir, CgDir *x, struct cr_err *e)
{
	struct stat st;
	__cleanup_closedir DIR *dd = opendir(dir);
	if (!dd || fstat(dirfd(dd), &st))
		return cr_fail_sys(e, "cgroup %s", dir);
	if (add_perm(x, "", &st, e))
		return -1;
	for (struct dirent *de; (de = readdir(dd));)
		if (de->d_type == DT_REG && !fstatat(dirfd(dd), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    (st.st_uid || st.st_gid) && add_perm(x, de->d_name, &st, e))
			return -1;
	return 0;
}

/* A new cgroup directory sub of hierarchy h (index ctl), with its properties and owners. */
static int new_dir(struct cg_dump *d, uint32_t ctl, const struct ns_cg_hier *h, const char *sub,
		   struct cr_err *e)
{
	char dir[PATH_MAX + 256];
	CgDir **nd = realloc(d->ce.dirs, (d->ce.n_dirs + 1) * sizeof(void *));
	CgDir *x = nd ? calloc(1, sizeof(*x)) : NULL;
	if (nd)
		d->ce.dirs = nd;
	if (!x)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cg_dir__init(x);
	nd[d->ce.n_dirs++] = x;
	x->has_ctl = true;
	x->ctl = ctl;
	if (!(x->path = strdup(sub)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	snprintf(dir, sizeof(dir), "%s%s", h->mnt, sub);
	if (ns_cg_props_read(h->name, dir, x, e) || read_perms(dir, x, e))
		return -1;
	pr_info("cgroup %s:%s, %zu properties\n", h->name, sub, x->n_props);
	return 0;
}

/* path and the directories between from (the root task's cgroup; itself included) and it, parents
 * first, with their properties. The hierarchy's root is never one (it is the host's). */
static int add_dirs(struct cg_dump *d, uint32_t ctl, const char *from, const char *path, struct cr_err *e)
{
	const struct ns_cg_hier *h = ns_cg_hier_of(d->h, d->nh, d->ce.ctls[ctl]->name);
	size_t fl = strlen(from);
	bool under = !strcmp(from, "/") || (!strncmp(path, from, fl) && (!path[fl] || path[fl] == '/'));
	size_t start = under && strcmp(from, "/") ? fl : strlen(path);
	if (!h || !strcmp(path, "/"))
		return 0;
	for (size_t end = start;; end++) {
		if (path[end] && path[end] != '/')
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%.*s", (int)end, path);
		if (sub[0] && strcmp(sub, "/") && !dir_known(d, ctl, sub) && new_dir(d, ctl, h, sub, e))
			return -1;
		if (!path[end])
			return 0;
	}
}

#define CG_MAX_SUBDIRS 256 /* below the cgroups of the tree, all told */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Is cgroup path of hierarchy h (index ctl) the tree's own: no process outside the tree in it? One it
 * shares (a login session's, a test runner's) has others' cgroups below it (their containers', their
 * tests'): those are not saved, or the restore would make them again after their owners removed them. */
static bool tree_owns(struct cg_dump *d, const struct ns_cg_hier *h, uint32_t ctl, const char *path)
{
	for (size_t i = 0; i < d->nowned; i++)
		if (d->owned[i].ctl == ctl && !strcmp(d->owned[i].path, path))
			return d->owned[i].own;
	char f[PATH_MAX + 300];
	snprintf(f, sizeof(f), "%s%s/cgroup.procs", h->mnt, path);
	__cleanup_fclose FILE *fp = fopen(f, "re");
	bool own = true;
	long p;
	while (fp && own && fscanf(fp, "%ld", &p) == 1)
		own = bsearch(&(pid_t){(pid_t)p}, d->pids, d->npids, sizeof(pid_t), cmp_pid) != NULL;
	if (!own)
		pr_info("cgroup %s:%s holds processes outside the tree: the cgroups below it are not "
			"saved\n",
			h->name, path);
	struct cg_owned *no = realloc(d->owned, (d->nowned + 1) * sizeof(*no));
	if (no) {
		d->owned = no;
		if ((no[d->nowned].path = strdup(path))) {
			no[d->nowned].ctl = ctl;
			no[d->nowned++].own = own;
		}
	}
	return own;
}

/* The directories below a task's cgroup path (not a hierarchy's root, nor one it shares with processes
 * outside the tree), parents first: cgroups no task is in (CRIU's cgroup01). */
static int add_subdirs(struct cg_dump *d, uint32_t ctl, const char *path, int depth, struct cr_err *e)
{
	const struct ns_cg_hier *h = ns_cg_hier_of(d->h, d->nh, d->ce.ctls[ctl]->name);
	char dir[PATH_MAX + 256];
	if (!h || !strcmp(path, "/") || (!depth && !tree_owns(d, h, ctl, path)))
		return 0;
	if (depth > 32)
		return cr_fail_errno(e, E2BIG, "cgroup %s: more than 32 levels below", path);
	snprintf(dir, sizeof(dir), "%s%s", h->mnt, path);
	__cleanup_closedir DIR *dd = opendir(dir);
	if (!dd)
		return cr_fail_sys(e, "cgroup %s", dir);
	for (struct dirent *de; (de = readdir(dd));) {
		char sub[PATH_MAX];
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= sizeof(sub))
			return cr_fail_errno(e, ENAMETOOLONG, "cgroup %s/%s", path, de->d_name);
		if (dir_known(d, ctl, sub))
			continue;
		if (++d->nsub > CG_MAX_SUBDIRS) { /* (a cgroup of others' below: not the tree's to keep) */
			if (d->nsub == CG_MAX_SUBDIRS + 1)
				pr_warn("more than %d cgroups below those of the tree's tasks: the others "
					"not saved\n",
					CG_MAX_SUBDIRS);
			return 0;
		}
		if (new_dir(d, ctl, h, sub, e))
			return -1;
		d->ce.dirs[d->ce.n_dirs - 1]->has_spare = d->ce.dirs[d->ce.n_dirs - 1]->spare = true;
		if (add_subdirs(d, ctl, sub, depth + 1, e))
			return -1;
	}
	return 0;
}

/* Drop the hierarchies not mounted in crshim's view that it cannot mount for itself (e.g. cgroup v2 in a
 * mount namespace without /sys/fs/cgroup/unified, as Podman+crun run on a hybrid host): nothing can be
 * made or entered there. A v1 one mounted only in the tree's mount namespace is mounted by crshim when
 * the task is in a cgroup of it (not in its root: every process of a hierarchy nobody mounts is, as
 * crshim and the restored tree would be: nothing to save). */
static size_t only_mounted(struct cg_dump *d, struct cg_line *l, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (ns_cg_hier_of(d->h, d->nh, l[i].name) ||
		    (strcmp(l[i].path, "/") && !ns_cg_yard(d->h, &d->nh, CG_MAX_HIER, l[i].name))) {
			if (k != i)
				l[k] = l[i];
			k++;
		} else {
			pr_info("cgroup hierarchy '%s' is not mounted here: not saved\n", l[i].name);
		}
	return k;
}

/* The root of the root task's cgroup namespace in each hierarchy: its paths as seen from inside it are
 * relative to that root. */
struct cgns_arg {
	pid_t pid;
	struct cg_line l[CG_MAX_HIER * 2];
	size_t n;
};
static int read_inside(void *arg, struct cr_err *e)
{
	struct cgns_arg *a = arg;
	return read_cgroups(a->pid, a->l, CG_MAX_HIER * 2, &a->n, e);
}

static int dump_cgns(struct cg_dump *d, pid_t root, const struct cg_line *l, size_t n, struct cr_err *e)
{
	struct cgns_arg *a = calloc(1, sizeof(*a));
	if (!a)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	a->pid = root;
	int ret = ns_run_in(root, NS_CGROUP, read_inside, a, e);
	a->n = ret ? 0 : only_mounted(d, a->l, a->n);
	for (size_t i = 0; !ret && i < n && i < a->n; i++) {
		size_t hl = strlen(l[i].path), il = strcmp(a->l[i].path, "/") ? strlen(a->l[i].path) : 0;
		int c = ctl_index(d, l[i].name, e);
		if (c < 0) {
			ret = -1;
			break;
		}
		if (il > hl || strcmp(l[i].path + hl - il, a->l[i].path + (il ? 0 : 1)))
			continue; /* its cgroup is outside its namespace's root: nothing to say */
		char rootp[PATH_MAX];
		snprintf(rootp, sizeof(rootp), "%.*s", (int)(hl - il), l[i].path);
		if (!rootp[0])
			snprintf(rootp, sizeof(rootp), "/");
		if (!(d->ce.ctls[c]->cgns_root = strdup(rootp)))
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
	}
	free(a);
	return ret;
}

/* Task (or thread) id in the cgroups of l (its set), and the directories from the root task's (root) to
 * them. */
static int add_task(struct cg_dump *d, pid_t id, bool thread, const struct cg_line *l, size_t n,
		    const struct cg_line *root, size_t nroot, struct cr_err *e)
{
	int s = set_of(d, l, n, e);
	if (s < 0)
		return -1;
	CgTask **nt = realloc(d->ce.tasks, (d->ce.n_tasks + 1) * sizeof(void *));
	CgTask *ct = nt ? calloc(1, sizeof(*ct)) : NULL;
	if (nt)
		d->ce.tasks = nt;
	if (!ct)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cg_task__init(ct);
	ct->has_pid = ct->has_set = true;
	ct->pid = id;
	ct->set = (uint32_t)s;
	ct->has_thread = ct->thread = thread;
	d->ce.tasks[d->ce.n_tasks++] = ct;
	for (size_t i = 0; i < n; i++) {
		const char *from = "/";
		for (size_t k = 0; k < nroot; k++)
			if (!strcmp(root[k].name, l[i].name))
				from = root[k].path;
		uint32_t ctl = (uint32_t)ctl_index(d, l[i].name, e);
		if (add_dirs(d, ctl, from, l[i].path, e) || add_subdirs(d, ctl, l[i].path, 0, e))
			return -1;
	}
	return 0;
}

static bool has_line(const struct cg_line *l, size_t n, const struct cg_line *x)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i].name, x->name) && !strcmp(l[i].path, x->path))
			return true;
	return false;
}

/* Thread tid of pid (its cgroups: l) in other cgroups than pid: saved as a thread entry of its own. */
static int add_thread(struct cg_dump *d, pid_t pid, pid_t tid, const struct cg_line *l, size_t n,
		      const struct cg_line *root, size_t nroot, struct cg_line *tl, struct cr_err *e)
{
	size_t tn;
	if (read_cgroups_of(pid, tid, tl, CG_MAX_HIER * 2, &tn, e))
		return errno == ENOENT ? 0 : cr_wrap(e, "thread %d of task %d", tid, pid);
	tn = only_mounted(d, tl, tn);
	size_t k = 0; /* only the hierarchies where it is not in its process's cgroup */
	for (size_t i = 0; i < tn; i++)
		if (!has_line(l, n, &tl[i]))
			tl[k++] = tl[i];
	if (!k)
		return 0;
	pr_info("thread %d of task %d: in cgroups of its own\n", tid, pid);
	return add_task(d, tid, true, tl, k, root, nroot, e);
}

/* The threads of task t (its cgroups: l) in other cgroups than it (cgroup v1 "tasks", v2 threaded), each
 * saved as a thread entry of its own: its set names only those hierarchies (the others' paths are "").
 * Its threads from a->threads when the dump gave them, else from /proc/PID/task. */
static int add_threads(struct cg_dump *d, const struct ns_dump_args *a, size_t t, const struct cg_line *l,
		       size_t n, const struct cg_line *root, size_t nroot, struct cr_err *e)
{
	pid_t pid = a->pids[t];
	const pid_t *tids = a->threads ? a->threads[t] : NULL;
	size_t ntids = a->threads ? a->nthreads[t] : 0;
	if (a->threads && !ntids)
		return 0;
	__cleanup_closedir DIR *dir = NULL;
	if (!a->threads) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
		if (!(dir = opendir(p)))
			return cr_fail_sys(e, "open %s", p);
	}
	struct cg_line *tl = malloc(sizeof(*tl) * CG_MAX_HIER * 2);
	if (!tl)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = 0;
	for (size_t k = 0; !ret && tids && k < ntids; k++)
		ret = add_thread(d, pid, tids[k], l, n, root, nroot, tl, e);
	for (struct dirent *de; !ret && dir && (de = readdir(dir));) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid > 0 && tid != pid)
			ret = add_thread(d, pid, tid, l, n, root, nroot, tl, e);
	}
	free(tl);
	return ret;
}

/* A spare directory (add_subdirs) that is some task's or thread's cgroup after all is not spare. */
static void unspare_used(struct cg_dump *d)
{
	for (size_t i = 0; i < d->ce.n_dirs; i++)
		for (size_t s = 0; d->ce.dirs[i]->spare && s < d->ce.n_sets; s++) {
			const CgSet *x = d->ce.sets[s];
			uint32_t c = d->ce.dirs[i]->ctl;
			if (c < x->n_paths && !strcmp(x->paths[c], d->ce.dirs[i]->path))
				d->ce.dirs[i]->has_spare = d->ce.dirs[i]->spare = false;
		}
}

static int cg_dump_all(struct cg_dump *d, const struct ns_dump_args *a, bool own_cgns, struct cr_err *e)
{
	struct cg_line l[CG_MAX_HIER * 2], root[CG_MAX_HIER * 2];
	size_t n, nroot = 0;
	d->nh = ns_cg_hiers(d->h, CG_MAX_HIER);
	if (!(d->pids = malloc((a->n ? a->n : 1) * sizeof(pid_t))))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(d->pids, a->pids, a->n * sizeof(pid_t));
	d->npids = a->n;
	qsort(d->pids, d->npids, sizeof(pid_t), cmp_pid);
	for (size_t t = 0; t < a->n; t++) {
		if (a->zombie[t]) /* a zombie has left its cgroups */
			continue;
		if (read_cgroups(a->pids[t], l, CG_MAX_HIER * 2, &n, e))
			return cr_wrap(e, "task %d", a->pids[t]);
		n = only_mounted(d, l, n);
		if (!t) {
			memcpy(root, l, sizeof(root));
			nroot = n;
			if (own_cgns && dump_cgns(d, a->pids[0], l, n, e))
				return -1;
		}
		if (add_task(d, a->pids[t], false, l, n, root, nroot, e) ||
		    add_threads(d, a, t, l, n, root, nroot, e))
			return -1;
	}
	unspare_used(d);
	return 0;
}

int ns_cg_dump(const struct ns_dump_args *a, bool own_cgns, struct cr_err *e)
{
	if (a->o->manage_cgroups == CR_CG_IGNORE)
		return 0;
	struct cg_dump *d = calloc(1, sizeof(*d));
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	cgroup_entry__init(&d->ce);
	int ret = cg_dump_all(d, a, own_cgns, e);
	if (!ret)
		ret = img_write_one(a->dirfd, IMG_CGROUP, 0, &d->ce.base, e) ||
		      a->created(a->created_arg, IMG_CGROUP, 0, e);
	if (!ret)
		pr_info("%zu hierarchies, %zu sets, %zu cgroups\n", d->ce.n_ctls, d->ce.n_sets, d->ce.n_dirs);
	/* every field was allocated as protobuf-c unpacks them: its free walks them */
	CgroupEntry *ce = malloc(sizeof(*ce));
	if (ce) {
		*ce = d->ce;
		protobuf_c_message_free_unpacked(&ce->base, NULL);
	}
	ns_cg_hiers_close(d->h, d->nh);
	for (size_t i = 0; i < d->nowned; i++)
		free(d->owned[i].path);
	free(d->owned);
	free(d->pids);
	free(d);
	return ret;
}
