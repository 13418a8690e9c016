/* The user namespace of the tree (README.md): at dump its uid/gid maps, setgroups and which of the root's
 * other namespaces it owns; at restore a helper process makes it (crshim writes the maps from outside), and
 * makes inside it the network, IPC and UTS namespaces it owned, which crshim then joins and fills. When it
 * also owns the root's PID and mount namespaces (a container's: USER_BORN_KINDS), the root task is born in
 * it (engine/restore.c: a child of crshim enters it and clones the root with its new PID, mount and cgroup
 * namespaces, which the user namespace then owns), and so is every other task; otherwise each task enters
 * it last (ns_rst_user_enter), once its children are cloned and its files opened. Either way the tasks'
 * credentials are those of the namespace (ns_rst_map_creds). */
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
#include <sys/stat.h>
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
 * (ns_rst_user_born_time), which enters the user namespace first; so only with the PID and mount ones. */
#define USER_OWNED_KINDS (USER_MADE_KINDS | USER_BORN_KINDS | CLONE_NEWTIME)

static int read_map(pid_t pid, const char *name, NsIdMap ***out, size_t *n, struct cr_err *e)
{
	char path[64];
	unsigned a, b, c;
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	*n = 0;
	while (fscanf(f, "%u %u %u", &a, &b, &c) == 3) {
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
		return cr_fail(e, "%s: no mapping (a user namespace without maps cannot be restored)", path);
	return 0;
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

/* Who owns the namespace of kind k of task pid: crshim's user namespace (self) or the tree's (user), where
 * only the kinds restored in it may be (USER_OWNED_KINDS; owned: add it); another one fails. */
static int check_owner(pid_t pid, int k, uint64_t self, uint64_t user, uint32_t *owned, struct cr_err *e)
{
	char path[64];
	uint64_t o;
	uint32_t flag = (uint32_t)ns_kinds[k].flag;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns_kinds[k].name);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || owner_ino(fd, NS_GET_USERNS, &o))
		return cr_fail_sys(e, "%s: its owner", path);
	if (o == self)
		return 0;
	if (o != user)
		return cr_fail(
		    e,
		    "not supported yet: the %s namespace of task %d is owned by user:[%llu], neither "
		    "the tree's nor crshim's",
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

int ns_user_dump(const struct ns_dump_args *a, const uint64_t self[NS_KINDS], uint64_t (*ids)[NS_KINDS],
		 NsEntry *ne, struct cr_err *e)
{
	pid_t root = a->pids[0];
	char path[64];
	uint64_t parent;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", root);
	__cleanup_close int ufd = open(path, O_RDONLY | O_CLOEXEC);
	if (ufd < 0)
		return cr_fail_sys(e, "open %s", path);
	if (owner_ino(ufd, NS_GET_PARENT, &parent))
		return cr_fail_sys(e, "%s: its parent user namespace", path);
	if (parent != self[NS_USER])
		return cr_fail(e,
			       "not supported yet: task %d is in a nested user namespace (user:[%llu], whose "
			       "parent user:[%llu] is not crshim's)",
			       root, (unsigned long long)ids[0][NS_USER], (unsigned long long)parent);
	if (read_map(root, "uid_map", &ne->uid_map, &ne->n_uid_map, e) ||
	    read_map(root, "gid_map", &ne->gid_map, &ne->n_gid_map, e))
		return -1;
	char sg[16] = "";
	snprintf(path, sizeof(path), "/proc/%d/setgroups", root);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f || !fgets(sg, sizeof(sg), f))
		return cr_fail_sys(e, "read %s", path);
	ne->setgroups_deny = !strncmp(sg, "deny", 4), ne->has_setgroups_deny = 1;
	uint32_t owned = 0, nested[NS_KINDS] = {0}; /* the root's kinds it owns; the first other task's */
	for (size_t i = 0; i < a->n; i++)
		for (int k = 0; k < NS_KINDS; k++) {
			uint32_t o = 0;
			if (k != NS_USER && ids[i][k] && ids[i][k] != self[k] &&
			    (i == 0 || ids[i][k] != ids[0][k]) &&
			    check_owner(a->pids[i], k, self[NS_USER], ids[0][NS_USER], &o, e))
				return -1;
			if (i == 0)
				owned |= o;
			else if (o && !nested[k])
				nested[k] = (uint32_t)a->pids[i];
		}
	/* a task's own PID or mount namespace owned by it is made by its parent: one born in it */
	for (int k = 0; k < NS_KINDS; k++)
		if (nested[k] && ((uint32_t)ns_kinds[k].flag & USER_BORN_KINDS) && !(owned & CLONE_NEWPID))
			return cr_fail(
			    e,
			    "not supported yet: the %s namespace of task %u is owned by the tree's "
			    "user namespace, which does not own the root's PID namespace",
			    ns_kinds[k].name, nested[k]);
	uint32_t pm = owned & (CLONE_NEWPID | CLONE_NEWNS);
	if (pm && pm != (CLONE_NEWPID | CLONE_NEWNS))
		return cr_fail(e,
			       "not supported yet: the tree's user namespace owns the root's %s namespace "
			       "but not its %s namespace (both or neither)",
			       pm == CLONE_NEWPID ? "PID" : "mount", pm == CLONE_NEWPID ? "mount" : "PID");
	for (int k = 0; k < NS_KINDS; k++)
		if ((owned & (uint32_t)ns_kinds[k].flag & (CLONE_NEWCGROUP | CLONE_NEWTIME)) && !pm)
			return cr_fail(e,
				       "not supported yet: the tree's user namespace owns the root's %s "
				       "namespace but not its PID and mount namespaces",
				       ns_kinds[k].name);
	/* born in it, threads are made there with their ids in a PID namespace it owns; entering it last,
	 * they would be made after the task entered it, in a PID namespace it does not own */
	for (size_t i = 0; i < a->n && !pm; i++)
		if (threads(a->pids[i]) != 1)
			return cr_fail(e,
				       "not supported yet: task %d has threads in a user namespace that "
				       "does not own its PID namespace",
				       a->pids[i]);
	ne->user_owned = owned, ne->has_user_owned = 1;
	if (a->born)
		*a->born = pm != 0;
	pr_info("user namespace user:[%llu]: %zu uid and %zu gid extents, setgroups %s, owns 0x%x\n",
		(unsigned long long)ids[0][NS_USER], ne->n_uid_map, ne->n_gid_map,
		ne->setgroups_deny ? "deny" : "allow", owned);
	return 0;
}

void ns_user_dump_free(NsEntry *ne)
{
	for (size_t i = 0; i < ne->n_uid_map; i++)
		free(ne->uid_map[i]);
	for (size_t i = 0; i < ne->n_gid_map; i++)
		free(ne->gid_map[i]);
	free(ne->uid_map);
	free(ne->gid_map);
	ne->uid_map = ne->gid_map = NULL;
	ne->n_uid_map = ne->n_gid_map = 0;
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
	for (int k = 0; k < NS_KINDS; k++)
		if ((r->ne->user_owned & USER_MADE_KINDS & (uint32_t)ns_kinds[k].flag) && r->join_fd[k] >= 0)
			return cr_fail(
			    e, "--join-ns %s: not supported for a tree in a user namespace of its own",
			    ns_kinds[k].name);
	return 0;
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
	int up[2] = {-1, -1}, down[2] = {-1, -1};
	if (pipe2(up, O_CLOEXEC) || pipe2(down, O_CLOEXEC)) {
		int err = errno;
		for (int i = 0; i < 2; i++) {
			if (up[i] >= 0)
				close(up[i]);
			if (down[i] >= 0)
				close(down[i]);
		}
		return cr_fail_errno(e, err, "pipe");
	}
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
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns_kinds[k].name);
		r->user_made_fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (r->user_made_fd[k] < 0) {
			cr_fail_sys(e, "open %s", path);
			goto out;
		}
	}
	pr_info("made a user namespace (%zu uid, %zu gid extents) and in it the namespaces 0x%x\n",
		ne->n_uid_map, ne->n_gid_map, kinds);
	ret = 0;
out:
	close(up[0]);
	close(down[1]); /* EOF: the helper exits */
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return ret;
}

static int map_id(NsIdMap *const *m, size_t n, uint32_t *id)
{
	for (size_t i = 0; i < n; i++)
		if (*id >= m[i]->lower && *id - m[i]->lower < m[i]->count) {
			*id = m[i]->first + (*id - m[i]->lower);
			return 0;
		}
	return -1;
}

/* "uid=N" and "gid=N" in a mount's options (crshim's view of the ids, as mountinfo shows them) into the
 * ids of the user namespace, in which the root task makes the filesystem (ns_rst_user_born). The owners of
 * tmpfs files are the namespace's already: the dump reads them from inside it (mnt-dump.c). */
static int mnt_opts_ids(const NsEntry *ne, MntEntry *m, struct cr_err *e)
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
			if (map_id(u ? ne->uid_map : ne->gid_map, u ? ne->n_uid_map : ne->n_gid_map, &id)) {
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
	const NsEntry *ne = r->ne;
	/* with crshim's view of the ids: before they are made the namespace's. A check (restore --check-only,
	 * the dump's) makes no mount: whether crshim can make them is left to the restore. */
	if (ns_mnt_premake(r->mnt, r->o->check_only, e))
		return -1;
	for (size_t i = 0; i < r->mnt->n; i++)
		if (mnt_opts_ids(ne, r->mnt->m[i], e))
			return -1;
	return 0;
}

/* The ids of c mapped into the user namespace of ns.img, into out (NULL: only checked). */
static int map_creds(const struct ns_rst *r, pid_t pid, const CredsEntry *c, CredsEntry *out,
		     struct cr_err *e)
{
	if (!r || !(r->own & CLONE_NEWUSER) || !c)
		return 0;
	const NsEntry *ne = r->ne;
	uint32_t u[] = {c->uid, c->euid, c->suid, c->fsuid}, g[] = {c->gid, c->egid, c->sgid, c->fsgid};
	for (size_t i = 0; i < 4; i++) {
		if (map_id(ne->uid_map, ne->n_uid_map, &u[i]))
			return cr_fail(e, "task %d: uid %u is not mapped in its user namespace", pid, u[i]);
		if (map_id(ne->gid_map, ne->n_gid_map, &g[i]))
			return cr_fail(e, "task %d: gid %u is not mapped in its user namespace", pid, g[i]);
	}
	for (size_t i = 0; i < c->n_groups; i++) {
		uint32_t id = c->groups[i];
		if (map_id(ne->gid_map, ne->n_gid_map, &id))
			return cr_fail(e, "task %d: group %u is not mapped in its user namespace", pid,
				       c->groups[i]);
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
	return unshare(CLONE_NEWTIME) || ns_time_offsets_write(r->ne) ? -1 : 0;
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
