/* Restore of ghost files (see ghost.h), in crshim before the tasks are made: each ghost of ghost-PID.img is
 * created again (at its old path if that is free, else next to it as PATH.crshim-ghost.PID.ID) with its
 * data, size, owner and mode, and unlinked at once (one that an fd opens again on another mount, ghost_mnt,
 * once every process has its fds: file-reg.c links it again at that fd's deleted name meanwhile); crshim
 * keeps it open until the restore ends. The deleted files of files.img and the mappings of deleted files in
 * mm-PID.img get "/proc/CRSHIM/fd/N" as path. A ghost (dev, ino) that an earlier process of the tree has too
 * is that process's ghost again: one inode. */
#define LOG_PREFIX "restore-ghost: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <sys/xattr.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/late-fds.h"
#include "files/ghost.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/scm.h"
#include "restore.h"

struct rst_ghost {
	uint32_t id;
	uint64_t dev, ino; /* at dump */
	int fd;
	int wfd;       /* a file made through a writable copy of its read-only mount: written there, -1 */
	char path[64]; /* /proc/CRSHIM/fd/N */
	bool dir;      /* a removed directory */
	bool node;     /* a device node or a symlink (opened O_PATH) */
	bool link;     /* a symlink: each task makes its own again (rst_ghost_open) */
	bool has_times;
	bool shared; /* the ghost of an earlier process of the tree (its fd dup'ed): made and filled there */
	bool late; /* made in the tree's own mount tree once it stands (rst_ghost_late); fd is kept for it */
	bool made;
	bool early;   /* a late one made before the mount tree stood, in crshim's view (rst_ghost_early) */
	int kept_dir; /* a late file an fd opens again on another mount (ghost_mnt): its name stays */
	char kept_name[256]; /* there (kept_dir) till every process has its fds (rst_ghost_unlink_kept) */
	/* its directories made again (removed too), kept with its name (malloc'ed; rst_ghost_unlink_kept) */
	char (*kept_dirs)[4096];
	int n_kept_dirs;
	struct timespec times[2]; /* a file's atime, mtime: set once its data is in */
};

static struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / 1000000000ull),
				 .tv_nsec = (long)(ns % 1000000000ull)};
}

/* A deleted device node (made with mknod) or symlink: held by an O_PATH fd (opened again through /proc by
 * the task: the magic link leads to the node or the symlink itself). */
static int make_node(const GhostFileEntry *g, const char *path)
{
	if (g->symlink ? symlink(g->symlink, path) : mknod(path, (g->mode & S_IFMT) | 0600, (dev_t)g->rdev))
		return -1;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if ((g->has_uid && lchown(path, g->uid, g->gid)) ||
	    (!g->symlink && g->has_mode && chmod(path, g->mode & 07777))) {
		int err = errno;
		close(fd);
		unlink(path);
		errno = err;
		return -1;
	}
	if (g->has_atime_ns && g->has_mtime_ns) {
		struct timespec ts[2] = {ns_to_ts(g->atime_ns), ns_to_ts(g->mtime_ns)};
		utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW); /* best effort: times only */
	}
	return fd;
}

static int ghost_open(const GhostFileEntry *g, const char *path, int fl)
{
	return g->has_rdev || g->symlink ? make_node(g, path) : open(path, fl, 0600);
}

static struct rst_ghost *find_ghost(struct rst_task *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr_ghosts; i++)
		if (t->ghosts[i].id == id)
			return &t->ghosts[i];
	return NULL;
}

/* Does an fd of ts[0..n) hold the regular ghost (or removed directory) g with O_NOFOLLOW? Its /proc magic
 * link refuses that flag, so its name is kept till every process has its fds (a directory's when crshim may
 * not open it by its handle: dir_kept), and the fd opens it again by that name
 * (rst_ghost_nofollow). The dump says so (g->nofollow) for an fd of any process of the tree, also a later
 * one, whose images are not loaded when this one's make the ghost (zdtm ghost_nofollow_file2); an older
 * image does not: a late ghost is found by its inode (every ghost of the tree is known), one made while the
 * task's images load (n 1) by its id among that task's fds. */
static bool nofollow_held(const struct rst_task *ts, size_t n, const GhostFileEntry *g)
{
	if (!S_ISREG(g->mode) && !S_ISDIR(g->mode))
		return false;
	if (g->has_nofollow && g->nofollow)
		return true;
	for (size_t i = 0; ts && i < n; i++)
		for (size_t k = 0; k < ts[i].nr_files; k++) {
			const RegFileEntry *r = ts[i].files[k]->reg;
			if (!r || !r->has_ghost_id || !(r->flags & O_NOFOLLOW))
				continue;
			const struct rst_ghost *rg = find_ghost((struct rst_task *)&ts[i], r->ghost_id);
			if ((rg && rg->dev == g->dev && rg->ino == g->ino) ||
			    (n == 1 && r->ghost_id == g->id))
				return true;
		}
	return false;
}

#define GHOST_MAX_DIRS 16

/* The directories of path that are missing (removed after the file was unlinked) are made (0700) and
 * listed in dirs, deepest last; rmdirs removes them again. */
static void make_dirs(const char *path, char dirs[][4096], int *n)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s && *n < GHOST_MAX_DIRS; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!mkdir(p, 0700))
			snprintf(dirs[(*n)++], sizeof(dirs[0]), "%s", p);
		*s = '/';
	}
}

static void rmdirs(char dirs[][4096], int n)
{
	while (n-- > 0)
		rmdir(dirs[n]);
}

static void ghost_done(const GhostFileEntry *g, struct rst_ghost *rg, int fd, const char *made)
{
	rg->fd = fd;
	rg->id = g->id;
	rg->dev = g->dev, rg->ino = g->ino;
	snprintf(rg->path, sizeof(rg->path), "/proc/%d/fd/%d", (int)getpid(), fd);
	if (made)
		pr_info("ghost %u: %s made again as %s, size %llu, mode %#o\n", g->id, g->path, made,
			(unsigned long long)g->size, g->mode);
}

/* A tree with its own mount tree: its ghost is made there once that stands (rst_ghost_late); until then
 * an fd number is kept for it, so that its path is known now. */
static int reserve_ghost(const GhostFileEntry *g, struct rst_ghost *rg, struct cr_err *e)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "keep an fd for the deleted file %s", g->path);
	rg->late = true;
	rg->dir = S_ISDIR(g->mode);
	rg->node = g->has_rdev || g->symlink;
	rg->link = g->symlink;
	ghost_done(g, rg, fd, NULL);
	pr_info("ghost %u: %s is made in the tree's mount tree once it stands, at fd %d\n", g->id, g->path,
		fd);
	return 0;
}

/* A detached copy of the mount of path's directory, rooted there and made writable (a read-only mount of a
 * writable filesystem, CRIU's ghost_on_rofs); *name: path's last part. -1 with errno EROFS if there is none.
 * path starts with root: "", /proc/PID/root, or /proc/self/fd/N (crshim's fd of a directory of the tree's
 * mount tree beneath a mount over it: create_over), which the copy is taken from. ns: "" or /proc/PID/root,
 * whose mount namespace crshim enters for it (a mount is copied only in its own namespace). */
static int rw_copy(const char *ns, const char *root, const char *path, const char **name)
{
	char dir[4096];
	int pid = 0, self = -1, cwd = -1, m = -1, at = AT_FDCWD, off = 0;
	struct cr_err e = {0};
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return errno = EROFS, -1;
	*slash = '\0';
	*name = path + (slash - dir) + 1;
	struct mount_attr rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	/* (in there, /proc/self may not be crshim's: the fd itself) */
	if (sscanf(root, "/proc/self/fd/%d%n", &at, &off) != 1 || (size_t)off != strlen(root))
		at = AT_FDCWD, off = 0;
	if (sscanf(ns, "/proc/%d/root", &pid) != 1 || !proc_mntns_enter(pid, &self, &cwd, &e)) {
		/* in there, its root is the tree's root: the path below it */
		const char *in = (pid || at != AT_FDCWD) && *dir ? dir + strlen(root) : dir;
		in += at != AT_FDCWD && *in == '/';
		m = (int)syscall(SYS_open_tree, at, *in || at != AT_FDCWD ? in : "/",
				 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (*in ? 0 : AT_EMPTY_PATH));
		if (m >= 0 && syscall(SYS_mount_setattr, m, "", AT_EMPTY_PATH, &rw, sizeof(rw))) {
			close(m);
			m = -1;
		}
	}
	if (proc_mntns_leave(self, cwd, &e)) /* (crshim's own namespace: cannot fail) */
		pr_err("%s\n", e.msg);
	return m < 0 ? (errno = EROFS, -1) : m;
}

/* Unlink path, in m (rw_copy of its directory's mount) if m >= 0 */
static int unlink_in(int m, const char *path)
{
	const char *slash = strrchr(path, '/');
	return m < 0 || !slash ? unlink(path) : unlinkat(m, slash + 1, 0);
}

/* A file on a read-only mount: made through a writable copy of it (*m, *wfd: its writable open, to fill
 * it), held by a read-only open on the mount itself, so that its path is as before. */
static int create_on_ro(const char *ns, const char *root, const char *path, int fl, int *m, int *wfd)
{
	const char *name;
	if ((*m = rw_copy(ns, root, path, &name)) < 0 || (*wfd = openat(*m, name, fl, 0600)) < 0)
		return -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		unlinkat(*m, name, 0);
		errno = err;
	}
	pr_info("%s is on a read-only mount: made through a writable copy of it\n", path);
	return fd;
}

/* The file's extended attributes (after owner and mode: an ACL sets the group bits again; the data written
 * afterwards only drops a security.capability). *bad: the name of the one that failed. */
static int set_xattrs(int fd, const GhostFileEntry *g, const char **bad)
{
	for (size_t i = 0; i < g->n_xattrs; i++) {
		const GhostXattr *x = g->xattrs[i];
		if (!x->name ||
		    fsetxattr(fd, x->name, x->value.data ? (const void *)x->value.data : "", x->value.len, 0))
			return (errno = x->name ? errno : EBADMSG), (*bad = x->name ? x->name : "?"), -1;
	}
	return 0;
}

/* The directories made again for the ghost rg (removed too) kept with its name: listed in rg (NULL: out of
 * memory, then removed at once), removed by rst_ghost_unlink_kept */
static bool keep_dirs(struct rst_ghost *rg, char dirs[][4096], int n)
{
	if (!n || !(rg->kept_dirs = malloc((size_t)n * sizeof(*rg->kept_dirs))))
		return !n;
	memcpy(rg->kept_dirs, dirs, (size_t)n * sizeof(*rg->kept_dirs));
	rg->n_kept_dirs = n;
	return true;
}

/* rg's name path (when keep) and the directories made again for it stay till every process has its fds
 * (rst_ghost_unlink_kept): rg->kept_dir (-1: not kept), kept_name, kept_dirs. Kept? */
static bool keep_name(struct rst_ghost *rg, bool keep, const char *path, char dirs[][4096], int ndirs)
{
	const char *slash = strrchr(path, '/');
	rg->kept_dir = -1;
	rg->kept_dirs = NULL, rg->n_kept_dirs = 0;
	if (!keep || !slash || strlen(slash + 1) >= sizeof(rg->kept_name))
		return false;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	rg->kept_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(rg->kept_name, sizeof(rg->kept_name), "%s", slash + 1);
	if (rg->kept_dir >= 0 && !keep_dirs(rg, dirs, ndirs)) {
		close(rg->kept_dir);
		rg->kept_dir = -1;
	}
	return rg->kept_dir >= 0;
}

/* root: "" (crshim's view), or /proc/PID/root of the tree's root task (its mount tree), or /proc/self/fd/N
 * (beneath a mount over it, create_over; ns: that root). keep: its name stays till every process has its fds
 * (1: when its directory is there; 2: also in its directories made again, its directory removed too). */
static int create_ghost(const GhostFileEntry *g, struct rst_ghost *rg, const char *ns, const char *root,
			int keep, struct cr_err *e)
{
	static char dirs[GHOST_MAX_DIRS][4096];
	int ndirs = 0, w = -1;
	char path[4096], at[4000];
	const int fl = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	__cleanup_close int m = -1; /* a writable copy of its read-only mount (w: the file there) */
	snprintf(at, sizeof(at), "%s%s", root, g->path);
	snprintf(path, sizeof(path), "%s", at);
	int fd = ghost_open(g, path, fl);
	if (fd < 0 && errno == ENOENT && g->path[0] == '/') { /* its directory was removed too */
		make_dirs(at, dirs, &ndirs);
		fd = ghost_open(g, path, fl);
	}
	if (fd < 0 && errno == EEXIST) {
		snprintf(path, sizeof(path), "%s.crshim-ghost.%d.%u", at, (int)getpid(), g->id);
		fd = ghost_open(g, path, fl);
	}
	if (fd < 0 && errno == EROFS && !g->has_rdev && !g->symlink)
		fd = create_on_ro(ns, root, path, fl, &m, &w);
	if (fd < 0) {
		int err = errno;
		if (w >= 0)
			close(w);
		rmdirs(dirs, ndirs);
		return cr_fail_errno(e, err, "make the deleted file %s again (as %s)", g->path, path);
	}
	int wr = w >= 0 ? w : fd;
	rg->node = g->has_rdev || g->symlink;
	rg->link = g->symlink;
	rg->has_times = !rg->node && g->has_atime_ns && g->has_mtime_ns;
	if (rg->has_times)
		rg->times[0] = ns_to_ts(g->atime_ns), rg->times[1] = ns_to_ts(g->mtime_ns);
	const char *xa = NULL;
	if (!rg->node &&
	    ((g->has_uid && fchown(wr, g->uid, g->gid)) || (g->has_mode && fchmod(wr, g->mode & 07777)) ||
	     ftruncate(wr, (off_t)g->size) || set_xattrs(wr, g, &xa))) {
		int err = errno;
		close(fd);
		unlink_in(m, path);
		rmdirs(dirs, ndirs);
		if (w >= 0)
			close(w);
		if (xa)
			return cr_fail_errno(e, err, "deleted file %s (made as %s): extended attribute %s",
					     g->path, path, xa);
		return cr_fail_errno(e, err, "deleted file %s (made as %s): owner, mode or size", g->path,
				     path);
	}
	keep_name(rg, keep && m < 0 && (!ndirs || keep > 1), path, dirs, ndirs);
	int un = rg->kept_dir >= 0 ? 0 : unlink_in(m, path), err = errno;
	if (rg->kept_dir < 0)
		rmdirs(dirs, ndirs);
	if (un) {
		close(fd);
		if (w >= 0)
			close(w);
		return cr_fail_errno(e, err, "unlink %s (the deleted file %s made again)", path, g->path);
	}
	ghost_done(g, rg, fd, path);
	rg->wfd = w;
	return 0;
}

/* The same ghost (dev and ino at dump) made for another process of the tree already (a shared cwd, a file
 * each opened on its own, an inherited fd): one inode for both, so that their writes meet as before. 1 if
 * shared, 0 if not, -1 on error. */
static int share_ghost(const struct rst_task *t, const GhostFileEntry *g, struct rst_ghost *rg)
{
	for (size_t i = 0; i < t->ntree; i++)
		for (size_t j = 0; &t->tree[i] != t && j < t->tree[i].nr_ghosts; j++) {
			const struct rst_ghost *o = &t->tree[i].ghosts[j];
			if (o->dev != g->dev || o->ino != g->ino || o->dir != S_ISDIR(g->mode))
				continue;
			int fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 3);
			if (fd < 0)
				return -1;
			rg->node = o->node;
			rg->link = o->link;
			rg->dir = o->dir;
			ghost_done(g, rg, fd, o->path);
			return 1;
		}
	return 0;
}

void rst_times_ns(struct timespec ts[2], bool has_atime, uint64_t atime_ns, bool has_mtime, uint64_t mtime_ns)
{
	ts[0] = ns_to_ts(atime_ns), ts[1] = ns_to_ts(mtime_ns);
	if (!has_atime)
		ts[0].tv_nsec = UTIME_OMIT;
	if (!has_mtime)
		ts[1].tv_nsec = UTIME_OMIT;
}

static void set_times(int fd, const GhostFileEntry *g)
{
	struct timespec ts[2];
	rst_times_ns(ts, g->has_atime_ns, g->atime_ns, g->has_mtime_ns, g->mtime_ns);
	if (futimens(fd, ts))
		pr_warn("ghost %u: set the times of %s: %s\n", g->id, g->path, strerror(errno));
}

/* The removed directory fd made again, held O_NOFOLLOW (keep), has a handle that crshim may not open (an
 * unprivileged restore: open_by_handle_at wants CAP_DAC_READ_SEARCH), so the fd that holds it opens it by its
 * name (rst_ghost_nofollow) when its "." is closed to it (no search permission there): that is kept till
 * every process has its fds. (On a filesystem without handles it is not: the dump said that it is restored
 * without O_NOFOLLOW if the restore may not search it, files/file-reg.c nofollow_lost.) */
static bool dir_kept(int fd, bool keep)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	int mid;
	if (!keep)
		return false;
	if (name_to_handle_at(fd, "", &fh.h, &mid, AT_EMPTY_PATH))
		return false;
	int o = open_by_handle_at(fd, &fh.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o < 0)
		return true;
	close(o);
	return false;
}

/* A removed directory: made again (at its old path if free, else next to it), opened and removed (keep: its
 * name and the directories made again for it kept when dir_kept says). */
static int create_ghost_dir(const GhostFileEntry *g, struct rst_ghost *rg, const char *root, bool keep,
			    struct cr_err *e)
{
	static char dirs[GHOST_MAX_DIRS][4096];
	int ndirs = 0, err;
	char path[4096], at[4000];
	rg->dir = true;
	snprintf(at, sizeof(at), "%s%s", root, g->path);
	snprintf(path, sizeof(path), "%s", at);
	int r = mkdir(path, 0700);
	if (r && errno == ENOENT && g->path[0] == '/') { /* its parent was removed too */
		make_dirs(at, dirs, &ndirs);
		r = mkdir(path, 0700);
	}
	if (r && errno == EEXIST) {
		snprintf(path, sizeof(path), "%s.crshim-ghost.%d.%u", at, (int)getpid(), g->id);
		r = mkdir(path, 0700);
	}
	if (r) {
		err = errno;
		rmdirs(dirs, ndirs);
		return cr_fail_errno(e, err, "make the removed directory %s again (as %s)", g->path, path);
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (g->has_uid && fchown(fd, g->uid, g->gid)) ||
	    (g->has_mode && fchmod(fd, g->mode & 07777))) {
		err = errno;
		if (fd >= 0)
			close(fd);
		rmdir(path);
		rmdirs(dirs, ndirs);
		return cr_fail_errno(e, err, "removed directory %s (made as %s): open, owner or mode",
				     g->path, path);
	}
	set_times(fd, g);
	if (keep_name(rg, dir_kept(fd, keep), path, dirs, ndirs)) {
		pr_info("ghost %u: %s kept till every process has its fds (O_NOFOLLOW, no handle)\n", g->id,
			path);
		ghost_done(g, rg, fd, path);
		return 0;
	}
	r = rmdir(path), err = errno;
	rmdirs(dirs, ndirs);
	if (r) {
		close(fd);
		return cr_fail_errno(e, err, "rmdir %s (the removed directory %s made again)", path, g->path);
	}
	ghost_done(g, rg, fd, path);
	return 0;
}

/* Is p a path of names: no "." or ".." part, no empty one ("//", a trailing "/"), abs: starting with "/"?
 * (The dump writes the kernel's names of the files, which have none; a ghost's path with a ".." would lead
 * the restore out of the directory it names.) */
static bool plain_path(const char *p, bool abs)
{
	if (!*p || (abs && *p != '/'))
		return false;
	for (p += *p == '/'; *p; p += *p == '/') {
		size_t l = strcspn(p, "/");
		if (!l || (p[0] == '.' && (l == 1 || (l == 2 && p[1] == '.'))) || (p[l] == '/' && !p[l + 1]))
			return false;
		p += l;
	}
	return true;
}

/* g's path and the mounts over it (g->over) are plain paths (plain_path): 0, else -1 (e, one line) */
static int ghost_paths_ok(const GhostFileEntry *g, struct cr_err *e)
{
	if (!plain_path(g->path, false))
		return cr_fail_errno(e, EBADMSG, "ghost %u: its path %s has a \".\", \"..\" or empty part",
				     g->id, g->path);
	for (size_t i = 0; i < g->n_over; i++)
		if (!g->over[i] || !plain_path(g->over[i], true) || g->path[0] != '/')
			return cr_fail_errno(
			    e, EBADMSG,
			    "ghost %u (%s): the mount over it on %s is not an absolute path without a "
			    "\".\", \"..\" or empty part",
			    g->id, g->path, g->over[i] ? g->over[i] : "?");
	return 0;
}

/* dir x's entry c, a mount point another mount covers: that directory itself, on x's mount (a clone of that
 * mount shows it: opened again there by its handle, with x as the mount). -1 with errno. */
static int step_beneath(int x, const char *c)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	int mid;
	__cleanup_close int cl =
	    (int)syscall(SYS_open_tree, x, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (cl < 0 || name_to_handle_at(cl, c, &fh.h, &mid, 0))
		return -1;
	return open_by_handle_at(x, &fh.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static bool listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* The deepest directory of g's path there is, looked up from the root as its process would, but beneath each
 * mount it meets at one of g->over (the mounts over it since: step_beneath), so on g's own mount: fd, and
 * *rest the part of g's path below it (its last part, more if directories of it were removed too); -1 (e). In
 * the mount namespace of PID (root /proc/PID/root, else crshim's), where that mount may be cloned. From that
 * namespace's root (crshim's, else), not the process's: g's path and g->over are in that frame, as crshim
 * read its /proc links at dump, and as fs-PID.img has the root that a chrooted process gets later
 * (dump-ghost.c ghost_over; zdtm ghost_mnt_overmount_chroot). */
static int beneath_over(const GhostFileEntry *g, const char *root, const char **rest, struct cr_err *e)
{
	int pid = 0, self = -1, cwd = -1, x = -1;
	char at[4096];
	*rest = g->path;
	if (sscanf(root, "/proc/%d/root", &pid) == 1 && proc_mntns_enter(pid, &self, &cwd, e))
		goto out;
	if ((x = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		cr_fail_sys(e, "ghost %u: open / for %s", g->id, g->path);
	const char *p = g->path + strspn(g->path, "/"), *end = strrchr(p, '/');
	while (x >= 0 && end && p < end) {
		size_t l = strcspn(p, "/");
		char c[NAME_MAX + 1];
		struct statx sx;
		snprintf(c, sizeof(c), "%.*s", (int)l, p);
		snprintf(at, sizeof(at), "%.*s", (int)(p + l - g->path), g->path);
		int y = openat(x, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (y < 0 && errno == ENOENT) /* removed too: made again there */
			break;
		if (y >= 0 && listed(g->over, g->n_over, at) && !statx(y, "", AT_EMPTY_PATH, 0, &sx) &&
		    (sx.stx_attributes_mask & sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
			close(y);
			if ((y = step_beneath(x, c)) >= 0)
				pr_info("ghost %u: %s beneath the mount on it\n", g->id, at);
		}
		if (y < 0) {
			cr_fail_sys(e, "ghost %u: look %s up beneath the mounts over it", g->id, at);
			close(x);
			x = -1;
			break;
		}
		close(x);
		x = y;
		p += l + strspn(p + l, "/");
	}
	*rest = p;
out:
	if (proc_mntns_leave(self, cwd, e)) { /* (crshim's own namespace: cannot fail) */
		if (x >= 0)
			close(x);
		return -1;
	}
	return x;
}

/* g made again (create_ghost, create_ghost_dir; keep as they take it) on its own mount, beneath the mounts
 * over its directory (g->over), through its directory there opened before (beneath_over). */
static int create_over(const GhostFileEntry *g, struct rst_ghost *rg, const char *root, int keep,
		       struct cr_err *e)
{
	const char *rest;
	if (ghost_paths_ok(g, e))
		return -1;
	if (!g->n_over)
		return S_ISDIR(g->mode) ? create_ghost_dir(g, rg, root, keep, e)
					: create_ghost(g, rg, root, root, keep, e);
	__cleanup_close int d = beneath_over(g, root, &rest, e);
	if (d < 0)
		return -1;
	char in[64], path[4096];
	GhostFileEntry h = *g; /* its path below d */
	snprintf(in, sizeof(in), "/proc/self/fd/%d", d);
	snprintf(path, sizeof(path), "/%s", rest);
	h.path = path;
	int r = S_ISDIR(g->mode) ? create_ghost_dir(&h, rg, in, keep, e)
				 : create_ghost(&h, rg, root, in, keep, e);
	if (r)
		return cr_wrap(e, "%s beneath the mounts over it", g->path);
	return 0;
}

static int fill_ghost(const GhostFileEntry *g, const struct rst_ghost *rg, struct cr_err *e)
{
	for (size_t i = 0; i < g->n_chunks; i++) {
		const GhostChunk *c = g->chunks[i];
		if (c->off + c->data.len > g->size)
			return cr_fail_errno(e, EBADMSG, "ghost-%u: data beyond the file size", g->id);
		for (size_t done = 0; done < c->data.len;) {
			ssize_t w = pwrite(rg->wfd >= 0 ? rg->wfd : rg->fd, c->data.data + done,
					   c->data.len - done, (off_t)(c->off + done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return cr_fail_sys(e, "write the deleted file %s again", g->path);
			done += (size_t)w;
		}
	}
	return 0;
}

/* one record of ghost-PID.img: a new ghost, or more data of one made already */
static int make_ghost(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	struct rst_task *t = arg;
	GhostFileEntry *g = (GhostFileEntry *)m;
	struct rst_ghost *rg = g->has_id ? find_ghost(t, g->id) : NULL;
	int ret = 0;
	if (!rg && g->path && g->has_id && g->has_size) {
		if (ghost_paths_ok(g, e))
			return cr_wrap(e, "ghost-%d.img", t->pid);
		struct rst_ghost *ng = realloc(t->ghosts, (t->nr_ghosts + 1) * sizeof(*ng));
		if (!ng)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		t->ghosts = ng;
		rg = &ng[t->nr_ghosts];
		rg->fd = rg->wfd = rg->kept_dir = -1;
		rg->dir = rg->node = rg->link = rg->has_times = rg->shared = rg->late = rg->made = rg->early =
		    false;
		ret = share_ghost(t, g, rg);
		if (ret < 0)
			ret = cr_fail_sys(e, "ghost %u: share the deleted file %s of another process", g->id,
					  g->path);
		else if (ret > 0) /* its data is written by its first owner (dumped frozen: the same) */
			rg->shared = true, rg->late = t->paths_later, ret = 0;
		else if (t->paths_later || t->dry) /* dry (restore-check.c): named only, not made */
			ret = reserve_ghost(g, rg, e);
		else
			ret =
			    create_over(g, rg, "", nofollow_held(t, 1, g) ? S_ISDIR(g->mode) ? 1 : 2 : 0, e);
		if (rg->fd >= 0)
			t->nr_ghosts++;
	} else if (!rg) {
		return cr_fail_errno(e, EBADMSG, "ghost-%d.img: an entry without id, path or size", t->pid);
	}
	return ret ? -1 : rg->shared || rg->late ? 0 : fill_ghost(g, rg, e);
}

/* The ghost of an earlier process of the tree that rg shares (made already). */
static const struct rst_ghost *ghost_owner(const struct rst_task *t, const struct rst_ghost *rg)
{
	for (size_t i = 0; i < t->ntree && &t->tree[i] != t; i++)
		for (size_t j = 0; j < t->tree[i].nr_ghosts; j++) {
			const struct rst_ghost *o = &t->tree[i].ghosts[j];
			if (!o->shared && o->dev == rg->dev && o->ino == rg->ino && o->dir == rg->dir)
				return o;
		}
	return NULL;
}

struct late_arg {
	struct rst_task *t;
	const char *root;
	uint32_t only; /* this ghost only (made early, in crshim's view), 0: every one not made early */
	const struct rst_task *ts; /* the tree (NULL: its ghosts' names go at once) */
	size_t n;
};

/* Does an fd of the tree open the ghost of inode (dev, ino) again on another mount (ghost_mnt)? Then its
 * name stays till every process has its fds: linked there again for the open (file-reg.c), it is named as
 * before. 2 if one opens it so by its own name through a directory of it seen on its mount (ghost_via):
 * the ghost's directories made again (removed too) stay with it; 1 else; 0 if none. */
static int rehomed(const struct rst_task *ts, size_t n, uint64_t dev, uint64_t ino)
{
	int how = 0;
	for (size_t i = 0; ts && i < n; i++)
		for (size_t k = 0; k < ts[i].nr_files; k++) {
			const RegFileEntry *r = ts[i].files[k]->reg;
			const struct rst_ghost *rg = r && r->ghost_mnt && !r->ghost_copy && r->has_ghost_id
							 ? find_ghost((struct rst_task *)&ts[i], r->ghost_id)
							 : NULL;
			if (rg && rg->dev == dev && rg->ino == ino)
				how = r->ghost_via ? 2 : how ? how : 1;
		}
	return how;
}

/* A ghost's name kept till every process has its fds, and the directories made again for it: gone. */
static void drop_kept(struct rst_ghost *rg)
{
	if (rg->kept_dir < 0)
		return;
	if (unlinkat(rg->kept_dir, rg->kept_name, rg->dir ? AT_REMOVEDIR : 0))
		pr_warn("ghost %u: unlink %s: %s\n", rg->id, rg->kept_name, strerror(errno));
	close(rg->kept_dir);
	rg->kept_dir = -1;
	for (int k = rg->n_kept_dirs; k-- > 0;)
		if (rmdir(rg->kept_dirs[k]))
			pr_warn("ghost %u: rmdir %s (made again): %s\n", rg->id, rg->kept_dirs[k],
				strerror(errno));
	free(rg->kept_dirs);
	rg->kept_dirs = NULL, rg->n_kept_dirs = 0;
}

/* one record of ghost-PID.img again, for a tree whose ghosts are made late: make it at its kept fd */
static int make_late(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	const struct late_arg *la = arg;
	const GhostFileEntry *g = (const GhostFileEntry *)m;
	struct rst_ghost *rg = g->has_id ? find_ghost(la->t, g->id) : NULL;
	if (!rg)
		return cr_fail_errno(e, EBADMSG, "ghost-%d.img changed: no ghost %u", la->t->pid, g->id);
	if ((la->only && g->id != la->only) || (!la->only && rg->early))
		return 0;
	rg->early = la->only != 0;
	if (rg->made || rg->shared) {
		if (rg->shared && !rg->made) {
			const struct rst_ghost *o = ghost_owner(la->t, rg);
			if (!o || dup3(o->fd, rg->fd, O_CLOEXEC) < 0)
				return cr_fail_sys(e,
						   "ghost %u: share the deleted file %s of another process",
						   g->id, g->path);
			rg->made = true;
		}
		return rg->shared ? 0 : fill_ghost(g, rg, e);
	}
	struct rst_ghost n = *rg;
	bool nf = nofollow_held(la->ts, la->n, g);
	if (create_over(g, &n, la->root,
			S_ISDIR(g->mode) ? nf
			: nf		 ? 2
					 : rehomed(la->ts, la->n, g->dev, g->ino),
			e))
		return -1;
	int r = dup3(n.fd, rg->fd, O_CLOEXEC), err = errno;
	close(n.fd);
	if (r < 0) {
		drop_kept(&n); /* (not rg's yet: rst_ghost_unlink_kept would not see them) */
		return cr_fail_errno(e, err, "ghost %u: put %s at fd %d", g->id, g->path, rg->fd);
	}
	rg->made = true;
	rg->wfd = n.wfd;
	rg->kept_dir = n.kept_dir;
	memcpy(rg->kept_name, n.kept_name, sizeof(rg->kept_name));
	rg->kept_dirs = n.kept_dirs, rg->n_kept_dirs = n.n_kept_dirs;
	rg->has_times = n.has_times;
	memcpy(rg->times, n.times, sizeof(rg->times));
	return fill_ghost(g, rg, e);
}

/* A string field of a record in arena a (the task's: fs, mm in arena, files in farena; restore-load.c) set to
 * a copy of p there: the old string stays. */
static int set_path(struct img_arena *a, char **path, const char *p, struct cr_err *e)
{
	char *n = img_arena_strdup(a, p);
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (!a)
		free(*path);
	*path = n;
	return 0;
}

/* Deleted files, a removed cwd and mappings of deleted files: their ghost's path. */
static int point_at_ghosts(struct rst_task *t, struct cr_err *e)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		RegFileEntry *r = t->files[i]->reg;
		if ((t->files[i]->kind != FILE_KIND__FILE_REG && t->files[i]->kind != FILE_KIND__FILE_CHR) ||
		    !r || !r->deleted || !r->has_ghost_id)
			continue;
		const struct rst_ghost *rg = find_ghost(t, r->ghost_id);
		if (!rg)
			return cr_fail_errno(e, EBADMSG,
					     "file id %u: deleted file %s has no ghost %u in ghost-%d.img",
					     t->files[i]->id, r->path ? r->path : "?", r->ghost_id, t->pid);
		/* a symlink: its old name, where the task makes it again (rst_ghost_open) */
		if ((rg->link && set_path(t->farena, &r->deleted_name, r->path, e)) ||
		    set_path(t->farena, &r->path, rg->path, e))
			return -1;
	}
	for (size_t i = 0; i < t->nr_files; i++) /* inotify watches of removed files */
		for (size_t j = 0; t->files[i]->inotify && j < t->files[i]->inotify->n_wd; j++) {
			InotifyWdEntry *w = t->files[i]->inotify->wd[j];
			const struct rst_ghost *rg = w->has_ghost_id ? find_ghost(t, w->ghost_id) : NULL;
			if (w->has_ghost_id && (!rg || rg->dir || set_path(t->farena, &w->path, rg->path, e)))
				return rg ? -1
					  : cr_fail_errno(e, EBADMSG, "inotify watch of %s: no ghost %u",
							  w->path ? w->path : "?", w->ghost_id);
		}
	if (t->fs && t->fs->has_cwd_ghost_id) { /* a removed cwd */
		const struct rst_ghost *rg = find_ghost(t, t->fs->cwd_ghost_id);
		if (!rg || !rg->dir)
			return cr_fail_errno(e, EBADMSG, "removed cwd %s has no ghost directory %u",
					     t->fs->cwd ? t->fs->cwd : "?", t->fs->cwd_ghost_id);
		if (set_path(t->arena, &t->fs->cwd, rg->path, e))
			return -1;
	}
	for (size_t i = 0; t->mm && i < t->mm->n_vmas; i++) {
		VmaEntry *v = t->mm->vmas[i];
		if (!v->deleted || !v->has_ino || /* memfd mappings have no dev/ino: shmem objects */
		    (v->kind != VMA_KIND__VMA_FILE_PRIVATE && v->kind != VMA_KIND__VMA_FILE_SHARED))
			continue;
		const struct rst_ghost *rg = NULL;
		for (size_t j = 0; j < t->nr_ghosts && !rg; j++)
			if (t->ghosts[j].dev == v->dev && t->ghosts[j].ino == v->ino)
				rg = &t->ghosts[j];
		if (!rg)
			return cr_fail_errno(e, EBADMSG, "vma 0x%llx: mapped deleted file %s has no ghost",
					     (unsigned long long)v->start, v->path ? v->path : "?");
		if (set_path(t->arena, &v->path, rg->path, e))
			return -1;
		v->deleted = 0;
	}
	return 0;
}

/* a file's data is in: its times again */
static void set_file_times(const struct rst_task *t)
{
	for (size_t i = 0; i < t->nr_ghosts; i++)
		if (t->ghosts[i].has_times && (!t->ghosts[i].late || t->ghosts[i].made) &&
		    futimens(t->ghosts[i].wfd >= 0 ? t->ghosts[i].wfd : t->ghosts[i].fd, t->ghosts[i].times))
			pr_warn("ghost %u: cannot set its times again: %s\n", t->ghosts[i].id,
				strerror(errno));
}

int rst_host_proc = -1;
static pid_t host_proc_of; /* crshim, whose fds the ghosts' paths name */

int rst_ghost_prepare(struct rst_task *t, struct cr_err *e)
{
	if (img_each(t->dirfd, IMG_GHOST, t->pid, make_ghost, t, e))
		return -1;
	if (t->paths_later && rst_host_proc < 0) { /* (also for rst_self_proc_open: a tree without /proc) */
		rst_host_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rst_host_proc < 0)
			return cr_fail_sys(e, "open /proc");
		host_proc_of = getpid();
	}
	set_file_times(t);
	return point_at_ghosts(t, e);
}

int rst_ghost_late(struct rst_task *ts, size_t n, struct cr_err *e)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)ts[0].pid);
	for (size_t i = 0; i < n; i++) {
		struct late_arg la = {&ts[i], root, 0, ts, n};
		if (ts[i].nr_ghosts && img_each(ts[i].dirfd, IMG_GHOST, rst_ipid(&ts[i]), make_late, &la, e))
			return cr_wrap(e, "task %d", ts[i].pid);
		for (size_t j = 0; j < ts[i].nr_ghosts; j++)
			if (ts[i].ghosts[j].late && !ts[i].ghosts[j].made)
				return cr_fail_errno(e, EBADMSG,
						     "task %d: ghost-%d.img has no ghost %u any more",
						     rst_ipid(&ts[i]), rst_ipid(&ts[i]), ts[i].ghosts[j].id);
		set_file_times(&ts[i]);
		/* a root born in its user namespace takes them all (late-fds.h), its tree inherits them */
		for (size_t j = 0; j < ts[i].nr_ghosts; j++)
			if (late_fd_offer(ts[i].ghosts[j].fd))
				return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	return 0;
}

static int make_early(struct rst_task *t, struct rst_ghost *rg, struct cr_err *e)
{
	if (!rg->late || rg->made)
		return 0;
	if (rg->shared) { /* its owner first */
		for (size_t i = 0; i < t->ntree && &t->tree[i] != t; i++)
			for (size_t j = 0; j < t->tree[i].nr_ghosts; j++) {
				struct rst_ghost *o = &t->tree[i].ghosts[j];
				if (!o->shared && o->dev == rg->dev && o->ino == rg->ino &&
				    o->dir == rg->dir && make_early(&t->tree[i], o, e))
					return -1;
			}
	}
	struct late_arg la = {t, "", rg->id, NULL, 0};
	pr_info("ghost %u is in flight: made before the tree's mount tree stands, as crshim sees its path\n",
		rg->id);
	return img_each(t->dirfd, IMG_GHOST, rst_ipid(t), make_late, &la, e);
}

int rst_ghost_early(struct rst_task *ts, size_t n, const char *path, struct cr_err *e)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ts[i].nr_ghosts; j++)
			if (!strcmp(ts[i].ghosts[j].path, path))
				return make_early(&ts[i], &ts[i].ghosts[j], e);
	return 0;
}

bool rst_ghost_is(const struct rst_task *t, const char *path)
{
	for (size_t i = 0; path && i < t->nr_ghosts; i++)
		if (!strcmp(t->ghosts[i].path, path))
			return true;
	return false;
}

/* The names crshim linked ghosts at in nested mount namespaces (rst_ghost_link_nested): unlinked once every
 * process has its fds (or the restore failed), each if it still names that inode. */
static struct ghost_linked {
	int dir;
	char name[256];
	dev_t dev;
	ino_t ino;
} * linked;
static size_t n_linked;

static bool has_links(const struct rst_task *t)
{
	for (size_t i = 0; i < t->nr_files; i++)
		if (t->files[i]->reg && t->files[i]->reg->ghost_link)
			return true;
	return false;
}

/* The process whose nested mount namespace x is in, for crshim's links there (at its stand) and the copies
 * made once there: x, or the nearest up its line of clones that made one (those below it inherit it: cloned
 * after it stands), or for x that entered it (setns: pstree_entry.mntns_join) or inherited it from one that
 * did, the process that made it (x goes after its stand: restore.c join_maker). NULL if none (one on the way
 * is in the namespace its parent's was made from). */
static const struct rst_task *link_maker(const struct rst_task *x)
{
	for (int depth = 0; x && depth < 4096; depth++) {
		if (!x->pst || x->pst->mntns_up)
			return NULL;
		if (x->pst->mntns)
			return x;
		if (x->pst->mntns_join) {
			const struct rst_task *m = NULL;
			for (size_t i = 0; i < x->ntree && !m; i++)
				m = rst_ipid(&x->tree[i]) == x->pst->mntns_join ? &x->tree[i] : NULL;
			return m && m->pst && m->pst->mntns ? m : NULL;
		}
		x = x->spawn_idx >= 0 ? &x->tree[x->spawn_idx] : NULL;
	}
	return NULL;
}

bool rst_ghost_links(const struct rst_task *t)
{
	if (has_links(t))
		return true;
	for (size_t i = 0; t->pst && t->pst->mntns && i < t->ntree; i++)
		if (&t->tree[i] != t && link_maker(&t->tree[i]) == t && has_links(&t->tree[i]))
			return true; /* (cloned below t: its files are here in t too, restore-child.c) */
	return false;
}

void rst_ghost_alt_name(const char *name, uint32_t id, char *out, size_t len)
{
	snprintf(out, len, "%.200s.crshim-ghost.%u", name, id);
}

/* The directory m (O_PATH) on the mount of fd (the same filesystem): opened by its handle there, -1 */
static int dir_on_mount_of(int fd, int m)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	int mid;
	if (name_to_handle_at(m, "", &fh.h, &mid, AT_EMPTY_PATH))
		return -1;
	return open_by_handle_at(fd, &fh.h, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* fd (still linked) linked at name in dir at (on fd's mount): 0, -1 with errno (through /proc when the
 * kernel refuses AT_EMPTY_PATH) */
static int link_at(int fd, int at, const char *name)
{
	char self[64];
	if (!linkat(fd, "", at, name, AT_EMPTY_PATH))
		return 0;
	if (errno == EEXIST)
		return -1;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, self, at, name, AT_SYMLINK_FOLLOW);
}

/* src (a ghost, or another link of a deleted file still linked: what of file id) linked at r->ghost_name in
 * dir m (a directory of a namespace of t's, as t sees it) */
static int link_one(const struct rst_task *t, const RegFileEntry *r, int src, uint32_t id, int m,
		    struct cr_err *e)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	struct stat hs, ns;
	int mid;
	__cleanup_close int h = name_to_handle_at(src, "", &fh.h, &mid, AT_EMPTY_PATH)
				    ? -1
				    : open_by_handle_at(m, &fh.h, O_PATH | O_CLOEXEC);
	/* (a crshim without CAP_DAC_READ_SEARCH in the initial user namespace, rootless, may open only
	 * directories by their handle: m's on src's mount instead, where src is linked; the same directory)
	 */
	__cleanup_close int od = h >= 0 ? -1 : dir_on_mount_of(src, m);
	int at = h >= 0 ? m : od;
	if ((h < 0 && od < 0) || fstat(h >= 0 ? h : src, &hs))
		return cr_fail_sys(e, "file id %u: open it by its handle on the mount of %s", id,
				   r->ghost_mnt);
	char alt[NAME_MAX + 1];
	const char *name = r->ghost_name;
	for (int i = 0; link_at(h >= 0 ? h : src, at, name); i++) {
		if (errno == EEXIST && !fstatat(at, name, &ns, AT_SYMLINK_NOFOLLOW) &&
		    ns.st_dev == hs.st_dev && ns.st_ino == hs.st_ino)
			return 0; /* (for another fd of it) */
		if (errno != EEXIST || i)
			return cr_fail_sys(e, "file id %u: link it at %s/%s", id, r->ghost_mnt, name);
		/* (taken: another file's, its name picked free at dump too) the process opens it there */
		rst_ghost_alt_name(r->ghost_name, id, alt, sizeof(alt));
		name = alt;
	}
	struct ghost_linked *n = realloc(linked, (n_linked + 1) * sizeof(*n));
	int d = fcntl(m, F_DUPFD_CLOEXEC, 3);
	if (!n || d < 0) {
		unlinkat(m, name, 0);
		if (d >= 0)
			close(d);
		if (n)
			linked = n;
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	linked = n;
	linked[n_linked] = (struct ghost_linked){.dir = d, .dev = hs.st_dev, .ino = hs.st_ino};
	snprintf(linked[n_linked++].name, sizeof(linked[0].name), "%s", name);
	pr_info("file id %u: linked at %s/%s in a mount namespace of task %d\n", id, r->ghost_mnt, name,
		t->pid);
	return 0;
}

/* x's deleted files to link on a mount of the namespace t made or of the one t's was made from
 * (ghost_mnt_up: that of the process that clones t), x being t or a process that inherits t's: its ghost,
 * or (no ghost) the other link of one still linked, at its path (in the namespace mnt_up says) */
static int link_of(struct rst_task *t, struct rst_task *x, struct cr_err *e)
{
	pid_t up = t->spawn_idx >= 0 ? t->tree[t->spawn_idx].pid : 0;
	for (size_t i = 0; i < x->nr_files; i++) {
		const RegFileEntry *r = x->files[i]->reg;
		uint32_t id = x->files[i]->id;
		if (!r || !r->ghost_link)
			continue;
		const struct rst_ghost *rg = r->has_ghost_id ? find_ghost(x, r->ghost_id) : NULL;
		if ((r->has_ghost_id ? !rg : !r->path) || !r->ghost_mnt || !r->ghost_name ||
		    strchr(r->ghost_name, '/') || ((r->ghost_mnt_up || r->mnt_up) && !up))
			return cr_fail_errno(
			    e, EBADMSG,
			    "files.img: file id %u: a deleted file to link without its ghost "
			    "or path, directory or name",
			    id);
		char at[4200];
		__cleanup_close int src = -1;
		if (!rg) {
			snprintf(at, sizeof(at), "/proc/%d/root%s", (int)(r->mnt_up ? up : t->pid), r->path);
			if ((src = open(at, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
				return cr_fail_sys(e, "file id %u: open its other link %s", id, at);
		}
		snprintf(at, sizeof(at), "/proc/%d/root%s", (int)(r->ghost_mnt_up ? up : t->pid),
			 r->ghost_mnt);
		__cleanup_close int m = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m < 0)
			return cr_fail_sys(e, "file id %u: open %s", id, at);
		if (link_one(x, r, rg ? rg->fd : src, id, m, e))
			return -1;
	}
	return 0;
}

int rst_ghost_link_nested(struct rst_task *t, struct cr_err *e)
{
	if (link_of(t, t, e))
		return -1;
	for (size_t i = 0; i < t->ntree; i++)
		if (&t->tree[i] != t && link_maker(&t->tree[i]) == t && has_links(&t->tree[i]) &&
		    link_of(t, &t->tree[i], e))
			return cr_wrap(e, "task %d", t->tree[i].pid);
	return 0;
}

/* A ghost that several processes of one nested mount namespace make again on their own mount (ghost_copy),
 * each through an open of its own: made once, by the process that made that namespace, once it stands
 * (rst_ghost_copy_nested), at an fd number crshim keeps for it, which the others inherit (cloned below it
 * afterwards); each of them opens that copy again (rst_ghost_shared_copy). Else each would make a copy of
 * its own: two inodes, whose writes no longer meet. */
static struct shared_copy {
	uint64_t dev, ino; /* the ghost's, at dump */
	long maker;	   /* the index in the tree of the process that made the namespace */
	long first;	   /* ... of the first holder, whose entry says where the copy is made */
	int fd; /* crshim's kept number; in a holder, its own once moved (rst_ghost_shared_moved) */
	uint32_t id;
	bool dir, node;		      /* a removed directory; a FIFO's or a socket's node (O_PATH) */
	const char *src, *mnt, *name; /* crshim's ghost (as the first holder opens it), directory, name */
	/* the processes that entered that namespace (setns: pstree_entry.mntns_join), which the maker sends
	 * the copy to on chan (rst_ghost_copy_joined): how many, 0 (no chan) if none */
	unsigned joiners;
	int chan[2];
} * copies;
static size_t n_copies;

/* The ghost of fd entry r of x, when x makes it again on its own mount (in a namespace link_maker makes),
 * NULL else (one on a mount of the namespace its own was made from is not shared: another view). */
static const struct rst_ghost *copied(const struct rst_task *x, const RegFileEntry *r)
{
	if (!r || !r->ghost_copy || !r->ghost_mnt || r->ghost_mnt_up || r->mnt_up || !r->has_ghost_id ||
	    !r->path)
		return NULL;
	return find_ghost((struct rst_task *)x, r->ghost_id);
}

/* The shared copy of ghost rg of x (-1 if none) */
static long copy_of(const struct rst_task *x, const struct rst_ghost *rg)
{
	const struct rst_task *m = rg ? link_maker(x) : NULL;
	for (size_t j = 0; m && j < n_copies; j++)
		if (copies[j].fd >= 0 && copies[j].dev == rg->dev && copies[j].ino == rg->ino &&
		    copies[j].dir == rg->dir && copies[j].maker == m - x->tree)
			return (long)j;
	return -1;
}

/* The ghost of x's removed cwd, when x makes it again on its own mount (fs_entry.cwd_ghost_mnt), NULL else */
static const struct rst_ghost *cwd_copied(const struct rst_task *x)
{
	const FsEntry *fs = x->fs;
	if (!fs || !fs->cwd || !fs->cwd_ghost_mnt || !fs->has_cwd_ghost_id)
		return NULL;
	return find_ghost((struct rst_task *)x, fs->cwd_ghost_id);
}

/* The ghost of x's mapped file i, when x makes it again on its own mount for its mappings (no fd of it:
 * vma_entry.ghost_mnt), NULL else */
static const struct rst_ghost *map_copied(const struct rst_task *x, size_t i)
{
	const VmaEntry *v = x->mfiles[i].copy;
	for (size_t j = 0; v && v->ghost_mnt && j < x->nr_ghosts; j++)
		if (x->ghosts[j].dev == v->dev && x->ghosts[j].ino == v->ino && !x->ghosts[j].dir)
			return &x->ghosts[j];
	return NULL;
}

/* ghost rg of ts[k] (held by an fd or as its cwd), made again at src's copy in mnt, at name */
static int note_copy(struct rst_task *ts, size_t k, const struct rst_ghost *rg, const char *src,
		     const char *mnt, const char *name, struct cr_err *e)
{
	const struct rst_task *m = rg ? link_maker(&ts[k]) : NULL;
	if (!m)
		return 0;
	for (size_t j = 0; j < n_copies; j++)
		if (copies[j].dev == rg->dev && copies[j].ino == rg->ino && copies[j].dir == rg->dir &&
		    copies[j].maker == m - ts) {
			/* (a removed directory its process holds twice, its cwd and an fd or fds on two
			 * mounts, is made once too; a second fd of a file opens its process's copy again,
			 * file-reg.c ghost_copy) */
			if (copies[j].fd >= 0 || (copies[j].first == (long)k && !copies[j].dir))
				return 0;
			if ((copies[j].fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
				return cr_fail_sys(e, "keep an fd for the deleted file %s", src);
			pr_info("ghost %u of task %d: made again once in the mount namespace of task %d, at "
				"fd %d, for task %d too\n",
				copies[j].id, ts[copies[j].first].pid, m->pid, copies[j].fd, ts[k].pid);
			return 0;
		}
	struct shared_copy *nc = realloc(copies, (n_copies + 1) * sizeof(*nc));
	if (!nc)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	copies = nc;
	copies[n_copies++] = (struct shared_copy){.dev = rg->dev,
						  .ino = rg->ino,
						  .maker = m - ts,
						  .first = (long)k,
						  .fd = -1,
						  .id = rg->id,
						  .dir = rg->dir,
						  .node = rg->node,
						  .src = src,
						  .mnt = mnt,
						  .name = name,
						  .chan = {-1, -1}};
	return 0;
}

/* A copy made once (fd kept) whose namespace others entered: the channel its maker sends it to them on */
static int joiner_chan(const struct rst_task *ts, size_t n, struct shared_copy *c, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		c->joiners += !ts[k].zombie && !ts[k].helper && ts[k].pst && ts[k].pst->mntns_join &&
			      link_maker(&ts[k]) == &ts[c->maker];
	if (!c->joiners)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->chan)) {
		c->joiners = 0;
		return cr_fail_sys(e, "socketpair for the deleted file %s", c->src);
	}
	pr_info("ghost %u: task %d sends its copy to the %u that entered its mount namespace\n", c->id,
		ts[c->maker].pid, c->joiners);
	return 0;
}

int rst_ghost_share_copies(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++) {
		const FsEntry *fs = ts[k].fs;
		if (ts[k].zombie || ts[k].helper)
			continue;
		if (note_copy(ts, k, cwd_copied(&ts[k]), fs ? fs->cwd : NULL, fs ? fs->cwd_ghost_mnt : NULL,
			      fs ? fs->cwd_ghost_name : NULL, e))
			return -1;
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const RegFileEntry *r = ts[k].files[i]->reg;
			const struct rst_ghost *rg = copied(&ts[k], r);
			if (rg && note_copy(ts, k, rg, r->path, r->ghost_mnt, r->ghost_name, e))
				return -1;
		}
		for (size_t i = 0; i < ts[k].nr_mfiles; i++) {
			const struct rst_ghost *rg = map_copied(&ts[k], i);
			const VmaEntry *v = ts[k].mfiles[i].copy;
			if (rg && note_copy(ts, k, rg, ts[k].mfiles[i].path, v->ghost_mnt, v->ghost_name, e))
				return -1;
		}
	}
	for (size_t j = 0; j < n_copies && !ts[0].dry; j++)
		if (copies[j].fd >= 0 && joiner_chan(ts, n, &copies[j], e))
			return -1;
	return 0;
}

int rst_ghost_copy_nested(const struct rst_task *t, char *msg, size_t len)
{
	for (size_t j = 0; j < n_copies; j++) {
		const struct shared_copy *c = &copies[j];
		if (c->fd < 0 || c->maker != t - t->tree)
			continue;
		int dir = c->dir ? O_DIRECTORY : 0;
		__cleanup_close int src = rst_ghost_open_path(c->src, (c->node ? O_PATH : O_RDONLY | dir) |
									  O_CLOEXEC),
				    m = src < 0 ? -1 : open(c->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		__cleanup_close int fd =
		    m < 0 ? -1 : rst_ghost_make_copy(src, m, c->name, c->id, O_PATH | dir);
		if (fd < 0 || dup3(fd, c->fd, O_CLOEXEC) < 0)
			return rst_errmsg(msg, len,
					  "make the deleted %s again on the mount of %s (for several "
					  "processes)",
					  c->src, c->mnt);
		for (unsigned k = 0; k < c->joiners; k++)
			if (scm_send_fd(c->chan[0], c->fd))
				return rst_errmsg(
				    msg, len,
				    "send the deleted %s to the processes that entered its mount "
				    "namespace",
				    c->src);
	}
	return 0;
}

int rst_ghost_copy_joined(const struct rst_task *t, char *msg, size_t len)
{
	const struct rst_task *m = t->pst && t->pst->mntns_join ? link_maker(t) : NULL;
	for (size_t j = 0; m && j < n_copies; j++)
		if (copies[j].joiners && copies[j].maker == m - t->tree &&
		    scm_recv_fd_at(copies[j].chan[1], copies[j].fd))
			return rst_errmsg(msg, len,
					  "take the deleted %s from task %d, in its mount namespace",
					  copies[j].src, m->pid);
	return 0;
}

int rst_ghost_shared_fd(const struct rst_task *t, size_t j)
{
	if (j < n_copies && copies[j].fd >= 0 && copy_of(t, cwd_copied(t)) == (long)j)
		return copies[j].fd;
	for (size_t i = 0; j < n_copies && copies[j].fd >= 0 && i < t->nr_mfiles; i++)
		if (copy_of(t, map_copied(t, i)) == (long)j)
			return copies[j].fd;
	for (size_t i = 0; j < n_copies && copies[j].fd >= 0 && i < t->nr_files; i++) {
		const RegFileEntry *r = t->files[i]->reg;
		if (copy_of(t, copied(t, r)) == (long)j)
			return copies[j].fd;
	}
	return -1;
}

size_t rst_ghost_shared_count(void)
{
	return n_copies;
}

void rst_ghost_shared_moved(size_t j, int fd)
{
	copies[j].fd = fd;
}

/* The copy j made once (-2 if none) opened again with flags */
static int open_copy(long j, int flags)
{
	if (j < 0)
		return -2;
	char rel[32];
	snprintf(rel, sizeof(rel), "fd/%d", copies[j].fd);
	return rst_self_proc_open(rel, flags | O_CLOEXEC);
}

int rst_ghost_shared_copy(const struct rst_task *t, const RegFileEntry *r, int flags)
{
	return open_copy(copy_of(t, copied(t, r)), flags);
}

int rst_ghost_dir_by_handle(int m, struct file_handle *h, int flags)
{
	char rel[32];
	__cleanup_close int p = open_by_handle_at(m, h, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p < 0)
		return -1;
	snprintf(rel, sizeof(rel), "fd/%d", p);
	return rst_self_proc_open(rel, flags | O_CLOEXEC);
}

int rst_ghost_dir_on_mount(const char *mnt, int fd, int flags)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	struct statx a, b;
	int mid, r = -1;
	__cleanup_close int m = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (m >= 0 && !statx(m, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) &&
	    !statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &b)) {
		if (a.stx_mnt_id == b.stx_mnt_id)
			return fd;
		if (!name_to_handle_at(fd, "", &fh.h, &mid, AT_EMPTY_PATH))
			r = rst_ghost_dir_by_handle(m, &fh.h, flags);
	}
	int err = errno;
	close(fd);
	errno = err;
	return r;
}

int rst_ghost_shared_cwd(const struct rst_task *t, int flags)
{
	/* (the copy made once, on the mount of the first fd of it, maybe another: a bind of its parent) */
	int fd = open_copy(copy_of(t, cwd_copied(t)), flags);
	return fd < 0 ? fd : rst_ghost_dir_on_mount(t->fs->cwd_ghost_mnt, fd, flags);
}

int rst_ghost_shared_map(const struct rst_task *t, size_t i, int flags)
{
	return open_copy(copy_of(t, map_copied(t, i)), flags);
}

static void copies_free(void)
{
	for (size_t j = 0; j < n_copies; j++) {
		if (copies[j].fd >= 0)
			close(copies[j].fd);
		if (copies[j].joiners)
			close(copies[j].chan[0]), close(copies[j].chan[1]);
	}
	free(copies);
	copies = NULL;
	n_copies = 0;
}

static void unlink_linked(void)
{
	for (size_t i = 0; i < n_linked; i++) {
		struct stat st;
		if (!fstatat(linked[i].dir, linked[i].name, &st, AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == linked[i].dev && st.st_ino == linked[i].ino &&
		    unlinkat(linked[i].dir, linked[i].name, 0))
			pr_warn("unlink the ghost's name %s: %s\n", linked[i].name, strerror(errno));
		close(linked[i].dir);
	}
	free(linked);
	linked = NULL;
	n_linked = 0;
}

static void unlink_kept(struct rst_task *t)
{
	unlink_linked();
	copies_free(); /* (every process has its copy: crshim's kept numbers go) */
	for (size_t i = 0; i < t->nr_ghosts; i++)
		drop_kept(&t->ghosts[i]);
}

void rst_ghost_unlink_kept(struct rst_task *t)
{
	unlink_kept(t);
	/* the last process: the removed directories the mount tree kept for the ghosts made in them go, once
	 * their names kept there did (zdtm nsmnt_ghostfile_bindrmdir3); a failed restore leaves them to the
	 * tree's mount namespace, which goes with it */
	if (t->tree && t == &t->tree[t->ntree - 1])
		ns_rst_mnt_removed_drop(t->tree[0].ns, t->tree[0].pid);
}

void rst_ghost_free(struct rst_task *t)
{
	unlink_kept(t); /* (a failed restore) */
	if (rst_host_proc >= 0) {
		close(rst_host_proc);
		rst_host_proc = -1;
	}
	for (size_t i = 0; i < t->nr_ghosts; i++) {
		close(t->ghosts[i].fd);
		if (t->ghosts[i].wfd >= 0)
			close(t->ghosts[i].wfd);
	}
	free(t->ghosts);
	t->ghosts = NULL;
	t->nr_ghosts = 0;
}

/* A tree whose root took the ghosts from crshim (late_fds_pushed): this task's copies of crshim's fds of its
 * ghosts, which it opens through /proc/self (its tasks may not open crshim's fds). */
static struct own_copy {
	int crshim, own;
	pid_t pid; /* a child sharing the table (its pid as it sees it) whose copy it is, 0: ours */
} * own_copies;
static size_t n_own_copies;

size_t rst_ghost_count(const struct rst_task *t)
{
	return late_fds_pushed() ? t->nr_ghosts : 0;
}

int rst_ghost_fd(const struct rst_task *t, size_t j)
{
	return t->ghosts[j].fd;
}

int rst_ghost_own_copy(pid_t pid, int crshim_fd, int own)
{
	struct own_copy *n = realloc(own_copies, (n_own_copies + 1) * sizeof(*n));
	if (!n)
		return -1;
	own_copies = n;
	own_copies[n_own_copies++] = (struct own_copy){crshim_fd, own, pid};
	return 0;
}

int rst_ghost_sharer_copies(pid_t pid, int (*fn)(int *own, void *arg), void *arg)
{
	for (size_t i = 0; i < n_own_copies; i++)
		if (pid && own_copies[i].pid == pid && fn(&own_copies[i].own, arg))
			return -1;
	return 0;
}

#define HOST_PROC_KEY (-2) /* own_copies: a copy of rst_host_proc */

int rst_ghost_keep_sharer(const struct rst_task *c, int (*keep)(int fd, void *arg), void *arg)
{
	pid_t self = rst_pidns_self(c);
	for (size_t j = 0; j < rst_ghost_count(c); j++) {
		int own = keep(c->ghosts[j].fd, arg);
		if (own < 0 || rst_ghost_own_copy(self, c->ghosts[j].fd, own))
			return -1;
	}
	if (rst_host_proc >= 0) {
		int own = keep(rst_host_proc, arg);
		if (own < 0 || rst_ghost_own_copy(self, HOST_PROC_KEY, own))
			return -1;
	}
	return 0;
}

/* Our copy of crshim's fd: a child sharing the table takes those kept for it, which its parent's blob does
 * not close (restore-fdtable.c), before the parent's own; -1 if none. */
static int own_copy_of(pid_t self, int crshim_fd)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n_own_copies; i++)
			if (own_copies[i].crshim == crshim_fd && own_copies[i].pid == (pass ? 0 : self))
				return own_copies[i].own;
	return -1;
}

int rst_self_proc_open(const char *rel, int flags)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/%s", rel);
	int fd = open(path, flags);
	if (fd >= 0 || errno != ENOENT || rst_host_proc < 0)
		return fd;
	int proc = own_copy_of(getpid(), HOST_PROC_KEY);
	snprintf(path, sizeof(path), "self/%s", rel);
	return openat(proc >= 0 ? proc : rst_host_proc, path, flags);
}

int rst_ghost_open_path(const char *path, int flags)
{
	return rst_ghost_open_path_as(getpid(), path, flags);
}

int rst_ghost_open_path_as(pid_t self, const char *path, int flags)
{
	char pre[32];
	int n = snprintf(pre, sizeof(pre), "/proc/%d/", (int)host_proc_of);
	if (rst_host_proc < 0 || strncmp(path, pre, (size_t)n))
		return open(path, flags);
	int fd = -1, proc = own_copy_of(self, HOST_PROC_KEY);
	if (proc < 0)
		proc = rst_host_proc;
	if (!late_fds_pushed() || sscanf(path + n, "fd/%d", &fd) != 1)
		return openat(proc, path + 6, flags);
	/* its copy: at crshim's number until restore-files.c moves it (the root opens some before) */
	int own = own_copy_of(self, fd);
	if (own >= 0)
		fd = own;
	char own_path[32];
	snprintf(own_path, sizeof(own_path), "self/fd/%d", fd);
	return openat(proc, own_path, flags);
}

/* A file the task made with O_TMPFILE (r->tmpfile_dir): a new O_TMPFILE there with the ghost's contents,
 * owner and mode, so that it has no name and the same flags. */
static int open_tmpfile(const RegFileEntry *r, int flags)
{
	__cleanup_close int src = rst_ghost_open_path(r->path, O_RDONLY | O_CLOEXEC);
	struct stat gs, ns;
	if (src < 0 || fstat(src, &gs))
		return -1;
	int fd = open(r->tmpfile_dir, flags | O_TMPFILE, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &ns) ||
	    ((ns.st_uid != gs.st_uid || ns.st_gid != gs.st_gid) && fchown(fd, gs.st_uid, gs.st_gid)) ||
	    fchmod(fd, gs.st_mode & 07777)) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	for (;;) {
		ssize_t n = copy_file_range(src, NULL, fd, NULL, 1 << 30, 0);
		if (n == 0)
			break;
		if (n < 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
	}
	return fd;
}

/* A removed symlink held by an O_PATH | O_NOFOLLOW fd: the ghost's /proc link leads to it but drops
 * O_NOFOLLOW from the open's flags, so the task makes one like it (target, owner, times) again at its old
 * name (r->deleted_name, or next to it if taken; its removed directories made and removed again), opens it
 * with the image's flags and removes it. */
static int open_symlink(const RegFileEntry *r, int flags)
{
	static char dirs[GHOST_MAX_DIRS][4096];
	char target[4096], path[4096];
	struct stat st;
	int ndirs = 0, fd = -1, err;
	__cleanup_close int g = rst_ghost_open_path(r->path, O_PATH | O_CLOEXEC);
	ssize_t l =
	    g < 0 || fstatat(g, "", &st, AT_EMPTY_PATH) ? -1 : readlinkat(g, "", target, sizeof(target) - 1);
	if (l < 0)
		return -1;
	target[l] = '\0';
	snprintf(path, sizeof(path), "%s", r->deleted_name);
	int s = symlink(target, path);
	if (s && errno == ENOENT && path[0] == '/') {
		make_dirs(path, dirs, &ndirs);
		s = symlink(target, path);
	}
	if (s && errno == EEXIST) {
		snprintf(path, sizeof(path), "%s.crshim-ghost.%d", r->deleted_name, (int)getpid());
		s = symlink(target, path);
	}
	if (!s) {
		struct timespec ts[2] = {st.st_atim, st.st_mtim};
		fd = open(path, flags | O_NOFOLLOW);
		if (fd >= 0 && (lchown(path, st.st_uid, st.st_gid) ||
				utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW)))
			close(fd), fd = -1;
	}
	err = errno;
	if (!s)
		unlink(path);
	rmdirs(dirs, ndirs);
	errno = err;
	return fd;
}

int rst_ghost_open(const RegFileEntry *r, int flags)
{
	if (r->tmpfile_dir && r->deleted)
		return open_tmpfile(r, flags & ~(O_TMPFILE | O_CREAT | O_EXCL));
	if (r->deleted && r->deleted_name)
		return open_symlink(r, flags);
	if (!r->deleted_name || link(r->path, r->deleted_name))
		return rst_ghost_open_path(r->path, flags);
	int fd = open(r->deleted_name, flags), saved = errno;
	unlink(r->deleted_name);
	errno = saved;
	return fd;
}

/* The fd's link in /proc (its path as this task sees it) in buf */
static ssize_t fd_link(int fd, char *buf, size_t len)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ssize_t l = readlink(p, buf, len - 1);
	if (l < 0 && errno == ENOENT && rst_host_proc >= 0) /* (a mount tree without /proc) */
		l = readlinkat(rst_host_proc, p + 6, buf, len - 1);
	if (l >= 0)
		buf[l] = '\0';
	return l;
}

/* o is fd's inode on fd's mount (else it is closed: -1) */
static int same_file(int o, int fd)
{
	struct statx a, b;
	if (o >= 0 && (statx(o, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &a) ||
		       statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &b) || a.stx_ino != b.stx_ino ||
		       a.stx_dev_major != b.stx_dev_major || a.stx_dev_minor != b.stx_dev_minor ||
		       a.stx_mnt_id != b.stx_mnt_id)) {
		close(o);
		o = -1;
	}
	return o;
}

int rst_ghost_nofollow(int fd, int flags)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	char name[PATH_MAX];
	struct stat st;
	int fl = fcntl(fd, F_GETFL), o = -1, mid;
	/* (a FIFO's or a device's open again could wait or act: only files and directories) */
	if (fl < 0 || (fl & O_NOFOLLOW) || fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return fd;
	/* a directory: by "." in itself, which a removed one still resolves (search permission wanted there),
	 * whichever process made its ghost and however it holds it (zdtm ghost_nofollow_dir2) */
	if (S_ISDIR(st.st_mode))
		o = same_file(openat(fd, ".", flags | O_NOFOLLOW), fd);
	if (o >= 0) {
		close(fd);
		return o;
	}
	/* by the name it still has (its ghost's, kept: nofollow_held), not "PATH (deleted)", which may be
	 * another file (opened O_NONBLOCK: a FIFO of that name must not make the restore wait) */
	ssize_t nl = fd_link(fd, name, sizeof(name));
	bool gone = nl >= 10 && !strcmp(name + nl - 10, " (deleted)");
	if (nl > 0 && name[0] == '/' && !gone) {
		int nb = (flags & (O_PATH | O_NONBLOCK)) ? 0 : O_NONBLOCK;
		struct open_how how = {.flags = (uint64_t)(flags | O_NOFOLLOW | nb),
				       .resolve = RESOLVE_NO_SYMLINKS};
		o = (int)syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof(how));
		if (o < 0 && (errno == EINVAL || errno == ENOSYS)) /* (a flag openat2 refuses, as O_PATH's) */
			o = open(name, flags | O_NOFOLLOW | nb);
		o = same_file(o, fd);
		if (o >= 0 && nb && fcntl(o, F_SETFL, fcntl(o, F_GETFL) & ~O_NONBLOCK)) {
			close(o);
			o = -1;
		}
	}
	if (o < 0 && !name_to_handle_at(fd, "", &fh.h, &mid, AT_EMPTY_PATH))
		o = same_file(open_by_handle_at(fd, &fh.h, flags | O_NOFOLLOW), fd);
	if (o < 0) /* (the dump said so, file-reg.c nofollow_lost: the task logs nothing here) */
		return fd;
	close(fd);
	return o;
}
