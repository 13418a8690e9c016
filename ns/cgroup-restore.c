/* The tree's cgroups at restore (cgroup.c says what the image holds). CRIU's --manage-cgroups modes, for
 * the cgroups of the image (each task's, and those between the root task's and it):
 *   ignore  nothing: the tasks stay in crshim's cgroups
 *   none    they must exist; no property is written
 *   props   they must exist; their properties are written
 *   soft    (the default) missing ones are made, and only those get their properties
 *   full    missing ones are made; all get their properties
 *   strict  none of them may exist; all are made with their properties
 * Directories above them that are missing are made (not in none and props, where they must exist). */
#define LOG_PREFIX "cgroup: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns-int.h"
#include "cgroup.h"

#define CG_MAX_HIER 16

struct ns_cg_state {
	const struct cr_opts *o;
	CgroupEntry *ce;
	struct ns_cg_hier h[CG_MAX_HIER];
	size_t nh;
	const struct ns_cg_hier **hof; /* per ctl of the image */
	const char **newroot;	       /* per ctl: --cgroup-root (NULL: none) */
	char **made;		       /* directories made, in order */
	size_t nmade;
	char *mem_back;	 /* ns_cg_mem_enter: crshim's own memory cgroup, to go back to */
	int mem_back_fd; /* its cgroup.procs, opened before crshim left it (-1: none) */
};

static const char *const mode_names[] = {
    [CR_CG_SOFT] = "soft",   [CR_CG_IGNORE] = "ignore", [CR_CG_NONE] = "none",
    [CR_CG_PROPS] = "props", [CR_CG_FULL] = "full",	[CR_CG_STRICT] = "strict"};

int ns_cg_mode_of(const char *name)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (mode_names[i] && !strcmp(mode_names[i], name))
			return (int)i;
	return -1;
}

static bool hier_has(const char *hname, const char *ctrl)
{
	if (!hname)
		hname = "";
	if (!strcmp(hname, ctrl) || (!hname[0] && !strcmp(ctrl, "unified")))
		return true;
	size_t l = strlen(ctrl);
	for (const char *p = hname; l && p; p = strchr(p + 1, ',')) {
		const char *q = *p == ',' ? p + 1 : p;
		if (!strncmp(q, ctrl, l) && (q[l] == ',' || !q[l]))
			return true;
	}
	return false;
}

/* --cgroup-root [CTRL:]/PATH for each hierarchy of the image; a CTRL names one (a controller of it,
 * "name=X", or "unified" for v2), none is the default of the others. */
static int map_roots(struct ns_cg_state *s, struct cr_err *e)
{
	for (int i = 0; i < s->o->n_cgroup_root; i++) {
		const char *x = s->o->cgroup_root[i], *slash = strchr(x, '/');
		if (!slash || (slash != x && slash[-1] != ':'))
			return cr_fail(e, "--cgroup-root %s: malformed (want [CONTROLLER:]/PATH)", x);
		if (strstr(slash, "/.."))
			return cr_fail(e, "--cgroup-root %s: a path with '..'", x);
		char ctrl[64];
		snprintf(ctrl, sizeof(ctrl), "%.*s", slash == x ? 0 : (int)(slash - x - 1), x);
		bool found = !ctrl[0];
		for (size_t c = 0; c < s->ce->n_ctls; c++) {
			if (ctrl[0] ? hier_has(s->ce->ctls[c]->name, ctrl) : !s->newroot[c])
				s->newroot[c] = slash;
			found |= ctrl[0] && hier_has(s->ce->ctls[c]->name, ctrl);
		}
		if (!found)
			pr_warn("--cgroup-root %s: the tree used no hierarchy with controller %s\n", x, ctrl);
	}
	/* a controller given by name wins over the default, whatever the order */
	for (int i = 0; i < s->o->n_cgroup_root; i++) {
		const char *x = s->o->cgroup_root[i], *slash = strchr(x, '/');
		for (size_t c = 0; slash != x && c < s->ce->n_ctls; c++) {
			char ctrl[64];
			snprintf(ctrl, sizeof(ctrl), "%.*s", (int)(slash - x - 1), x);
			if (hier_has(s->ce->ctls[c]->name, ctrl))
				s->newroot[c] = slash;
		}
	}
	return 0;
}

int ns_cg_load(const struct cr_opts *o, int dirfd, struct ns_cg_state **out, struct cr_err *e)
{
	ProtobufCMessage *m;
	*out = NULL;
	if (o->manage_cgroups == CR_CG_IGNORE)
		return 0;
	if (img_read_one(dirfd, IMG_CGROUP, 0, &m, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e); /* older images: the tree stays in crshim's cgroups */
		return 0;
	}
	struct ns_cg_state *s = calloc(1, sizeof(*s));
	if (!s) {
		protobuf_c_message_free_unpacked(m, NULL);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	*out = s;
	s->o = o;
	s->mem_back_fd = -1;
	s->ce = (CgroupEntry *)m;
	s->nh = ns_cg_hiers(s->h, CG_MAX_HIER);
	s->hof = calloc(s->ce->n_ctls + 1, sizeof(void *));
	s->newroot = calloc(s->ce->n_ctls + 1, sizeof(void *));
	if (!s->hof || !s->newroot)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t c = 0; c < s->ce->n_ctls; c++) {
		const char *name = s->ce->ctls[c]->name ? s->ce->ctls[c]->name : "";
		s->hof[c] = ns_cg_hier_of(s->h, s->nh, name);
		if (!s->hof[c] && !ns_cg_yard(s->h, &s->nh, CG_MAX_HIER, name))
			s->hof[c] = &s->h[s->nh - 1];
		if (!s->hof[c])
			return cr_fail(e, "cgroup hierarchy '%s' of the images is not mounted here", name);
	}
	for (size_t i = 0; i < s->ce->n_sets; i++)
		for (size_t c = 0; c < s->ce->sets[i]->n_paths; c++)
			if (c >= s->ce->n_ctls || /* "": a thread's, where it is in its process's */
			    (s->ce->sets[i]->paths[c][0] && s->ce->sets[i]->paths[c][0] != '/') ||
			    strstr(s->ce->sets[i]->paths[c], "/.."))
				return cr_fail_errno(e, EBADMSG, "cgroup.img: a bad cgroup path");
	for (size_t i = 0; i < s->ce->n_dirs; i++)
		if (s->ce->dirs[i]->ctl >= s->ce->n_ctls || !s->ce->dirs[i]->path ||
		    s->ce->dirs[i]->path[0] != '/' || strstr(s->ce->dirs[i]->path, "/.."))
			return cr_fail_errno(e, EBADMSG, "cgroup.img: a bad cgroup directory");
	for (size_t i = 0; i < s->ce->n_tasks; i++)
		if (s->ce->tasks[i]->set >= s->ce->n_sets)
			return cr_fail_errno(e, EBADMSG, "cgroup.img: task %d: no set %u",
					     s->ce->tasks[i]->pid, s->ce->tasks[i]->set);
	if (!s->ce->n_tasks)
		return 0;
	pr_info("--manage-cgroups %s: %zu hierarchies, %zu cgroups\n", mode_names[o->manage_cgroups],
		s->ce->n_ctls, s->ce->n_dirs);
	return map_roots(s, e);
}

/* Where path of hierarchy c goes: below --cgroup-root when it is the root task's cgroup or below it. */
static void target(const struct ns_cg_state *s, size_t c, const char *path, char *out, size_t len)
{
	const CgSet *rs = s->ce->sets[s->ce->tasks[0]->set];
	const char *r0 = c < rs->n_paths ? rs->paths[c] : "/";
	size_t l = strcmp(r0, "/") ? strlen(r0) : 0;
	if (s->newroot[c] && (!strncmp(path, r0, l) && (!path[l] || path[l] == '/')))
		snprintf(out, len, "%s%s%s", s->hof[c]->mnt, strcmp(s->newroot[c], "/") ? s->newroot[c] : "",
			 path + l);
	else
		snprintf(out, len, "%s%s", s->hof[c]->mnt, strcmp(path, "/") ? path : "");
}

static int copy_file(const char *from, const char *to)
{
	char buf[4096];
	__cleanup_close int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	ssize_t n = read(in, buf, sizeof(buf));
	if (n <= 0 || buf[0] == '\n')
		return n < 0 ? -1 : 0;
	__cleanup_close int o = open(to, O_WRONLY | O_CLOEXEC);
	return o >= 0 && write(o, buf, (size_t)n) == n ? 0 : -1;
}

/* mkdir of one directory; a new cpuset gets its parent's cpus and mems (a task cannot join it before). */
static int make_one(struct ns_cg_state *s, const char *dir, struct cr_err *e)
{
	if (mkdir(dir, 0755))
		return errno == EEXIST ? 0 : cr_fail_sys(e, "make cgroup %s", dir);
	char **nm = realloc(s->made, (s->nmade + 1) * sizeof(void *));
	if (!nm || !(nm[s->nmade] = strdup(dir))) {
		if (nm)
			s->made = nm;
		rmdir(dir);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	s->made = nm;
	s->nmade++;
	pr_info("made cgroup %s\n", dir);
	char parent[PATH_MAX], from[PATH_MAX + 32], to[PATH_MAX + 32];
	snprintf(parent, sizeof(parent), "%s", dir);
	*strrchr(parent, '/') = '\0';
	for (int i = 0; i < 2; i++) {
		const char *f = i ? "cpuset.mems" : "cpuset.cpus";
		snprintf(to, sizeof(to), "%s/%s", dir, f);
		snprintf(from, sizeof(from), "%s/%s", parent, f);
		if (!access(to, F_OK) && copy_file(from, to))
			return cr_fail_sys(e, "cgroup %s: %s from its parent", dir, f);
	}
	return 0;
}

/* mkdir -p below the hierarchy's mount point mnt. */
static int make_path(struct ns_cg_state *s, const char *mnt, const char *dir, struct cr_err *e)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", dir);
	if (strlen(p) <= strlen(mnt)) /* the hierarchy's root: its mount, never made */
		return cr_fail_errno(e, ENOENT, "cgroup hierarchy mounted at %s cannot be reached", mnt);
	for (char *x = p + strlen(mnt) + 1; x && *x; x = strchr(x + 1, '/')) {
		char keep = *x;
		*x = '\0';
		if (strlen(p) > strlen(mnt) && make_one(s, p, e))
			return -1;
		*x = keep;
		if (!keep)
			break;
	}
	return make_one(s, p, e);
}

/* The owners and modes of the directory and its files (a delegation) as at dump. */
static int write_perms(const char *dir, const CgDir *d, struct cr_err *e)
{
	__cleanup_close int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "cgroup %s", dir);
	for (size_t i = 0; i < d->n_perms; i++) {
		const CgPerm *p = d->perms[i];
		if (!p->name || strchr(p->name, '/') || !strcmp(p->name, "..") || !strcmp(p->name, "."))
			return cr_fail_errno(e, EBADMSG, "cgroup.img: a bad file name in %s", dir);
		const char *f = p->name[0] ? p->name : ".";
		if ((p->has_uid && fchownat(fd, f, p->uid, p->gid, AT_SYMLINK_NOFOLLOW)) ||
		    (p->has_mode && fchmodat(fd, f, p->mode & 07777, 0)))
			return cr_fail_sys(e, "cgroup %s: owner and mode of %s", dir,
					   p->name[0] ? p->name : "it");
	}
	return 0;
}

static int prepare_dir(struct ns_cg_state *s, const CgDir *d, struct cr_err *e)
{
	int mode = s->o->manage_cgroups;
	char dir[PATH_MAX];
	target(s, d->ctl, d->path, dir, sizeof(dir));
	struct stat st;
	bool exists = !stat(dir, &st);
	if (exists && mode == CR_CG_STRICT)
		return cr_fail_errno(e, EEXIST, "cgroup %s exists (--manage-cgroups strict)", dir);
	if (!exists && (mode == CR_CG_NONE || mode == CR_CG_PROPS) && d->spare)
		return 0; /* no task's: not required */
	if (!exists && (mode == CR_CG_NONE || mode == CR_CG_PROPS))
		return cr_fail_errno(e, ENOENT, "cgroup %s does not exist (--manage-cgroups %s)", dir,
				     mode_names[mode]);
	size_t before = s->nmade;
	if (!exists && make_path(s, s->hof[d->ctl]->mnt, dir, e))
		return -1;
	bool props = mode == CR_CG_FULL || mode == CR_CG_STRICT || mode == CR_CG_PROPS ||
		     (mode == CR_CG_SOFT && !exists);
	if (props && (ns_cg_props_write(dir, d, e) || write_perms(dir, d, e)))
		return cr_wrap(e, "--manage-cgroups %s", mode_names[mode]);
	if (before == 0 && s->nmade)
		return fault_check(s->o, FI_RESTORE_CGROUP_MID, e);
	return 0;
}

int ns_cg_prepare(struct ns_cg_state *s, struct cr_err *e)
{
	if (!s || !s->ce->n_tasks)
		return 0;
	for (size_t i = 0; i < s->ce->n_dirs; i++)
		if (prepare_dir(s, s->ce->dirs[i], e))
			return -1;
	/* the tasks' cgroups that are not the tree's own (e.g. the hierarchy's root) */
	for (size_t i = 0; i < s->ce->n_sets; i++)
		for (size_t c = 0; c < s->ce->sets[i]->n_paths; c++) {
			char dir[PATH_MAX];
			struct stat st;
			target(s, c, s->ce->sets[i]->paths[c], dir, sizeof(dir));
			/* A hierarchy's root is there as long as it is mounted; crshim may not reach it (a
			 * capability-only crshim, a mount under another user's directory), which the attach,
			 * skipped where the task is already, says if it must go there. */
			if (!stat(dir, &st) || !strcmp(dir, s->hof[c]->mnt))
				continue;
			if (s->o->manage_cgroups == CR_CG_NONE || s->o->manage_cgroups == CR_CG_PROPS)
				return cr_fail_errno(e, ENOENT,
						     "cgroup %s does not exist (--manage-cgroups %s)", dir,
						     mode_names[s->o->manage_cgroups]);
			if (make_path(s, s->hof[c]->mnt, dir, e))
				return -1;
		}
	return 0;
}

/* Where the root of the root task's cgroup namespace goes in hierarchy c (out): the cgroup the dump saw as
 * its root, cgns_root, an ancestor of the root task's cgroup r0 (the namespace was made there, then the task
 * moved down, as systemd in a container moves itself to /init.scope). Taken from where r0 goes (target:
 * --cgroup-root moves it) less the part below cgns_root. 0 if it is above the task's cgroup, 1 if it is that
 * cgroup (or not saved: no namespace made at dump, or a task moved out of it), -1 if --cgroup-root put the
 * task where that part cannot be taken off. */
static int cgns_dir(const struct ns_cg_state *s, size_t c, char *out, size_t len)
{
	const CgSet *rs = s->ce->sets[s->ce->tasks[0]->set];
	const char *ns = s->ce->ctls[c]->cgns_root, *r0 = c < rs->n_paths ? rs->paths[c] : "/";
	size_t nl = ns && strcmp(ns, "/") ? strlen(ns) : 0, ol, dl;
	if (!ns || !strcmp(ns, r0) || strncmp(r0, ns, nl) || r0[nl] != '/')
		return 1;
	const char *below = r0 + nl; /* "/sub" */
	target(s, c, r0, out, len);
	ol = strlen(out), dl = strlen(below);
	if (ol < dl + strlen(s->hof[c]->mnt) || strcmp(out + ol - dl, below))
		return -1;
	out[ol - dl] = '\0';
	return 0;
}

/* id into the cgroup dir: its file ("cgroup.procs"; v1 "tasks" or v2 "cgroup.threads" for a thread); id 0
 * is the writer itself. 0, or -1 (errno). The one writer of a cgroup's membership files. */
static int cg_put(const char *dir, const char *file, pid_t id)
{
	char p[PATH_MAX + 32], v[16];
	int n = snprintf(v, sizeof(v), "%d", (int)id);
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	__cleanup_close int fd = open(p, O_WRONLY | O_CLOEXEC);
	return fd >= 0 && write(fd, v, (size_t)n) == n ? 0 : -1;
}

/* /proc/PID/cgroup (pid 0: crshim's own), read once, on the heap (a 32 KiB frame is much for crshim's stack):
 * NUL-terminated ("" when it cannot be read), or NULL (ENOMEM). The caller frees it. */
static char *read_proc_cgroup(pid_t pid)
{
	const size_t cgsz = 32768;
	char p[64];
	char *cg = malloc(cgsz);
	if (!cg)
		return NULL;
	if (pid)
		snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(p, sizeof(p), "/proc/self/cgroup");
	int cfd = open(p, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	while (cfd >= 0 && got < cgsz - 1) {
		ssize_t r = read(cfd, cg + got, cgsz - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (cfd >= 0)
		close(cfd);
	cg[got] = '\0';
	return cg;
}

static int join_self(const char *dir, char *msg, size_t len)
{
	if (!cg_put(dir, "cgroup.procs", 0))
		return 0;
	snprintf(msg, len, "make the cgroup namespace: into cgroup %s: %s", dir, strerror(errno));
	return -1;
}

/* ns_cg_unshare; user_fd >= 0: a helper's, which enters that user namespace before it unshares (so that it
 * owns the cgroup namespace) and stays at the namespace's root (it exits once its namespace is taken). */
static int cg_unshare_in(const struct ns_cg_state *s, int user_fd, char *msg, size_t len)
{
	const CgSet *rs = s && s->ce->n_tasks ? s->ce->sets[s->ce->tasks[0]->set] : NULL;
	bool up[CG_MAX_HIER] = {false};
	char dir[PATH_MAX];
	for (size_t c = 0; rs && c < s->ce->n_ctls && c < CG_MAX_HIER; c++) {
		int r = cgns_dir(s, c, dir, sizeof(dir));
		if (r < 0)
			pr_warn("--cgroup-root: the root of the cgroup namespace (%s) has no place above the "
				"tree's cgroup "
				"in hierarchy '%s': made at the tree's cgroup\n",
				s->ce->ctls[c]->cgns_root, s->ce->ctls[c]->name);
		if (r)
			continue;
		if (join_self(dir, msg, len))
			return -1;
		up[c] = true;
		pr_info("cgroup namespace made at %s, the root task's cgroup below it\n", dir);
	}
	if (user_fd >= 0 && setns(user_fd, CLONE_NEWUSER)) {
		snprintf(msg, len, "make the cgroup namespace: enter the user namespace: %s",
			 strerror(errno));
		return -1;
	}
	if (unshare(CLONE_NEWCGROUP)) {
		snprintf(msg, len, "make the cgroup namespace: %s", strerror(errno));
		return -1;
	}
	for (size_t c = 0; rs && user_fd < 0 && c < s->ce->n_ctls && c < CG_MAX_HIER; c++) {
		if (!up[c])
			continue;
		target(s, c, rs->paths[c], dir, sizeof(dir));
		if (join_self(dir, msg, len))
			return -1;
	}
	return 0;
}

int ns_cg_unshare(const struct ns_cg_state *s, char *msg, size_t len)
{
	return cg_unshare_in(s, -1, msg, len);
}

/* The helper of ns_cg_make_owned: once in the root task's cgroups ('a' on from), its cgroup namespace made
 * in the user namespace ("n", or "E" and why, on to); it waits for EOF. */
__attribute__((noreturn)) static void owned_helper(const struct ns_cg_state *s, int user_fd, int to, int from)
{
	char buf[512] = "n";
	if (read(from, buf, 1) != 1 || buf[0] != 'a')
		_exit(1);
	buf[0] = 'n';
	if (cg_unshare_in(s, user_fd, buf + 1, sizeof(buf) - 1))
		buf[0] = 'E';
	if (write(to, buf, buf[0] == 'n' ? 1 : strlen(buf)) < 0 || buf[0] == 'E')
		_exit(1);
	while (read(from, buf, 1) > 0)
		;
	_exit(0);
}

int ns_cg_make_owned(struct ns_cg_state *s, int user_fd, int *fd, struct cr_err *e)
{
	int up[2], down[2];
	char buf[512] = "", path[64];
	if (ns_helper_pipes(up, down, e))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		owned_helper(s, user_fd, up[1], down[0]);
	}
	int err = errno, ret = -1;
	close(up[1]);
	close(down[0]);
	if (pid < 0) {
		cr_fail_errno(e, err, "fork the cgroup namespace's helper");
		goto out;
	}
	pid_t root = s && s->ce->n_tasks ? (pid_t)s->ce->tasks[0]->pid : 0;
	if ((root && ns_cg_attach(s, pid, root, e)) || write(down[1], "a", 1) != 1)
		goto out;
	ssize_t n = read(up[0], buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != 'n') {
		buf[n > 0 ? n : 0] = 0;
		cr_fail(e, "in the user namespace: %s", n > 1 ? buf + 1 : "its helper failed");
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/cgroup", pid);
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		cr_fail_sys(e, "open %s", path);
	else
		ret = 0;
	pr_info("cgroup namespace made in the user namespace, for the root task\n");
out:
	ns_helper_end(up[0], down[1], pid);
	return ret;
}

/* Where /proc/PID/cgroup (read once: cg, its lines) puts controller name: ROOT and the path below it (as in
 * the images' dirs), "" if it is not there. */
static void cg_now(const char *cg, const char *name, const char *root, char *now, size_t len)
{
	size_t nl = strlen(name);
	now[0] = '\0';
	for (const char *l = cg; *l;) {
		const char *end = l + strcspn(l, "\n"), *c1 = memchr(l, ':', (size_t)(end - l));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2 && (size_t)(c2 - c1 - 1) == nl && !strncmp(c1 + 1, name, nl)) {
			int pl = (int)(end - c2 - 1);
			bool top = pl == 1 && c2[1] == '/';
			snprintf(now, len, "%s%.*s", root, top ? 0 : pl, c2 + 1);
		}
		l = *end ? end + 1 : end;
	}
}

/* Task pid (just cloned, not yet run; img_pid in the images) into its cgroups, where it is not already. */
int ns_cg_attach(struct ns_cg_state *s, pid_t pid, pid_t img_pid, struct cr_err *e)
{
	if (!s)
		return 0;
	const CgSet *set = NULL;
	for (size_t i = 0; i < s->ce->n_tasks && !set; i++)
		if (s->ce->tasks[i]->pid == img_pid && !s->ce->tasks[i]->thread)
			set = s->ce->sets[s->ce->tasks[i]->set];
	if (!set)
		return 0;
	/* (freed below, not by a cleanup, which scan-build takes for a leak) */
	char *cg = read_proc_cgroup(pid);
	int ret = 0;
	if (!cg)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t c = 0; !ret && c < set->n_paths; c++) {
		char dir[PATH_MAX], now[PATH_MAX + 256];
		if (!set->paths[c][0])
			continue;
		target(s, c, set->paths[c], dir, sizeof(dir));
		cg_now(cg, s->ce->ctls[c]->name, s->hof[c]->mnt, now, sizeof(now));
		if (!strcmp(now, dir))
			continue;
		if (cg_put(dir, "cgroup.procs", pid))
			ret = cr_fail_sys(e, "task %d into cgroup %s", (int)pid, dir);
		else
			pr_info("task %d into cgroup %s\n", (int)pid, dir);
	}
	free(cg);
	return ret;
}

/* Thread tid (img_tid in the images) of a restored process, in its cgroups of its own when it has some
 * (its set's paths; "" where it is in its process's, which it is in since its leader made it): v1 "tasks",
 * v2 "cgroup.threads". */
int ns_cg_attach_thread(struct ns_cg_state *s, pid_t tid, pid_t img_tid, struct cr_err *e)
{
	if (!s)
		return 0;
	const CgSet *set = NULL;
	for (size_t i = 0; i < s->ce->n_tasks && !set; i++)
		if (s->ce->tasks[i]->pid == img_tid && s->ce->tasks[i]->thread)
			set = s->ce->sets[s->ce->tasks[i]->set];
	for (size_t c = 0; set && c < set->n_paths; c++) {
		char dir[PATH_MAX];
		if (!set->paths[c][0]) /* where it is in its process's cgroup */
			continue;
		target(s, c, set->paths[c], dir, sizeof(dir));
		if (cg_put(dir, s->ce->ctls[c]->name && s->ce->ctls[c]->name[0] ? "tasks" : "cgroup.threads",
			   tid))
			return cr_fail_sys(e, "thread %d into cgroup %s", (int)tid, dir);
		pr_info("thread %d into cgroup %s\n", (int)tid, dir);
	}
	return 0;
}

/* Index of the hierarchy of the images that holds the memory controller (v1 "memory", or v2 where the
 * cgroup dir has it among its controllers), or -1. */
static ssize_t mem_ctl(const struct ns_cg_state *s, const CgSet *set, char *dir, size_t len)
{
	for (size_t c = 0; c < s->ce->n_ctls && c < set->n_paths; c++) {
		const char *name = s->ce->ctls[c]->name ? s->ce->ctls[c]->name : "";
		if (!set->paths[c][0] || (name[0] && !hier_has(name, "memory")))
			continue;
		target(s, c, set->paths[c], dir, len);
		if (name[0])
			return (ssize_t)c;
		char f[PATH_MAX + 32], b[512];
		snprintf(f, sizeof(f), "%s/cgroup.controllers", dir);
		__cleanup_close int fd = open(f, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
		b[n > 0 ? n : 0] = '\0';
		char *sv = NULL;
		for (char *t = strtok_r(b, " \n", &sv); t; t = strtok_r(NULL, " \n", &sv))
			if (!strcmp(t, "memory"))
				return (ssize_t)c;
	}
	return -1;
}

/* ns_cg_mem_enter joins the root task's cgroup of the hierarchy that holds the memory controller: a process
 * is in a cgroup of a hierarchy with all the controllers of it (on v2, every controller of the unified
 * hierarchy), and what it allocates there is charged to that cgroup. So crshim stays out (what it makes is
 * then charged to its own memory cgroup, as before the tree) when that cgroup, or one above it up to the
 * hierarchy's root, could hurt crshim or the tree in the window:
 *   - frozen: v2 cgroup.freeze, v1 freezer.state (a hierarchy co-mounted with the freezer): crshim would
 *     freeze itself there;
 *   - pids.max less pids.current below CG_PIDS_ROOM (v2, or v1 co-mounted with pids): crshim's helpers,
 *     forked there, would fail or take the tree's room;
 *   - a memory limit less the usage below CG_MEM_ROOM (v2 memory.max, memory.high; v1
 *     memory.limit_in_bytes, memory.memsw.limit_in_bytes): what crshim allocates there (its helpers, buffers)
 *     would bring the cgroup to its limit, where its OOM killer picks crshim or a task of the tree
 *     (memory.high: throttled).
 * A limit that is "max" (v1: the page counter's largest value) is none. Looked at once, before crshim joins:
 * the window is short (sockets made and filled; a shared memory object made and filled from its image pages,
 * which the checksum read before has in the page cache, charged where they were read). Other v2 controllers
 * (cpu.max, io.max) may slow crshim there, not stop it. A crshim that could not write its own cgroup.procs
 * (a capability-only one in a cgroup of root's) stays out: it opens that file before it joins. */
#define CG_MEM_ROOM (16LL << 20)
#define CG_PIDS_ROOM 16LL

static const struct {
	const char *limit, *usage;
	long long room;
} cg_rooms[] = {
    {"memory.max", "memory.current", CG_MEM_ROOM},
    {"memory.high", "memory.current", CG_MEM_ROOM},
    {"memory.limit_in_bytes", "memory.usage_in_bytes", CG_MEM_ROOM},
    {"memory.memsw.limit_in_bytes", "memory.memsw.usage_in_bytes", CG_MEM_ROOM},
    {"pids.max", "pids.current", CG_PIDS_ROOM},
};

/* The first line of dir/file into b (len), "" when there is none. */
static void cg_line(const char *dir, const char *file, char *b, size_t len)
{
	char p[PATH_MAX + 48];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	__cleanup_close int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, b, len - 1);
	b[n > 0 ? n : 0] = '\0';
	b[strcspn(b, "\n")] = '\0';
}

/* The number in dir/file: LLONG_MAX for "max" (or the v1 page counter's largest, 2^63 less a page), -1 when
 * there is no such file. */
static long long cg_num(const char *dir, const char *file)
{
	char b[64], *end;
	cg_line(dir, file, b, sizeof(b));
	if (!strcmp(b, "max"))
		return LLONG_MAX;
	errno = 0;
	long long v = strtoll(b, &end, 10);
	if (end == b || *end || errno || v < 0)
		return -1;
	return v >= LLONG_MAX - (1LL << 20) ? LLONG_MAX : v;
}

/* Whether crshim may join cgroup dir of the hierarchy mounted at mnt for the window (see above), where it
 * makes bytes of memory for the tree besides (the pages of the shared memory it fills, the data of the pipes
 * it makes: what is allocated, not an object's size); false with why set when it may not. */
bool ns_cg_room_for_crshim(const char *dir, const char *mnt, uint64_t bytes, char *why, size_t len)
{
	char p[PATH_MAX], b[64];
	size_t ml = strlen(mnt);
	snprintf(p, sizeof(p), "%s", dir);
	for (;;) {
		for (size_t i = 0; i < sizeof(cg_rooms) / sizeof(cg_rooms[0]); i++) {
			long long lim = cg_num(p, cg_rooms[i].limit), use = cg_num(p, cg_rooms[i].usage);
			long long want = cg_rooms[i].room;
			if (cg_rooms[i].room == CG_MEM_ROOM) /* (what it makes, too) */
				want = bytes > (uint64_t)(LLONG_MAX - want) ? LLONG_MAX
									    : want + (long long)bytes;
			if (lim < 0 || use < 0 || lim == LLONG_MAX || lim - use >= want)
				continue;
			snprintf(why, len, "%s: %s %lld, %s %lld (want %lld left)", p, cg_rooms[i].limit, lim,
				 cg_rooms[i].usage, use, want);
			return false;
		}
		cg_line(p, "freezer.state", b, sizeof(b));
		if (cg_num(p, "cgroup.freeze") > 0 || (b[0] && strcmp(b, "THAWED"))) {
			snprintf(why, len, "%s: frozen", p);
			return false;
		}
		char *sl = strrchr(p, '/');
		if (strlen(p) <= ml || !sl || (size_t)(sl - p) < ml)
			return true;
		*sl = '\0';
	}
}

void ns_cg_mem_enter(struct ns_cg_state *s, uint64_t bytes)
{
	if (!s || s->mem_back || !s->ce->n_tasks)
		return;
	const CgSet *set = s->ce->sets[s->ce->tasks[0]->set];
	char dir[PATH_MAX], now[PATH_MAX + 256], why[PATH_MAX + 128];
	ssize_t c = mem_ctl(s, set, dir, sizeof(dir));
	if (c < 0)
		return;
	char *cg = read_proc_cgroup(0); /* (freed below: scan-build) */
	if (!cg)
		return;
	const char *name = s->ce->ctls[c]->name ? s->ce->ctls[c]->name : "";
	cg_now(cg, name, s->hof[c]->mnt, now, sizeof(now));
	free(cg);
	if (!now[0] || !strcmp(now, dir))
		return;
	/* (a v1 cgroup that moves the charges of the processes it takes would keep crshim's pages) */
	if (name[0] && cg_num(dir, "memory.move_charge_at_immigrate") > 0) {
		pr_info("%s moves charges at immigrate: crshim stays in its own memory cgroup\n", dir);
		return;
	}
	if (!ns_cg_room_for_crshim(dir, s->hof[c]->mnt, bytes, why, sizeof(why))) {
		pr_info("crshim stays out of the tree's memory cgroup %s (%s): what it makes for the tree is "
			"charged to its own\n",
			dir, why);
		return;
	}
	/* The way back opened first: a capability-only crshim may join a cgroup delegated to its user and
	 * not write its own (root's) cgroup.procs, and would stay in the tree's for good. The kernel checks a
	 * move with the credentials the file was opened with, so the fd is the way back. */
	char back[PATH_MAX + 300];
	snprintf(back, sizeof(back), "%s/cgroup.procs", now);
	int bfd = open(back, O_WRONLY | O_CLOEXEC);
	if (bfd < 0) {
		pr_info(
		    "crshim stays out of the tree's memory cgroup %s (it could not come back: %s: %s): what "
		    "it makes for the tree is charged to its own\n",
		    dir, back, strerror(errno));
		return;
	}
	if (!(s->mem_back = strdup(now))) {
		close(bfd);
		return;
	}
	if (cg_put(dir, "cgroup.procs", getpid())) {
		pr_info(
		    "crshim into memory cgroup %s: %s: what it makes for the tree is charged to its own\n",
		    dir, strerror(errno));
		free(s->mem_back);
		s->mem_back = NULL;
		close(bfd);
		return;
	}
	s->mem_back_fd = bfd;
	pr_info("crshim in the tree's memory cgroup %s (from %s)\n", dir, now);
}

void ns_cg_mem_leave(struct ns_cg_state *s)
{
	if (!s || !s->mem_back)
		return;
	char v[16];
	int n = snprintf(v, sizeof(v), "%d", (int)getpid());
	if (write(s->mem_back_fd, v, (size_t)n) != n)
		pr_err("crshim back into memory cgroup %s: %s\n", s->mem_back, strerror(errno));
	else
		pr_info("crshim back in its memory cgroup %s\n", s->mem_back);
	close(s->mem_back_fd);
	s->mem_back_fd = -1;
	free(s->mem_back);
	s->mem_back = NULL;
}

void ns_cg_done(struct ns_cg_state *s, bool failed)
{
	if (!s)
		return;
	ns_cg_mem_leave(s);
	for (size_t i = s->nmade; i-- > 0;) {
		if (failed && !cg_rmdir_wait(s->made[i]))
			pr_info("removed cgroup %s\n", s->made[i]);
		free(s->made[i]);
	}
	free(s->made);
	ns_cg_hiers_close(s->h, s->nh);
	free(s->hof);
	free(s->newroot);
	if (s->ce)
		protobuf_c_message_free_unpacked(&s->ce->base, NULL);
	free(s);
}
