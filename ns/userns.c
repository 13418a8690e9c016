/* The user namespace of the tree (README.md): at dump its uid/gid maps, setgroups and which of the root's
 * other namespaces it owns; at restore a helper process makes it (crshim writes the maps from outside), and
 * makes inside it the network, IPC and UTS namespaces it owned, which crshim then joins and fills. When it
 * also owns the root's PID and mount namespaces (a container's: USER_BORN_KINDS), the root task is born in
 * it (engine/restore.c: a child of crshim enters it and clones the root with its new PID, mount and cgroup
 * namespaces, which the user namespace then owns), and so is every other task; otherwise each task enters
 * it last (ns_rst_user_enter), once its children are cloned and its files opened. Either way the tasks'
 * credentials are those of the namespace (ns_rst_map_creds). A task may also be in a user namespace nested
 * in the tree's (README.md): each one is dumped once (maps as its parent sees them, setgroups, owner),
 * made in its parent at restore, and entered last by its tasks (ns_rst_task_user_fd); what it owns is
 * refused at dump. */
#define LOG_PREFIX "userns: "
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "mnt-int.h"
#include "ns-int.h"

/* The kinds a helper inside the new user namespace makes (owned by it); crshim joins them. */
#define USER_MADE_KINDS (CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
/* The kinds the root task makes itself once born in the user namespace (ns_rst_user_born): the PID and mount
 * ones go together (a root born in it cannot mount in a mount namespace owned by crshim's; one born outside
 * cannot be PID 1 of a namespace owned by it), the cgroup one is then made by the root (ns_cg_unshare). */
#define USER_BORN_KINDS (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWCGROUP)
/* A time namespace owned by it: made by the child of crshim that clones the born root
 * (ns_rst_user_born_time), which enters the user namespace first; in a tree not born in it, by the helper
 * (ns_user_make, crshim writes its offsets), and entered by the root task first thing (ns_rst_root_child). */
#define USER_OWNED_KINDS (USER_MADE_KINDS | USER_BORN_KINDS | CLONE_NEWTIME)

/* The lines "INSIDE OUTSIDE COUNT" of a uid_map or gid_map (what: its name for the messages) into out. */
static int parse_map(char *text, const char *what, NsIdMap ***out, size_t *n, struct cr_err *e)
{
	unsigned a, b, c;
	char *sv = NULL;
	*n = 0;
	for (char *l = strtok_r(text, "\n", &sv); l; l = strtok_r(NULL, "\n", &sv)) {
		if (sscanf(l, "%u %u %u", &a, &b, &c) != 3)
			break;
		// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
		NsIdMap **v = realloc(*out, (*n + 1) * sizeof(*v));
		if (!v)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		*out = v;
		NsIdMap *m = malloc(sizeof(*m));
		if (!m)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ns_id_map__init(m);
		m->first = a, m->lower = b, m->count = c;
		m->has_first = m->has_lower = m->has_count = 1;
		v[(*n)++] = m;
	}
	if (!*n)
		return cr_fail(e, "%s: no mapping (a user namespace without maps cannot be restored)", what);
	return 0;
}

/* The whole of a small /proc file into buf (NUL-terminated); -1 with errno. */
static int slurp(const char *path, char *buf, size_t len)
{
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;
	ssize_t r = 0;
	while (fd >= 0 && off + 1 < len && (r = read(fd, buf + off, len - 1 - off)) > 0)
		off += (size_t)r;
	buf[off] = 0;
	return fd < 0 || r < 0 ? -1 : 0;
}

static int read_map(pid_t pid, const char *name, NsIdMap ***out, size_t *n, struct cr_err *e)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	if (slurp(path, buf, sizeof(buf)))
		return cr_fail_sys(e, "read %s", path);
	return parse_map(buf, path, out, n, e);
}

/* The inode of the user namespace that ns fd (ioctl req: NS_GET_USERNS, NS_GET_PARENT) points at. */
static int owner_ino(int fd, unsigned long req, uint64_t *ino)
{
	__cleanup_close int u = ioctl(fd, req);
	struct stat st;
	if (u < 0 || fstat(u, &st))
		return -1;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* The number of threads of task pid (0: unknown). */
static int threads(pid_t pid)
{
	char path[64], line[128];
	int n = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	return n;
}

/* Id extents: first inside a namespace, lower crshim's (composed through the levels between). */
struct ns_idext {
	uint32_t first, lower, count;
};

static void free_maps(NsIdMap **m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i]);
	free(m);
}

/* The extents c (inside -> its parent's ids) through p (the parent's ids -> crshim's) into *out; NULL p:
 * the parent is crshim's. -1: out of memory. */
static int compose(const struct ns_idext *p, size_t np, NsIdMap *const *c, size_t nc, struct ns_idext **out,
		   size_t *n)
{
	static const struct ns_idext self = {0, 0, UINT32_MAX};
	if (!p)
		p = &self, np = 1;
	*out = NULL, *n = 0;
	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; j < np; j++) {
			uint64_t lo = c[i]->lower > p[j].first ? c[i]->lower : p[j].first;
			uint64_t ce = (uint64_t)c[i]->lower + c[i]->count,
				 pe = (uint64_t)p[j].first + p[j].count;
			uint64_t hi = ce < pe ? ce : pe;
			if (lo >= hi)
				continue;
			struct ns_idext *v = realloc(*out, (*n + 1) * sizeof(*v));
			if (!v) {
				free(*out);
				*out = NULL, *n = 0;
				return -1;
			}
			*out = v;
			v[(*n)++] =
			    (struct ns_idext){c[i]->first + (uint32_t)(lo - c[i]->lower),
					      p[j].lower + (uint32_t)(lo - p[j].first), (uint32_t)(hi - lo)};
		}
	return 0;
}

/* crshim's id (lower) into the namespace's (first): -1 when it maps none. */
static int map_id(const struct ns_idext *m, size_t n, uint32_t *id)
{
	for (size_t i = 0; i < n; i++)
		if (*id >= m[i].lower && *id - m[i].lower < m[i].count) {
			*id = m[i].first + (*id - m[i].lower);
			return 0;
		}
	return -1;
}

#define USER_LEVELS 32 /* the kernel's limit of nested user namespaces */

/* At dump: the tree's user namespace (l[0]: its parent is crshim's) and those nested in it that tasks are
 * in, or between (l[1..n), parents first). */
struct dump_lvls {
	uint64_t self; /* crshim's */
	size_t n;
	struct dump_lvl {
		uint64_t ino;
		int fd, parent;		    /* parent: index in l, -1 for l[0] */
		struct ns_idext *uid, *gid; /* crshim's ids */
		size_t nuid, ngid;
		NsUserLevel *m; /* l[1..): in ns.img */
	} l[USER_LEVELS + 1];
};

static int lvl_find(const struct dump_lvls *L, uint64_t ino)
{
	for (size_t i = 0; i < L->n; i++)
		if (L->l[i].ino == ino)
			return (int)i;
	return -1;
}

static void lvls_free(struct dump_lvls *L)
{
	for (size_t i = 0; L && i < L->n; i++) {
		if (L->l[i].fd >= 0)
			close(L->l[i].fd);
		free(L->l[i].uid);
		free(L->l[i].gid);
	}
	free(L);
}

/* The user namespace of task pid and those above it up to one of L (or crshim's: then the top one is the
 * tree's, l[0]), added to L parents first. */
static int add_chain(struct dump_lvls *L, pid_t pid, struct cr_err *e)
{
	char path[64];
	int fds[USER_LEVELS + 1];
	uint64_t inos[USER_LEVELS + 1];
	size_t n = 0;
	int at = -1, fd, bad = 0;
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (;;) {
		if (fd < 0 || fstat(fd, &st)) {
			bad = cr_fail_sys(e, "%s: the user namespaces above it", path);
			break;
		}
		if ((at = lvl_find(L, (uint64_t)st.st_ino)) >= 0 || (uint64_t)st.st_ino == L->self)
			break;
		if (n == USER_LEVELS || L->n + n >= USER_LEVELS + 1) {
			bad = cr_fail(e, "%s: more than %d user namespaces", path, USER_LEVELS);
			break;
		}
		fds[n] = fd, inos[n++] = (uint64_t)st.st_ino;
		fd = ioctl(fd, NS_GET_PARENT);
	}
	if (fd >= 0)
		close(fd);
	if (!bad && (!n ? at < 0 : at < 0 && L->n)) /* crshim's own, or one outside the tree's */
		bad = cr_fail(e,
			      "not supported yet: task %d is in user:[%llu], which is not the tree's user "
			      "namespace user:[%llu] nor nested in it",
			      pid, (unsigned long long)(n ? inos[0] : L->self),
			      (unsigned long long)(L->n ? L->l[0].ino : 0));
	if (bad) {
		while (n)
			close(fds[--n]);
		return -1;
	}
	while (n) {
		n--;
		L->l[L->n] = (struct dump_lvl){.ino = inos[n], .fd = fds[n], .parent = at};
		at = (int)L->n++;
	}
	return 0;
}

/* A process in user namespace fd reads its uid_map and gid_map (as its parent sees them) and setgroups:
 * into t[0..2]. */
static int level_text(int fd, char t[3][4096], struct cr_err *e)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return cr_fail_sys(e, "pipe");
	pid_t c = fork();
	if (c == 0) {
		static const char *const f[] = {"/proc/self/uid_map", "/proc/self/gid_map",
						"/proc/self/setgroups"};
		char b[4096];
		close(p[0]);
		if (setns(fd, CLONE_NEWUSER))
			_exit(1);
		for (int i = 0; i < 3; i++)
			if (slurp(f[i], b, sizeof(b)) ||
			    write(p[1], b, strlen(b) + 1) != (ssize_t)strlen(b) + 1)
				_exit(1);
		_exit(0);
	}
	int err = errno;
	close(p[1]);
	char all[3 * 4096 + 1];
	size_t off = 0;
	ssize_t r;
	while (c > 0 && off < sizeof(all) - 1 && (r = read(p[0], all + off, sizeof(all) - 1 - off)) > 0)
		off += (size_t)r;
	close(p[0]);
	int st = -1;
	if (c < 0)
		return cr_fail_errno(e, err, "fork");
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	all[off] = 0;
	const char *x = all;
	for (int i = 0; i < 3; i++, x += strlen(x) + 1) {
		if (x >= all + off || !WIFEXITED(st) || WEXITSTATUS(st))
			return cr_fail(e, "read the maps of a nested user namespace from inside it: failed");
		size_t len = strlen(x);
		if (len >= 4096)
			len = 4095;
		memcpy(t[i], x, len);
		t[i][len] = 0;
	}
	return 0;
}

/* The maps and setgroups of each level, its owner; l[0]'s into ne (as crshim's child reads them from task
 * pid in it: outside ids are crshim's), the others' into NsUserLevel messages of ne. */
static int read_levels(struct dump_lvls *L, pid_t in0, NsEntry *ne, struct cr_err *e)
{
	char t[3][4096], path[64];
	for (size_t i = 0; i < L->n; i++) {
		struct dump_lvl *l = &L->l[i];
		NsIdMap ***um = &ne->uid_map, ***gm = &ne->gid_map;
		size_t *nu = &ne->n_uid_map, *ng = &ne->n_gid_map;
		if (i) {
			// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
			NsUserLevel **v = realloc(ne->nested_users, i * sizeof(*v));
			if (v)
				ne->nested_users = v; /* (freed with ne, also when the next calloc fails) */
			if (!v || !(l->m = calloc(1, sizeof(*l->m))))
				return cr_fail_errno(e, ENOMEM, "out of memory");
			v[i - 1] = l->m, ne->n_nested_users = i;
			ns_user_level__init(l->m);
			um = &l->m->uid_map, gm = &l->m->gid_map, nu = &l->m->n_uid_map,
			ng = &l->m->n_gid_map;
		}
		if (i == 0 && in0 > 0) {
			snprintf(path, sizeof(path), "/proc/%d/setgroups", in0);
			if (read_map(in0, "uid_map", um, nu, e) || read_map(in0, "gid_map", gm, ng, e))
				return -1;
			if (slurp(path, t[2], sizeof(t[2])))
				return cr_fail_sys(e, "read %s", path);
		} else {
			snprintf(path, sizeof(path), "user:[%llu]", (unsigned long long)l->ino);
			if (level_text(l->fd, t, e) || parse_map(t[0], path, um, nu, e) ||
			    parse_map(t[1], path, gm, ng, e))
				return -1;
		}
		bool deny = !strncmp(t[2], "deny", 4);
		const struct dump_lvl *p = i ? &L->l[l->parent] : NULL;
		if (compose(p ? p->uid : NULL, p ? p->nuid : 0, *um, *nu, &l->uid, &l->nuid) ||
		    compose(p ? p->gid : NULL, p ? p->ngid : 0, *gm, *ng, &l->gid, &l->ngid))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		if (!i) {
			ne->setgroups_deny = deny, ne->has_setgroups_deny = 1;
			ne->user = l->ino, ne->has_user = 1;
			continue;
		}
		uid_t owner;
		if (ioctl(l->fd, NS_GET_OWNER_UID, &owner))
			return cr_fail_sys(e, "user:[%llu]: its owner", (unsigned long long)l->ino);
		uint32_t o = owner;
		if (map_id(p->uid, p->nuid, &o))
			return cr_fail(
			    e, "user:[%llu]: its owner uid %u is not mapped in its parent user:[%llu]",
			    (unsigned long long)l->ino, owner, (unsigned long long)p->ino);
		l->m->ino = l->ino, l->m->parent = p->ino, l->m->owner_uid = o;
		l->m->setgroups_deny = deny;
		l->m->has_ino = l->m->has_parent = l->m->has_owner_uid = l->m->has_setgroups_deny = 1;
		pr_info("nested user namespace user:[%llu] in user:[%llu]: %zu uid and %zu gid extents, "
			"owner %u, "
			"setgroups %s\n",
			(unsigned long long)l->ino, (unsigned long long)p->ino, *nu, *ng, o,
			deny ? "deny" : "allow");
	}
	return 0;
}

static const char *const kind_names[NS_KINDS] = {"network", "IPC",    "UTS",  "mount",
						 "PID",	    "cgroup", "time", "user"};

/* Who owns the namespace of kind k of task pid (the root: root): crshim's user namespace or the tree's
 * (l[0]), where only the kinds restored in it may be (USER_OWNED_KINDS; owned: add it); one nested in it
 * or another one fails. */
static int check_owner(struct dump_lvls *L, pid_t pid, bool root, int k, uint32_t *owned, struct cr_err *e)
{
	char path[64];
	uint64_t o;
	uint32_t flag = (uint32_t)ns_kinds[k].flag;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns_kinds[k].name);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || owner_ino(fd, NS_GET_USERNS, &o))
		return cr_fail_sys(e, "%s: its owner", path);
	if (o == L->self)
		return 0;
	int at = lvl_find(L, o);
	if (at < 0)
		return cr_fail(
		    e,
		    "not supported yet: the %s namespace of task %d is owned by user:[%llu], neither "
		    "the tree's nor crshim's",
		    ns_kinds[k].name, pid, (unsigned long long)o);
	if (at > 0 && root && (USER_MADE_KINDS & flag)) { /* made by the helper of that one, as the tree's */
		L->l[at].m->owned |= flag, L->l[at].m->has_owned = 1;
		return 0;
	}
	if (at > 0 && root)
		return cr_fail(
		    e,
		    "not supported yet: user:[%llu], a user namespace nested in the tree's, owns the "
		    "root's %s namespace (what a nested user namespace owns is not restored)",
		    (unsigned long long)o, kind_names[k]);
	if (at > 0 && k == NS_NET) /* another network namespace of the tree: made in it (net-multi.c) */
		return 0;
	if (at > 0)
		return cr_fail(
		    e,
		    "not supported yet: the %s namespace of task %d is owned by user:[%llu], a user "
		    "namespace nested in the tree's (what a nested user namespace owns is not "
		    "restored)",
		    ns_kinds[k].name, pid, (unsigned long long)o);
	if (!(USER_OWNED_KINDS & flag))
		return cr_fail(e,
			       "not supported yet: the %s namespace of task %d is owned by the tree's user "
			       "namespace (only the root's PID, mount, cgroup, time, network, IPC and UTS "
			       "namespaces are restored in it)",
			       ns_kinds[k].name, pid);
	*owned |= flag;
	return 0;
}

/* A task in a nested user namespace enters it last (ns_rst_task_user_fd), after its restorer would make its
 * threads or its sharers of the address space: refused. */
static int check_nested(const struct ns_dump_args *a, const bool *nested, struct cr_err *e)
{
	for (size_t i = 0; i < a->n; i++) {
		if (!nested[i])
			continue;
		if (threads(a->pids[i]) != 1)
			return cr_fail(
			    e,
			    "not supported yet: task %d has threads in a user namespace nested in the "
			    "tree's",
			    a->pids[i]);
		for (size_t j = 0; j < a->n; j++)
			if (j != i && !a->zombie[j] &&
			    !syscall(SYS_kcmp, a->pids[i], a->pids[j], KCMP_VM, 0, 0)) {
				bool fs = !syscall(SYS_kcmp, a->pids[i], a->pids[j], KCMP_FS, 0, 0);
				return cr_fail(
				    e,
				    "task %d shares the address space%s of %d inside a user namespace "
				    "nested in the tree's: not supported yet",
				    a->pids[i], fs ? " and the fs info (CLONE_FS)" : "", a->pids[j]);
			}
	}
	return 0;
}

static int dump_owned(const struct ns_dump_args *a, const uint64_t self[NS_KINDS], uint64_t (*ids)[NS_KINDS],
		      struct dump_lvls *L, bool *nested, NsEntry *ne, struct cr_err *e)
{
	uint32_t owned = 0, other[NS_KINDS] = {0}; /* the root's kinds it owns; the first other task's */
	for (size_t i = 0; i < a->n; i++)
		for (int k = 0; k < NS_KINDS; k++) {
			uint32_t o = 0;
			if (k != NS_USER && ids[i][k] && ids[i][k] != self[k] &&
			    (i == 0 || ids[i][k] != ids[0][k]) &&
			    check_owner(L, a->pids[i], i == 0, k, &o, e))
				return -1;
			if (i == 0)
				owned |= o;
			else if (o && !other[k])
				other[k] = (uint32_t)a->pids[i];
		}
	/* a task's own PID or mount namespace owned by it is made by its parent: one born in it */
	for (int k = 0; k < NS_KINDS; k++)
		if (other[k] && ((uint32_t)ns_kinds[k].flag & USER_BORN_KINDS) && !(owned & CLONE_NEWPID))
			return cr_fail(
			    e,
			    "not supported yet: the %s namespace of task %u is owned by the tree's "
			    "user namespace, which does not own the root's PID namespace",
			    ns_kinds[k].name, other[k]);
	uint32_t pm = owned & (CLONE_NEWPID | CLONE_NEWNS);
	if (pm && pm != (CLONE_NEWPID | CLONE_NEWNS))
		return cr_fail(e,
			       "not supported yet: the tree's user namespace owns the root's %s namespace "
			       "but not its %s namespace (both or neither)",
			       pm == CLONE_NEWPID ? "PID" : "mount", pm == CLONE_NEWPID ? "mount" : "PID");
	/* born in it, threads are made there with their ids in a PID namespace it owns; entering it last,
	 * they would be made after the task entered it, in a PID namespace it does not own */
	for (size_t i = 0; i < a->n && !pm; i++)
		if (threads(a->pids[i]) != 1)
			return cr_fail(e,
				       "not supported yet: task %d has threads in a user namespace that "
				       "does not own its PID namespace",
				       a->pids[i]);
	if (check_nested(a, nested, e))
		return -1;
	ne->user_owned = owned, ne->has_user_owned = 1;
	if (a->born)
		*a->born = pm != 0;
	pr_info(
	    "user namespace user:[%llu]: %zu uid and %zu gid extents, setgroups %s, owns 0x%x; %zu nested\n",
	    (unsigned long long)L->l[0].ino, ne->n_uid_map, ne->n_gid_map,
	    ne->setgroups_deny ? "deny" : "allow", owned, L->n - 1);
	return 0;
}

int ns_user_dump(const struct ns_dump_args *a, const uint64_t self[NS_KINDS], uint64_t (*ids)[NS_KINDS],
		 NsEntry *ne, struct cr_err *e)
{
	struct dump_lvls *L = calloc(1, sizeof(*L));
	bool *nested = calloc(a->n, sizeof(*nested));
	int ret = -1;
	if (!L || !nested) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto out;
	}
	L->self = self[NS_USER];
	if (add_chain(L, a->pids[0], e))
		goto out;
	for (size_t i = 1; i < a->n; i++)
		if (!a->zombie[i] && lvl_find(L, ids[i][NS_USER]) < 0 && add_chain(L, a->pids[i], e))
			goto out;
	pid_t in0 = 0; /* a task in the tree's user namespace, whose maps crshim reads */
	for (size_t i = 0; i < a->n; i++) {
		int at = a->zombie[i] ? 0 : lvl_find(L, ids[i][NS_USER]);
		nested[i] = at > 0;
		if (!at && !a->zombie[i] && !in0)
			in0 = a->pids[i];
	}
	if (read_levels(L, in0, ne, e) || dump_owned(a, self, ids, L, nested, ne, e))
		goto out;
	for (size_t i = 0; a->nested && i < a->n; i++)
		a->nested[i] = nested[i];
	ret = 0;
out:
	lvls_free(L);
	free(nested);
	return ret;
}

void ns_user_dump_free(NsEntry *ne)
{
	free_maps(ne->uid_map, ne->n_uid_map);
	free_maps(ne->gid_map, ne->n_gid_map);
	for (size_t i = 0; i < ne->n_nested_users; i++) {
		free_maps(ne->nested_users[i]->uid_map, ne->nested_users[i]->n_uid_map);
		free_maps(ne->nested_users[i]->gid_map, ne->nested_users[i]->n_gid_map);
		free(ne->nested_users[i]);
	}
	free(ne->nested_users);
	ne->uid_map = ne->gid_map = NULL;
	ne->n_uid_map = ne->n_gid_map = 0;
	ne->nested_users = NULL;
	ne->n_nested_users = 0;
}

/* At restore: the tree's user namespace (lvl[0]: fd is user_fd) and those nested in it, parents first. */
struct ns_user_lvl {
	uint64_t ino;
	int parent, fd;		    /* parent: index in lvl (-1 for lvl[0]); fd: made by ns_user_make, -1 */
	struct ns_idext *uid, *gid; /* inside -> crshim's ids */
	size_t nuid, ngid;
	const NsUserLevel *m; /* lvl[1..) */
};

static int load_levels(struct ns_rst *r, struct cr_err *e)
{
	const NsEntry *ne = r->ne;
	if (ne->n_nested_users && !ne->has_user)
		return cr_fail_errno(e, EBADMSG, "ns.img: nested user namespaces without the tree's");
	r->lvl = calloc(1 + ne->n_nested_users, sizeof(*r->lvl));
	if (!r->lvl)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i <= ne->n_nested_users; i++) {
		struct ns_user_lvl *l = &r->lvl[i];
		const NsUserLevel *m = i ? ne->nested_users[i - 1] : NULL;
		*l = (struct ns_user_lvl){.ino = m ? m->ino : ne->user, .parent = -1, .fd = -1, .m = m};
		r->n_lvl = i + 1;
		for (size_t j = 0; m && j < i; j++)
			if (r->lvl[j].ino == m->parent)
				l->parent = (int)j;
		if (m && (l->parent < 0 || !m->n_uid_map || !m->n_gid_map))
			return cr_fail_errno(
			    e, EBADMSG,
			    "ns.img: nested user namespace user:[%llu]: no maps, or its parent "
			    "user:[%llu] is not before it",
			    (unsigned long long)m->ino, (unsigned long long)m->parent);
		const struct ns_user_lvl *p = m ? &r->lvl[l->parent] : NULL;
		if (compose(p ? p->uid : NULL, p ? p->nuid : 0, m ? m->uid_map : ne->uid_map,
			    m ? m->n_uid_map : ne->n_uid_map, &l->uid, &l->nuid) ||
		    compose(p ? p->gid : NULL, p ? p->ngid : 0, m ? m->gid_map : ne->gid_map,
			    m ? m->n_gid_map : ne->n_gid_map, &l->gid, &l->ngid))
			return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	return 0;
}

void ns_user_done(struct ns_rst *r)
{
	if (r->user_fd >= 0)
		close(r->user_fd);
	for (size_t i = 0; i < r->n_lvl; i++) {
		if (r->lvl[i].fd >= 0)
			close(r->lvl[i].fd);
		free(r->lvl[i].uid);
		free(r->lvl[i].gid);
	}
	free(r->lvl);
}

/* The level of task pid (of the images): 0 for the tree's user namespace (or not known). */
static size_t task_lvl(const struct ns_rst *r, pid_t pid)
{
	for (size_t i = 0; r && r->n_lvl > 1 && i < r->ne->n_tasks; i++) {
		const NsTaskEntry *t = r->ne->tasks[i];
		if (t->pid != pid || !t->ids)
			continue;
		for (size_t j = 1; j < r->n_lvl; j++)
			if (r->lvl[j].ino == t->ids->user)
				return j;
	}
	return 0;
}

int ns_rst_task_user_fd(const struct ns_rst *r, pid_t pid, int fd)
{
	size_t j = task_lvl(r, pid);
	return j ? r->lvl[j].fd : fd;
}

int ns_user_load(struct ns_rst *r, struct cr_err *e)
{
	if (!(r->own & CLONE_NEWUSER))
		return 0;
	if (!r->ne || !r->ne->n_uid_map || !r->ne->n_gid_map)
		return cr_fail_errno(e, EBADMSG, "ns.img: a user namespace without uid/gid maps");
	if (r->ne->user_owned & ~(uint32_t)USER_OWNED_KINDS)
		return cr_fail_errno(e, EBADMSG,
				     "ns.img: the user namespace owns namespaces (0x%x) other than PID, "
				     "mount, cgroup, time, network, IPC and UTS ones",
				     r->ne->user_owned & ~(uint32_t)USER_OWNED_KINDS);
	uint32_t made = r->ne->user_owned;
	for (size_t i = 0; i < r->ne->n_nested_users; i++) {
		if (r->ne->nested_users[i]->owned & ~(uint32_t)USER_MADE_KINDS)
			return cr_fail_errno(
			    e, EBADMSG,
			    "ns.img: a nested user namespace owns namespaces (0x%x) other than "
			    "network, IPC and UTS ones",
			    r->ne->nested_users[i]->owned);
		made |= r->ne->nested_users[i]->owned;
	}
	for (int k = 0; k < NS_KINDS; k++)
		if ((made & USER_MADE_KINDS & (uint32_t)ns_kinds[k].flag) && r->join_fd[k] >= 0)
			return cr_fail(
			    e, "--join-ns %s: not supported for a tree in a user namespace of its own",
			    ns_kinds[k].name);
	return load_levels(r, e);
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return -1;
	return 0;
}

static int write_map(pid_t pid, const char *name, NsIdMap *const *m, size_t n)
{
	char buf[4096];
	size_t off = 0;
	for (size_t i = 0; i < n && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%u %u %u\n", m[i]->first, m[i]->lower,
					m[i]->count);
	if (off >= sizeof(buf)) {
		errno = E2BIG;
		return -1;
	}
	return write_file(pid, name, buf);
}

/* Two pipes (to and from a helper), all four ends or none. */
int ns_helper_pipes(int up[2], int down[2], struct cr_err *e)
{
	up[0] = up[1] = down[0] = down[1] = -1;
	if (!pipe2(up, O_CLOEXEC) && !pipe2(down, O_CLOEXEC))
		return 0;
	int err = errno;
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0)
			close(up[i]);
		if (down[i] >= 0)
			close(down[i]);
	}
	return cr_fail_errno(e, err, "pipe");
}

void ns_helper_end(int up, int down, pid_t pid)
{
	close(up);
	close(down); /* EOF: the helper exits */
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* The helper of a nested user namespace: in its parent (parent_fd, with every capability there), a child
 * of it takes the owner's uid (and group) and unshares it; the helper writes the child's setgroups and maps
 * from the parent's side, then the child makes in it the kinds it owns; the helper sends crshim {the child's
 * pid, 0} (or {-1, errno}), and waits for EOF. */
__attribute__((noreturn)) static void level_helper(int parent_fd, const NsUserLevel *m, gid_t group,
						   int to_crshim, int from_crshim)
{
	int up[2], down[2], res[2] = {-1, 0};
	char c = 0;
	pid_t k = -1;
	struct cr_err e;
	if (setns(parent_fd, CLONE_NEWUSER) || ns_helper_pipes(up, down, &e))
		goto fail;
	k = fork();
	if (k == 0) {
		close(up[0]);
		close(down[1]);
		if (setresgid(group, group, group) || (setgroups(0, NULL) && errno != EPERM) ||
		    setresuid(m->owner_uid, m->owner_uid, m->owner_uid) || unshare(CLONE_NEWUSER) ||
		    write(up[1], "u", 1) != 1 || read(down[0], &c, 1) != 1 ||
		    unshare((int)(m->owned & USER_MADE_KINDS)) || write(up[1], "n", 1) != 1)
			_exit(1);
		while (read(down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (k < 0 || read(up[0], &c, 1) != 1 ||
	    write_file(k, "setgroups", m->setgroups_deny ? "deny" : "allow") ||
	    write_map(k, "uid_map", m->uid_map, m->n_uid_map) ||
	    write_map(k, "gid_map", m->gid_map, m->n_gid_map) || write(down[1], "m", 1) != 1)
		goto fail;
	if (read(up[0], &c, 1) != 1) {
		errno = EPERM; /* (the child could not make the kinds it owns) */
		goto fail;
	}
	res[0] = k;
	if (write(to_crshim, res, sizeof(res)) == (ssize_t)sizeof(res))
		while (read(from_crshim, &c, 1) > 0)
			;
	close(down[1]);
	while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(0);
fail:
	res[1] = errno ? errno : EPERM;
	if (write(to_crshim, res, sizeof(res)) < 0 || k <= 0)
		_exit(1);
	close(down[1]);
	while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(1);
}

/* Nested level i, made in its parent (made already); its fd kept. */
static int make_level(struct ns_rst *r, size_t i, struct cr_err *e)
{
	struct ns_user_lvl *l = &r->lvl[i];
	const struct ns_user_lvl *p = &r->lvl[l->parent];
	int pfd = l->parent ? p->fd : r->user_fd, up[2], down[2], res[2] = {-1, EPIPE}, ret = -1;
	gid_t group = l->parent ? p->m->gid_map[0]->first : r->ne->gid_map[0]->first; /* mapped there */
	if (ns_helper_pipes(up, down, e))
		return -1;
	pid_t h = fork();
	if (h == 0) {
		close(up[0]);
		close(down[1]);
		level_helper(pfd, l->m, group, up[1], down[0]);
	}
	int err = errno;
	close(up[1]);
	close(down[0]);
	char path[64];
	if (h < 0) {
		cr_fail_errno(e, err, "fork the nested user namespace helper");
	} else if (read(up[0], res, sizeof(res)) != (ssize_t)sizeof(res) || res[0] <= 0) {
		cr_fail_errno(e, res[1],
			      "make the nested user namespace user:[%llu] (owner uid %u) in user:[%llu]",
			      (unsigned long long)l->ino, l->m->owner_uid, (unsigned long long)p->ino);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", res[0]);
		if ((l->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			cr_fail_sys(e, "open %s", path);
		else
			ret = 0;
		for (int k = 0; k < NS_KINDS && !ret; k++) {
			if (!(l->m->owned & USER_MADE_KINDS & r->own & (uint32_t)ns_kinds[k].flag))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/ns/%s", res[0], ns_kinds[k].name);
			if ((r->user_made_fd[k] = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				ret = cr_fail_sys(e, "open %s", path);
		}
	}
	close(up[0]);
	close(down[1]); /* EOF: the helper and its child exit */
	if (h > 0)
		while (waitpid(h, NULL, 0) < 0 && errno == EINTR)
			;
	if (!ret)
		pr_info(
		    "made the nested user namespace of user:[%llu] in that of user:[%llu] (owner %u), in it "
		    "the namespaces 0x%x\n",
		    (unsigned long long)l->ino, (unsigned long long)p->ino, l->m->owner_uid, l->m->owned);
	return ret;
}

/* The helper: a new user namespace, then (once crshim wrote the maps) the kinds it owns; it waits for EOF. */
__attribute__((noreturn)) static void helper(int to_crshim, int from_crshim, uint32_t kinds)
{
	char c = 'E';
	if (unshare(CLONE_NEWUSER) || write(to_crshim, "u", 1) != 1 || read(from_crshim, &c, 1) != 1 ||
	    c != 'm')
		_exit(1);
	c = unshare((int)kinds) ? 'E' : 'n';
	if (write(to_crshim, &c, 1) != 1 || c == 'E')
		_exit(1);
	while (read(from_crshim, &c, 1) > 0)
		;
	_exit(0);
}

int ns_user_make(struct ns_rst *r, struct cr_err *e)
{
	if (!(r->own & CLONE_NEWUSER))
		return 0;
	const NsEntry *ne = r->ne;
	uint32_t kinds = ne->user_owned & USER_MADE_KINDS & r->own;
	if (!ns_rst_user_born(r) && (ne->user_owned & r->own & CLONE_NEWTIME) && r->join_fd[NS_TIME] < 0)
		kinds |= CLONE_NEWTIME; /* for its children: the root task enters it (ns_rst_root_child) */
	int up[2], down[2];
	if (ns_helper_pipes(up, down, e))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		helper(up[1], down[0], kinds);
	}
	int err = errno;
	close(up[1]);
	close(down[0]);
	int ret = -1;
	char c = 0, path[64];
	if (pid < 0) {
		cr_fail_errno(e, err, "fork the user namespace helper");
		goto out;
	}
	if (read(up[0], &c, 1) != 1 || c != 'u') {
		cr_fail(e, "make the user namespace: the helper failed");
		goto out;
	}
	if (write_file(pid, "setgroups", ne->setgroups_deny ? "deny" : "allow") ||
	    write_map(pid, "uid_map", ne->uid_map, ne->n_uid_map) ||
	    write_map(pid, "gid_map", ne->gid_map, ne->n_gid_map)) {
		cr_fail_sys(e, "the user namespace's maps");
		goto out;
	}
	if (write(down[1], "m", 1) != 1 || read(up[0], &c, 1) != 1 || c != 'n') {
		cr_fail(e, "make the namespaces (0x%x) owned by the user namespace: the helper failed",
			kinds);
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	r->user_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->user_fd < 0) {
		cr_fail_sys(e, "open %s", path);
		goto out;
	}
	for (int k = 0; k < NS_KINDS; k++) {
		if (!(kinds & (uint32_t)ns_kinds[k].flag))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid,
			 k == NS_TIME ? "time_for_children" : ns_kinds[k].name);
		r->user_made_fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (r->user_made_fd[k] < 0) {
			cr_fail_sys(e, "open %s", path);
			goto out;
		}
	}
	if ((kinds & CLONE_NEWTIME) && ns_time_offsets_write(ne, pid)) { /* before any task enters it */
		cr_fail_sys(e, "write the time namespace's offsets (/proc/%d/timens_offsets)", pid);
		goto out;
	}
	pr_info("made a user namespace (%zu uid, %zu gid extents) and in it the namespaces 0x%x\n",
		ne->n_uid_map, ne->n_gid_map, kinds);
	ret = 0;
	for (size_t i = 1; i < r->n_lvl && !ret; i++)
		ret = make_level(r, i, e);
out:
	ns_helper_end(up[0], down[1], pid);
	return ret;
}

/* "uid=N" and "gid=N" in a mount's options (crshim's view of the ids, as mountinfo shows them) into the
 * ids of the user namespace, in which the root task makes the filesystem (ns_rst_user_born). The owners of
 * tmpfs files are the namespace's already: the dump reads them from inside it (mnt-dump.c). */
static int mnt_opts_ids(const struct ns_user_lvl *l, MntEntry *m, struct cr_err *e)
{
	if (!m->sb_opts || (!strstr(m->sb_opts, "uid=") && !strstr(m->sb_opts, "gid=")))
		return 0;
	size_t cap = strlen(m->sb_opts) + 64, off = 0;
	char *out = malloc(cap), *in = strdup(m->sb_opts), *sv = NULL;
	if (!out || !in) {
		free(out);
		free(in);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	out[0] = 0;
	for (char *t = strtok_r(in, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		unsigned v;
		bool u = !strncmp(t, "uid=", 4), g = !strncmp(t, "gid=", 4);
		if ((u || g) && sscanf(t + 4, "%u", &v) == 1) {
			uint32_t id = v;
			if (map_id(u ? l->uid : l->gid, u ? l->nuid : l->ngid, &id)) {
				cr_fail(e,
					"mount %s: its option %s names an id its user namespace does not map",
					m->mountpoint, t);
				free(out), free(in);
				return -1;
			}
			off += (size_t)snprintf(out + off, cap - off, "%s%cid=%u", off ? "," : "",
						u ? 'u' : 'g', id);
		} else {
			off += (size_t)snprintf(out + off, cap - off, "%s%s", off ? "," : "", t);
		}
		if (off >= cap) {
			free(out), free(in);
			return cr_fail_errno(e, E2BIG, "mount %s: its options", m->mountpoint);
		}
	}
	free(in);
	free(m->sb_opts);
	m->sb_opts = out;
	return 0;
}

int ns_user_mnt_ids(struct ns_rst *r, struct cr_err *e)
{
	if (!ns_rst_user_born(r) || !r->mnt)
		return 0;
	/* with crshim's view of the ids: before they are made the namespace's. A check (restore --check-only,
	 * the dump's) makes no mount: whether crshim can make them is left to the restore. */
	if (ns_mnt_premake(r->mnt, r->o->check_only, e))
		return -1;
	for (size_t i = 0; i < r->mnt->n; i++)
		if (mnt_opts_ids(&r->lvl[0], r->mnt->m[i], e))
			return -1;
	for (size_t k = 0; k < r->n_mntns; k++) { /* the other processes' mount namespaces, made in it */
		const struct ns_mnt_state *s = ns_mnt_nested_state(r->mntns[k]);
		for (size_t i = 0; i < s->n; i++)
			if (mnt_opts_ids(&r->lvl[0], s->m[i], e))
				return -1;
	}
	return 0;
}

/* Id id (crshim's) that level l does not map: one line, with the id as its parent sees it when nested. */
static int unmapped(const struct ns_rst *r, const struct ns_user_lvl *l, pid_t pid, const char *what,
		    bool gid, uint32_t id, struct cr_err *e)
{
	uint32_t in = id;
	if (l->parent < 0 || map_id(gid ? r->lvl[l->parent].gid : r->lvl[l->parent].uid,
				    gid ? r->lvl[l->parent].ngid : r->lvl[l->parent].nuid, &in))
		return cr_fail(e, "task %d: %s %u is not mapped in its user namespace", pid, what, id);
	return cr_fail(
	    e,
	    "task %d: %s %u is not mapped in its user namespace (user:[%llu], nested in the tree's; "
	    "%u as crshim sees it)",
	    pid, what, in, (unsigned long long)l->ino, id);
}

/* The ids of c mapped into the user namespace of task pid (ns.img), into out (NULL: only checked). */
static int map_creds(const struct ns_rst *r, pid_t pid, const CredsEntry *c, CredsEntry *out,
		     struct cr_err *e)
{
	if (!r || !(r->own & CLONE_NEWUSER) || !c)
		return 0;
	if (!r->n_lvl)
		return cr_fail_errno(e, EINVAL, "task %d: the maps of its user namespace are not loaded",
				     pid);
	const struct ns_user_lvl *l = &r->lvl[task_lvl(r, pid)];
	uint32_t u[] = {c->uid, c->euid, c->suid, c->fsuid}, g[] = {c->gid, c->egid, c->sgid, c->fsgid};
	for (size_t i = 0; i < 4; i++) {
		if (map_id(l->uid, l->nuid, &u[i]))
			return unmapped(r, l, pid, "uid", false, u[i], e);
		if (map_id(l->gid, l->ngid, &g[i]))
			return unmapped(r, l, pid, "gid", true, g[i], e);
	}
	for (size_t i = 0; i < c->n_groups; i++) {
		uint32_t id = c->groups[i];
		if (map_id(l->gid, l->ngid, &id))
			return unmapped(r, l, pid, "group", true, c->groups[i], e);
		if (out)
			out->groups[i] = id;
	}
	if (out) {
		out->uid = u[0], out->euid = u[1], out->suid = u[2], out->fsuid = u[3];
		out->gid = g[0], out->egid = g[1], out->sgid = g[2], out->fsgid = g[3];
	}
	return 0;
}

int ns_rst_map_creds(const struct ns_rst *r, pid_t pid, CredsEntry *c, struct cr_err *e)
{
	return map_creds(r, pid, c, c, e);
}

int ns_rst_check_creds(const struct ns_rst *r, pid_t pid, const CredsEntry *c, struct cr_err *e)
{
	return map_creds(r, pid, c, NULL, e);
}

int ns_rst_user_fd(const struct ns_rst *r)
{
	return r ? r->user_fd : -1;
}

int ns_user_fd_of(const struct ns_rst *r, uint64_t ino)
{
	if (r->ne && r->ne->has_user && ino == r->ne->user)
		return r->user_fd;
	for (size_t i = 1; i < r->n_lvl; i++)
		if (r->lvl[i].ino == ino)
			return r->lvl[i].fd;
	return -1;
}

/* A sysctl of the namespace crshim is in (of kind k) that only the root of the user namespace owning it
 * may write (fs/mqueue/...): written by a child that enters that user namespace as its uid 0. */
int ns_sysctl_as_owner(int k, const char *path, const char *val)
{
	char nsp[64];
	snprintf(nsp, sizeof(nsp), "/proc/self/ns/%s", ns_kinds[k].name);
	pid_t c = fork();
	if (c == 0) {
		int fd = open(nsp, O_RDONLY | O_CLOEXEC);
		int u = fd < 0 ? -1 : ioctl(fd, NS_GET_USERNS);
		if (u < 0 || setns(u, CLONE_NEWUSER) || setresgid(0, 0, 0) || setresuid(0, 0, 0))
			_exit(1);
		int s = open(path, O_WRONLY | O_CLOEXEC);
		_exit(s >= 0 && write(s, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : 1);
	}
	int st = 0;
	if (c < 0)
		return -1;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	errno = EACCES;
	return -1;
}

/* The root task born in the user namespace: its ids the namespace's first ones (0 in a container), as its
 * uid 0 (crshim's are not mapped: no file could be made on a filesystem of the namespace, EOVERFLOW); it
 * keeps every capability in the namespace. Its own are set last by the restorer. */
int ns_rst_user_born_ids(const struct ns_rst *r, char *msg, size_t len)
{
	if (!ns_rst_user_born(r))
		return 0;
	uid_t u = r->ne->uid_map[0]->first;
	gid_t g = r->ne->gid_map[0]->first;
	/* dumpable again (the id change cleared it): its /proc files are its own, not crshim's uid 0's */
	if (setresgid(g, g, g) || (setgroups(0, NULL) && errno != EPERM) || setresuid(u, u, u) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		snprintf(msg, len, "uid %u and gid %u in the user namespace: %s", u, g, strerror(errno));
		return -1;
	}
	return 0;
}

bool ns_rst_user_born_host_ids(const struct ns_rst *r, uid_t *u, gid_t *g)
{
	if (!ns_rst_user_born(r))
		return false;
	*u = r->ne->uid_map[0]->lower, *g = r->ne->gid_map[0]->lower;
	return true;
}

bool ns_rst_user_time(const struct ns_rst *r)
{
	return ns_rst_user_born(r) && (r->own & CLONE_NEWTIME) && (r->ne->user_owned & CLONE_NEWTIME);
}

int ns_rst_user_born_time(const struct ns_rst *r)
{
	if (!ns_rst_user_time(r))
		return 0;
	return unshare(CLONE_NEWTIME) || ns_time_offsets_write(r->ne, 0) ? -1 : 0;
}

bool ns_rst_user_born(const struct ns_rst *r)
{
	return r && (r->own & CLONE_NEWUSER) && r->ne && (r->ne->user_owned & CLONE_NEWPID);
}

bool ns_rst_has_user(const struct ns_rst *r)
{
	return r && (r->own & CLONE_NEWUSER);
}

int ns_rst_user_enter(int fd, char *msg, size_t len)
{
	if (fd < 0)
		return 0;
	if (setns(fd, CLONE_NEWUSER)) {
		snprintf(msg, len, "enter the user namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}
