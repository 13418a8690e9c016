/* Several network namespaces in one tree (README.md "Network namespaces of the tree"): besides the root's
 * (net.img), each other one a task of the tree is in, or that an open /proc/PID/ns/net file of a task
 * holds, is saved by inode into net-ID.img (ns.img nets: its inode, id and owning user namespace). The
 * restore makes each (in the user namespace that owned it), fills it as the root's (net.c), and each task
 * enters its own (ns_rst_task_net) before it clones its children or makes a socket; crshim makes the unix
 * sockets of the tree in theirs (ns_rst_net_enter) and gives an open namespace file the restored namespace
 * (ns_rst_net_fd). */
#define LOG_PREFIX "ns-net: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <linux/sockios.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "mnt-int.h"

/* ---------------------------------------------------------------- dump */

static int set_find(const struct ns_net_set *s, uint64_t ino)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return (int)i;
	return -1;
}

/* fd (net:[ino], taken over) into s. */
static int set_put(struct ns_net_set *s, uint64_t ino, int fd, struct cr_err *e)
{
	if (s->n >= NS_NET_MAX) {
		close(fd);
		return cr_fail(e, "not supported yet: more than %d network namespaces in the tree",
			       NS_NET_MAX);
	}
	s->ino[s->n] = ino;
	s->fd[s->n++] = fd;
	return 0;
}

static int set_add(struct ns_net_set *s, uint64_t ino, const char *path, struct cr_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || (uint64_t)st.st_ino != ino) {
		if (fd >= 0)
			close(fd);
		return cr_fail_sys(e, "open %s (net:[%llu])", path, (unsigned long long)ino);
	}
	return set_put(s, ino, fd, e);
}

/* The sockets sock_net looked at already (by inode): a socket several processes hold (all of a tree's, each
 * of its fds) is taken from a task (pidfd_getfd) and asked once, not once per fd. Open addressing, 0 free. */
struct sk_seen {
	uint64_t *ino;
	size_t cap, n;
};

/* Whether ino was seen (true), else note it; an out of memory table notes nothing (each is asked then). */
static bool sk_seen(struct sk_seen *t, uint64_t ino)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		uint64_t *n = calloc(cap, sizeof(*n));
		if (!n)
			return false;
		for (size_t i = 0; i < t->cap; i++)
			for (size_t h = t->ino[i] % cap; t->ino[i]; h = (h + 1) % cap)
				if (!n[h]) {
					n[h] = t->ino[i];
					break;
				}
		free(t->ino);
		t->ino = n, t->cap = cap;
	}
	size_t h = ino % t->cap;
	for (; t->ino[h]; h = (h + 1) % t->cap)
		if (t->ino[h] == ino)
			return true;
	t->ino[h] = ino;
	t->n++;
	return false;
}

/* The network namespace of inet, packet or netlink socket fd of task pidfd, when it is none of s nor crshim's
 * own (self): a socket made before its task's setns or unshare, or passed to it, whose namespace may be kept
 * by it alone. It is made there at restore (engine/net/dump-sk-diag.c saves it). */
static int sock_net(int pidfd, int fd, uint64_t self, struct ns_net_set *s, struct cr_err *e)
{
	__cleanup_close int sk = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	int dom = 0;
	socklen_t l = sizeof(dom);
	if (sk < 0 || getsockopt(sk, SOL_SOCKET, SO_DOMAIN, &dom, &l) ||
	    (dom != AF_INET && dom != AF_INET6 && dom != AF_PACKET && dom != AF_NETLINK))
		return 0; /* (gone since, or not inet, packet or netlink: the dump of the fd tells) */
	int ns = ioctl(sk, SIOCGSKNS);
	struct stat st;
	if (ns < 0 || fstat(ns, &st) || (uint64_t)st.st_ino == self || set_find(s, st.st_ino) >= 0) {
		if (ns >= 0)
			close(ns);
		return 0;
	}
	pr_info("net:[%llu] is the network namespace of a socket (fd %d)\n", (unsigned long long)st.st_ino,
		fd);
	return set_put(s, (uint64_t)st.st_ino, ns, e);
}

/* Fd fd of task pid (its link): a namespace file or an inet socket, whose network namespace goes into s. */
static int fd_net(pid_t pid, int pidfd, int fd, const char *link, uint64_t self, struct ns_net_set *s,
		  struct sk_seen *seen, struct cr_err *e)
{
	char path[64];
	unsigned long long ino;
	if (sscanf(link, "socket:[%llu]", &ino) == 1) {
		if (!sk_seen(seen, ino) && sock_net(pidfd, fd, self, s, e))
			return cr_wrap(e, "task %d", pid);
		return 0;
	}
	if (sscanf(link, "net:[%llu]", &ino) != 1 || ino == self || set_find(s, ino) >= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	if (set_add(s, ino, path, e))
		return cr_wrap(e, "task %d", pid);
	pr_info("net:[%llu] is held by fd %d of task %d\n", ino, fd, pid);
	return 0;
}

/* The network namespaces the open namespace files of task i hold ("net:[INO]" fds), and those of its
 * inet sockets (sock_net); its fds from a->fds when the dump read them. */
static int fd_nets(const struct ns_dump_args *a, size_t i, uint64_t self, struct ns_net_set *s,
		   struct sk_seen *seen, struct cr_err *e)
{
	pid_t pid = a->pids[i];
	struct proc_fd *own = NULL;
	const struct proc_fd *f = a->fds ? a->fds[i] : NULL;
	size_t n = f ? a->nfds[i] : 0;
	if (!f && proc_read_fds(pid, &own, &n, e))
		return cr_wrap(e, "task %d", pid);
	if (own)
		f = own;
	int ret = 0;
	__cleanup_close int pidfd = n ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	if (n && pidfd < 0)
		ret = cr_fail_sys(e, "task %d: pidfd_open", pid);
	for (size_t k = 0; !ret && f && k < n; k++)
		ret = fd_net(pid, pidfd, f[k].fd, f[k].link, self, s, seen, e);
	proc_fds_free(own, own ? n : 0);
	return ret;
}

/* The network namespaces kept by a bind of their namespace file in the root's own mount namespace
 * (`ip netns add`): nsfs mounts whose root is "net:[INO]" (ns/mnt-dump.c saves them as such). None when
 * that namespace has crshim's root: ns_mnt_dump saves none of its mounts then, and its nsfs mounts are
 * copies of crshim's own (the host's `ip netns add`, another test's), whose namespaces are not the tree's
 * (taken, they were dumped and made again with whatever they held: another dump's lock table, a veth to a
 * third namespace). */
static int mnt_nets(pid_t root, uint64_t self, struct ns_net_set *s, struct cr_err *e)
{
	char path[PATH_MAX + 64], *line = NULL;
	size_t cap = 0;
	struct stat rs, own;
	snprintf(path, sizeof(path), "/proc/%d/root", root);
	if (stat(path, &rs) || stat("/", &own))
		return cr_fail_sys(e, "stat %s", path);
	if (rs.st_dev == own.st_dev && rs.st_ino == own.st_ino)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", root);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	int ret = 0;
	while (!ret && getline(&line, &cap, f) > 0) {
		char rt[64], mp[PATH_MAX], *dash = strstr(line, " - nsfs ");
		unsigned long long ino;
		if (!dash || sscanf(line, "%*s %*s %*s %63s %4095s", rt, mp) != 2 ||
		    sscanf(rt, "net:[%llu]", &ino) != 1 || ino == self || set_find(s, ino) >= 0)
			continue;
		ns_mnt_unescape(mp);
		snprintf(path, sizeof(path), "/proc/%d/root%s", root, mp);
		ret = set_add(s, ino, path, e);
		if (!ret)
			pr_info("net:[%llu] is kept by a bind mount of its file on %s\n", ino, mp);
	}
	free(line);
	return ret;
}

/* Two processes sharing one fd table (CLONE_FILES) in two network namespaces: the one cloned second would
 * find the fd of its namespace taken by the other's files at restore (ns_rst_task_net). */
static int check_shared_files(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], struct cr_err *e)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = i + 1; j < a->n && !a->zombie[i]; j++)
			if (!a->zombie[j] && ids[i][NS_NET] != ids[j][NS_NET] &&
			    !syscall(SYS_kcmp, a->pids[i], a->pids[j], KCMP_FILES, 0, 0))
				return cr_fail(e,
					       "not supported yet: tasks %d and %d share their fd table "
					       "(CLONE_FILES) in two network namespaces",
					       a->pids[i], a->pids[j]);
	return 0;
}

int ns_net_collect(const struct ns_dump_args *a, uint64_t (*ids)[NS_KINDS], uint64_t self, bool own_mnt,
		   bool root_saved, struct ns_net_set *s, struct cr_err *e)
{
	char path[64];
	s->n = 0;
	/* [0]: the root's, with an fd only when it is saved (a veth to it is then one of the tree's); one
	 * of the caller's is kept aside, a veth to it is saved as such (net.c) */
	s->ino[0] = ids[0][NS_NET], s->fd[0] = -1, s->n = 1;
	s->root_ext = -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", a->pids[0]);
	if (!root_saved && ids[0][NS_NET] != self && (s->root_ext = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return cr_fail_sys(e, "open %s", path);
	if (root_saved) {
		s->n = 0;
		if (set_add(s, ids[0][NS_NET], path, e))
			return -1;
	}
	for (size_t i = 1; i < a->n; i++) {
		uint64_t ino = ids[i][NS_NET];
		if (a->zombie[i] || !ino || ino == self || set_find(s, ino) >= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", a->pids[i]);
		if (set_add(s, ino, path, e))
			return -1;
		pr_info("task %d is in net:[%llu], a network namespace of its own\n", a->pids[i],
			(unsigned long long)ino);
	}
	struct sk_seen seen = {NULL, 0, 0};
	int ret = 0;
	for (size_t i = 0; i < a->n && !ret; i++)
		ret = !a->zombie[i] && fd_nets(a, i, self, s, &seen, e) ? -1 : 0;
	free(seen.ino);
	if (ret)
		return -1;
	if (s->n > 1 && check_shared_files(a, ids, e))
		return -1;
	return own_mnt ? mnt_nets(a->pids[0], self, s, e) : 0;
}

void ns_net_set_close(struct ns_net_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	s->n = 0;
	if (s->root_ext >= 0)
		close(s->root_ext);
	s->root_ext = -1;
}

static uint64_t owner_of(int fd)
{
	__cleanup_close int u = ioctl(fd, NS_GET_USERNS);
	struct stat st;
	return u >= 0 && !fstat(u, &st) ? (uint64_t)st.st_ino : 0;
}

int ns_net_dump_extra(const struct ns_dump_args *a, const struct ns_net_set *s, uint64_t self_user,
		      NsEntry *ne, struct cr_err *e)
{
	if (s->n <= 1)
		return 0;
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	ne->nets = calloc(s->n - 1, sizeof(*ne->nets));
	if (!ne->nets)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 1; i < s->n; i++) {
		NsNetExtra *x = calloc(1, sizeof(*x));
		if (!x)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ns_net_extra__init(x);
		ne->nets[ne->n_nets++] = x;
		x->ino = s->ino[i], x->has_ino = 1;
		x->id = (uint32_t)i, x->has_id = 1;
		uint64_t o = owner_of(s->fd[i]);
		if (!o)
			return cr_fail_sys(e, "net:[%llu]: its owner", (unsigned long long)s->ino[i]);
		if (o != self_user)
			x->owner = o, x->has_owner = 1;
		if (o != self_user && o != ne->user) {
			size_t j = 0;
			while (j < ne->n_nested_users && ne->nested_users[j]->ino != o)
				j++;
			if (j == ne->n_nested_users)
				return cr_fail(
				    e,
				    "not supported yet: net:[%llu] is owned by user:[%llu], neither "
				    "the tree's user namespace, one nested in it, nor crshim's",
				    (unsigned long long)s->ino[i], (unsigned long long)o);
		}
		if (ns_net_dump(a, s, (int)i, e))
			return cr_wrap(e, "net:[%llu]", (unsigned long long)s->ino[i]);
	}
	return 0;
}

void ns_net_dump_extra_free(NsEntry *ne)
{
	for (size_t i = 0; i < ne->n_nets; i++)
		free(ne->nets[i]);
	free(ne->nets);
	ne->nets = NULL, ne->n_nets = 0;
}

/* ---------------------------------------------------------------- restore */

struct ns_net_x {
	uint64_t ino, owner; /* at dump */
	uint32_t id;
	int fd;		  /* the namespace made, -1 */
	uint64_t new_ino; /* ... its inode */
	NetEntry *ne;
};

int ns_net_multi_load(struct ns_rst *r, struct cr_err *e)
{
	const NsEntry *ne = r->ne;
	if (!ne || !ne->n_nets)
		return 0;
	r->xnet = calloc(ne->n_nets, sizeof(*r->xnet));
	if (!r->xnet)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < ne->n_nets; i++) {
		struct ns_net_x *x = &r->xnet[i];
		const NsNetExtra *m = ne->nets[i];
		ProtobufCMessage *pm;
		*x = (struct ns_net_x){.ino = m->ino, .owner = m->owner, .id = m->id, .fd = -1};
		r->n_xnet = i + 1;
		if (!m->id || !m->ino)
			return cr_fail_errno(e, EBADMSG, "ns.img: network namespace %zu without id or inode",
					     i);
		if (img_read_one(r->dirfd, IMG_NET_EXTRA, (int)m->id, &pm, e))
			return cr_wrap(e, "net:[%llu]", (unsigned long long)m->ino);
		x->ne = (NetEntry *)pm;
		if (ns_net_check_links(r, x->ne, e))
			return cr_wrap(e, "net-%u.img", m->id);
	}
	pr_info("%zu network namespaces of the tree besides the root's\n", r->n_xnet);
	return ns_net_ext_check(r, e);
}

const NetEntry *ns_net_of(const struct ns_rst *r, uint32_t id, int *fd)
{
	if (!id) {
		*fd = r->root_net_fd;
		return ns_net_root_entry(r);
	}
	for (size_t i = 0; i < r->n_xnet; i++)
		if (r->xnet[i].id == id) {
			*fd = r->xnet[i].fd;
			return r->xnet[i].ne;
		}
	*fd = -1;
	return NULL;
}

uint64_t ns_net_ino_of(const struct ns_rst *r, const NetEntry *ne)
{
	for (size_t i = 0; i < r->n_xnet; i++)
		if (r->xnet[i].ne == ne)
			return r->xnet[i].ino;
	return r->ids[NS_NET];
}

const NetEntry *ns_net_nth(const struct ns_rst *r, size_t i, uint64_t *ino)
{
	const NetEntry *root = ns_net_root_entry(r);
	if (root && i-- == 0) {
		*ino = r->ids[NS_NET];
		return root;
	}
	if (i >= r->n_xnet)
		return NULL;
	*ino = r->xnet[i].ino;
	return r->xnet[i].ne;
}

/* A new network namespace owned by user namespace userfd (-1: crshim's): a child of crshim enters it
 * and unshares one; crshim keeps an fd of it. */
static int make_one(int userfd, struct cr_err *e)
{
	int up[2], down[2];
	if (pipe2(up, O_CLOEXEC))
		return cr_fail_sys(e, "pipe");
	if (pipe2(down, O_CLOEXEC)) {
		close(up[0]), close(up[1]);
		return cr_fail_sys(e, "pipe");
	}
	pid_t pid = fork();
	if (pid == 0) {
		char c = 'n';
		close(up[0]), close(down[1]);
		if ((userfd >= 0 && setns(userfd, CLONE_NEWUSER)) || unshare(CLONE_NEWNET))
			c = 'E';
		if (write(up[1], &c, 1) != 1 || c == 'E')
			_exit(1);
		while (read(down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	int err = errno, fd = -1;
	char c = 0, path[64];
	close(up[1]), close(down[0]);
	if (pid < 0)
		cr_fail_errno(e, err, "fork");
	else if (read(up[0], &c, 1) != 1 || c != 'n')
		cr_fail(e, "make a network namespace%s: the helper failed",
			userfd >= 0 ? " in the tree's user namespace" : "");
	else {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			cr_fail_sys(e, "open %s", path);
	}
	close(up[0]), close(down[1]); /* EOF: the helper exits */
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return fd;
}

/* What crshim does inside another network namespace of the tree: by ns_call's child, crshim staying in the
 * root's (it might not be let back into it: a rootless crshim's own). */
struct in_x {
	struct ns_rst *r;
	const struct ns_net_x *x;
	int (*fn)(int nsfd, uint64_t ino, void *arg, struct cr_err *e);
	void *arg;
};

static int sysctl_dflt_here(void *arg, struct cr_err *e)
{
	const struct in_x *a = arg;
	return ns_net_sysctl_restore(a->x->ne, NS_SYSCTL_DFLT, e);
}

static int fill_here(void *arg, struct cr_err *e)
{
	const struct in_x *a = arg;
	return ns_net_fill(a->r, a->x->ne, a->x->id, e);
}

static int each_here(void *arg, struct cr_err *e)
{
	const struct in_x *a = arg;
	return a->fn(a->x->fd, a->x->ino, a->arg, e);
}

int ns_net_multi_make(struct ns_rst *r, struct cr_err *e)
{
	if (!r->n_xnet)
		return 0;
	for (size_t i = 0; i < r->n_xnet; i++) {
		struct ns_net_x *x = &r->xnet[i];
		int uf = x->owner ? ns_user_fd_of(r, x->owner) : -1;
		if (x->owner && uf < 0)
			return cr_fail_errno(e, EBADMSG, "ns.img: net:[%llu] owned by user:[%llu], not made",
					     (unsigned long long)x->ino, (unsigned long long)x->owner);
		struct stat st;
		if ((x->fd = make_one(uf, e)) < 0 || fstat(x->fd, &st))
			return x->fd < 0 ? -1 : cr_fail_sys(e, "fstat");
		x->new_ino = (uint64_t)st.st_ino;
		/* the interface settings of all and default first: ends of veths made from another
		 * namespace of the tree (ns_net_fill) come in with them */
		struct in_x a = {.r = r, .x = x};
		if (ns_call(x->fd, CLONE_NEWNET, sysctl_dflt_here, &a, e))
			return cr_wrap(e, "net:[%llu]", (unsigned long long)x->ino);
		pr_info("made net:[%llu] as net:[%llu]%s\n", (unsigned long long)x->ino,
			(unsigned long long)x->new_ino, uf >= 0 ? ", in the tree's user namespace" : "");
	}
	return 0;
}

int ns_net_multi_fill(struct ns_rst *r, struct cr_err *e)
{
	if (!r->n_xnet)
		return 0;
	/* the root's: crshim is in it (made, joined, or its own) */
	struct stat st;
	if (r->root_net_fd < 0 && (r->root_net_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return cr_fail_sys(e, "open /proc/self/ns/net");
	if (fstat(r->root_net_fd, &st))
		return cr_fail_sys(e, "fstat");
	r->root_net_new_ino = (uint64_t)st.st_ino;
	for (size_t i = 0; i < r->n_xnet; i++) {
		struct in_x a = {.r = r, .x = &r->xnet[i]};
		if (ns_call(a.x->fd, CLONE_NEWNET, fill_here, &a, e))
			return cr_wrap(e, "net:[%llu]", (unsigned long long)a.x->ino);
	}
	return 0;
}

int ns_rst_net_made_each(const struct ns_rst *r,
			 int (*fn)(int nsfd, uint64_t ino, void *arg, struct cr_err *e), void *arg,
			 struct cr_err *e)
{
	if (!r)
		return 0;
	if ((r->made & CLONE_NEWNET) && r->join_fd[NS_NET] < 0 && !r->empty_net) {
		/* the root's: crshim is in it */
		__cleanup_close int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return cr_fail_sys(e, "open /proc/thread-self/ns/net");
		if (fn(fd, r->ids[NS_NET], arg, e))
			return -1;
	}
	for (size_t i = 0; i < r->n_xnet; i++) {
		struct in_x a = {.x = &r->xnet[i], .fn = fn, .arg = arg};
		if (ns_call(a.x->fd, CLONE_NEWNET, each_here, &a, e))
			return cr_wrap(e, "net:[%llu]", (unsigned long long)a.x->ino);
	}
	return 0;
}

void ns_net_multi_done(struct ns_rst *r)
{
	for (size_t i = 0; i < r->n_xnet; i++) {
		if (r->xnet[i].fd >= 0)
			close(r->xnet[i].fd);
		if (r->xnet[i].ne)
			protobuf_c_message_free_unpacked(&r->xnet[i].ne->base, NULL);
	}
	free(r->xnet);
	r->xnet = NULL, r->n_xnet = 0;
	if (r->root_net_fd >= 0)
		close(r->root_net_fd);
	r->root_net_fd = -1;
}

/* The namespace restored for net:[ino] of the dump: its fd (crshim's, inherited by the tasks), -1. */
static int fd_of_ino(const struct ns_rst *r, uint64_t ino, uint64_t *new_ino)
{
	if (!r || !r->n_xnet || !ino)
		return -1;
	if (ino == r->ids[NS_NET]) {
		*new_ino = r->root_net_new_ino;
		return r->root_net_fd;
	}
	for (size_t i = 0; i < r->n_xnet; i++)
		if (r->xnet[i].ino == ino) {
			*new_ino = r->xnet[i].new_ino;
			return r->xnet[i].fd;
		}
	return -1;
}

int ns_rst_net_fd(const struct ns_rst *r, uint64_t ino)
{
	uint64_t n;
	return fd_of_ino(r, ino, &n);
}

static uint64_t task_net(const struct ns_rst *r, pid_t pid)
{
	for (size_t i = 0; r->ne && i < r->ne->n_tasks; i++)
		if (r->ne->tasks[i]->pid == pid && r->ne->tasks[i]->ids)
			return r->ne->tasks[i]->ids->net;
	return 0;
}

uint64_t ns_rst_task_net_ino(const struct ns_rst *r, pid_t pid)
{
	uint64_t ino = r ? task_net(r, pid) : 0;
	return ino ? ino : r ? r->ids[NS_NET] : 0;
}

int ns_rst_task_net(const struct ns_rst *r, pid_t pid, pid_t spawner, char *msg, size_t len)
{
	if (!r || !r->n_xnet)
		return 0;
	uint64_t want = task_net(r, pid), new_ino = 0;
	if (!want || (spawner && task_net(r, spawner) == want))
		return 0; /* (a helper, or in its spawner's: there already) */
	int fd = fd_of_ino(r, want, &new_ino);
	struct stat st;
	if (fd < 0)
		return 0; /* crshim's own namespace, where the root is too */
	if (fstat(fd, &st) || (uint64_t)st.st_ino != new_ino) {
		snprintf(msg, len, "task %d: the fd %d of its network namespace is no longer crshim's", pid,
			 fd);
		return -1;
	}
	if (setns(fd, CLONE_NEWNET)) {
		snprintf(msg, len, "task %d: enter its network namespace: %s", pid, strerror(errno));
		return -1;
	}
	return 0;
}

int ns_rst_net_enter(const struct ns_rst *r, uint64_t ino, struct cr_err *e)
{
	uint64_t n;
	int fd = fd_of_ino(r, ino, &n);
	if (!ino || fd < 0)
		fd = r ? r->root_net_fd : -1;
	if (fd < 0)
		return 0;
	return setns(fd, CLONE_NEWNET) ? cr_fail_sys(e, "enter net:[%llu]", (unsigned long long)ino) : 0;
}

int ns_net_mnt_premake(struct ns_rst *r, struct cr_err *e)
{
	struct ns_mnt_state *ms = r->mnt;
	for (size_t i = 0; ms && !r->o->check_only && i < ms->n; i++) {
		const MntEntry *m = ms->m[i];
		if (!m->nsfs_net || ms->pre[i] >= 0)
			continue;
		int fd = ns_rst_net_fd(r, m->nsfs_net), own = -1;
		if (fd < 0 && m->nsfs_net == r->ids[NS_NET]) /* the root's, the only one: crshim is in it */
			fd = own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return cr_fail_errno(e, EBADMSG, "mount %s: net:[%llu] was not restored",
					     m->mountpoint, (unsigned long long)m->nsfs_net);
		ms->pre[i] =
		    (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		int err = errno;
		if (own >= 0)
			close(own);
		if (ms->pre[i] < 0)
			return cr_fail_errno(e, err, "mount %s: a bind of the restored net:[%llu]",
					     m->mountpoint, (unsigned long long)m->nsfs_net);
		ms->pre_at[i] = true;
		pr_info("mount %s: a bind of the restored net:[%llu]\n", m->mountpoint,
			(unsigned long long)m->nsfs_net);
	}
	return 0;
}
