/* Restore of inotify and fanotify instances (see evfd.h), child side. inotify: the watches are added again
 * in increasing wd order; the kernel hands out wds upwards from the last one, so a watch that comes out
 * below its wd is removed and added again until it gets it (the IN_IGNORED events this makes are read
 * away before the task runs). fanotify: fanotify_init with the image's flags, then each mark (and its
 * ignore mask) by path. */
#define LOG_PREFIX "restore-inotify: "
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "files/evfd.h"
#include "files/ghost.h"
#include "restore.h"

/* Instances crshim makes for several processes of a tree with its own mount tree (rst_notify_later): their
 * watches and marks are added once that tree stands (rst_notify_late), by the paths the tree sees. */
struct later {
	int fd;
	const FileEntry *f;
};
static struct later *laters;
static size_t nr_laters;
static bool watch_later;

void rst_notify_later(bool on)
{
	watch_later = on;
}

static int later(int fd, const FileEntry *f, char *msg, size_t len)
{
	struct later *n = realloc(laters, (nr_laters + 1) * sizeof(*n));
	if (!n) {
		close(fd);
		return rst_errmsg(msg, len, "out of memory");
	}
	laters = n;
	laters[nr_laters++] = (struct later){fd, f};
	return fd;
}

/* fd with the image's status flags; -1 (fd closed) on error */
static int with_fl(int fd, uint32_t flags, char *msg, size_t len)
{
	if (fcntl(fd, F_SETFL, (int)(flags & ~(uint32_t)O_ACCMODE)) < 0) {
		rst_errmsg(msg, len, "set flags %#o", flags);
		close(fd);
		return -1;
	}
	return fd;
}

static int add_watch(int ifd, const InotifyWdEntry *w, char *msg, size_t len)
{
	/* the path names the watched inode itself (a symlink too); a removed file's is its ghost's /proc
	 * link (files/ghost.h), followed through an open of it in our own /proc */
	uint32_t mask = (w->mask & ~(uint32_t)IN_MASK_ADD) | (w->has_ghost_id ? 0 : IN_DONT_FOLLOW);
	char own[64];
	int g = w->has_ghost_id ? rst_ghost_open_path(w->path, O_PATH | O_CLOEXEC) : -1;
	if (w->has_ghost_id && g < 0)
		return rst_errmsg(msg, len, "inotify: open the removed file %s", w->path);
	snprintf(own, sizeof(own), "/proc/self/fd/%d", g);
	const char *path = g >= 0 ? own : w->path;
	int wd = inotify_add_watch(ifd, path, mask);
	while (wd >= 0 && wd < w->wd) { /* move the kernel's counter up to the wd of the image */
		if (inotify_rm_watch(ifd, wd)) {
			if (g >= 0)
				close(g);
			return rst_errmsg(msg, len, "inotify: move to wd %d", w->wd);
		}
		wd = inotify_add_watch(ifd, path, mask);
	}
	if (g >= 0)
		close(g);
	if (wd < 0)
		return rst_errmsg(msg, len, "inotify: watch %s (mask %#x)", w->path, w->mask);
	if (wd != w->wd) {
		errno = 0;
		return rst_errmsg(msg, len, "inotify: watch %s got wd %d, want %d", w->path, wd, w->wd);
	}
	return 0;
}

static int cmp_wd(const void *a, const void *b)
{
	const InotifyWdEntry *x = *(InotifyWdEntry *const *)a, *y = *(InotifyWdEntry *const *)b;
	return (x->wd > y->wd) - (x->wd < y->wd);
}

static int inotify_watches(int ifd, const InotifyEntry *in, char *msg, size_t len);

bool rst_inotify_down(const FileEntry *f)
{
	for (size_t i = 0; f->kind == FILE_KIND__FILE_INOTIFY && f->inotify && i < f->inotify->n_wd; i++) {
		const InotifyWdEntry *w = f->inotify->wd[i];
		if (!w->has_ghost_id && w->path && !strncmp(w->path, "/proc/", 6) &&
		    isdigit((unsigned char)w->path[6]))
			return true;
	}
	return false;
}

int rst_inotify_make(const FileEntry *f, char *msg, size_t len)
{
	const InotifyEntry *in = f->inotify;
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0)
		return rst_errmsg(msg, len, "inotify_init1");
	if (watch_later)
		return (ifd = with_fl(ifd, in->flags, msg, len)) < 0 ? -1 : later(ifd, f, msg, len);
	if (inotify_watches(ifd, in, msg, len))
		return -1;
	return with_fl(ifd, in->flags, msg, len);
}

/* The watches in wd order (ifd is closed on error). */
static int inotify_watches(int ifd, const InotifyEntry *in, char *msg, size_t len)
{
	InotifyWdEntry **w = calloc(in->n_wd + 1, sizeof(void *));
	if (!w) {
		close(ifd);
		return rst_errmsg(msg, len, "inotify watches");
	}
	if (in->n_wd)
		memcpy(w, in->wd, in->n_wd * sizeof(void *));
	qsort(w, in->n_wd, sizeof(void *), cmp_wd);
	for (size_t i = 0; i < in->n_wd; i++)
		if (add_watch(ifd, w[i], msg, len)) {
			free(w);
			close(ifd);
			return -1;
		}
	free(w);
	char buf[4096];
	int fl = fcntl(ifd, F_GETFL);
	fcntl(ifd, F_SETFL, fl | O_NONBLOCK);
	while (read(ifd, buf, sizeof(buf)) > 0) /* the IN_IGNORED events of the moves */
		;
	fcntl(ifd, F_SETFL, fl);
	return 0;
}

static int mark_type(uint32_t type)
{
	return type == 2 ? FAN_MARK_MOUNT : type == 3 ? FAN_MARK_FILESYSTEM : FAN_MARK_INODE;
}

static int add_mark(int ffd, const FanotifyMarkEntry *m, char *msg, size_t len)
{
	unsigned fl = FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW | (unsigned)mark_type(m->type) |
		      (m->flags & FAN_MARK_EVICTABLE);
	if (m->mask && fanotify_mark(ffd, fl, m->mask, AT_FDCWD, m->path))
		return rst_errmsg(msg, len, "fanotify: mark %s (mask %#llx)", m->path,
				  (unsigned long long)m->mask);
	fl |= FAN_MARK_IGNORED_MASK | (m->flags & FAN_MARK_IGNORED_SURV_MODIFY);
	if (m->ignored_mask && fanotify_mark(ffd, fl, m->ignored_mask, AT_FDCWD, m->path))
		return rst_errmsg(msg, len, "fanotify: ignore mask of %s (%#llx)", m->path,
				  (unsigned long long)m->ignored_mask);
	return 0;
}

static int fanotify_marks(int ffd, const FanotifyEntry *fa, char *msg, size_t len)
{
	for (size_t i = fa->n_mark; i-- > 0;) /* fdinfo lists the newest mark first */
		if (add_mark(ffd, fa->mark[i], msg, len))
			return -1;
	return 0;
}

int rst_fanotify_make(const FileEntry *f, char *msg, size_t len)
{
	const FanotifyEntry *fa = f->fanotify;
	int ffd = fanotify_init(fa->init_flags, fa->event_flags); /* FAN_CLOEXEC as it was: fdinfo shows it */
	if (ffd < 0)
		return rst_errmsg(msg, len, "fanotify_init flags %#x event flags %#x", fa->init_flags,
				  fa->event_flags);
	if (watch_later)
		return (ffd = with_fl(ffd, fa->flags, msg, len)) < 0 ? -1 : later(ffd, f, msg, len);
	if (fanotify_marks(ffd, fa, msg, len)) {
		close(ffd);
		return -1;
	}
	return with_fl(ffd, fa->flags, msg, len);
}

int rst_notify_late(char *msg, size_t len)
{
	int ret = 0;
	for (size_t i = 0; i < nr_laters && !ret; i++) {
		const FileEntry *f = laters[i].f;
		int fd = fcntl(laters[i].fd, F_DUPFD_CLOEXEC, 3); /* (inotify_watches closes it on error) */
		if (fd < 0)
			ret = rst_errmsg(msg, len, "dup");
		else if (f->inotify)
			ret = inotify_watches(fd, f->inotify, msg, len) ? -1 : close(fd);
		else {
			ret = fanotify_marks(fd, f->fanotify, msg, len);
			close(fd);
		}
	}
	free(laters);
	laters = NULL;
	nr_laters = 0;
	return ret;
}
