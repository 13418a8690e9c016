/* Dump of inotify and fanotify instances (see evfd.h). fdinfo lists each watch / mark with the inode's
 * superblock device and a file handle; the path is found by opening the handle (open_by_handle_at on a
 * mount of that device) and reading the link of the result. Mount marks name the mount by its id (from
 * /proc/PID/mountinfo), filesystem marks by the device. Events queued and not read yet are not saved (a
 * queue cannot be read without consuming it): the dump warns with their byte count (FIONREAD). */
#define LOG_PREFIX "dump-inotify: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>

#include "base/caps.h"
#include "base/cleanup.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "files/ghost.h"
#include "base/log.h"
#include "pid.h"

char *mount_point_nth(const char *mi, unsigned sdev, int mnt_id, int nth)
{
	unsigned maj = sdev >> 20, min = sdev & 0xfffff;
	for (const char *p = mi; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		int id, parent, n = 0;
		unsigned ma, mi2;
		char mp[4096];
		if (sscanf(p, "%d %d %u:%u %*s %4095s%n", &id, &parent, &ma, &mi2, mp, &n) != 5)
			continue;
		if ((mnt_id >= 0 ? id == mnt_id : (ma == maj && mi2 == min)) && nth-- == 0)
			return strdup(mp); /* octal escapes (\040) in names: not handled */
	}
	return NULL;
}

static char *mount_point(const char *mi, unsigned sdev, int mnt_id)
{
	return mount_point_nth(mi, sdev, mnt_id, 0);
}

struct fh {
	unsigned bytes;
	unsigned type;
	unsigned char h[128];
};

/* "fhandle-bytes:%x fhandle-type:%x f_handle:HEX" of one line */
static int parse_fh(const char *line, struct fh *fh)
{
	const char *p = strstr(line, "fhandle-bytes:");
	char hex[300];
	if (!p ||
	    sscanf(p, "fhandle-bytes:%x fhandle-type:%x f_handle:%299s", &fh->bytes, &fh->type, hex) != 3)
		return -1;
	if (fh->bytes > sizeof(fh->h) || strlen(hex) < 2 * fh->bytes)
		return -1;
	for (unsigned i = 0; i < fh->bytes; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		fh->h[i] = (unsigned char)v;
	}
	return 0;
}

/* An open (flags: O_PATH, with O_DIRECTORY or not) of the inode of the file handle, through the mount at mp
 * of task pid (its root: a tree's own mount tree is not crshim's; the link of the result then reads as the
 * task sees it); -1 (errno) on error. */
static int open_handle(pid_t pid, const char *mp, const struct fh *fh, int flags)
{
	char at[4200];
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)pid, mp);
	int mfd = open(at, O_RDONLY | O_CLOEXEC); /* an O_PATH fd gives EBADF */
	if (mfd < 0)
		return -1;
	struct {
		struct file_handle h;
		unsigned char b[128];
	} buf;
	buf.h.handle_bytes = fh->bytes;
	buf.h.handle_type = (int)fh->type;
	memcpy(buf.h.f_handle, fh->h, fh->bytes);
	int fd = open_by_handle_at(mfd, &buf.h, flags | O_CLOEXEC);
	int saved = errno;
	close(mfd);
	errno = saved;
	return fd;
}

#ifndef AT_HANDLE_FID /* Linux 6.5 */
#define AT_HANDLE_FID 0x200
#endif

/* Whether name in dir (an empty name: dir) has the handle fh (as fdinfo shows it: a FID); true where no
 * handle can be made of it (its inode number matched already). */
static bool same_handle(int dir, const char *name, const struct fh *fh)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} buf;
	int mnt;
	for (int fl = AT_HANDLE_FID;; fl = 0) {
		buf.h.handle_bytes = sizeof(buf.b);
		if (!name_to_handle_at(dir, name, &buf.h, &mnt, fl | (*name ? 0 : AT_EMPTY_PATH)))
			return buf.h.handle_type == (int)fh->type && buf.h.handle_bytes == fh->bytes &&
			       !memcmp(buf.h.f_handle, fh->h, fh->bytes);
		if (!fl || errno != EINVAL) /* (EINVAL: a kernel before AT_HANDLE_FID) */
			return errno == EOPNOTSUPP;
	}
}

/* A walk of mounts for an inode whose handle the kernel does not open for crshim (open_unprivileged): the
 * mounts of its device in rounds of growing depth (the file a process watches is seldom deep below some
 * mount, and is then found before a large one, /usr, is walked whole), entries looked at in all */
struct walk {
	int depth;
	long budget;
};
#define WALK_MAX 500000
static const int walk_depths[] = {2, 4, 8, 64};

/* An O_PATH open of the entry of inode ino and handle fh below dir, on the mount mnt (no other mount
 * crossed), depth levels deep at most; -1 if none. */
static int find_below(int dir, uint64_t mnt, unsigned long ino, const struct fh *fh, int depth, long *budget)
{
	int dfd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	__cleanup_closedir DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)) && --*budget > 0) {
		struct statx sx;
		const char *n = de->d_name;
		bool maybe_dir = depth > 1 && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN);
		if (!strcmp(n, ".") || !strcmp(n, "..") || (de->d_ino != ino && !maybe_dir) ||
		    statx(dirfd(d), n, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_TYPE | STATX_MNT_ID, &sx) ||
		    !(sx.stx_mask & STATX_MNT_ID) || sx.stx_mnt_id != mnt)
			continue;
		if (sx.stx_ino == ino && same_handle(dirfd(d), n, fh))
			return openat(dirfd(d), n, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (!S_ISDIR(sx.stx_mode) || depth <= 1)
			continue;
		__cleanup_close int sub =
		    openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int r = sub < 0 ? -1 : find_below(sub, mnt, ino, fh, depth - 1, budget);
		if (r >= 0)
			return r;
	}
	return -1;
}

/* The inode of handle fh opened through the mount at mp of task pid where the kernel refuses the handle to
 * a crshim without CAP_DAC_READ_SEARCH over the host (one in a user namespace: rootless): it decodes only a
 * directory's (O_DIRECTORY, where crshim's user namespace owns the filesystem or the mount's namespace);
 * any other inode is looked for by a walk of that mount, w->depth deep (its inode number, then its handle,
 * which name_to_handle_at gives without privilege). A removed file is not found so. */
static int open_unprivileged(pid_t pid, const char *mp, unsigned long ino, const struct fh *fh,
			     struct walk *w)
{
	int fd = open_handle(pid, mp, fh, O_PATH | O_DIRECTORY);
	if (fd >= 0 || !w->depth)
		return fd;
	char at[4200];
	struct statx sx;
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)pid, mp);
	__cleanup_close int top = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0 || statx(top, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &sx) ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	if (sx.stx_ino == ino && same_handle(top, "", fh))
		return openat(top, ".", O_PATH | O_CLOEXEC);
	return find_below(top, sx.stx_mnt_id, ino, fh, w->depth, &w->budget);
}

/* The path of the inode of a file handle opened through the mount at mp of task pid, into *path: 1 if it
 * names inode ino again (from the task's root), 0 if not (or the handle does not open there), -1 on error.
 * A removed file: 1, *path its old name "PATH (deleted)", *gone the O_PATH open of it (for its ghost).
 * Where the kernel refuses the handle to crshim (EPERM), w->refused is set and the inode is looked for as
 * w says (open_unprivileged). */
static int path_through(pid_t pid, const char *mp, unsigned long ino, const struct fh *fh, char **path,
			int *gone, struct walk *w, struct cr_err *e)
{
	*path = NULL;
	int fd = open_handle(pid, mp, fh, O_PATH);
	if (fd < 0 && errno == EPERM && !cr_has_cap(CAP_DAC_READ_SEARCH))
		return cr_fail_errno(
		    e, EPERM, "open the watched inode by its handle on %s needs CAP_DAC_READ_SEARCH", mp);
	if (fd < 0 && errno == EPERM) {
		w->budget = w->budget ? w->budget : WALK_MAX;
		fd = open_unprivileged(pid, mp, ino, fh, w);
	}
	if (fd < 0)
		return 0;
	char name[32], at[4200];
	struct stat fs;
	snprintf(name, sizeof(name), "fd/%d", fd);
	int r = proc_readlink(getpid(), name, path, e);
	if (!r && fd_is_deleted(*path) && !fstat(fd, &fs) && !fs.st_nlink && !S_ISDIR(fs.st_mode)) {
		*gone = fd;
		return 1;
	}
	close(fd);
	if (r)
		return -1;
	struct stat st;
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)pid, *path);
	return !lstat(at, &st) && st.st_ino == ino;
}

/* One round of handle_path: 1 (*found set), 0 (*first: the first path seen that named another inode),
 * -1 */
static int handle_round(pid_t pid, const char *mi, unsigned sdev, unsigned long ino, const struct fh *fh,
			int *gone, struct walk *w, char **found, char **first, struct cr_err *e)
{
	char *mp, *path;
	for (int nth = 0; (mp = mount_point_nth(mi, sdev, -1, nth)); nth++) {
		int r = path_through(pid, mp, ino, fh, &path, gone, w, e);
		free(mp);
		if (r) {
			*found = r > 0 ? path : NULL;
			return r;
		}
		if (!*first)
			*first = path;
		else
			free(path);
	}
	return 0;
}

/* The path, as task pid sees it (mi: its mountinfo), of the inode ino of a file handle on device sdev:
 * opened through each mount of the device in turn (a bind of a subdirectory shows only what is below it)
 * until the path names that inode again; where the kernel opens no handle for crshim, found by walks of
 * those mounts, ever deeper (walk_depths). */
static char *handle_path(pid_t pid, const char *mi, unsigned sdev, unsigned long ino, const struct fh *fh,
			 int *gone, struct cr_err *e)
{
	__cleanup_free char *first = NULL;
	char *found = NULL;
	struct walk w = {0, 0};
	int r = handle_round(pid, mi, sdev, ino, fh, gone, &w, &found, &first, e);
	for (size_t k = 0; !r && w.budget > 0 && k < sizeof(walk_depths) / sizeof(walk_depths[0]); k++) {
		w.depth = walk_depths[k];
		r = handle_round(pid, mi, sdev, ino, fh, gone, &w, &found, &first, e);
	}
	if (r)
		return r > 0 ? found : NULL;
	if (first)
		cr_fail_errno(e, ENOENT,
			      "the watched inode %lu (seen as %s) has no path from the task's root", ino,
			      first);
	else if (w.budget)
		cr_fail_errno(
		    e, ENOENT,
		    "the watched inode %lu (device %u:%u) is not found below the mounts of its "
		    "device (the kernel opens its handle with CAP_DAC_READ_SEARCH over the host only; "
		    "%ld entries looked at; a removed file is not found so)",
		    ino, sdev >> 20, sdev & 0xfffff, WALK_MAX - (w.budget > 0 ? w.budget : 0));
	else
		cr_fail_errno(e, ENOTSUP,
			      "not supported yet: the watched inode is on a filesystem (device %u:%u) its "
			      "task's mount namespace does not show (another process's may)",
			      sdev >> 20, sdev & 0xfffff);
	return NULL;
}

/* The task's mountinfo: its mounts as it sees them (opened through its root by open_handle). */
static int read_mountinfo(pid_t pid, char **mi, struct cr_err *e)
{
	return proc_read(pid, "mountinfo", mi, NULL, e);
}

/* The name of a removed file opened by its handle: a dentry of its own ("/ (deleted)") has lost it; then
 * that of an fd of task pid on the same inode, else a name of its own on the first mount of its device
 * (sdev), where the restore makes its ghost. malloc'ed, "PATH (deleted)". */
static char *gone_name(pid_t pid, const char *link, const struct stat *st, const char *mi, unsigned sdev)
{
	char dir[64], *p = NULL;
	if (strcmp(link, "/ (deleted)"))
		return strdup(link);
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	__cleanup_closedir DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		struct stat fs;
		struct cr_err e;
		char name[300];
		snprintf(name, sizeof(name), "fd/%s", de->d_name);
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &fs, 0) ||
		    fs.st_ino != st->st_ino || fs.st_dev != st->st_dev || proc_readlink(pid, name, &p, &e))
			continue;
		if (fd_is_deleted(p) && strcmp(p, "/ (deleted)"))
			return p;
		free(p), p = NULL;
	}
	__cleanup_free char *mp = mount_point(mi, sdev, -1);
	if (mp && asprintf(&p, "%s/.inotify-ghost.%lu (deleted)", strcmp(mp, "/") ? mp : "",
			   (unsigned long)st->st_ino) < 0)
		p = NULL;
	return p;
}

/* A watch of a removed file (its O_PATH open gone): its contents as a ghost, shared with the fds of the
 * task that hold it (one per inode, dump-ghost.c); w->path loses its " (deleted)". */
static int watch_ghost(struct dump_ctx *c, InotifyWdEntry *w, int gone, const char *mi, unsigned sdev,
		       struct cr_err *e)
{
	char src[64];
	struct stat st;
	uint32_t id;
	snprintf(src, sizeof(src), "/proc/self/fd/%d", gone);
	if (fstat(gone, &st))
		return cr_fail_sys(e, "stat the removed file %s", w->path);
	char *name = gone_name(c->pid, w->path, &st, mi, sdev);
	if (!name)
		return cr_fail_errno(e, ENOENT, "the removed file %s has no name", w->path);
	free(w->path);
	w->path = name;
	if (dump_ghost_add(c, src, &st, w->path, "inotify watch", &id, e))
		return -1;
	w->path[strlen(w->path) - strlen(" (deleted)")] = '\0';
	w->ghost_id = id, w->has_ghost_id = 1;
	return 0;
}

/* A watched inode on a filesystem the watcher's mount namespace does not show: its path as another process
 * of the tree in another mount namespace (and the watcher's PID namespace) sees it, as
 * "/proc/PID/root/PATH" (PID: as the watcher sees it), watched through that at restore once that process
 * made its namespace (restore-procfd.c, with the files of /proc/PID). NULL (e set) if none shows it. */
static char *down_path(struct dump_ctx *c, pid_t pid, unsigned sdev, unsigned long ino, const struct fh *fh,
		       struct cr_err *e)
{
	for (size_t i = 0; c->tree && i < c->ntree; i++) {
		pid_t x = c->tree[i].pid, ids[32];
		__cleanup_free char *mi = NULL;
		if (ns_same(x, "mnt", pid, "mnt") || !ns_same(x, "pid", pid, "pid") ||
		    read_mountinfo(x, &mi, e))
			continue;
		char *mp = mount_point_nth(mi, sdev, -1, 0); /* (only whether x's namespace shows it) */
		if (!mp)
			continue;
		free(mp);
		int gone = -1, lv = ns_pid_chain(x, ids, 32, e);
		char *p = lv > 0 ? handle_path(x, mi, sdev, ino, fh, &gone, e) : NULL, *r = NULL;
		if (gone >= 0) {
			close(gone);
			free(p);
			cr_fail_errno(e, ENOTSUP,
				      "not supported yet: a removed file of the mount namespace of task %d",
				      x);
			return NULL;
		}
		if (p && asprintf(&r, "/proc/%d/root%s", ids[lv - 1], p) < 0)
			r = NULL;
		free(p);
		if (r)
			pr_info("inotify watch of inode %lu: as task %d sees it, %s\n", ino, x, r);
		return r ? r : (cr_fail_errno(e, ENOMEM, "out of memory"), NULL);
	}
	cr_fail_errno(e, ENOTSUP,
		      "not supported yet: the watched inode is on a filesystem (device %u:%u) neither its "
		      "task's mount namespace nor another of the tree (in its PID namespace) shows",
		      sdev >> 20, sdev & 0xfffff);
	return NULL;
}

static int add_wd(struct dump_ctx *c, InotifyEntry *in, pid_t pid, const char *line, const char *mi,
		  struct cr_err *e)
{
	unsigned wd, sdev, mask, ign;
	unsigned long ino;
	struct fh fh;
	if (sscanf(line, "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:%x", &wd, &ino, &sdev, &mask,
		   &ign) != 5 ||
	    parse_fh(line, &fh))
		return cr_fail_errno(e, EINVAL, "bad inotify line in fdinfo");
	InotifyWdEntry **nw = realloc(in->wd, (in->n_wd + 1) * sizeof(void *));
	if (!nw)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	in->wd = nw;
	InotifyWdEntry *w = malloc(sizeof(*w));
	if (!w)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	inotify_wd_entry__init(w);
	in->wd[in->n_wd++] = w;
	w->wd = (int32_t)wd, w->has_wd = 1;
	w->mask = mask, w->has_mask = 1;
	w->ino = ino, w->has_ino = 1;
	w->dev = sdev, w->has_dev = 1;
	__cleanup_close int gone = -1;
	__cleanup_free char *own = mount_point_nth(mi, sdev, -1, 0); /* (else: down_path) */
	if (!own && !(w->path = down_path(c, pid, sdev, ino, &fh, e)))
		return cr_wrap(e, "watch %u (inode %lu)", wd, ino);
	if ((own && !(w->path = handle_path(pid, mi, sdev, ino, &fh, &gone, e))) ||
	    (gone >= 0 && watch_ghost(c, w, gone, mi, sdev, e)))
		return cr_wrap(e, "watch %u (inode %lu)", wd, ino);
	pr_debug("inotify watch %u: %s mask %#x\n", wd, w->path, mask);
	return 0;
}

int dump_inotify_fill(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	__cleanup_free char *txt = NULL, *mi = NULL;
	if (dump_evfd_fdinfo(s->pid, s->fd, &txt, e) || read_mountinfo(s->pid, &mi, e))
		return cr_wrap(e, "fd %d", s->fd);
	InotifyEntry *in = malloc(sizeof(*in));
	if (!in)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	inotify_entry__init(in);
	in->flags = s->flags, in->has_flags = 1;
	fe->inotify = in;
	fe->kind = FILE_KIND__FILE_INOTIFY, fe->has_kind = 1;
	for (const char *p = strstr(txt, "inotify wd:"); p; p = strstr(p + 1, "inotify wd:"))
		if (add_wd(c, in, s->pid, p, mi, e)) {
			dump_evfd_release(fe);
			return cr_wrap(e, "fd %d (inotify)", s->fd);
		}
	return 0;
}

static FanotifyMarkEntry *new_mark(FanotifyEntry *fa, struct cr_err *e)
{
	FanotifyMarkEntry **nm = realloc(fa->mark, (fa->n_mark + 1) * sizeof(void *));
	if (!nm) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	fa->mark = nm;
	FanotifyMarkEntry *m = malloc(sizeof(*m));
	if (!m) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	fanotify_mark_entry__init(m);
	fa->mark[fa->n_mark++] = m;
	return m;
}

/* One "fanotify ..." mark line: inode (ino:), mount (mnt_id:) or filesystem (sdev: first). */
static int add_mark(FanotifyEntry *fa, pid_t pid, const char *line, const char *mi, struct cr_err *e)
{
	unsigned long ino;
	unsigned sdev, mnt, mfl, mask, ign;
	struct fh fh;
	FanotifyMarkEntry *m = new_mark(fa, e);
	if (!m)
		return -1;
	if (sscanf(line, "fanotify ino:%lx sdev:%x mflags:%x mask:%x ignored_mask:%x", &ino, &sdev, &mfl,
		   &mask, &ign) == 5) {
		__cleanup_close int gone = -1;
		if (parse_fh(line, &fh) || !(m->path = handle_path(pid, mi, sdev, ino, &fh, &gone, e)))
			return cr_wrap(e, "fanotify inode mark (inode %lu)", ino);
		if (gone >= 0)
			return cr_fail(
			    e, "fanotify inode mark: the marked file %s is removed (not supported)", m->path);
		m->type = 1;
	} else if (sscanf(line, "fanotify mnt_id:%x mflags:%x mask:%x ignored_mask:%x", &mnt, &mfl, &mask,
			  &ign) == 4) {
		if (!(m->path = mount_point(mi, 0, (int)mnt))) /* as the task sees it: it marks it there */
			return cr_fail_errno(e, ENOENT, "fanotify mount mark: no mount %u", mnt);
		m->type = 2;
		m->mnt_id = (int32_t)mnt, m->has_mnt_id = 1;
	} else if (sscanf(line, "fanotify sdev:%x mflags:%x mask:%x ignored_mask:%x", &sdev, &mfl, &mask,
			  &ign) == 4) {
		if (!(m->path = mount_point(mi, sdev, -1)))
			return cr_fail_errno(e, ENOENT, "fanotify filesystem mark: no mount of %u:%u",
					     sdev >> 20, sdev & 0xfffff);
		m->type = 3;
	} else {
		return cr_fail_errno(e, EINVAL, "unknown fanotify mark line in fdinfo");
	}
	m->has_type = 1;
	m->flags = mfl, m->has_flags = 1;
	m->mask = mask, m->has_mask = 1;
	m->ignored_mask = ign, m->has_ignored_mask = 1;
	pr_debug("fanotify mark type %u %s mask %#x ignored %#x\n", m->type, m->path, mask, ign);
	return 0;
}

int dump_fanotify_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	__cleanup_free char *txt = NULL, *mi = NULL;
	unsigned fl, evfl;
	const char *p;
	if (dump_evfd_fdinfo(s->pid, s->fd, &txt, e) || read_mountinfo(s->pid, &mi, e))
		return cr_wrap(e, "fd %d", s->fd);
	if (!(p = strstr(txt, "fanotify flags:")) ||
	    sscanf(p, "fanotify flags:%x event-flags:%x", &fl, &evfl) != 2)
		return cr_fail_errno(e, EINVAL, "fd %d: no fanotify flags in fdinfo", s->fd);
	FanotifyEntry *fa = malloc(sizeof(*fa));
	if (!fa)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	fanotify_entry__init(fa);
	fa->init_flags = fl, fa->has_init_flags = 1;
	fa->event_flags = evfl, fa->has_event_flags = 1;
	fa->flags = s->flags, fa->has_flags = 1;
	fe->fanotify = fa;
	fe->kind = FILE_KIND__FILE_FANOTIFY, fe->has_kind = 1;
	for (p = strchr(p, '\n'); p; p = strchr(p + 1, '\n'))
		if (!strncmp(p + 1, "fanotify ", 9) && add_mark(fa, s->pid, p + 1, mi, e)) {
			dump_evfd_release(fe);
			return cr_wrap(e, "fd %d (fanotify)", s->fd);
		}
	return 0;
}

void dump_notify_queued(const struct dump_ctx *c, const struct evfd_src *s, const char *kind)
{
	struct cr_err e = {0};
	int n = 0;
	__cleanup_close int fd = dump_evfd_take(s->pid, s->fd, &e);
	if (fd < 0 || ioctl(fd, FIONREAD, &n)) {
		pr_warn("fd %d (%s): queued events not counted: %s\n", s->fd, kind,
			fd < 0 ? e.msg : strerror(errno));
		return;
	}
	if (n > 0)
		eng_notice(c->o,
			   "task %d fd %d (%s): %d bytes of queued events not saved (a queue cannot be read "
			   "without consuming it)",
			   s->pid, s->fd, kind, n);
}

/* ---------------------------------------------------------------- the kinds */

static bool is_inotify(const struct dump_ctx *c, const struct fd_src *f)
{
	return !strncmp(f->link, "anon_inode:inotify", strlen("anon_inode:inotify"));
}

static bool is_fanotify(const struct dump_ctx *c, const struct fd_src *f)
{
	return !strncmp(f->link, "anon_inode:[fanotify]", strlen("anon_inode:[fanotify]"));
}

static int dump_inotify(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	struct evfd_src s;
	evfd_src_of(f, &s);
	return dump_evfd_done(c, &s, fe, dump_inotify_fill(c, &s, fe, e));
}

static int dump_fanotify(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	struct evfd_src s;
	evfd_src_of(f, &s);
	return dump_evfd_done(c, &s, fe, dump_fanotify_fill(&s, fe, e));
}

FD_KIND(fdk_inotify) = {
    .name = "inotify",
    .kind = FILE_KIND__FILE_INOTIFY,
    .prio = 52,
    .is = is_inotify,
    .dump = dump_inotify,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_evfd_open,
    .later = rst_inotify_down, /* a watch through another process's namespace (restore-procfd.c) */
    .make = rst_inotify_make,
    .flight = rst_evfd_share_one,
};

FD_KIND(fdk_fanotify) = {
    .name = "fanotify",
    .kind = FILE_KIND__FILE_FANOTIFY,
    .prio = 53,
    .is = is_fanotify,
    .dump = dump_fanotify,
    .release = dump_evfd_kind_release,
    .check = rst_evfd_check,
    .open = rst_evfd_open,
    .make = rst_fanotify_make,
    .flight = rst_evfd_share_one,
};
