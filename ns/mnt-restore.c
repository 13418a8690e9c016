/* The mount tree of the images made again under --root, in the root task's new mount namespace, then
 * pivot_root'ed into. Built with the new mount API: each mount is made detached (a clone of --root, of a
 * filesystem made with fsopen/fsmount, of an external path, or of a peer), given its flags with
 * mount_setattr, and moved into place; propagation is set once the tree stands. ns_mnt_load reads the
 * images in crshim (nothing is made then); ns_mnt_restore runs in the root task and cannot log. */
#define LOG_PREFIX "mnt-restore: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "image/image.h"
#include "mnt-int.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef FSPICK_CLOEXEC
#define FSPICK_CLOEXEC 0x00000001
#define FSPICK_EMPTY_PATH 0x00000008
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

struct mnt_attr_arg {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

void ns_mnt_free(struct ns_mnt_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->m && i < s->n; i++)
		protobuf_c_message_free_unpacked((ProtobufCMessage *)s->m[i],
						 NULL); /* base is the first member */
	for (size_t i = 0; s->fs && i < s->nfs; i++) {
		for (size_t k = 0; k < s->fs[i].n; k++)
			protobuf_c_message_free_unpacked((ProtobufCMessage *)s->fs[i].e[k], NULL);
		free(s->fs[i].e);
	}
	for (size_t i = 0; s->pre && i < s->n; i++)
		if (s->pre[i] >= 0)
			close(s->pre[i]);
	for (size_t i = 0; s->ext_pre && i < s->n; i++)
		if (s->ext_pre[i] >= 0)
			close(s->ext_pre[i]);
	ns_mnt_ext_free(s);
	free(s->m), free(s->src), free(s->fs), free(s->pre), free(s->pre_at), free(s->ext_pre);
	free(s);
}

static int check_entry(const struct cr_opts *o, struct ns_mnt_state *s, size_t i, struct cr_err *e)
{
	const MntEntry *m = s->m[i];
	if (!m->mountpoint || !m->root || !m->fstype || m->mountpoint[0] != '/' ||
	    strstr(m->mountpoint, "/../") || strstr(m->root, "/../"))
		return cr_fail_errno(e, EBADMSG, "mnt.img: mount %u: bad paths", m->mnt_id);
	if (i && !m->parent_id)
		return cr_fail_errno(e, EBADMSG, "mnt.img: mount %u has no parent", m->mnt_id);
	if (m->ext_key && ns_mnt_ext_source(o, m, &s->src[i], e))
		return -1;
	if (!m->contents)
		return 0;
	struct ns_mnt_fs *fs = &s->fs[s->nfs++];
	fs->mnt_id = m->mnt_id;
	return img_read_list(o->imgdir_fd >= 0 ? o->imgdir_fd : -1, IMG_TMPFS, (int)m->mnt_id, false,
			     (void ***)&fs->e, &fs->n, e);
}

int ns_mnt_load(const struct cr_opts *o, int dirfd, struct ns_mnt_state **out, struct cr_err *e)
{
	*out = NULL;
	if (faccessat(dirfd, "mnt.img", F_OK, 0))
		return 0;
	struct ns_mnt_state *s = calloc(1, sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (img_read_list(dirfd, IMG_MNT, 0, false, (void ***)&s->m, &s->n, e))
		goto fail;
	if (!s->n) {
		cr_fail_errno(e, EBADMSG, "mnt.img: no mount");
		goto fail;
	}
	if (!o->root) {
		cr_fail(e, "the images hold a mount namespace: give the root of the tree with --root DIR");
		goto fail;
	}
	s->src = calloc(s->n, sizeof(*s->src));
	s->fs = calloc(s->n, sizeof(*s->fs));
	s->pre = calloc(s->n, sizeof(*s->pre));
	s->pre_at = calloc(s->n, sizeof(*s->pre_at));
	if (!s->src || !s->fs || !s->pre || !s->pre_at) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < s->n; i++)
		s->pre[i] = -1;
	struct cr_opts oo = *o;
	oo.imgdir_fd = dirfd;
	for (size_t i = 0; i < s->n; i++)
		if (check_entry(&oo, s, i, e))
			goto fail;
	if (ns_mnt_ext_host(s, o, e))
		goto fail;
	pr_info("%zu mounts to restore under %s, %zu tmpfs with files\n", s->n, o->root, s->nfs);
	*out = s;
	return 0;
fail:
	ns_mnt_free(s);
	return -1;
}

/* ---------------------------------------------------------------- the root task */

struct build {
	const struct ns_mnt_state *s;
	const char *root;
	int *fd;   /* per mount: the mount once made (attached) */
	int *fsfd; /* per mount: a detached mount of its filesystem's root (the first mount of it) */
	int *at;   /* per mount: its mount point (O_PATH) in its parent, opened once the parent is in place */
	int *own;  /* per mount: its source's clone made in this namespace (ns_mnt_ext_own), -1 */
	char *msg;
	size_t len;
};

static int fail(struct build *b, const MntEntry *m, const char *what)
{
	snprintf(b->msg, b->len, "mount %s (%s): %s: %s", m->mountpoint, m->fstype, what, strerror(errno));
	return -1;
}

static ssize_t index_of(const struct build *b, uint32_t id)
{
	for (size_t i = 0; i < b->s->n; i++)
		if (b->s->m[i]->mnt_id == id)
			return (ssize_t)i;
	return -1;
}

static int clone_at(int dfd, const char *path)
{
	while (dfd != AT_FDCWD && *path == '/')
		path++;
	return (int)syscall(SYS_open_tree, dfd, *path ? path : "",
			    OPEN_TREE_CLONE | O_CLOEXEC | (*path ? 0 : AT_EMPTY_PATH));
}

/* Files of the images to put into mount m's filesystem (a tmpfs): it is made read-write, then read-only. */
static bool has_files(const struct build *b, const MntEntry *m)
{
	for (size_t i = 0; i < b->s->nfs; i++)
		if (b->s->fs[i].mnt_id == m->mnt_id)
			return true;
	return false;
}

/* A new filesystem of the mount's type with its superblock options (read-only from the start when there
 * are no files to put into it: a user namespace may not reconfigure a sysfs, EPERM). */
static int new_fs(struct build *b, const MntEntry *m)
{
	__cleanup_close int fsfd = (int)syscall(SYS_fsopen, m->fstype, FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return fail(b, m, "fsopen");
	char opts[4096];
	snprintf(opts, sizeof(opts), "%s", m->sb_opts ? m->sb_opts : "");
	for (char *sv, *t = strtok_r(opts, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		char *eq = strchr(t, '=');
		if (eq)
			*eq = 0;
		if (syscall(SYS_fsconfig, fsfd, eq ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, t,
			    eq ? eq + 1 : NULL, 0)) {
			char what[256];
			snprintf(what, sizeof(what), "option %s", t);
			return fail(b, m, what);
		}
	}
	if (m->source && *m->source && strcmp(m->source, "none") &&
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "source", m->source, 0))
		return fail(b, m, "its source");
	if (m->sb_ro && !has_files(b, m) && syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_FLAG, "ro", NULL, 0))
		return fail(b, m, "option ro");
	if (syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return fail(b, m, "make the filesystem");
	int mfd = (int)syscall(SYS_fsmount, fsfd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0)
		return fail(b, m, "fsmount");
	return mfd;
}

int ns_rst_devpts(struct ns_rst *r, uint64_t dev, struct cr_err *e)
{
	struct ns_mnt_state *s = r ? r->mnt : NULL;
	for (size_t i = 0; s && i < s->n; i++) {
		const MntEntry *m = s->m[i];
		if (!m->fstype || strcmp(m->fstype, "devpts") || m->ext_key || m->fs_of || !m->has_dev ||
		    m->dev != dev)
			continue;
		if (s->pre[i] >= 0)
			return s->pre[i];
		char msg[1024];
		struct build b = {.s = s, .msg = msg, .len = sizeof(msg)};
		int fd = new_fs(&b, m);
		if (fd < 0)
			return cr_fail(e, "%s", msg);
		s->pre[i] = fd;
		pr_info("devpts of mount %u (%s, %s) made for the tree's ptys\n", m->mnt_id, m->mountpoint,
			m->sb_opts ? m->sb_opts : "");
		return fd;
	}
	return -2;
}

/* Made in a user namespace by the root task (a filesystem of one of these kinds it may mount). */
static bool userns_fs(const char *t)
{
	static const char *const k[] = {"tmpfs",  "ramfs",  "proc",    "sysfs",	 "devpts",
					"mqueue", "cgroup", "cgroup2", "overlay"};
	for (size_t i = 0; t && i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(t, k[i]))
			return true;
	return false;
}

/* s->ext_pre: each external mount (or bind of one) cloned in crshim's namespace, private (a clone that
 * fails here is left to the root task, which says why). */
static int ext_premake(struct ns_mnt_state *s, struct cr_err *e)
{
	struct build b = {.s = s};
	if (!(s->ext_pre = malloc(s->n * sizeof(*s->ext_pre))))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const MntEntry *m = s->m[i];
		ssize_t f = m->fs_of ? index_of(&b, m->fs_of) : -1;
		bool ext = i && (m->ext_key || (f > 0 && s->m[f]->ext_key));
		s->ext_pre[i] = ext ? ns_mnt_ext_clone(s, m->ext_key ? i : (size_t)f, m) : -1;
		if (s->ext_pre[i] >= 0 && ns_mnt_prop_fd(s->ext_pre[i], MS_PRIVATE)) {
			close(s->ext_pre[i]);
			s->ext_pre[i] = -1;
		}
	}
	return 0;
}

int ns_mnt_premake(struct ns_mnt_state *s, bool dry, struct cr_err *e)
{
	char msg[1024] = "";
	struct build b = {.s = s, .msg = msg, .len = sizeof(msg)};
	int *fsfd = calloc(s->n, sizeof(*fsfd));
	if (!fsfd)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = 0;
	for (size_t i = 0; i < s->n; i++)
		fsfd[i] = -1;
	if (!dry && ext_premake(s, e)) {
		free(fsfd);
		return -1;
	}
	for (size_t i = 1; i < s->n && !ret; i++) {
		const MntEntry *m = s->m[i];
		ssize_t f = m->fs_of ? index_of(&b, m->fs_of) : (ssize_t)i;
		if (m->ext_key || m->nsfs_net || f <= 0 || s->m[f]->ext_key || userns_fs(s->m[f]->fstype) ||
		    s->pre[i] >= 0)
			continue; /* (a network namespace's file: ns_net_mnt_premake) */
		if (dry) {	  /* a check makes no mount */
			pr_info(
			    "mount %u (%s, %s): made by crshim at restore (a user namespace cannot make it), "
			    "not tried by the check\n",
			    m->mnt_id, m->mountpoint, m->fstype);
			continue;
		}
		if (fsfd[f] < 0 && (fsfd[f] = new_fs(&b, s->m[f])) < 0) {
			ret = cr_fail(e, "%s", msg);
			break;
		}
		if ((s->pre[i] = clone_at(fsfd[f], m->root)) < 0) {
			ret = cr_fail_sys(e, "mount %s (%s): its root %s", m->mountpoint, m->fstype, m->root);
			break;
		}
		s->pre_at[i] = true;
		pr_info("mount %u (%s, %s) made by crshim: a user namespace cannot make it\n", m->mnt_id,
			m->mountpoint, m->fstype);
	}
	for (size_t i = 0; i < s->n; i++)
		if (fsfd[i] >= 0)
			close(fsfd[i]);
	free(fsfd);
	return ret;
}

/* mkdir -p of root inside a new filesystem (a tmpfs first seen below its root), then its files. */
static int fill(struct build *b, const MntEntry *m, int mfd)
{
	for (size_t i = 0; i < b->s->nfs; i++) {
		if (b->s->fs[i].mnt_id != m->mnt_id)
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s", m->root + strspn(m->root, "/"));
		for (char *s = p; *p && s;) {
			s = strchr(s, '/');
			if (s)
				*s = 0;
			if (mkdirat(mfd, p, 0755) && errno != EEXIST)
				return fail(b, m, "mkdir its root");
			if (s)
				*s++ = '/';
		}
		__cleanup_close int r = *p ? openat(mfd, p, O_PATH | O_DIRECTORY | O_CLOEXEC) : dup(mfd);
		if (r < 0)
			return fail(b, m, "open its root");
		if (ns_tmpfs_fill(r, &b->s->fs[i], b->msg, b->len)) {
			char t[512];
			snprintf(t, sizeof(t), "%s", b->msg);
			snprintf(b->msg, b->len, "mount %s: %s", m->mountpoint, t);
			return -1;
		}
	}
	return 0;
}

/* A read-only superblock: made rw (to be filled), then reconfigured. */
static int sb_ro(struct build *b, const MntEntry *m, int mfd)
{
	if (!m->sb_ro || !has_files(b, m))
		return 0;
	__cleanup_close int fc = (int)syscall(SYS_fspick, mfd, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC);
	if (fc < 0 || syscall(SYS_fsconfig, fc, FSCONFIG_SET_FLAG, "ro", NULL, 0) ||
	    syscall(SYS_fsconfig, fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		return fail(b, m, "make the filesystem read-only");
	return 0;
}

/* Propagation prop on the mount of fd (mount m's, or a stand-in for its group). */
static int set_prop_fd(struct build *b, int fd, const MntEntry *m, uint64_t prop)
{
	if (ns_mnt_prop_fd(fd, prop))
		return fail(b, m, "set its propagation");
	return 0;
}

static int set_prop(struct build *b, size_t i, uint64_t prop)
{
	return set_prop_fd(b, b->fd[i], b->s->m[i], prop);
}

#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef MOVE_MOUNT_SET_GROUP
#define MOVE_MOUNT_SET_GROUP 0x00000100
#endif

/* The mount of fd to joins the peer group of the mount of from (and becomes a slave of its master, if it
 * has one); m: the mount of the images it is or stands for. */
static int join_group(struct build *b, int from, int to, const MntEntry *m)
{
	if (ns_mnt_join_fd(from, to))
		return fail(b, m, "join its peer group");
	return 0;
}

/* The member of peer group g with the widest root (its base). */
static size_t group_base(const struct build *b, uint32_t g)
{
	size_t best = b->s->n;
	for (size_t j = 0; j < b->s->n; j++) {
		const MntEntry *p = b->s->m[j];
		if (p->shared == g && !p->ext_key &&
		    (best == b->s->n || strlen(p->root) < strlen(b->s->m[best]->root)))
			best = j;
	}
	return best;
}

/* The mount through which the members and slaves of the group whose base is mount i join it (a mount joins
 * a group through one whose root is at or above its own): i itself when its root holds all of theirs, else
 * a detached clone of the root of their filesystem (*tmp; the root's: --root), which stands in the group
 * until the end. -1 (msg) if there is none. */
static int group_src(struct build *b, size_t i, int *tmp)
{
	const MntEntry *m = b->s->m[i];
	bool wide = true;
	for (size_t j = 0; j < b->s->n; j++) {
		const MntEntry *p = b->s->m[j];
		if ((p->shared == m->shared || p->master == m->shared) && !p->ext_key &&
		    !ns_mnt_under(p->root, m->root))
			wide = false;
	}
	if (wide)
		return b->fd[i];
	ssize_t f = m->fs_of ? index_of(b, m->fs_of) : (ssize_t)i;
	if (f < 0 || b->fsfd[f] < 0 || (*tmp = clone_at(b->fsfd[f], "")) < 0) {
		errno = f < 0 || b->fsfd[f] < 0 ? EXDEV : errno;
		return fail(b, m, "a mount of its filesystem's root for its peer group");
	}
	return *tmp;
}

/* The mount through which peer group g (set up already: src) is joined, -1 if g is not in the tree. */
static int group_fd(const struct build *b, uint32_t g, const int *src)
{
	for (size_t j = 0; g && j < b->s->n; j++)
		if (b->s->m[j]->shared == g && src[j] >= 0)
			return src[j];
	return -1;
}

static bool group_here(const struct build *b, uint32_t g)
{
	return g && group_base(b, g) < b->s->n;
}

/* The external mounts, once the groups of the tree stand: each into the peer group outside the tree it was
 * in or a slave of (mnt-ext.c), else a slave of its master group in the tree as far as the kernel lets it
 * join that (the same filesystem, a root that holds its own: a source the caller names may be another one;
 * else it stays private), then shared again if it was, in a group of its own (the caller's mount it is
 * made from may be in any group; its peers in other mount namespaces are not restored). A mount comes
 * after the external mounts of the group it is a slave of. */
static int ext_propagation(struct build *b, const int *src)
{
	const size_t n = b->s->n;
	bool done[n ? n : 1];
	for (size_t i = 0; i < n; i++)
		done[i] = !b->s->m[i]->ext_key;
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			const MntEntry *m = b->s->m[i];
			bool wait = false;
			int mfd = -1;
			for (size_t k = 0; !done[i] && m->master && k < n; k++)
				if (k != i && b->s->m[k]->ext_key && b->s->m[k]->shared == m->master) {
					wait |= !done[k];
					mfd = mfd < 0 ? b->fd[k] : mfd;
				}
			if (done[i] || wait)
				continue;
			int out = ns_mnt_ext_link(b->s, i, b->fd[i], b->own[i], b->msg, b->len);
			mfd = mfd < 0 ? group_fd(b, m->master, src) : mfd;
			if (out < 0)
				return -1;
			if (!out && mfd >= 0 &&
			    !syscall(SYS_move_mount, mfd, "", b->fd[i], "",
				     MOVE_MOUNT_SET_GROUP | MOVE_MOUNT_F_EMPTY_PATH |
					 MOVE_MOUNT_T_EMPTY_PATH) &&
			    set_prop(b, i, MS_SLAVE))
				return -1;
			if (m->shared && b->s->out[i] != NS_MNT_OUT_PEER && set_prop(b, i, MS_SHARED))
				return -1;
			done[i] = more = true;
		}
	}
	return 0;
}

/* Propagation, once every mount stands (all built private: a mount put under a shared one would propagate
 * to its peers and slaves, making mounts the dump did not see) and the root is pivot_root'ed into (it
 * wants the root not shared). Each peer group of the images is made again through its member with the
 * widest root (its base, or a stand-in: group_src): that one joins its master group and is made its slave
 * first, then shared; the members join its group (MOVE_MOUNT_SET_GROUP, which makes them slaves of the same
 * master too). A group comes after its master group; the mounts that are only slaves after all groups. A
 * master outside the tree is not kept. */
static int propagation(struct build *b)
{
	const size_t n = b->s->n;
	bool done[n ? n : 1];
	int src[n ? n : 1], tmp[n ? n : 1], ret = -1;
	memset(done, 0, sizeof(done));
	for (size_t i = 0; i < n; i++)
		src[i] = tmp[i] = -1;
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			const MntEntry *m = b->s->m[i];
			if (done[i] || !m->shared || m->ext_key)
				continue;
			size_t base = group_base(b, m->shared);
			const MntEntry *bm = b->s->m[base];
			bool master = group_here(b, bm->master);
			int mfd = group_fd(b, bm->master, src);
			if (master && mfd < 0)
				continue; /* its master group first */
			int fd = group_src(b, base, &tmp[base]);
			if (fd < 0 ||
			    (master && (join_group(b, mfd, fd, bm) || set_prop_fd(b, fd, bm, MS_SLAVE))) ||
			    set_prop_fd(b, fd, bm, MS_SHARED))
				goto out;
			src[base] = fd, more = true;
			for (size_t k = 0; k < n; k++)
				if (b->s->m[k]->shared == m->shared && !b->s->m[k]->ext_key) {
					if (b->fd[k] != fd && join_group(b, fd, b->fd[k], b->s->m[k]))
						goto out;
					done[k] = true;
				}
		}
	}
	for (size_t i = 0; i < n; i++) {
		const MntEntry *m = b->s->m[i];
		if (!m->ext_key && m->shared && !done[i]) {
			errno = ELOOP;
			fail(b, m, "its peer group is a slave of itself");
			goto out;
		}
		if (m->ext_key)
			continue; /* ext_propagation */
		/* the root or a bind of its filesystem, a slave of a group outside the tree only: back into
		 * it (mnt-ext.c) */
		int out = !m->shared ? ns_mnt_ext_link(b->s, i, b->fd[i], b->own[i], b->msg, b->len) : 0;
		int mfd = m->shared || out ? -1 : group_fd(b, m->master, src);
		if (out < 0 || (mfd >= 0 && (join_group(b, mfd, b->fd[i], m) || set_prop(b, i, MS_SLAVE))))
			goto out;
	}
	if (ext_propagation(b, src))
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		if (tmp[i] >= 0)
			close(tmp[i]);
	return ret;
}

static int unbindable(struct build *b)
{
	for (size_t i = 0; i < b->s->n; i++)
		if (b->s->m[i]->unbindable && set_prop(b, i, MS_UNBINDABLE))
			return -1;
	return 0;
}

/* Is every controller of a /proc/self/cgroup line (its second field) an option of the mount? */
static bool cg_match(const MntEntry *m, char *ctrls)
{
	if (!*ctrls)
		return !strcmp(m->fstype, "cgroup2");
	if (strcmp(m->fstype, "cgroup"))
		return false;
	for (char *sv, *c = strtok_r(ctrls, ",", &sv); c; c = strtok_r(NULL, ",", &sv)) {
		bool found = false;
		size_t l = strlen(c);
		for (const char *o = m->sb_opts ? m->sb_opts : ""; o && *o && !found; o = strchr(o, ',')) {
			o += *o == ',';
			found = !strncmp(o, c, l) && (o[l] == ',' || !o[l]);
		}
		if (!found)
			return false;
	}
	return true;
}

/* The root task's cgroup in the hierarchy of cgroup mount m (relative to its cgroup namespace). */
static int own_cgroup(const MntEntry *m, char *out, size_t len)
{
	if (strcmp(m->fstype, "cgroup") && strcmp(m->fstype, "cgroup2"))
		return -1;
	FILE *f = fopen("/proc/self/cgroup", "re");
	char l[4096];
	int ret = -1;
	while (f && ret && fgets(l, sizeof(l), f)) {
		char *c = strchr(l, ':'), *p = c ? strchr(c + 1, ':') : NULL;
		if (!p)
			continue;
		*p++ = 0;
		p[strcspn(p, "\n")] = 0;
		if (cg_match(m, c + 1) && (size_t)snprintf(out, len, "%s", p) < len)
			ret = 0;
	}
	if (f)
		fclose(f);
	errno = ret ? ENOENT : 0;
	return ret;
}

/* The filesystem of mount i, which has one of its own (no fs_of), made once into b->fsfd[i]: crshim's devpts
 * that already holds the tree's ptys, or a new one filled with what the images say. */
static int make_fs(struct build *b, size_t i)
{
	if (b->fsfd[i] >= 0)
		return 0;
	const MntEntry *m = b->s->m[i];
	bool pre = b->s->pre && b->s->pre[i] >= 0;
	int mfd = pre ? fcntl(b->s->pre[i], F_DUPFD_CLOEXEC, 0) : new_fs(b, m);
	if (mfd < 0)
		return pre ? fail(b, m, "dup crshim's mount") : -1;
	if (fill(b, m, mfd) || sb_ro(b, m, mfd)) {
		close(mfd);
		return -1;
	}
	b->fsfd[i] = mfd;
	return 0;
}

/* A bind of a removed directory or (empty) file (root_deleted): made again at its path in its filesystem
 * (*dfd: the detached mount of it), cloned, and removed once the clone is in place (a detached mount whose
 * root is removed cannot be moved), so that the mount's root is "PATH//deleted" again. A name there now is
 * not taken for it. Its path in *dfd, NULL if it is not such a bind. */
static const char *removed_source(const struct build *b, const MntEntry *m, int *dfd)
{
	ssize_t f = m->root_deleted && m->fs_of ? index_of(b, m->fs_of) : -1;
	if (f < 0 || b->fsfd[f] < 0)
		return NULL;
	const char *base = b->s->m[0]->root; /* the root's filesystem: --root is the root's root */
	const char *p = m->root + (f || !strcmp(base, "/") ? 0 : strlen(base)); /* f: made anew */
	*dfd = b->fsfd[f];
	return p + strspn(p, "/");
}

int ns_mnt_clone_removed(int dfd, const char *path, bool file)
{
	const char *rel = path + strspn(path, "/");
	if (!*rel) /* (its filesystem's root) */
		return errno = EINVAL, -1;
	int made =
	    file ? openat(dfd, rel, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600) : mkdirat(dfd, rel, 0700);
	if (made < 0)
		return -1;
	if (file)
		close(made);
	int fd = clone_at(dfd, rel);
	if (fd < 0) {
		int err = errno;
		ns_mnt_unmake(dfd, rel, file);
		errno = err;
	}
	return fd;
}

int ns_mnt_unmake(int dfd, const char *path, bool file)
{
	const char *rel = path + strspn(path, "/");
	return *rel ? unlinkat(dfd, rel, file ? 0 : AT_REMOVEDIR) : 0;
}

static int clone_removed(struct build *b, const MntEntry *m, int dfd, const char *rel)
{
	int fd = ns_mnt_clone_removed(dfd, rel, m->is_file);
	return fd < 0 ? fail(b, m, "bind its removed source made again") : fd;
}

/* Mount i, a bind of a removed directory (root_deleted) of a filesystem made anew, no mount on it and no
 * other bind of a removed directory of that filesystem above, at or below it: the mount of the tree that
 * shows that directory made again (its filesystem's, or a bind above it), -1 if none. The directory is then
 * kept till every process has its fds, so that a ghost of a file of it is made in it and opened through the
 * bind too (zdtm nsmnt_ghostfile_bindrmdir3), and removed by crshim (ns_rst_mnt_removed_drop). */
static ssize_t removed_shown(const struct ns_mnt_state *s, size_t i)
{
	const MntEntry *m = s->m[i];
	if (!i || !m->root_deleted || m->is_file || !m->fs_of || m->fs_of == s->m[0]->mnt_id)
		return -1; /* (the root's filesystem is not made anew) */
	ssize_t shown = -1;
	for (size_t k = 1; k < s->n; k++) {
		const MntEntry *o = s->m[k];
		bool same_fs = o->mnt_id == m->fs_of || o->fs_of == m->fs_of;
		if (o->mnt_id == m->fs_of && o->ext_key)
			return -1;
		if (o->parent_id == m->mnt_id ||
		    (k != i && same_fs && o->root_deleted &&
		     (ns_mnt_under(o->root, m->root) || ns_mnt_under(m->root, o->root))))
			return -1;
		if (k != i && same_fs && shown < 0 && !o->root_deleted && !o->ext_key && !o->is_file &&
		    strcmp(o->root, m->root) && ns_mnt_under(m->root, o->root))
			shown = (ssize_t)k;
	}
	return shown;
}

/* Mount i is in place (placed), or failed to be: its removed source made again goes (if placed, not one
 * removed_shown keeps). */
static int removed_again(struct build *b, size_t i, bool placed)
{
	int dfd;
	const MntEntry *m = b->s->m[i];
	const char *rel = i ? removed_source(b, m, &dfd) : NULL;
	if (rel && placed && removed_shown(b->s, i) >= 0)
		return 0;
	if (rel && ns_mnt_unmake(dfd, rel, m->is_file))
		return fail(b, m, "remove its source made again");
	return 0;
}

void ns_rst_mnt_removed_drop(struct ns_rst *r, pid_t root)
{
	struct ns_mnt_state *s = r ? r->mnt : NULL;
	if (!s || s->removed_dropped)
		return;
	s->removed_dropped = true;
	for (size_t i = s->n; i-- > 1;) { /* (the deepest first) */
		ssize_t k = removed_shown(s, i);
		if (k < 0)
			continue;
		const MntEntry *o = s->m[k];
		const char *rel = s->m[i]->root + (strcmp(o->root, "/") ? strlen(o->root) : 0);
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "/proc/%d/root%s/%s", (int)root,
			 strcmp(o->mountpoint, "/") ? o->mountpoint : "", rel + strspn(rel, "/"));
		if (rmdir(p))
			pr_warn("mount %s: remove its source made again (%s): %s\n", s->m[i]->mountpoint, p,
				strerror(errno));
	}
}

/* The detached mount of mount i, made from what the images say it is. */
static int source(struct build *b, size_t i)
{
	const MntEntry *m = b->s->m[i];
	if (b->s->pre_at && b->s->pre_at[i]) /* made by crshim: ns_mnt_premake */
		return fcntl(b->s->pre[i], F_DUPFD_CLOEXEC, 0);
	ssize_t f = m->fs_of ? index_of(b, m->fs_of) : -1;
	if (m->ext_key || (f > 0 && b->s->m[f]->ext_key)) { /* external, or a bind of an external one */
		int fd = ns_mnt_ext_clone(b->s, m->ext_key ? i : (size_t)f, m);
		if (fd < 0 && errno == EINVAL && b->s->ext_pre && b->s->ext_pre[i] >= 0)
			fd = fcntl(b->s->ext_pre[i], F_DUPFD_CLOEXEC,
				   0); /* crshim's: mounts locked under it */
		return fd;
	}
	/* a clone of its filesystem's detached mount (no mounts on it: a path in it leads where the image
	 * says), private: peers and slaves are made once the tree stands */
	/* the filesystem's own mount may come later: a console bound from a devpts pty before the /dev/pts it
	 * belongs to (mountinfo's order after a restore) */
	if (f > (ssize_t)i && make_fs(b, (size_t)f))
		return -1;
	if (m->fs_of && (f < 0 || b->fsfd[f] < 0)) {
		errno = ENOENT;
		return -1;
	}
	int dfd;
	const char *rel = removed_source(b, m, &dfd);
	if (rel)
		return clone_removed(b, m, dfd, rel);
	if (f >= 0) {
		const char *base = b->s->m[0]->root; /* the root's filesystem: --root is the root's root */
		if (f)				     /* a filesystem made anew: its whole root */
			return clone_at(b->fsfd[f], m->root);
		return clone_at(b->fsfd[f], m->root + (strcmp(base, "/") ? strlen(base) : 0));
	}
	if (make_fs(b, i))
		return -1;
	bool pre = b->s->pre && b->s->pre[i] >= 0; /* made by crshim, the tree's ptys in it: this mount */
	int fd = pre && !strcmp(m->root, "/") ? fcntl(b->fsfd[i], F_DUPFD_CLOEXEC, 0)
					      : clone_at(b->fsfd[i], m->root);
	char own[PATH_MAX];
	/* a cgroup mount whose cgroup is gone (the container's, removed with it): the one the root task is
	 * in now, as a runtime mounts the container's own cgroup */
	if (fd < 0 && errno == ENOENT && !own_cgroup(m, own, sizeof(own)))
		fd = clone_at(b->fsfd[i], own);
	return fd;
}

/* mkdir -p of path (relative to dfd), an empty file at its end for a mount of a file. */
static int make_point(int dfd, const char *path, bool file)
{
	struct stat st;
	if (!fstatat(dfd, *path ? path : ".", &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdirat(dfd, p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (!file)
		return mkdirat(dfd, p, 0755) && errno != EEXIST ? -1 : 0;
	int fd = openat(dfd, p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : close(fd);
}

/* The mount points of the mounts on mount i, made in it and opened (b->at) right after it is placed, before
 * any of them: one may come over the place of another (an overmount of a parent directory), and a mount is
 * put where its parent has its mount point, not where its path leads once the tree stands. */
static int points(struct build *b, size_t i)
{
	const MntEntry *m = b->s->m[i];
	size_t l = strcmp(m->mountpoint, "/") ? strlen(m->mountpoint) : 0;
	for (size_t c = 1; c < b->s->n; c++) {
		const MntEntry *cm = b->s->m[c];
		if (c == i || cm->parent_id != m->mnt_id)
			continue;
		if (!ns_mnt_under(cm->mountpoint, m->mountpoint)) {
			errno = EINVAL;
			return fail(b, cm, "its mount point is not in its parent's");
		}
		const char *rel = cm->mountpoint + l;
		rel += strspn(rel, "/");
		if (make_point(b->fd[i], rel, cm->is_file))
			return fail(b, cm, "make its mount point");
		b->at[c] =
		    *rel ? openat(b->fd[i], rel, O_PATH | O_CLOEXEC) : fcntl(b->fd[i], F_DUPFD_CLOEXEC, 0);
		if (b->at[c] < 0)
			return fail(b, cm, "open its mount point");
	}
	return 0;
}

/* Each mount goes in read-write (a clone keeps its source's flags): the mount points of the mounts below it
 * are made inside it, as a runtime does; its own flags are set by flags() once the tree stands. */
static int place(struct build *b, size_t i)
{
	const MntEntry *m = b->s->m[i];
	int fd = i ? source(b, i) : clone_at(AT_FDCWD, b->root);
	if (fd < 0) /* the step that failed said why already, or: */
		return b->msg[0] ? -1 : fail(b, m, i ? "make it" : "clone --root");
	b->fd[i] = fd;
	if (i == 0)
		b->fsfd[0] = clone_at(AT_FDCWD, b->root);
	struct mnt_attr_arg rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &rw, sizeof(rw)) && errno != EPERM) {
		int err = errno;
		removed_again(b, i, false);
		errno = err;
		return fail(b, m, "make it read-write while the tree is built");
	}
	if (!i && make_point(AT_FDCWD, b->root, false))
		return fail(b, m, "make its mount point");
	if (i && b->at[i] < 0) { /* its parent was not placed before it */
		errno = ENOENT;
		removed_again(b, i, false);
		return fail(b, m, "its parent is not in place");
	}
	if (i ? syscall(SYS_move_mount, fd, "", b->at[i], "",
			MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
	      : syscall(SYS_move_mount, fd, "", AT_FDCWD, b->root, MOVE_MOUNT_F_EMPTY_PATH)) {
		int err = errno;
		removed_again(b, i, false);
		errno = err;
		return fail(b, m, "move it into place");
	}
	if (removed_again(b, i, true))
		return -1;
	/* root ".": the cwd is the directory the root was mounted on; the other paths are in the root */
	if (!i && !strcmp(b->root, ".") && fchdir(fd))
		return fail(b, m, "enter it");
	return points(b, i);
}

/* The flags of each mount (read-only, nosuid, ...) as the images say, those it does not have cleared. */
static int flags(struct build *b)
{
	const uint64_t known = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
			       MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW;
	for (size_t i = 0; i < b->s->n; i++) {
		const MntEntry *m = b->s->m[i];
		struct mnt_attr_arg at = {.attr_set = m->attr,
					  .attr_clr = MOUNT_ATTR__ATIME | (known & ~m->attr)};
		if (syscall(SYS_mount_setattr, b->fd[i], "", AT_EMPTY_PATH, &at, sizeof(at)))
			return fail(b, m, "set its flags");
	}
	return 0;
}

static int pivot(struct build *b)
{
	/* "." (a root born in its user namespace): the cwd is the directory the tree was mounted on, not the
	 * tree; its mount is */
	bool here = !strcmp(b->root, ".");
	if ((here ? fchdir(b->fd[0]) : chdir(b->root)) || syscall(SYS_pivot_root, ".", ".") ||
	    umount2(".", MNT_DETACH) || chdir("/")) {
		snprintf(b->msg, b->len, "pivot_root into %s: %s", b->root, strerror(errno));
		return -1;
	}
	return 0;
}

int ns_mnt_restore(const struct ns_mnt_args *a, char *msg, size_t len)
{
	const struct ns_mnt_state *s = a->mnt;
	if (!s)
		return 0;
	int fds[4 * s->n];
	struct build b = {.s = s,
			  .root = a->root,
			  .fd = fds,
			  .fsfd = fds + s->n,
			  .at = fds + 2 * s->n,
			  .own = fds + 3 * s->n,
			  .msg = msg,
			  .len = len};
	for (size_t i = 0; i < 3 * s->n; i++)
		fds[i] = -1;
	ns_mnt_ext_own(s, b.own); /* before / is made private */
	int ret = -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(msg, len, "make / private in the new mount namespace: %s", strerror(errno));
		goto out;
	}
	size_t i = 0;
	while (i < s->n && !place(&b, i)) {
		i++;
		if (a->o && a->o->fault == FI_RESTORE_MNT_MID && i == (s->n + 1) / 2) {
			snprintf(msg, len, "fault injected at %s", fault_name(FI_RESTORE_MNT_MID));
			goto out;
		}
	}
	if (i < s->n || flags(&b) || pivot(&b) || propagation(&b) || unbindable(&b))
		goto out;
	ret = 0;
out:
	for (size_t k = 0; k < 4 * s->n; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	return ret;
}

/* ---------------------------------------------------------------- for ns/mnt-nested.c */

int ns_mnt_new_filled(const struct ns_mnt_state *s, size_t i, char *msg, size_t len)
{
	struct build b = {.s = s, .msg = msg, .len = len};
	int mfd = new_fs(&b, s->m[i]);
	if (mfd >= 0 && (fill(&b, s->m[i], mfd) || sb_ro(&b, s->m[i], mfd))) {
		close(mfd);
		return -1;
	}
	return mfd;
}

int ns_mnt_prop_fd(int fd, uint64_t prop)
{
	struct mnt_attr_arg at = {.propagation = prop};
	return (int)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &at, sizeof(at));
}

int ns_mnt_join_fd(int from, int to)
{
	return (int)syscall(SYS_move_mount, from, "", to, "",
			    MOVE_MOUNT_SET_GROUP | MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

int ns_mnt_clone_at(int dfd, const char *path)
{
	return clone_at(dfd, path);
}

int ns_mnt_make_point(int dfd, const char *path, bool file)
{
	return make_point(dfd, path, file);
}
