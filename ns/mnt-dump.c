/* The mount tree of the root's mount namespace (/proc/PID/mountinfo) -> mnt.img, and the files of each
 * tmpfs -> tmpfs-ID.img. A mount the restore could not make again fails the dump with one line naming it. */
#define LOG_PREFIX "mnt-dump: "
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/scm.h"
#include "image/image.h"
#include "mnt-int.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif

#define TMPFS_LIMIT (512ull << 20) /* bytes of files per tmpfs kept in memory while the image is written */

struct mi {
	MntEntry e;
	unsigned dev;
	char *line; /* the storage of the strings */
	char *opts; /* of e.sb_opts */
	bool tmpfs; /* its files are saved (the first mount of a tmpfs/ramfs) */
};

void ns_mnt_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

/* Per-mount flags; the atime mode: noatime, relatime, or (neither shown) strictatime. */
static uint64_t mnt_attr(char *opts)
{
	static const struct {
		const char *n;
		uint64_t a;
	} f[] = {{"ro", MOUNT_ATTR_RDONLY},
		 {"nosuid", MOUNT_ATTR_NOSUID},
		 {"nodev", MOUNT_ATTR_NODEV},
		 {"noexec", MOUNT_ATTR_NOEXEC},
		 {"noatime", MOUNT_ATTR_NOATIME},
		 {"nodiratime", MOUNT_ATTR_NODIRATIME},
		 {"nosymfollow", MOUNT_ATTR_NOSYMFOLLOW}};
	uint64_t a = 0;
	bool atime = false;
	for (char *sv, *t = strtok_r(opts, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (!strcmp(t, f[i].n))
				a |= f[i].a;
		atime |= !strcmp(t, "relatime") || !strcmp(t, "noatime");
	}
	return atime ? a : a | MOUNT_ATTR_STRICTATIME;
}

/* An extent of crshim's uid_map or gid_map: ids first.. (count) of its user namespace, host: what the first
 * is in the initial user namespace (as tmpfs, devpts, hugetlbfs show ids in their options). */
struct id_ext {
	unsigned first, host, count;
};
#define ID_EXTS 340 /* the kernel's most extents of a map */

/* crshim's map (/proc/self/uid_map or gid_map, read by crshim itself: its ids to those of its parent user
 * namespace) -> v (host: that parent's ids); the count */
static size_t id_map(bool gid, struct id_ext *v)
{
	__cleanup_fclose FILE *f = fopen(gid ? "/proc/self/gid_map" : "/proc/self/uid_map", "re");
	unsigned long in, out, n;
	size_t k = 0;
	while (f && k < ID_EXTS && fscanf(f, "%lu %lu %lu", &in, &out, &n) == 3)
		v[k++] = (struct id_ext){(unsigned)in, (unsigned)out, (unsigned)n};
	return k;
}

/* the value of option name ("uid=") in a mountinfo line l's super options, 0 if absent (tmpfs shows none
 * for the host's root) */
static unsigned opt_val(const char *l, const char *name)
{
	const char *o = strstr(l, name);
	return o ? (unsigned)strtoul(o + strlen(name), NULL, 10) : 0;
}

/* Child (own mount namespace): a tmpfs with uid=, gid= the first ids of extent i of u, g (0 past the end of
 * one), stacked on / for each i < n; the host's ids that its mountinfo shows for each, over w. */
static void probe_child(const struct id_ext *u, size_t nu, const struct id_ext *g, size_t ng, size_t n, int w)
{
	FILE *mi = NULL;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    !(mi = fopen("/proc/self/mountinfo", "re")))
		_exit(1);
	for (size_t i = 0; i < n; i++) {
		char o[64];
		snprintf(o, sizeof(o), "size=4k,uid=%u,gid=%u", i < nu ? u[i].first : 0,
			 i < ng ? g[i].first : 0);
		if (mount("crshim-idprobe", "/", "tmpfs", 0, o))
			_exit(1);
	}
	char l[4096];
	for (size_t i = 0; i < n && fgets(l, sizeof(l), mi);)
		if (strstr(l, " - tmpfs crshim-idprobe ")) {
			unsigned h[2] = {opt_val(l, ",uid="), opt_val(l, ",gid=")};
			if (write(w, h, sizeof(h)) != (ssize_t)sizeof(h))
				_exit(1);
			i++;
		}
	_exit(0);
}

/* The host's ids of the first ids of u's and g's extents (u[i].host, g[i].host), as the kernel maps them
 * through every user namespace up to the initial one: a tmpfs mounted with them in a mount namespace of
 * crshim's own (probe_child) shows them so. Left as the maps say (one namespace deep) if that fails. */
static void id_hosts(struct id_ext *u, size_t nu, struct id_ext *g, size_t ng)
{
	size_t n = nu > ng ? nu : ng;
	int p[2];
	if (!n || pipe2(p, O_CLOEXEC))
		return;
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		probe_child(u, nu, g, ng, n, p[1]);
	}
	close(p[1]);
	unsigned h[ID_EXTS][2];
	size_t k = 0;
	while (k < n && read(p[0], h[k], sizeof(h[k])) == (ssize_t)sizeof(h[k]))
		k++;
	close(p[0]);
	int st = 1;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) || k != n) {
		pr_warn("the host's ids of crshim's user namespace: probe failed, its maps taken as one "
			"namespace deep\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i < nu)
			u[i].host = h[i][0];
		if (i < ng)
			g[i].host = h[i][1];
	}
}

/* Id v as the filesystems show it in their options (tmpfs, devpts, hugetlbfs: the host's view, from the
 * initial user namespace) in crshim's own view; unmapped: v as it is. Through crshim's maps, whose ids
 * outside are those of its parent user namespace: the host's for crshim in the host's user namespace (the
 * identity) or in one a user made there (rootless); deeper (a rootless container's crshim in a user
 * namespace of its own), the host's ids of each extent are probed (id_hosts): the kernel maps an extent into
 * one extent of each namespace above, so an extent is as linear in the host's ids. Read once per user
 * namespace of crshim. */
static unsigned own_view(bool gid, unsigned v)
{
	static struct id_ext u[ID_EXTS], g[ID_EXTS];
	static size_t nu, ng;
	static ino_t ns;
	struct stat st;
	if (stat("/proc/self/ns/user", &st))
		st.st_ino = 0;
	if (!ns || st.st_ino != ns) {
		nu = id_map(false, u), ng = id_map(true, g);
		bool host = nu == 1 && ng == 1 && !u[0].first && !u[0].host && u[0].count == 4294967295u &&
			    !g[0].first && !g[0].host && g[0].count == 4294967295u;
		if (!host) /* (the host's user namespace: the identity) */
			id_hosts(u, nu, g, ng);
		ns = st.st_ino;
	}
	const struct id_ext *x = gid ? g : u;
	for (size_t i = 0, n = gid ? ng : nu; i < n; i++)
		if (v >= x[i].host && v - x[i].host < x[i].count)
			return x[i].first + (v - x[i].host);
	return v;
}

/* The id of option t ("uid=N", "gid=N", N decimal digits only) -> *v, *gid. */
static bool opt_id(const char *t, unsigned *v, bool *gid)
{
	bool u = !strncmp(t, "uid=", 4), g = !strncmp(t, "gid=", 4);
	if ((!u && !g) || !t[4] || strspn(t + 4, "0123456789") != strlen(t + 4))
		return false;
	errno = 0;
	unsigned long l = strtoul(t + 4, NULL, 10);
	if (errno || l > 0xFFFFFFFFul)
		return false;
	*v = (unsigned)l, *gid = g;
	return true;
}

/* super options: ro/rw apart, the rest as it is, ids in crshim's view (a new string: an id there may have
 * more digits than the host's) -> m->opts */
static int sb_opts(struct mi *m, char *s, struct cr_err *e)
{
	size_t len = 0;
	char *out = NULL;
	const char *sep = "";
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return cr_fail_sys(e, "mountinfo: the options of mount %s", m->e.mountpoint);
	for (char *sv, *t = strtok_r(s, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		unsigned v;
		bool g;
		if (!strcmp(t, "ro")) {
			m->e.sb_ro = 1, m->e.has_sb_ro = 1;
			continue;
		}
		if (!strcmp(t, "rw"))
			continue;
		if (opt_id(t, &v, &g))
			fprintf(f, "%s%cid=%u", sep, g ? 'g' : 'u', own_view(g, v));
		else
			fprintf(f, "%s%s", sep, t);
		sep = ",";
	}
	if (fclose(f) || !out) {
		free(out);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	m->opts = out;
	m->e.sb_opts = out;
	return 0;
}

/* One line of mountinfo: ID PARENT MAJ:MIN ROOT MP OPTS [TAG...] - TYPE SOURCE SUPER */
static int parse_line(char *l, struct mi *m, struct cr_err *e)
{
	char *f[6], *sv = NULL;
	unsigned ma, mi;
	mnt_entry__init(&m->e);
	for (int i = 0; i < 6; i++)
		if (!(f[i] = strtok_r(i ? NULL : l, " \n", &sv)))
			return cr_fail_errno(e, EBADMSG, "mountinfo: a short line");
	m->e.mnt_id = (uint32_t)strtoul(f[0], NULL, 10), m->e.has_mnt_id = 1;
	m->e.parent_id = (uint32_t)strtoul(f[1], NULL, 10), m->e.has_parent_id = 1;
	if (sscanf(f[2], "%u:%u", &ma, &mi) != 2)
		return cr_fail_errno(e, EBADMSG, "mountinfo: device %s", f[2]);
	m->dev = (unsigned)makedev(ma, mi), m->e.dev = m->dev, m->e.has_dev = 1;
	ns_mnt_unescape(f[3]), ns_mnt_unescape(f[4]);
	m->e.root = f[3], m->e.mountpoint = f[4];
	m->e.attr = mnt_attr(f[5]), m->e.has_attr = 1;
	char *t;
	while ((t = strtok_r(NULL, " \n", &sv)) && strcmp(t, "-")) {
		if (!strncmp(t, "shared:", 7))
			m->e.shared = (uint32_t)strtoul(t + 7, NULL, 10), m->e.has_shared = 1;
		else if (!strncmp(t, "master:", 7))
			m->e.master = (uint32_t)strtoul(t + 7, NULL, 10), m->e.has_master = 1;
		else if (!strcmp(t, "unbindable"))
			m->e.unbindable = m->e.has_unbindable = 1;
	}
	char *type = strtok_r(NULL, " \n", &sv), *src = strtok_r(NULL, " \n", &sv),
	     *sup = strtok_r(NULL, " \n", &sv);
	if (!t || !type || !src)
		return cr_fail_errno(e, EBADMSG, "mountinfo: no type of mount %s", f[4]);
	ns_mnt_unescape(src);
	m->e.fstype = type, m->e.source = src;
	return sb_opts(m, sup ? sup : type + strlen(type), e); /* (none: an empty string) */
}

/* In a child that enters the mount namespace of pid (setns: its root and cwd become the namespace's root,
 * whatever the task's own root: a chroot inside it hides the mounts outside): the namespace's root (O_PATH)
 * and its mountinfo, opened there (a reader's root is taken at open), sent back over sk. */
static void child_nsroot(pid_t pid, int sk)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC), ns = open(path, O_RDONLY | O_CLOEXEC);
	if (proc < 0 || ns < 0 ||
	    (setns(ns, CLONE_NEWNS) &&
	     (errno != EPERM || ns_enter_owner(ns, false) || setns(ns, CLONE_NEWNS))))
		_exit(1);
	int fds[2] = {open("/", O_PATH | O_DIRECTORY | O_CLOEXEC),
		      openat(proc, "thread-self/mountinfo", O_RDONLY | O_CLOEXEC)};
	if (fds[0] < 0 || fds[1] < 0)
		_exit(1);
	char c = 0;
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	_exit(scm_send(sk, &iov, 1, fds, 2) == 1 ? 0 : 1);
}

/* The root of the mount namespace of pid (*root, O_PATH) and its mountinfo as seen from there (*mi). */
static int nsroot_open(pid_t pid, int *root, int *mi, struct cr_err *e)
{
	int sk[2], fds[2] = {-1, -1}, st = 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sk))
		return cr_fail_sys(e, "socketpair");
	fflush(NULL);
	pid_t c = fork();
	if (c == 0) {
		close(sk[0]);
		child_nsroot(pid, sk[1]);
	}
	close(sk[1]);
	char ch;
	size_t nf = 0;
	struct iovec iov = {.iov_base = &ch, .iov_len = 1};
	ssize_t r = c < 0 ? -1 : scm_recv(sk[0], &iov, 1, fds, 2, &nf, NULL);
	close(sk[0]);
	while (c > 0 && waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	if (r != 1 || nf != 2) {
		for (size_t i = 0; r >= 0 && i < nf; i++)
			close(fds[i]);
		return cr_fail_errno(e, EIO, "enter the mount namespace of task %d: the child failed", pid);
	}
	*root = fds[0], *mi = fds[1];
	return 0;
}

static int read_mountinfo(int mifd, struct mi **out, size_t *n, struct cr_err *e)
{
	__cleanup_fclose FILE *f = fdopen(mifd, "re");
	if (!f) {
		close(mifd);
		return cr_fail_sys(e, "mountinfo");
	}
	char *l = NULL;
	size_t cap = 0;
	struct mi *v = NULL;
	*n = 0;
	while (getline(&l, &cap, f) > 0) {
		struct mi *nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		memset(&v[*n], 0, sizeof(*v));
		v[*n].line = l, l = NULL, cap = 0;
		if (parse_line(v[*n].line, &v[*n], e)) {
			free(v[*n].line);
			free(v[*n].opts);
			*out = v;
			return -1;
		}
		(*n)++;
	}
	free(l);
	*out = v;
	return 0;
}

static void free_mi(struct mi *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].line), free(v[i].opts);
	free(v);
}

static struct mi *by_id(struct mi *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].e.mnt_id == id)
			return &v[i];
	return NULL;
}

/* Parents before children (mountinfo order otherwise); the root first. */
static int order(struct mi *v, size_t n, struct mi ***out, struct cr_err *e)
{
	struct mi **o = calloc(n ? n : 1, sizeof(void *)); /* an array of pointers */
	bool *done = calloc(n ? n : 1, sizeof(*done));
	size_t k = 0;
	if (!o || !done) {
		free(o), free(done);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && !k; i++)
		if (!strcmp(v[i].e.mountpoint, "/") && !by_id(v, n, v[i].e.parent_id))
			o[k++] = &v[i], done[i] = true;
	for (bool more = true; more && k;) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			struct mi *p = done[i] ? NULL : by_id(v, n, v[i].e.parent_id);
			if (p && done[p - v]) {
				o[k++] = &v[i], done[i] = true, more = true;
			}
		}
	}
	free(done);
	if (!k || k != n) {
		free(o);
		return cr_fail_errno(e, EBADMSG, "mountinfo: %s",
				     k ? "a mount whose parent is not shown" : "no root");
	}
	*out = o;
	return 0;
}

bool ns_mnt_under(const char *path, const char *dir)
{
	size_t l = strlen(dir);
	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, l) && (path[l] == 0 || path[l] == '/');
}

bool ns_mnt_fresh_type(const char *t)
{
	static const char *const ok[] = {"proc",    "sysfs",	   "tmpfs",	 "ramfs",    "devpts",
					 "mqueue",  "cgroup",	   "cgroup2",	 "devtmpfs", "bpf",
					 "tracefs", "debugfs",	   "securityfs", "pstore",   "configfs",
					 "fusectl", "binfmt_misc", "hugetlbfs",	 "efivarfs"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}

/* The external mounts: those named (--external mnt[MOUNTPOINT]:KEY), then with --external mnt[] those found
 * outside the tree (mnt-ext.c). */
static int ext_keys(const struct cr_opts *o, struct mi **v, size_t n, char **arena, struct cr_err *e)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	MntEntry **m = calloc(n ? n : 1, sizeof(*m));
	if (!m)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		m[i] = &v[i]->e;
		m[i]->ext_key = (char *)ns_mnt_ext_opt(o, m[i]->mountpoint); /* mnt[MOUNTPOINT]:KEY */
	}
	int r = ns_mnt_ext_auto(o, m, n, arena, e);
	if (!r)
		ns_mnt_ext_binds(m, n);
	free(m);
	return r;
}

int ns_mnt_own_table(MntEntry ***m, size_t *n, void **keep, struct cr_err *e)
{
	struct mi *v = NULL;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	*m = NULL, *n = 0, *keep = NULL;
	if (fd < 0)
		return cr_fail_sys(e, "open /proc/self/mountinfo");
	if (read_mountinfo(fd, &v, n, e)) {
		free_mi(v, *n);
		return -1;
	}
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	if (!(*m = calloc(*n ? *n : 1, sizeof(**m)))) {
		free_mi(v, *n);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < *n; i++)
		(*m)[i] = &v[i].e;
	*keep = v;
	return 0;
}

void ns_mnt_own_free(MntEntry **m, size_t n, void *keep)
{
	free(m);
	free_mi(keep, n);
}

/* A bind of a removed directory or file (mountinfo root "PATH//deleted"): root made PATH, root_deleted
 * (made again for the bind at restore, and removed). Another "//deleted" in it: not so. */
static bool root_deleted(MntEntry *m)
{
	static const char suf[] = "//deleted";
	size_t l = strlen(m->root), s = sizeof(suf) - 1;
	if (l <= s || strcmp(m->root + l - s, suf) || m->root[0] != '/')
		return strstr(m->root, suf) != NULL;
	m->root[l - s] = '\0';
	m->root_deleted = m->has_root_deleted = 1;
	return strstr(m->root, suf) != NULL;
}

static int classify(struct mi **v, size_t n, struct cr_err *e)
{
	struct mi *root = v[0];
	for (size_t i = 0; i < n; i++) /* (first: so that no other mount is made from one of these) */
		if (!v[i]->e.ext_key && !v[i]->e.fs_of &&
		    (root_deleted(&v[i]->e) || (!i && v[i]->e.root_deleted)))
			return cr_fail(e, "mount %s: its source %s is gone (deleted); it cannot be restored",
				       v[i]->e.mountpoint, v[i]->e.root);
	for (size_t i = 0; i < n; i++) {
		MntEntry *m = &v[i]->e;
		if (m->ext_key || m->fs_of) /* named (ext_keys), found by --external mnt[] or a bind of
					     * one of those (mnt-ext.c) */
			continue;
		if (!strcmp(m->fstype, "autofs") || !strncmp(m->fstype, "fuse", 4))
			return cr_fail(e, "mount %s: a %s mount cannot be restored", m->mountpoint,
				       m->fstype);
		if (i == 0)
			continue;
		unsigned long long nsino;
		if (!strcmp(m->fstype, "nsfs") && sscanf(m->root, "net:[%llu]", &nsino) == 1) {
			m->nsfs_net = nsino, m->has_nsfs_net = 1; /* saved by ns/net-multi.c */
			continue;
		}
		struct mi *first = v[i]->dev == root->dev ? root : NULL;
		for (size_t j = 0; j < n && first != root;
		     j++) /* that superblock's mount with the widest root */
			if (v[j]->dev == v[i]->dev && !v[j]->e.ext_key && !v[j]->e.root_deleted &&
			    (!first || strlen(v[j]->e.root) < strlen(first->e.root)))
				first = v[j];
		if (m->root_deleted && (!first || first == v[i]))
			return cr_fail(
			    e,
			    "mount %s: its source %s//deleted is gone, and no other mount shows its "
			    "filesystem; it cannot be restored",
			    m->mountpoint, m->root);
		if (!first || first == v[i]) {
			if (!ns_mnt_fresh_type(m->fstype))
				return cr_fail(
				    e,
				    "mount %s (%s from %s) comes from outside the tree's root: name it "
				    "with --external mnt[%s]:KEY",
				    m->mountpoint, m->fstype, m->source, m->mountpoint);
			v[i]->tmpfs = !strcmp(m->fstype, "tmpfs") || !strcmp(m->fstype, "ramfs");
			m->contents = m->has_contents = v[i]->tmpfs;
			continue;
		}
		if (!ns_mnt_under(m->root, first->e.root))
			return cr_fail(
			    e,
			    "mount %s: a bind of %s from outside what the tree sees of its filesystem "
			    "(%s): name it with --external mnt[%s]:KEY",
			    m->mountpoint, m->root, first->e.root, m->mountpoint);
		m->fs_of = first->e.mnt_id, m->has_fs_of = 1;
		m->fs_root = first->e.root;
	}
	return 0;
}

static size_t parent_of(struct mi **v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i]->e.mnt_id == v[x]->e.parent_id && i != x)
			return i;
	return n;
}

/* Is mount x the mount s or below it? */
static bool in_subtree(struct mi **v, size_t n, size_t x, size_t s)
{
	for (size_t hops = 0; x < n && hops <= n; hops++, x = parent_of(v, n, x))
		if (x == s)
			return true;
	return false;
}

/* The mount a path walk to p reaches (what the tree shows there): from the root, at each mount its child
 * (not gone) at the shortest leading part of p, a stack climbed to its top. */
static size_t walk_to(struct mi **v, size_t n, const bool *gone, const char *p)
{
	for (size_t cur = 0, guard = 0;; guard++) {
		size_t best = n;
		for (size_t i = 1; i < n && guard <= n; i++)
			if (!gone[i] && i != cur && v[i]->e.parent_id == v[cur]->e.mnt_id &&
			    ns_mnt_under(p, v[i]->e.mountpoint) &&
			    (best == n || strlen(v[i]->e.mountpoint) < strlen(v[best]->e.mountpoint)))
				best = i;
		if (best == n)
			return cur;
		cur = best;
	}
}

/* Take off the mounts that hide mount k (over it or over one of its parents) until a walk to its mount point
 * reaches it: each time the top of the stack where that walk leaves k's parents. dry: only marked gone
 * (gone: a scratch copy), 1 if one of them holds a tmpfs still to walk (not done). 0, -1 (errno). */
static int uncover(struct mi **v, size_t n, size_t k, bool *gone, const bool *done, bool dry)
{
	for (size_t guard = 0; guard <= n; guard++) {
		size_t r = walk_to(v, n, gone, v[k]->e.mountpoint), h = r;
		if (r == k)
			return 0;
		while (h && h < n && !in_subtree(v, n, k, parent_of(v, n, h)))
			h = parent_of(v, n, h);
		if (!h || h >= n)
			break;
		size_t top = walk_to(v, n, gone, v[h]->e.mountpoint);
		for (size_t t = 0; t < n; t++)
			if (v[t]->tmpfs && !done[t] && t != k && in_subtree(v, n, t, top)) {
				if (dry)
					return 1;
				errno = EBUSY;
				return -1;
			}
		if (!dry && umount2(v[top]->e.mountpoint, MNT_DETACH))
			return -1;
		gone[top] = true;
	}
	errno = ENOENT;
	return -1;
}

/* The next tmpfs to walk: one whose hiders hold no tmpfs still to walk (taking one off takes what is under
 * it too), the last mounts first; n if none. */
static size_t next_tmpfs(struct mi **v, size_t n, const bool *gone, const bool *done, bool *scratch)
{
	for (size_t k = n; k-- > 0;) {
		if (!v[k]->tmpfs || done[k])
			continue;
		memcpy(scratch, gone, n * sizeof(*gone));
		if (!uncover(v, n, k, scratch, done, true))
			return k;
	}
	return n;
}

/* A mount namespace owned by another user namespace than ours (a container's): we enter that one first, so
 * that the copy we make is owned by it too and its mounts are not locked together (in a copy owned by ours
 * open_tree of a tmpfs with mounts under it fails, EINVAL, and so does taking a mount off). 0, -1. */
static int enter_mntns_owner(int ns)
{
	struct stat a, b;
	__cleanup_close int u = ioctl(ns, NS_GET_USERNS);
	if (u < 0 || fstat(u, &a) || stat("/proc/self/ns/user", &b))
		return -1;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev ? 0 : setns(u, CLONE_NEWUSER);
}

/* In the tree's mount namespace (at its root), then in a private copy of it (the tree's own mounts are
 * untouched): each tmpfs cloned and walked, the last mounts first, after taking off what hides it (mounts
 * over it or over one of its parents: uncover), and never one whose hiders hold a tmpfs still to walk. One
 * child for all: entering and copying a container's mount namespace costs milliseconds. */
static void child_tmpfs(pid_t pid, int root, int imgdir, struct mi **v, size_t n, int errfd)
{
	char path[64], msg[1100];
	struct cr_err e = {0};
	bool *gone = calloc(n, sizeof(*gone)), *done = calloc(n, sizeof(*done)),
	     *scratch = calloc(n, sizeof(*scratch));
	int *out = calloc(n, sizeof(*out));
	/* the image files made now: in the user namespace we may not create files in the images dir (its
	 * mode may be 0700, or 0600 as runc makes it) */
	for (size_t i = 0; out && i < n; i++) {
		char name[64];
		img_name(IMG_TMPFS, (int)v[i]->e.mnt_id, name, sizeof(name));
		out[i] =
		    v[i]->tmpfs ? openat(imgdir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
		if (v[i]->tmpfs && out[i] < 0) {
			snprintf(msg, sizeof(msg), "create image %s: %s", name, strerror(errno));
			goto out;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	int ns = open(path, O_RDONLY | O_CLOEXEC);
	if (!gone || !done || !scratch || !out || root < 0 || ns < 0 || enter_mntns_owner(ns) ||
	    setns(ns, CLONE_NEWNS) || fchdir(root) || chroot(".") || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(msg, sizeof(msg), "enter a copy of the mount namespace of %d: %s", pid,
			 strerror(errno));
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		done[k] = !v[k]->tmpfs;
	for (size_t i; (i = next_tmpfs(v, n, gone, done, scratch)) < n;) {
		struct mi *m = v[i];
		int fd;
		done[i] = true;
		if (uncover(v, n, i, gone, done, false)) {
			snprintf(msg, sizeof(msg), "mount %s (%s): take the mounts on top of it off: %s",
				 m->e.mountpoint, m->e.fstype, strerror(errno));
			goto out;
		}
		if ((fd = (int)syscall(SYS_open_tree, AT_FDCWD, m->e.mountpoint,
				       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0) {
			snprintf(msg, sizeof(msg), "mount %s (%s): open_tree: %s", m->e.mountpoint,
				 m->e.fstype, strerror(errno));
			goto out;
		}
		int r = ns_tmpfs_dump(fd, imgdir, out[i], (int)m->e.mnt_id, TMPFS_LIMIT, &e);
		close(fd);
		if (r) {
			snprintf(msg, sizeof(msg), "mount %s (%s): %s", m->e.mountpoint, m->e.fstype, e.msg);
			goto out;
		}
	}
	for (size_t k = 0; k < n; k++)
		if (!done[k]) {
			snprintf(msg, sizeof(msg),
				 "mount %s (%s): the mounts that hide it hide other tmpfs too",
				 v[k]->e.mountpoint, v[k]->e.fstype);
			goto out;
		}
	_exit(0);
out:
	if (write(errfd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(1);
}

/* In a child that enters the tree's mount namespace (crshim keeps its own root and cwd). */
static int dump_tmpfs(const struct ns_dump_args *a, pid_t pid, int root, struct mi **v, size_t n,
		      struct cr_err *e)
{
	int p[2];
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i]->tmpfs;
	if (!k)
		return 0;
	if (pipe2(p, O_CLOEXEC))
		return cr_fail_sys(e, "pipe");
	fflush(NULL);
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		child_tmpfs(pid, root, a->dirfd, v, n, p[1]);
	}
	close(p[1]);
	char msg[1100] = "";
	ssize_t r = c < 0 ? -1 : read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	int st = 0;
	if (c < 0)
		return cr_fail_sys(e, "fork");
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		for (size_t i = 0; i < n; i++) { /* made by the child before it walked them */
			char name[64];
			img_name(IMG_TMPFS, (int)v[i]->e.mnt_id, name, sizeof(name));
			if (v[i]->tmpfs)
				unlinkat(a->dirfd, name, 0);
		}
		msg[r > 0 ? r : 0] = 0;
		return cr_fail(e, "%s", msg[0] ? msg : "the child that saves the tmpfs files died");
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->tmpfs)
			continue;
		pr_info("mount %d at %s: the files of its %s saved\n", v[i]->e.mnt_id, v[i]->e.mountpoint,
			v[i]->e.fstype);
		if (a->created(a->created_arg, IMG_TMPFS, (int)v[i]->e.mnt_id, e))
			return -1;
	}
	return 0;
}

static void mark_files(int root, struct mi **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		const char *rel = v[i]->e.mountpoint + strspn(v[i]->e.mountpoint, "/");
		if (!fstatat(root, *rel ? rel : ".", &st, 0) && !S_ISDIR(st.st_mode))
			v[i]->e.is_file = v[i]->e.has_is_file = 1;
	}
}

/* A bind of a removed file is made again from an empty one: one with data is refused. */
static int deleted_files(int root, struct mi **v, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		const char *rel = v[i]->e.mountpoint + strspn(v[i]->e.mountpoint, "/");
		if (v[i]->e.root_deleted && v[i]->e.is_file && !fstatat(root, *rel ? rel : ".", &st, 0) &&
		    st.st_size)
			return cr_fail(e,
				       "not supported yet: mount %s: a bind of the removed file %s, which "
				       "holds data (%lld bytes)",
				       v[i]->e.mountpoint, v[i]->e.root, (long long)st.st_size);
	}
	return 0;
}

static int write_tree(const struct ns_dump_args *a, struct mi **v, size_t n, struct cr_err *e)
{
	struct img_writer *w;
	if (img_create(a->dirfd, IMG_MNT, 0, &w, e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pr_info("mount %u (parent %u) %s: %s %s root %s%s%s\n", v[i]->e.mnt_id, v[i]->e.parent_id,
			v[i]->e.mountpoint, v[i]->e.fstype, v[i]->e.source, v[i]->e.root,
			v[i]->e.ext_key ? " external " : "", v[i]->e.ext_key ? v[i]->e.ext_key : "");
		if (img_write_or_drop(w, &v[i]->e.base, e))
			return -1;
	}
	if (img_commit(w, e))
		return -1;
	return a->created(a->created_arg, IMG_MNT, 0, e);
}

int ns_mnt_dump(const struct ns_dump_args *a, pid_t root, struct cr_err *e)
{
	struct mi *v = NULL;
	size_t n = 0;
	struct mi **o = NULL;
	int ret = -1;
	struct stat rs, own;
	int mifd = -1;
	__cleanup_close int nsroot = -1;
	__cleanup_free char *arena = NULL; /* the strings ext_keys adds */
	if (nsroot_open(root, &nsroot, &mifd, e))
		return -1;
	if (fstat(nsroot, &rs) || stat("/", &own)) {
		close(mifd);
		return cr_fail_sys(e, "stat the root of the mount namespace of %d", root);
	}
	if (rs.st_dev == own.st_dev && rs.st_ino == own.st_ino) {
		close(mifd);
		pr_info("the mount namespace of %d has crshim's root: its mounts are not saved (a PID "
			"namespace's init gets a fresh /proc)\n",
			root);
		return 0;
	}
	if (read_mountinfo(mifd, &v, &n, e) || order(v, n, &o, e) || ext_keys(a->o, o, n, &arena, e) ||
	    classify(o, n, e))
		goto out;
	mark_files(nsroot, o, n);
	if (deleted_files(nsroot, o, n, e) || dump_tmpfs(a, root, nsroot, o, n, e))
		goto out;
	ret = write_tree(a, o, n, e);
out:
	free(o);
	free_mi(v, n);
	return ret;
}

/* ---------------------------------------------------------------- nested mount namespaces */

/* What makes two mounts of two namespaces the same (a copy's): mount point, root, filesystem, source,
 * superblock options; not the flags, which a namespace may change on its copy. */
static void mnt_key(const MntEntry *m, char *k, size_t len)
{
	snprintf(k, len, "%s %s %s %s %s %d %u", m->mountpoint, m->root, m->fstype, m->source,
		 m->sb_opts ? m->sb_opts : "", m->sb_ro, m->dev);
}

/* Which of the mounts v of a nested namespace are copies of mounts of its parent's (w): match[i] the index
 * in w (+1), 0 for a mount made in it; taken[j] for those of w that are matched. */
static void nested_match(struct mi **v, size_t n, struct mi **w, size_t nw, size_t *match, bool *taken)
{
	char a[4096], b[4096];
	for (size_t i = 0; i < n; i++) {
		mnt_key(&v[i]->e, a, sizeof(a));
		match[i] = 0;
		for (size_t j = 0; j < nw && !match[i]; j++) {
			mnt_key(&w[j]->e, b, sizeof(b));
			if (!taken[j] && !strcmp(a, b))
				match[i] = j + 1, taken[j] = true;
		}
	}
}

/* The widest mount of dev whose root holds root: of the nested namespace (one it kept, or made before i),
 * else of its parent's that it no longer has (still there in the parent's: a source through its root). */
static struct mi *nested_first(struct mi **v, size_t n, size_t i, const size_t *match, struct mi **w,
			       size_t nw, const bool *taken)
{
	struct mi *first = NULL;
	for (size_t j = 0; j < n; j++)
		if (j != i && v[j]->dev == v[i]->dev && (match[j] || (j < i && !v[j]->e.has_fs_of)) &&
		    !v[j]->e.root_deleted && ns_mnt_under(v[i]->e.root, v[j]->e.root) &&
		    (!first || strlen(v[j]->e.root) < strlen(first->e.root)))
			first = v[j];
	for (size_t j = 0; j < nw && !first; j++)
		if (!taken[j] && w[j]->dev == v[i]->dev && ns_mnt_under(v[i]->e.root, w[j]->e.root))
			first = w[j];
	return first;
}

/* A mount made in the nested namespace: made from a mount of the same filesystem there or in its parent's
 * (nested_first: fs_of), or a new filesystem (a kind crshim makes anew; a tmpfs's files saved). Its root
 * mount too when it pivot_root'ed. */
static int nested_classify(pid_t pid, struct mi **v, size_t n, const size_t *match, struct mi **w, size_t nw,
			   const bool *taken, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		MntEntry *m = &v[i]->e;
		if (match[i])
			continue;
		if (root_deleted(m) || !strcmp(m->fstype, "autofs") || !strncmp(m->fstype, "fuse", 4))
			return cr_fail(
			    e, "mount %s of task %d's mount namespace (%s, root %s) cannot be restored",
			    m->mountpoint, pid, m->fstype, m->root);
		struct mi *first = nested_first(v, n, i, match, w, nw, taken);
		if (m->root_deleted && !first)
			return cr_fail(
			    e,
			    "mount %s of task %d's mount namespace: its source %s//deleted is gone, and "
			    "no other mount shows its filesystem; it cannot be restored",
			    m->mountpoint, pid, m->root);
		if (first) {
			m->fs_of = first->e.mnt_id, m->has_fs_of = 1;
			m->fs_root = first->e.root;
			continue;
		}
		if (!ns_mnt_fresh_type(m->fstype))
			return cr_fail(
			    e,
			    "mount %s of task %d's mount namespace (%s from %s, root %s): not a bind of "
			    "what its parent's namespace shows, nor a filesystem crshim makes anew",
			    m->mountpoint, pid, m->fstype, m->source, m->root);
		v[i]->tmpfs = !strcmp(m->fstype, "tmpfs") || !strcmp(m->fstype, "ramfs");
		m->contents = m->has_contents = v[i]->tmpfs;
	}
	return 0;
}

/* The tmpfs pid's namespace makes (not copies of its parent's, nor made from another mount in it) into
 * made; one line for one another namespace of the tree makes too: one filesystem there, two at restore
 * (its other maker is not in it any more: a process that entered that one's and outlived its maker). */
static int nested_made(pid_t pid, struct mi **v, size_t n, const size_t *match, struct ns_mnt_made *made,
		       struct cr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (match[i] || !v[i]->tmpfs)
			continue;
		for (size_t k = 0; k < made->n; k++)
			if (made->v[k].dev == v[i]->dev && made->v[k].pid != pid)
				return cr_fail(
				    e,
				    "not supported yet: the %s at %s of task %d's mount namespace "
				    "is the one at %s of task %d's, and neither namespace was made "
				    "from the other: it would be two at restore",
				    v[i]->e.fstype, v[i]->e.mountpoint, pid, made->v[k].mp, made->v[k].pid);
		struct ns_mnt_made_fs *nv = realloc(made->v, (made->n + 1) * sizeof(*nv));
		if (!nv)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		made->v = nv;
		nv[made->n].dev = v[i]->dev, nv[made->n].pid = pid;
		snprintf(nv[made->n].mp, sizeof(nv[made->n].mp), "%s", v[i]->e.mountpoint);
		made->n++;
	}
	return 0;
}

static int nested_write(const struct ns_dump_args *a, uint32_t id, struct mi **v, size_t n,
			const size_t *match, struct mi **w, size_t nw, const bool *taken, struct cr_err *e)
{
	struct img_writer *wr;
	if (img_create(a->dirfd, IMG_MNTNS, (int)id, &wr, e))
		return -1;
	for (size_t k = 0; k < n + nw; k++) {
		/* its mounts parents first, then those of its parent's it has not, the last first */
		bool gone = k >= n;
		size_t i = gone ? n + nw - 1 - k : k;
		if (gone && taken[i])
			continue;
		MntnsMount mm = MNTNS_MOUNT__INIT;
		mm.m = gone ? &w[i]->e : &v[i]->e;
		mm.how = gone ? 2 : match[i] ? 1 : 0, mm.has_how = 1;
		if (!gone && match[i])
			mm.base_attr = (uint32_t)w[match[i] - 1]->e.attr, mm.has_base_attr = 1,
			mm.base_shared = w[match[i] - 1]->e.shared, mm.has_base_shared = 1;
		pr_info("mount namespace %u: mount %u %s (%s, root %s): %s\n", id, mm.m->mnt_id,
			mm.m->mountpoint, mm.m->fstype, mm.m->root,
			gone	   ? "its parent's, gone"
			: match[i] ? "its parent's"
				   : "made");
		if (img_write_or_drop(wr, &mm.base, e))
			return -1;
	}
	if (img_commit(wr, e))
		return -1;
	return a->created(a->created_arg, IMG_MNTNS, (int)id, e);
}

int ns_mnt_nested_dump(const struct ns_dump_args *a, pid_t pid, pid_t base, uint32_t id,
		       struct ns_mnt_made *made, struct cr_err *e)
{
	struct mi *v = NULL, *w = NULL, **o = NULL, **ow = NULL;
	size_t n = 0, nw = 0, *match = NULL;
	bool *taken = NULL;
	int ret = -1, mifd = -1, bmifd = -1;
	__cleanup_close int nsroot = -1, broot = -1;
	if (nsroot_open(pid, &nsroot, &mifd, e))
		return -1;
	if (nsroot_open(base, &broot, &bmifd, e)) {
		close(mifd);
		return -1;
	}
	int r1 = read_mountinfo(mifd, &v, &n, e),
	    r2 = r1 ? (close(bmifd), -1) : read_mountinfo(bmifd, &w, &nw, e);
	if (r1 || r2 || order(v, n, &o, e) || order(w, nw, &ow, e))
		goto out;
	match = calloc(n ? n : 1, sizeof(*match)), taken = calloc(nw ? nw : 1, sizeof(*taken));
	if (!match || !taken) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto out;
	}
	nested_match(o, n, ow, nw, match, taken);
	if (n &&
	    !match[0]) { /* another root (pivot_root): its whole tree is made, none of its parent's kept */
		pr_info(
		    "task %d has another root mount than its parent's namespace: all its mounts are made\n",
		    pid);
		memset(match, 0, n * sizeof(*match));
		memset(taken, 0, nw * sizeof(*taken));
	}
	if (nested_classify(pid, o, n, match, ow, nw, taken, e) || nested_made(pid, o, n, match, made, e))
		goto out;
	mark_files(nsroot, o, n);
	if (deleted_files(nsroot, o, n, e) || dump_tmpfs(a, pid, nsroot, o, n, e))
		goto out;
	ret = nested_write(a, id, o, n, match, ow, nw, taken, e);
out:
	if (ret)
		cr_wrap(e, "the mount namespace of task %d", pid);
	free(match), free(taken), free(o), free(ow);
	free_mi(v, n);
	free_mi(w, nw);
	return ret;
}
