/* Dump of the tree's namespaces (see ns.h, README.md): each task's namespaces by inode (/proc/PID/ns/KIND),
 * read once; the state of each namespace the root has apart from crshim's. */
#define LOG_PREFIX "ns-dump: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "ns-int.h"

const struct ns_kind ns_kinds[NS_KINDS] = {
    {"net", CLONE_NEWNET}, {"ipc", CLONE_NEWIPC},	{"uts", CLONE_NEWUTS},	 {"mnt", CLONE_NEWNS},
    {"pid", CLONE_NEWPID}, {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME}, {"user", CLONE_NEWUSER},
};

int ns_kind_of(const char *name)
{
	for (int k = 0; k < NS_KINDS; k++)
		if (!strcmp(ns_kinds[k].name, name))
			return k;
	return -1;
}

/* The inodes of pid's namespaces of the n first kinds of names (0 for self: crshim's); a zombie has none
 * (all 0). Each read as its link ("net:[INO]", its inode) in the open /proc/PID/ns: a stat would follow
 * the link into nsfs, twice the time. */
static int read_ids(pid_t pid, const char *const *names, int n, uint64_t *ino, struct cr_err *e)
{
	char path[64], link[64];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns");
	/* O_PATH: a crshim with file capabilities is not dumpable, its /proc/self/ns is root's and not
	 * readable for its uid (mode user); the links are, to itself */
	__cleanup_close int dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && !(errno == ENOENT && pid))
		return cr_fail_sys(e, "open %s", path);
	for (int k = 0; k < n; k++) {
		ssize_t l = dfd < 0 ? -1 : readlinkat(dfd, names[k], link, sizeof(link) - 1);
		if (l < 0) {
			if (errno == ENOENT && pid) { /* a zombie, or a kernel without that kind */
				ino[k] = 0;
				continue;
			}
			return cr_fail_sys(e, "readlink %s/%s", path, names[k]);
		}
		link[l] = '\0';
		const char *br = strstr(link, ":[");
		char *end = NULL;
		ino[k] = br ? strtoull(br + 2, &end, 10) : 0;
		if (!br || !end || *end != ']' || !ino[k])
			return cr_fail_errno(e, EINVAL, "%s/%s: not a namespace link: %s", path, names[k],
					     link);
	}
	return 0;
}

static const char *const task_ids_names[NS_TASK_IDS] = {
    "net", "ipc", "uts", "mnt", "pid", "cgroup", "time", "user", "pid_for_children", "time_for_children"};

int ns_read_ids(pid_t pid, uint64_t ino[NS_KINDS], struct cr_err *e)
{
	return read_ids(pid, task_ids_names, NS_KINDS, ino, e);
}

int ns_read_task_ids(pid_t pid, uint64_t ino[NS_TASK_IDS], struct cr_err *e)
{
	return read_ids(pid, task_ids_names, NS_TASK_IDS, ino, e);
}

static void ids_to_msg(const uint64_t ino[NS_KINDS], NsIds *m)
{
	uint64_t *f[NS_KINDS] = {&m->net, &m->ipc, &m->uts, &m->mnt, &m->pid, &m->cgroup, &m->time, &m->user};
	protobuf_c_boolean *h[NS_KINDS] = {&m->has_net, &m->has_ipc,	&m->has_uts,  &m->has_mnt,
					   &m->has_pid, &m->has_cgroup, &m->has_time, &m->has_user};
	for (int k = 0; k < NS_KINDS; k++)
		if (ino[k])
			*f[k] = ino[k], *h[k] = 1;
}

void ns_ids_from_msg(const NsIds *m, uint64_t ino[NS_KINDS])
{
	const uint64_t f[NS_KINDS] = {m->net, m->ipc, m->uts, m->mnt, m->pid, m->cgroup, m->time, m->user};
	for (int k = 0; k < NS_KINDS; k++)
		ino[k] = f[k];
}

/* Kinds every process of the tree must share with the root (restore makes one of each). */
#define NS_SHARED_KINDS                                                                                      \
	((1u << NS_IPC) | (1u << NS_UTS) | (1u << NS_CGROUP) | (1u << NS_TIME) | (1u << NS_USER))
/* (network namespaces of their own: net-multi.c) */

static int check_tree(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], uint64_t self_user,
		      struct cr_err *e)
{
	for (size_t i = 1; i < a->n; i++) {
		if (a->zombie[i])
			continue;
		for (int k = 0; k < NS_KINDS; k++)
			/* in a user namespace of its own, nested ones are the user part's (ns_user_dump) */
			if ((NS_SHARED_KINDS & (1u << k)) && ids[i][k] != ids[0][k] &&
			    (k != NS_USER || ids[0][k] == self_user))
				return cr_fail(
				    e,
				    "not supported yet: task %d is in another %s namespace (%s:[%llu]) "
				    "than the root of the tree %d (%s:[%llu])",
				    a->pids[i], ns_kinds[k].name, ns_kinds[k].name,
				    (unsigned long long)ids[i][k], a->pids[0], ns_kinds[k].name,
				    (unsigned long long)ids[0][k]);
	}
	return 0;
}

/* --external KIND[INO]:KEY naming the root's namespace of that kind: its key, or NULL. */
const char *ns_ext_key(const struct cr_opts *o, const char *kind, uint64_t ino)
{
	size_t kl = strlen(kind);
	for (int i = 0; i < o->n_external; i++) {
		const char *x = o->external[i];
		char *end;
		if (strncmp(x, kind, kl) || x[kl] != '[')
			continue;
		unsigned long long v = strtoull(x + kl + 1, &end, 10);
		if (end != x + kl + 1 && v == ino && !strncmp(end, "]:", 2) && end[2])
			return end + 2;
	}
	return NULL;
}

/* Run fn inside the namespace of kind k that fd is (ns_call: crshim stays in its own). */
int ns_run_in_fd(int target, int k, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e)
{
	return ns_call(target, ns_kinds[k].flag, fn, arg, e);
}

/* Run fn inside the namespace of kind k of task pid. */
int ns_run_in(pid_t pid, int k, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns_kinds[k].name);
	__cleanup_close int target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return cr_fail_sys(e, "open %s", path);
	return ns_run_in_fd(target, k, fn, arg, e);
}

static int read_uts(void *arg, struct cr_err *e)
{
	struct utsname *u = arg;
	if (uname(u))
		return cr_fail_sys(e, "uname");
	return 0;
}

/* /proc/PID/timens_offsets: "monotonic S NS" and "boottime S NS". */
static int read_time(pid_t pid, NsEntry *ne, struct cr_err *e)
{
	char path[64], name[32];
	long long s, ns;
	snprintf(path, sizeof(path), "/proc/%d/timens_offsets", pid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	while (fscanf(f, "%31s %lld %lld", name, &s, &ns) == 3) {
		if (!strcmp(name, "monotonic") || !strcmp(name, "1"))
			ne->mono_sec = s, ne->mono_nsec = ns, ne->has_mono_sec = ne->has_mono_nsec = 1;
		else if (!strcmp(name, "boottime") || !strcmp(name, "7"))
			ne->boot_sec = s, ne->boot_nsec = ns, ne->has_boot_sec = ne->has_boot_nsec = 1;
	}
	return 0;
}

static int dump_entry(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], const uint64_t self[NS_KINDS],
		      NsEntry *ne, struct utsname *u, struct cr_err *e)
{
	pid_t root = a->pids[0];
	uint32_t own = 0, ext = 0;
	for (int k = 0; k < NS_KINDS; k++)
		if (ids[0][k] && ids[0][k] != self[k])
			own |= (uint32_t)ns_kinds[k].flag;
	const char *netkey = ns_ext_key(a->o, "net", ids[0][NS_NET]);
	if (netkey) {
		ext |= CLONE_NEWNET;
		pr_info("network namespace net:[%llu] is external (key %s): not saved\n",
			(unsigned long long)ids[0][NS_NET], netkey);
	}
	if ((own & CLONE_NEWUSER) && ns_user_dump(a, self, ids, ne, e))
		return -1;
	ne->own = own, ne->has_own = 1;
	ne->external = ext, ne->has_external = ext != 0;
	if ((own & CLONE_NEWUTS) && ns_run_in(root, NS_UTS, read_uts, u, e) == 0) {
		ne->hostname = u->nodename;
		ne->domainname = u->domainname;
		pr_info("UTS namespace uts:[%llu]: hostname %s, domain %s\n",
			(unsigned long long)ids[0][NS_UTS], u->nodename, u->domainname);
	} else if (own & CLONE_NEWUTS) {
		return -1;
	}
	if ((own & CLONE_NEWTIME) && read_time(root, ne, e))
		return -1;
	return 0;
}

int ns_dump_enter(pid_t root, int *tree, struct cr_err *e)
{
	char path[64];
	struct stat a, b;
	*tree = -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", root);
	if (stat(path, &a) || stat("/proc/self/ns/ipc", &b) || a.st_ino == b.st_ino)
		return 0; /* the same (or gone: the dump fails later with its own line) */
	*tree = open(path, O_RDONLY | O_CLOEXEC);
	if (*tree < 0)
		return cr_fail_sys(e, "open the IPC namespace of task %d", root);
	pr_info("the IPC namespace of task %d (ipc:[%llu]) is its own: read from there\n", root,
		(unsigned long long)a.st_ino);
	return 0;
}

void ns_dump_leave(int tree)
{
	if (tree >= 0)
		close(tree);
}

struct ns_dumped {
	struct ns_net_set nets; /* the tree's network namespaces (fd -1: not saved) */
};

static int keep_nets(const struct ns_dump_args *a, struct ns_net_set *nets, struct cr_err *e)
{
	struct ns_dumped *d = calloc(1, sizeof(*d));
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	d->nets = *nets; /* the fds handed over */
	nets->n = 0, nets->root_ext = -1;
	*a->kept = d;
	return 0;
}

void ns_dump_killed(struct ns_dumped *d)
{
	for (size_t i = 0; d && i < d->nets.n; i++)
		if (d->nets.fd[i] >= 0)
			ns_net_killed(d->nets.fd[i]);
}

void ns_dump_free(struct ns_dumped *d)
{
	if (!d)
		return;
	ns_net_set_close(&d->nets);
	free(d);
}

static int dump_all(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], NsTaskEntry *te, NsIds *ti,
		    NsTaskEntry **tp, struct cr_err *e)
{
	uint64_t self[NS_KINDS];
	struct utsname u;
	if (ns_read_ids(0, self, e))
		return -1;
	for (size_t i = 0; i < a->n; i++) {
		if (a->ids) /* (read once the tree was stopped) */
			memcpy(ids[i], a->ids[i], sizeof(ids[i]));
		else if (!a->zombie[i] && ns_read_ids(a->pids[i], ids[i], e))
			return cr_wrap(e, "task %d", a->pids[i]);
	}
	if (check_tree(a, ids, self[NS_USER], e))
		return -1;
	NsEntry ne = NS_ENTRY__INIT;
	ns_ids__init(&ti[a->n]);
	ids_to_msg(self, &ti[a->n]);
	ne.dumper = &ti[a->n];
	for (size_t i = 0; i < a->n; i++) {
		ns_task_entry__init(&te[i]);
		ns_ids__init(&ti[i]);
		ids_to_msg(ids[i], &ti[i]);
		te[i].pid = a->pids[i], te[i].has_pid = 1;
		te[i].ids = &ti[i];
		tp[i] = &te[i];
	}
	ne.n_tasks = a->n, ne.tasks = tp;
	if (dump_entry(a, ids, self, &ne, &u, e)) {
		ns_user_dump_free(&ne);
		return -1;
	}
	/* the key of an external network namespace, which the restore looks up in its --inherit-fd */
	char keybuf[300], *keys[1];
	const char *nk = (ne.external & CLONE_NEWNET) ? ns_ext_key(a->o, "net", ids[0][NS_NET]) : NULL;
	if (nk) {
		snprintf(keybuf, sizeof(keybuf), "net:%s", nk);
		keys[0] = keybuf;
		ne.n_ext_key = 1, ne.ext_key = keys;
	}
	if (ne.own)
		pr_info("the root %d has namespaces of its own: 0x%x\n", a->pids[0], ne.own);
	if (a->ipc_own)
		*a->ipc_own = (ne.own & ~ne.external & CLONE_NEWIPC) != 0;
	struct ns_net_set nets = {0};
	int ret = ns_net_collect(a, ids, self[NS_NET], (ne.own & CLONE_NEWNS) != 0,
				 (ne.own & ~ne.external & CLONE_NEWNET) != 0, &nets, e);
	if (!ret)
		ret = ns_dump_state(a, &nets, ne.own & ~ne.external, &ne, e);
	if (!ret)
		ret = ns_net_dump_extra(a, &nets, self[NS_USER], &ne, e);
	if (!ret && a->kept)
		ret = keep_nets(a, &nets, e);
	ns_net_set_close(&nets);
	if (!ret)
		ret = ns_cg_dump(a, (ne.own & CLONE_NEWCGROUP) != 0, e);
	if (!ret)
		ret = fault_check(a->o, FI_DUMP_NS, e) || img_write_one(a->dirfd, IMG_NS, 0, &ne.base, e) ||
		      a->created(a->created_arg, IMG_NS, 0, e);
	ns_ipc_dump_free(&ne);
	ns_user_dump_free(&ne);
	ns_net_dump_extra_free(&ne);
	return ret ? -1 : 0;
}

int ns_dump(const struct ns_dump_args *a, struct cr_err *e)
{
	uint64_t(*ids)[NS_KINDS] = calloc(a->n, sizeof(*ids));
	NsTaskEntry *te = calloc(a->n, sizeof(*te));
	NsIds *ti = calloc(a->n + 1, sizeof(*ti));
	NsTaskEntry **tp = calloc(a->n, sizeof(void *));
	int ret = ids && te && ti && tp ? dump_all(a, ids, te, ti, tp, e)
					: cr_fail_errno(e, ENOMEM, "out of memory");
	free(ids);
	free(te);
	free(ti);
	free(tp);
	return ret;
}
