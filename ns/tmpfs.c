/* The files of a tmpfs (or ramfs): saved at dump from a detached clone of its mount (no submount in the
 * way) as one tmpfs_entry per path, parents first: type, mode, owner, times, device number, symlink target,
 * hard links, data extents (holes stay holes); filled into the new filesystem by the restore's root task. */
#define LOG_PREFIX "tmpfs: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "image/image.h"
#include "mnt-int.h"

struct walk {
	struct img_writer *w;
	uint64_t bytes, limit;
	struct {
		dev_t dev;
		ino_t ino;
		char *path;
	} * links;
	size_t nlinks;
};

static const char *hard_link(struct walk *wk, const struct stat *st, const char *path)
{
	if (S_ISDIR(st->st_mode) || st->st_nlink < 2)
		return NULL;
	for (size_t i = 0; i < wk->nlinks; i++)
		if (wk->links[i].ino == st->st_ino && wk->links[i].dev == st->st_dev)
			return wk->links[i].path;
	void *nl = realloc(wk->links, (wk->nlinks + 1) * sizeof(*wk->links));
	if (nl) {
		wk->links = nl;
		wk->links[wk->nlinks].dev = st->st_dev, wk->links[wk->nlinks].ino = st->st_ino;
		wk->links[wk->nlinks++].path = strdup(path);
	}
	return NULL;
}

/* The data extents of a regular file (SEEK_DATA/SEEK_HOLE). */
static int file_data(struct walk *wk, int fd, TmpfsEntry *t, const char *path, struct cr_err *e)
{
	off_t size = (off_t)t->size, off = 0;
	while (off < size) {
		off_t d = lseek(fd, off, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break;
		off_t h = d < 0 ? -1 : lseek(fd, d, SEEK_HOLE);
		if (d < 0 || h < 0)
			return cr_fail_sys(e, "%s: seek", path);
		if ((wk->bytes += (uint64_t)(h - d)) > wk->limit)
			return cr_fail(e, "not supported yet: more than %llu MiB of files",
				       (unsigned long long)(wk->limit >> 20));
		TmpfsData **nd = realloc(t->data, (t->n_data + 1) * sizeof(void *));
		TmpfsData *x = calloc(1, sizeof(*x));
		uint8_t *buf = malloc((size_t)(h - d) ? (size_t)(h - d) : 1);
		if (nd)
			t->data = nd;
		if (!nd || !x || !buf) {
			free(x), free(buf);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		tmpfs_data__init(x);
		t->data[t->n_data++] = x;
		x->off = (uint64_t)d, x->has_off = 1;
		x->data.data = buf, x->data.len = (size_t)(h - d), x->has_data = 1;
		for (size_t got = 0; got < x->data.len;) {
			ssize_t r = pread(fd, buf + got, x->data.len - got, d + (off_t)got);
			if (r <= 0)
				return cr_fail_sys(e, "%s: read", path);
			got += (size_t)r;
		}
		off = h;
	}
	return 0;
}

static void free_data(TmpfsEntry *t)
{
	for (size_t i = 0; i < t->n_data; i++) {
		free(t->data[i]->data.data);
		free(t->data[i]);
	}
	free(t->data);
}

static int one(struct walk *wk, int dirfd, const char *name, const char *path, struct stat *st,
	       struct cr_err *e)
{
	TmpfsEntry t = TMPFS_ENTRY__INIT;
	char target[PATH_MAX];
	int ret = -1;
	t.path = (char *)path;
	t.mode = st->st_mode, t.has_mode = 1;
	t.uid = st->st_uid, t.gid = st->st_gid, t.has_uid = t.has_gid = 1;
	t.atime_sec = st->st_atim.tv_sec, t.atime_nsec = st->st_atim.tv_nsec;
	t.mtime_sec = st->st_mtim.tv_sec, t.mtime_nsec = st->st_mtim.tv_nsec;
	t.has_atime_sec = t.has_atime_nsec = t.has_mtime_sec = t.has_mtime_nsec = 1;
	t.link_of = (char *)hard_link(wk, st, path);
	if (t.link_of)
		return img_write(wk->w, &t.base, e);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		t.rdev = st->st_rdev, t.has_rdev = 1;
	if (S_ISLNK(st->st_mode)) {
		ssize_t l = readlinkat(dirfd, name, target, sizeof(target) - 1);
		if (l < 0)
			return cr_fail_sys(e, "readlink %s", path);
		target[l] = 0;
		t.target = target;
	}
	if (S_ISREG(st->st_mode)) {
		t.size = (uint64_t)st->st_size, t.has_size = 1;
		__cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOATIME);
		if (fd < 0 && errno == EPERM)
			fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			cr_fail_sys(e, "open %s", path);
			goto out;
		}
		if (file_data(wk, fd, &t, path, e))
			goto out;
	}
	if (S_ISSOCK(st->st_mode))
		pr_info("%s: a socket file, made again as a file of that type without its listener\n", path);
	ret = img_write(wk->w, &t.base, e);
out:
	free_data(&t);
	return ret;
}

static int walk_dir(struct walk *wk, int dirfd, const char *path, int depth, struct cr_err *e)
{
	if (depth > 256)
		return cr_fail(e, "%s: directories nested too deep", path);
	int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup < 0 ? NULL : fdopendir(dup);
	if (!d) {
		if (dup >= 0)
			close(dup);
		return cr_fail_sys(e, "read the directory %s", path);
	}
	int ret = 0;
	struct dirent *de;
	while (!ret && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		struct stat st;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= sizeof(sub))
			ret = cr_fail(e, "%s/%s: path too long", path, de->d_name);
		else if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			ret = cr_fail_sys(e, "stat %s", sub);
		else if ((ret = one(wk, dirfd, de->d_name, sub, &st, e)) == 0 && S_ISDIR(st.st_mode)) {
			__cleanup_close int c =
			    openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			ret = c < 0 ? cr_fail_sys(e, "open %s", sub) : walk_dir(wk, c, sub, depth + 1, e);
		}
	}
	if (!ret && errno)
		ret = cr_fail_sys(e, "read the directory %s", path);
	closedir(d);
	return ret;
}

int ns_tmpfs_dump(int tree, int imgdir, int out, int id, uint64_t limit, struct cr_err *e)
{
	struct walk wk = {.limit = limit};
	struct stat st;
	__cleanup_close int fd = openat(tree, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* tree: O_PATH */
	if (fd < 0 || fstat(fd, &st))
		return cr_fail_sys(e, "stat the root");
	if (img_create(imgdir, IMG_TMPFS, id, &wk.w, e))
		return -1;
	int ret = one(&wk, fd, ".", ".", &st, e);
	if (!ret)
		ret = walk_dir(&wk, fd, ".", 0, e);
	for (size_t i = 0; i < wk.nlinks; i++)
		free(wk.links[i].path);
	free(wk.links);
	if (ret) {
		img_abort(wk.w);
		return -1;
	}
	return out >= 0 ? img_commit_to(wk.w, out, e) : img_commit(wk.w, e);
}

/* ---------------------------------------------------------------- restore (the root task: no logging) */

static int fail_msg(char *msg, size_t len, const char *what, const char *path)
{
	snprintf(msg, len, "tmpfs: %s %s: %s", what, path, strerror(errno));
	return -1;
}

static int make_one(int root, const TmpfsEntry *t, char *msg, size_t len)
{
	const char *p = t->path;
	mode_t mode = t->mode;
	if (t->link_of)
		return linkat(root, t->link_of, root, p, 0) ? fail_msg(msg, len, "link", p) : 0;
	if (S_ISDIR(mode)) {
		if (strcmp(p, ".") && mkdirat(root, p, 0700) && errno != EEXIST)
			return fail_msg(msg, len, "mkdir", p);
	} else if (S_ISLNK(mode)) {
		if (symlinkat(t->target ? t->target : "", root, p))
			return fail_msg(msg, len, "symlink", p);
	} else if (S_ISREG(mode)) {
		__cleanup_close int fd = openat(root, p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return fail_msg(msg, len, "create", p);
		for (size_t i = 0; i < t->n_data; i++) {
			const TmpfsData *d = t->data[i];
			for (size_t done = 0; done < d->data.len;) {
				ssize_t w = pwrite(fd, d->data.data + done, d->data.len - done,
						   (off_t)(d->off + done));
				if (w <= 0)
					return fail_msg(msg, len, "write", p);
				done += (size_t)w;
			}
		}
		if (ftruncate(fd, (off_t)t->size))
			return fail_msg(msg, len, "truncate", p);
	} else if (mknodat(root, p, mode & S_IFMT, (dev_t)t->rdev)) {
		return fail_msg(msg, len, "mknod", p);
	}
	if (fchownat(root, p, t->uid, t->gid, AT_SYMLINK_NOFOLLOW))
		return fail_msg(msg, len, "chown", p);
	if (!S_ISLNK(mode) && fchmodat(root, p, mode & 07777, 0))
		return fail_msg(msg, len, "chmod", p);
	return 0;
}

int ns_tmpfs_fill(int root, const struct ns_mnt_fs *fs, char *msg, size_t len)
{
	for (size_t i = 0; i < fs->n; i++)
		if (make_one(root, fs->e[i], msg, len))
			return -1;
	for (size_t i = fs->n; i-- > 0;) { /* children first: making them changed their directory's times */
		const TmpfsEntry *t = fs->e[i];
		struct timespec ts[2] = {{.tv_sec = t->atime_sec, .tv_nsec = t->atime_nsec},
					 {.tv_sec = t->mtime_sec, .tv_nsec = t->mtime_nsec}};
		if (!t->link_of && utimensat(root, t->path, ts, AT_SYMLINK_NOFOLLOW))
			return fail_msg(msg, len, "set the times of", t->path);
	}
	return 0;
}
