/* Dump of ghost files (see ghost.h): the data extents of each unlinked file the task holds, found with
 * SEEK_DATA/SEEK_HOLE, read through a fresh open of /proc/PID/fd/N (or of a map_files link). */
#define LOG_PREFIX "dump-ghost: "
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/openat2.h>

#include "base/array.h"
#include "base/caps.h"
#include "base/cleanup.h"
#include "dump.h"
#include "files/ghost.h"
#include "base/log.h"
#include "base/proc.h"

#define GHOST_CHUNK (1u << 20)	      /* bytes per ghost_chunk */
#define GHOST_RECORD_DATA (32u << 20) /* chunk bytes per image record (records are <= 64 MiB) */

/* A name picked for a deleted file in a directory (as its process sees it) other than its deleted name's
 * (dump_ghost_pick_name) */
struct ghost_pick {
	char *dir, *name;
	uint64_t dev, ino;
};

struct dump_ghosts {
	GhostFileEntry **g;
	size_t n;
	struct ghost_pick *picks;
	size_t npicks;
};

static void ghost_entry_free(GhostFileEntry *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_chunks; i++) {
		free(g->chunks[i]->data.data);
		free(g->chunks[i]);
	}
	free(g->chunks);
	for (size_t i = 0; i < g->n_xattrs; i++) {
		free(g->xattrs[i]->name);
		free(g->xattrs[i]->value.data);
		free(g->xattrs[i]);
	}
	free(g->xattrs);
	free(g->path);
	free(g->symlink);
	for (size_t i = 0; i < g->n_over; i++)
		free(g->over[i]);
	free(g->over);
	free(g);
}

void dump_ghost_free(struct dump_ctx *c)
{
	struct dump_ghosts *d = c->ghosts;
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		ghost_entry_free(d->g[i]);
	free(d->g);
	for (size_t i = 0; i < d->npicks; i++) {
		free(d->picks[i].dir);
		free(d->picks[i].name);
	}
	free(d->picks);
	free(d);
	c->ghosts = NULL;
}

static struct dump_ghosts *ghosts_of(struct dump_ctx *c)
{
	if (!c->ghosts)
		c->ghosts = calloc(1, sizeof(*c->ghosts));
	return c->ghosts;
}

static bool in_tree(const struct dump_ctx *c)
{
	return c->tree && c >= c->tree && c < c->tree + c->ntree;
}

/* The name picked in dir for a file of the tree: for the inode (dev, ino) when same, else name for another */
static const struct ghost_pick *picked(const struct dump_ctx *c, const char *dir, const char *name,
				       uint64_t dev, uint64_t ino, bool same)
{
	size_t n = c->tree ? c->ntree : 0;
	for (size_t i = 0; i <= n; i++) {
		const struct dump_ctx *x = i < n ? &c->tree[i] : c;
		const struct dump_ghosts *d = i < n || !in_tree(c) ? x->ghosts : NULL;
		for (size_t j = 0; d && j < d->npicks; j++) {
			const struct ghost_pick *p = &d->picks[j];
			bool ours = p->dev == dev && p->ino == ino;
			if (!strcmp(p->dir, dir) && (same ? ours : !ours && !strcmp(p->name, name)))
				return p;
		}
	}
	return NULL;
}

/* path ("DIR/NAME (deleted)") is the link of an fd of the tree of another inode than (dev, ino): a deleted
 * file that keeps its own name there */
static bool fd_named(const struct dump_ctx *c, const char *path, uint64_t dev, uint64_t ino)
{
	size_t n = c->tree ? c->ntree : 1;
	for (size_t i = 0; i < n; i++) {
		char p[64], l[PATH_MAX + 16];
		struct stat st;
		snprintf(p, sizeof(p), "/proc/%d/fd", (int)(c->tree ? c->tree[i].pid : c->pid));
		__cleanup_closedir DIR *dd = opendir(p);
		for (struct dirent *de; dd && (de = readdir(dd));) {
			ssize_t r =
			    de->d_name[0] == '.' ? -1 : readlinkat(dirfd(dd), de->d_name, l, sizeof(l) - 1);
			if (r <= 0)
				continue;
			l[r] = '\0';
			if (!strcmp(l, path) && !fstatat(dirfd(dd), de->d_name, &st, 0) &&
			    ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino))
				return true;
		}
	}
	return false;
}

/* name k of the candidates for a file of ghost id whose name's last part is last */
static char *candidate(const char *last, uint32_t id, unsigned k)
{
	char *n = NULL;
	int r = k == 0	 ? asprintf(&n, "%s", last)
		: k == 1 ? asprintf(&n, "%.200s.crshim-ghost.%u", last, id)
			 : asprintf(&n, "%.200s.crshim-ghost.%u.%u", last, id, k);
	return r < 0 ? NULL : n;
}

char *dump_ghost_pick_name(struct dump_ctx *c, pid_t pid, const char *dir, const char *last,
			   const struct stat *st, uint32_t id)
{
	uint64_t dev = (uint64_t)st->st_dev, ino = (uint64_t)st->st_ino;
	const struct ghost_pick *p = picked(c, dir, "", dev, ino, true);
	struct dump_ghosts *d = ghosts_of(c);
	if (p || !d)
		return p ? strdup(p->name) : NULL;
	const char *dp = strcmp(dir, "/") ? dir : "";
	char *n = NULL;
	for (unsigned k = strlen(last) > 200; k < 1000 && !n; k++) {
		char at[PATH_MAX + 320], del[PATH_MAX + 320];
		struct stat s;
		if (!(n = candidate(last, id, k)))
			return NULL;
		snprintf(at, sizeof(at), "/proc/%d/root%s/%s", (int)pid, dp, n);
		snprintf(del, sizeof(del), "%s/%s (deleted)", dp, n);
		/* free there at dump, and no other deleted file of the tree is named so or was given it (the
		 * last candidate all the same: taken at restore, rst_ghost_alt_name) */
		if (k < 999 && (!(lstat(at, &s) && errno == ENOENT) || picked(c, dir, n, dev, ino, false) ||
				fd_named(c, del, dev, ino))) {
			free(n);
			n = NULL;
		}
	}
	struct ghost_pick *np = n ? realloc(d->picks, (d->npicks + 1) * sizeof(*np)) : NULL;
	if (np)
		d->picks = np;
	char *sd = np ? strdup(dir) : NULL, *sn = sd ? strdup(n) : NULL;
	if (!sn) {
		free(sd);
		free(n);
		return NULL;
	}
	d->picks[d->npicks++] = (struct ghost_pick){sd, sn, dev, ino};
	return n;
}

static int add_chunk(GhostFileEntry *g, int fd, uint64_t off, size_t len, struct cr_err *e)
{
	GhostChunk **nc = realloc(g->chunks, (g->n_chunks + 1) * sizeof(void *));
	if (!nc)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	g->chunks = nc;
	GhostChunk *ch = malloc(sizeof(*ch));
	uint8_t *buf = malloc(len ? len : 1);
	if (!ch || !buf) {
		free(ch);
		free(buf);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	ghost_chunk__init(ch);
	ch->off = off, ch->has_off = 1;
	ch->data.data = buf, ch->data.len = len, ch->has_data = 1;
	g->chunks[g->n_chunks++] = ch;
	for (size_t done = 0; done < len;) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) { /* shrank under us: keep what we have, the size is set at restore */
			ch->data.len = done;
			return r < 0 ? cr_fail_sys(e, "read at %llu", (unsigned long long)(off + done)) : 0;
		}
		done += (size_t)r;
	}
	return 0;
}

/* The data extents of fd (the whole file where SEEK_DATA is not supported), at most limit bytes. */
static int read_extents(GhostFileEntry *g, int fd, uint64_t size, uint64_t limit, uint64_t *total,
			struct cr_err *e)
{
	uint64_t off = 0;
	*total = 0;
	while (off < size) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;
		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0) /* no SEEK_DATA here: all of it is data */
			d = (off_t)off, h = (off_t)size;
		else if ((h = lseek(fd, d, SEEK_HOLE)) < 0)
			h = (off_t)size;
		if ((uint64_t)h > size)
			h = (off_t)size;
		if (h <= d)
			break;
		*total += (uint64_t)(h - d);
		if (*total > limit)
			return 1;
		for (uint64_t p = (uint64_t)d; p < (uint64_t)h; p += GHOST_CHUNK) {
			uint64_t l = (uint64_t)h - p < GHOST_CHUNK ? (uint64_t)h - p : GHOST_CHUNK;
			if (add_chunk(g, fd, p, (size_t)l, e))
				return -1;
		}
		off = (uint64_t)h;
	}
	return 0;
}

static int add_xattr(GhostFileEntry *g, const char *name, int fd, struct cr_err *e)
{
	ssize_t n = fgetxattr(fd, name, NULL, 0);
	if (n < 0)
		return errno == ENODATA ? 0 : cr_fail_sys(e, "read extended attribute %s", name);
	GhostXattr *x = arr_append_new(&g->xattrs, &g->n_xattrs, sizeof(*x));
	if (!x)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ghost_xattr__init(x);
	x->name = strdup(name);
	x->value.data = malloc((size_t)n + 1);
	if (!x->name || !x->value.data)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	n = fgetxattr(fd, name, x->value.data, (size_t)n);
	if (n < 0) /* ERANGE: it grew (the task is frozen: another process) */
		return cr_fail_sys(e, "read extended attribute %s", name);
	x->value.len = (size_t)n, x->has_value = 1;
	return 0;
}

/* The extended attributes of the deleted file open at fd (every namespace listxattr shows us). */
static int read_xattrs(GhostFileEntry *g, int fd, struct cr_err *e)
{
	ssize_t n = flistxattr(fd, NULL, 0);
	if (n <= 0)
		return n < 0 && errno != ENOTSUP ? cr_fail_sys(e, "list extended attributes") : 0;
	char *names = malloc((size_t)n);
	if (!names)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int r = 0;
	if ((n = flistxattr(fd, names, (size_t)n)) < 0)
		r = cr_fail_sys(e, "list extended attributes");
	for (char *p = names; !r && p < names + n; p += strlen(p) + 1)
		if (*p && add_xattr(g, p, fd, e))
			r = -1;
	free(names);
	return r;
}

static char *strip_deleted(const char *name)
{
	static const char suf[] = " (deleted)";
	size_t l = strlen(name), s = sizeof(suf) - 1;
	if (l > s && !strcmp(name + l - s, suf))
		l -= s;
	return strndup(name, l);
}

/* src (a magic link) is followed to the symlink itself, not through it */
static int ghost_symlink(const char *src, const char *what, const char *name, GhostFileEntry *g,
			 struct cr_err *e)
{
	char buf[PATH_MAX];
	__cleanup_close int fd = open(src, O_PATH | O_CLOEXEC);
	ssize_t l = fd < 0 ? -1 : readlinkat(fd, "", buf, sizeof(buf) - 1);
	if (l < 0)
		return cr_fail_sys(e, "%s: read the deleted symlink %s through %s", what, name, src);
	buf[l] = '\0';
	g->size = 0;
	if (!(g->symlink = strdup(buf)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("%s: ghost symlink %s -> %s\n", what, g->path, g->symlink);
	return 0;
}

static int new_ghost(struct dump_ctx *c, const char *src, const struct stat *st, const char *name,
		     const char *what, GhostFileEntry *g, struct cr_err *e)
{
	uint64_t limit = c->o->ghost_limit, total;
	g->dev = (uint64_t)st->st_dev, g->has_dev = 1;
	g->ino = (uint64_t)st->st_ino, g->has_ino = 1;
	g->mode = st->st_mode, g->has_mode = 1;
	g->uid = st->st_uid, g->has_uid = 1;
	g->gid = st->st_gid, g->has_gid = 1;
	g->size = (uint64_t)st->st_size, g->has_size = 1;
	g->atime_ns = (uint64_t)st->st_atim.tv_sec * 1000000000ull + (uint64_t)st->st_atim.tv_nsec;
	g->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
	g->has_atime_ns = g->has_mtime_ns = 1; /* set again once the data is in */
	if (!(g->path = strip_deleted(name)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (S_ISDIR(st->st_mode)) { /* a removed directory: made again empty, with its times */
		g->size = 0;
		pr_info("%s: ghost directory %s, mode %#o\n", what, g->path, st->st_mode);
		return 0;
	}
	/* a device node, a FIFO or a socket's node (held O_PATH): no data, made with mknod */
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) {
		g->rdev = (uint64_t)st->st_rdev, g->has_rdev = 1;
		g->size = 0;
		pr_info("%s: ghost node %s, mode %#o (%u:%u)\n", what, g->path, st->st_mode,
			major(st->st_rdev), minor(st->st_rdev));
		return 0;
	}
	if (S_ISLNK(st->st_mode)) /* a symlink (an O_PATH | O_NOFOLLOW open): its target, no data */
		return ghost_symlink(src, what, name, g, e);
	/* O_NOATIME: reading the data must not change the atime the task sees (--leave-running) */
	__cleanup_close int fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return cr_fail_sys(e, "%s: open the deleted file %s through %s", what, name, src);
	int r = read_xattrs(g, fd, e) ? -1 : read_extents(g, fd, (uint64_t)st->st_size, limit, &total, e);
	if (r < 0)
		return cr_wrap(e, "%s: deleted file %s", what, name);
	if (r > 0)
		return cr_fail(
		    e,
		    "%s is a deleted file (%s) with more than %llu bytes of data (size %lld): above "
		    "--ghost-limit %llu",
		    what, name, (unsigned long long)limit, (long long)st->st_size, (unsigned long long)limit);
	pr_info("%s: ghost %s, size %lld, %llu bytes of data in %zu chunks, %zu extended attributes\n", what,
		g->path, (long long)st->st_size, (unsigned long long)total, g->n_chunks, g->n_xattrs);
	return 0;
}

/* An fd of a process of the tree holds the inode st with flags & mask == want (the fds read once the tree
 * stopped, dump_ctx.fds, else /proc/PID/fd again) */
static bool held_in_tree(const struct dump_ctx *c, const struct stat *st, uint32_t mask, uint32_t want)
{
	size_t n = c->tree ? c->ntree : 1;
	for (size_t i = 0; i < n; i++) {
		const struct dump_ctx *x = c->tree ? &c->tree[i] : c;
		struct proc_fdinfo fi;
		struct cr_err e;
		for (size_t k = 0; x->fds && k < x->nfds; k++)
			if (x->fds[k].st.st_dev == st->st_dev && x->fds[k].st.st_ino == st->st_ino &&
			    !proc_parse_fdinfo(x->pid, x->fds[k].fd, &fi, &e) && (fi.flags & mask) == want)
				return true;
		if (x->fds)
			continue;
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/fd", (int)x->pid);
		__cleanup_closedir DIR *d = opendir(p);
		for (struct dirent *de; d && (de = readdir(d));) {
			struct stat s;
			if (de->d_name[0] != '.' && !fstatat(dirfd(d), de->d_name, &s, 0) &&
			    s.st_dev == st->st_dev && s.st_ino == st->st_ino &&
			    !proc_parse_fdinfo(x->pid, atoi(de->d_name), &fi, &e) &&
			    (fi.flags & mask) == want)
				return true;
		}
	}
	return false;
}

/* The deleted node of a unix socket (held O_PATH at src) is still bound by a live socket, which a connect
 * through it reaches: a datagram connect (no state on the other side) is refused only when none is. */
static bool sock_node_bound(const char *src)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(src) >= sizeof(a.sun_path))
		return true;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", src);
	__cleanup_close int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return s < 0 || connect(s, (const struct sockaddr *)&a, sizeof(a)) == 0 || errno != ECONNREFUSED;
}

/* A deleted FIFO or socket node (held O_PATH) that its ghost, a node made again with mknod, would not be the
 * same as: one with a live side (refused with one line) */
static int node_refused(const struct dump_ctx *c, const char *src, const struct stat *st, const char *name,
			const char *what, struct cr_err *e)
{
	/* (a FIFO fd, files/dump-pipes.c, makes it again on its own: another inode) */
	if (S_ISFIFO(st->st_mode) && held_in_tree(c, st, O_PATH, 0))
		return cr_fail(
		    e,
		    "not supported yet: %s is an O_PATH fd of a deleted FIFO (%s) that a process of the "
		    "tree has open for reading or writing too",
		    what, name);
	if (S_ISSOCK(st->st_mode) && sock_node_bound(src))
		return cr_fail(
		    e,
		    "not supported yet: %s is an O_PATH fd of the deleted node (%s) of a unix socket "
		    "still bound there",
		    what, name);
	return 0;
}

/* rel (relative to the root of c's process, root_fd: its /proc/PID/root) opened O_PATH, resolved inside
 * that root as the process resolves it: an absolute symlink on the way leads to the process's /X, not
 * crshim's (zdtm nsmnt_ghost_symlink_root) */
static int open_in_root(int root_fd, const char *rel)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd, tries = 0;
	/* (EAGAIN: a mount or rename anywhere during a ".." step of RESOLVE_IN_ROOT; tried again) */
	do
		fd = (int)syscall(SYS_openat2, root_fd, *rel ? rel : ".", &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < 100);
	return fd;
}

/* A mount of a mount table (/proc/PID/mountinfo): its id, its parent's and its mount point (in the text). */
struct mi_mnt {
	uint64_t id, parent;
	const char *mp;
};

/* "\040" and the like of a mountinfo field, in place */
static void mi_unescape(char *s)
{
	char *o = s;
	for (; *s; s++, o++) {
		unsigned v;
		if (s[0] == '\\' && sscanf(s + 1, "%3o", &v) == 1 && strspn(s + 1, "01234567") >= 3)
			*o = (char)v, s += 3;
		else
			*o = *s;
	}
	*o = '\0';
}

/* The mounts of mi (a mountinfo's text, cut into its mount points); NULL (*n 0) if none or out of memory */
static struct mi_mnt *mi_mounts(char *mi, size_t *n)
{
	struct mi_mnt *v = NULL;
	*n = 0;
	for (char *l = mi, *next; l && *l; l = next) {
		unsigned long long id, par;
		int off = 0;
		if ((next = strchr(l, '\n')))
			*next++ = '\0';
		if (sscanf(l, "%llu %llu %*u:%*u %*s %n", &id, &par, &off) != 2 || !off)
			continue;
		char *mp = l + off;
		mp[strcspn(mp, " ")] = '\0';
		mi_unescape(mp);
		struct mi_mnt *nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			*n = 0;
			return NULL;
		}
		v = nv;
		v[(*n)++] = (struct mi_mnt){id, par, mp};
	}
	return v;
}

static const struct mi_mnt *mi_find(const struct mi_mnt *v, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

/* Is mount id f, or one its mount is under (its parent, ...)? */
static bool mi_above(const struct mi_mnt *v, size_t n, uint64_t f, uint64_t id)
{
	for (size_t depth = 0; depth <= n; depth++) {
		const struct mi_mnt *m = mi_find(v, n, f);
		if (f == id)
			return true;
		if (!m || m->parent == f)
			return false;
		f = m->parent;
	}
	return false;
}

/* Is path dir or below it? */
static bool path_under(const char *path, const char *dir)
{
	size_t l = strcmp(dir, "/") ? strlen(dir) : 0;
	return !strncmp(path, dir, l) && (path[l] == '/' || !path[l]);
}

/* The mounts over g's directory (gdir, below the root of c's process) or above it that its own mount f (as
 * c's process sees them: its mountinfo's mount points are below its root) is not under: g->over, each with
 * root (that root in g->path's frame, crshim's: "" for "/") before it, as g->path has it. 0; 1 if f is not
 * in that table (its mount gone); 2 if one of them is stacked on the mount point of f or of a mount f is
 * under (stack: that mount point, as c's process sees it): no lookup stops at a mount in the middle of a
 * stack, nor does a clone of the one below it show it (the restore steps beneath a mount, not between two);
 * -1 (e). */
static int over_of(const struct mi_mnt *v, size_t n, uint64_t f, const char *gdir, const char *root,
		   GhostFileEntry *g, char *stack, size_t slen, struct cr_err *e)
{
	if (!mi_find(v, n, f))
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (!path_under(gdir, v[i].mp) || mi_above(v, n, f, v[i].id))
			continue;
		for (size_t k = 0; k < n; k++)
			if (mi_above(v, n, f, v[k].id) && !strcmp(v[k].mp, v[i].mp))
				return snprintf(stack, slen, "%s", v[i].mp), 2;
		char **no = realloc(g->over, (g->n_over + 1) * sizeof(*no));
		size_t len = strlen(root) + strlen(v[i].mp) + 1;
		if (no)
			g->over = no;
		if (!no || !(g->over[g->n_over] = malloc(len)))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		snprintf(g->over[g->n_over], len, "%s%s", root,
			 *root && !strcmp(v[i].mp, "/") ? "" : v[i].mp);
		g->n_over++;
	}
	return g->n_over ? 0 : 1;
}

static int ghost_over(const struct dump_ctx *c, uint64_t f, const char *gdir, const char *root,
		      GhostFileEntry *g, char *stack, size_t len, struct cr_err *e)
{
	__cleanup_free char *mi = NULL;
	size_t n;
	if (proc_read(c->pid, "mountinfo", &mi, NULL, e))
		return -1;
	struct mi_mnt *v = mi_mounts(mi, &n);
	int r = over_of(v, n, f, gdir, root, g, stack, len, e);
	free(v);
	return r;
}

/* The restore makes the ghost g of st (src: its /proc link; deleted name name, "PATH (deleted)") in the
 * deepest directory of PATH that is still there, as c's process sees it (crshim, for a file in flight;
 * resolved in the process's root: open_in_root). One of another filesystem, on another mount than src (a
 * mount on its directory or above it since, an overmount: zdtm ghost_dir_overmount), would give it to that
 * filesystem, not its own: those mounts go to g->over, beneath which the restore makes it (restore-ghost.c);
 * refused with one line if no such mount explains it (its own mount gone, a symlink on the way now: zdtm
 * nsmnt_ghost_symlink_root) or one is stacked on its mount point (zdtm ghost_mnt_stacked). */
static int hidden_over(const struct dump_ctx *c, const char *src, const struct stat *st, const char *name,
		       const char *what, GhostFileEntry *g, struct cr_err *e)
{
	char p[PATH_MAX], root[64], *s;
	struct stat ds;
	struct statx dx, fx;
	size_t l = strlen(name), suf = strlen(" (deleted)");
	/* (a process of another mount namespace: its ghost is made, or copied, as file-reg.c says) */
	bool other_ns =
	    c->tree && c->mnt_ino && (c->mnt_ino != c->tree[0].mnt_ino || c->mnt_dev != c->tree[0].mnt_dev);
	if (other_ns || name[0] != '/' || l <= suf || l - suf >= sizeof(p))
		return 0;
	/* name is in crshim's frame (its /proc link read by crshim), the process's root too (fs-PID.img
	 * root); below a chroot's, its mountinfo's mount points are below that root: name is looked up there
	 */
	__cleanup_free char *rp = NULL;
	struct cr_err re = {0};
	if (proc_readlink(c->pid, "root", &rp, &re))
		return 0;
	size_t rl = strcmp(rp, "/") ? strlen(rp) : 0;
	if (strncmp(name, rp, rl) || name[rl] != '/' || l - suf <= rl)
		return 0;
	rp[rl] = '\0';
	snprintf(root, sizeof(root), "/proc/%d/root", (int)c->pid);
	__cleanup_close int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), dfd = -1;
	if (rfd < 0)
		return 0;
	snprintf(p, sizeof(p), "%.*s", (int)(l - suf - rl), name + rl);
	do {
		s = strrchr(p, '/');
		if (!s)
			return 0;
		s[s == p ? 1 : 0] = '\0';
	} while ((dfd = open_in_root(rfd, p + 1)) < 0 && errno == ENOENT && s != p);
	if (dfd < 0 || fstat(dfd, &ds) || !S_ISDIR(ds.st_mode) || ds.st_dev == st->st_dev)
		return 0;
	/* (an overlayfs whose layers are on several filesystems gives a file the st_dev of its layer: the
	 * mount tells, that of the directory and that of the file, src, the same there) */
	bool mnt = !statx(AT_FDCWD, src, 0, STATX_MNT_ID, &fx) && (fx.stx_mask & STATX_MNT_ID);
	if (mnt && !statx(dfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &dx) && (dx.stx_mask & STATX_MNT_ID) &&
	    dx.stx_mnt_id == fx.stx_mnt_id)
		return 0;
	char gdir[PATH_MAX], stack[PATH_MAX];
	snprintf(gdir, sizeof(gdir), "%s", strlen(g->path) > rl ? g->path + rl : "/");
	s = strrchr(gdir, '/');
	if (s)
		s[s == gdir ? 1 : 0] = '\0';
	int r = mnt && s ? ghost_over(c, fx.stx_mnt_id, gdir, rp, g, stack, sizeof(stack), e) : 1;
	if (r <= 0) {
		for (size_t i = 0; !r && i < g->n_over; i++)
			pr_info("%s: ghost %s is under the mount on %s: made beneath it\n", what, g->path,
				g->over[i]);
		return r;
	}
	if (r == 2)
		return cr_fail(
		    e,
		    "not supported: %s is a deleted %s (%s) whose mount another mount is stacked on "
		    "since (on %s): a restore cannot reach a mount below another on the same point "
		    "to make its ghost there",
		    what, S_ISDIR(st->st_mode) ? "directory" : "file", name, stack);
	return cr_fail(
	    e,
	    "not supported yet: %s is a deleted %s (%s) whose directory %s is on another filesystem "
	    "now, and not for a mount over its path (its own mount gone or a symlink on the way): its "
	    "ghost would be made there",
	    what, S_ISDIR(st->st_mode) ? "directory" : "file", name, p);
}

bool dump_ghost_file_handles(void)
{
	/* (the initial user namespace: the identity map of every id; a namespace of another's has less) */
	__cleanup_fclose FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long in, out, n;
	return cr_has_cap(CAP_DAC_READ_SEARCH) && f && fscanf(f, "%lu %lu %lu", &in, &out, &n) == 3 && !in &&
	       !out && n == 4294967295ul && fscanf(f, "%lu", &in) != 1;
}

int dump_ghost_add(struct dump_ctx *c, const char *src, const struct stat *st, const char *name,
		   const char *what, uint32_t *id, struct cr_err *e)
{
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISCHR(st->st_mode) &&
	    !S_ISBLK(st->st_mode) && !S_ISLNK(st->st_mode) && !S_ISFIFO(st->st_mode) &&
	    !S_ISSOCK(st->st_mode))
		return cr_fail(e, "%s is a deleted special file (%s), not supported yet", what, name);
	if (node_refused(c, src, st, name, what, e))
		return -1;
	struct dump_ghosts *d = ghosts_of(c);
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < d->n; i++)
		if (d->g[i]->dev == (uint64_t)st->st_dev && d->g[i]->ino == (uint64_t)st->st_ino) {
			*id = d->g[i]->id;
			return 0;
		}
	GhostFileEntry **ng = realloc(d->g, (d->n + 1) * sizeof(void *));
	GhostFileEntry *g = calloc(1, sizeof(*g));
	if (ng)
		d->g = ng;
	if (!ng || !g) {
		free(g);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	ghost_file_entry__init(g);
	g->id = (uint32_t)d->n + 1, g->has_id = 1;
	if (new_ghost(c, src, st, name, what, g, e) || hidden_over(c, src, st, name, what, g, e)) {
		ghost_entry_free(g);
		return -1;
	}
	/* a regular file or a directory held O_NOFOLLOW by a process of the tree, maybe a later one than c's,
	 * whose fds the restore has not read when c's make the ghost (zdtm ghost_nofollow_file2) */
	if ((S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) && held_in_tree(c, st, O_NOFOLLOW, O_NOFOLLOW))
		g->nofollow = g->has_nofollow = 1;
	d->g[d->n++] = g;
	*id = g->id;
	return 0;
}

const char *dump_ghost_made_at(const struct dump_ctx *c, uint32_t id)
{
	const struct dump_ghosts *d = c->ghosts;
	if (!d || id < 1 || id > d->n)
		return NULL;
	const GhostFileEntry *g = d->g[id - 1];
	for (size_t i = 0; c->tree && i < c->ntree && &c->tree[i] != c; i++) {
		const struct dump_ghosts *o = c->tree[i].ghosts;
		for (size_t j = 0; o && j < o->n; j++)
			if (o->g[j]->dev == g->dev && o->g[j]->ino == g->ino)
				return o->g[j]->path;
	}
	return g->path;
}

int dump_ghost_cwd(struct dump_ctx *c, char *cwd, uint32_t *id, struct cr_err *e)
{
	static const char suf[] = " (deleted)";
	size_t l = strlen(cwd), s = sizeof(suf) - 1;
	char src[64];
	struct stat st;
	*id = 0;
	if (l <= s || strcmp(cwd + l - s, suf))
		return 0;
	snprintf(src, sizeof(src), "/proc/%d/cwd", c->pid);
	if (stat(src, &st))
		return cr_fail_sys(e, "stat %s", src);
	if (!S_ISDIR(st.st_mode) || st.st_nlink) /* a live directory named "... (deleted)" */
		return 0;
	if (dump_ghost_add(c, src, &st, cwd, "cwd", id, e))
		return -1;
	cwd[l - s] = '\0';
	return 0;
}

/* One ghost: records of at most GHOST_RECORD_DATA bytes of chunks, all with its id and fields. */
static int write_ghost(struct img_writer *w, GhostFileEntry *g, struct cr_err *e)
{
	GhostChunk **all = g->chunks;
	size_t n = g->n_chunks, i = 0;
	int ret = 0;
	do {
		size_t j = i, bytes = 0;
		while (j < n && (j == i || bytes + all[j]->data.len <= GHOST_RECORD_DATA))
			bytes += all[j++]->data.len;
		g->chunks = all + i, g->n_chunks = j - i;
		ret = img_write(w, &g->base, e);
		i = j;
	} while (!ret && i < n);
	g->chunks = all, g->n_chunks = n;
	return ret;
}

int dump_ghost_write(struct dump_ctx *c, struct cr_err *e)
{
	struct dump_ghosts *d = c->ghosts;
	struct img_writer *w = NULL;
	if (!d || !d->n)
		return 0;
	if (img_create(c->dirfd, IMG_GHOST, c->pid, &w, e))
		return -1;
	for (size_t i = 0; i < d->n; i++)
		if (write_ghost(w, d->g[i], e)) {
			img_abort(w);
			return -1;
		}
	if (img_commit(w, e))
		return -1;
	return dump_created(c, IMG_GHOST, c->pid, e);
}
