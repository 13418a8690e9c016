/* The mount namespaces of processes of the tree other than the root's (mntns-ID.img, ns/mnt-dump.c
 * ns_mnt_nested_dump): each is made again by its process, cloned in its parent's namespace, which is
 * restored already: unshare(CLONE_NEWNS), every mount made private (nothing it changes may propagate back),
 * the parent's mounts it no longer had taken off, the mounts it had made (new filesystems, a tmpfs's files
 * put in, or binds of a mount of the same filesystem) put in place, flags set, then the peer groups and
 * slaves joined again (MOVE_MOUNT_SET_GROUP: with the parent's mounts at the same place where the group was
 * its parent's, or among its own). Then, in it, the process opens its files, cwd and root. ns_mnt_nested_load
 * reads the images in crshim (nothing is made); ns_rst_mntns runs in the process and cannot log. */
#define LOG_PREFIX "mnt-nested: "
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

#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif

enum { HOW_MADE = 0, HOW_KEPT = 1, HOW_GONE = 2 };

struct ns_mnt_nested {
	MntnsMount **r; /* the records of mntns-ID.img */
	size_t n;
	struct ns_mnt_state s; /* s.m[i]: r[i]->m; s.fs: the files of the tmpfs made in it */
};

struct nested_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void nested_free(struct ns_mnt_nested *x)
{
	if (!x)
		return;
	for (size_t i = 0; x->r && i < x->n; i++)
		protobuf_c_message_free_unpacked((ProtobufCMessage *)x->r[i], NULL);
	for (size_t i = 0; x->s.fs && i < x->s.nfs; i++) {
		for (size_t k = 0; k < x->s.fs[i].n; k++)
			protobuf_c_message_free_unpacked((ProtobufCMessage *)x->s.fs[i].e[k], NULL);
		free(x->s.fs[i].e);
	}
	free(x->r), free(x->s.m), free(x->s.fs);
	free(x);
}

void ns_mnt_nested_free(struct ns_mnt_nested **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		nested_free(v[i]);
	free(v);
}

static int nested_check(int dirfd, uint32_t id, struct ns_mnt_nested *x, struct cr_err *e)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	x->s.m = calloc(x->n ? x->n : 1, sizeof(*x->s.m));
	x->s.fs = calloc(x->n ? x->n : 1, sizeof(*x->s.fs));
	if (!x->s.m || !x->s.fs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	x->s.n = x->n;
	for (size_t i = 0; i < x->n; i++) {
		const MntEntry *m = x->r[i]->m;
		if (!m || !m->mountpoint || !m->root || !m->fstype || m->mountpoint[0] != '/' ||
		    strstr(m->mountpoint, "/../") || strstr(m->root, "/../") || x->r[i]->how > HOW_GONE ||
		    (i == 0 && (x->r[i]->how == HOW_GONE || strcmp(m->mountpoint, "/"))) || m->ext_key)
			return cr_fail_errno(e, EBADMSG, "mntns-%u.img: mount %zu: bad entry", id, i);
		x->s.m[i] = x->r[i]->m;
		if (!m->contents || x->r[i]->how != HOW_MADE)
			continue;
		struct ns_mnt_fs *fs = &x->s.fs[x->s.nfs++];
		fs->mnt_id = m->mnt_id;
		if (img_read_list(dirfd, IMG_TMPFS, (int)m->mnt_id, false, (void ***)&fs->e, &fs->n, e))
			return -1;
	}
	return 0;
}

int ns_mnt_nested_load(int dirfd, struct ns_mnt_nested ***out, size_t *n, struct cr_err *e)
{
	*out = NULL, *n = 0;
	for (uint32_t id = 1;; id++) {
		char name[64];
		img_name(IMG_MNTNS, (int)id, name, sizeof(name));
		if (faccessat(dirfd, name, F_OK, 0))
			return 0;
		// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
		struct ns_mnt_nested **nv = realloc(*out, id * sizeof(*nv)), *x = calloc(1, sizeof(*x));
		if (nv)
			*out = nv;
		if (!nv || !x) {
			free(x);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		(*out)[(*n)++] = x;
		if (img_read_list(dirfd, IMG_MNTNS, (int)id, false, (void ***)&x->r, &x->n, e) ||
		    nested_check(dirfd, id, x, e))
			return -1;
		pr_info("mount namespace %u of a process of the tree: %zu mounts and gone ones, %zu tmpfs\n",
			id, x->n, x->s.nfs);
	}
}

const struct ns_mnt_state *ns_mnt_nested_state(const struct ns_mnt_nested *x)
{
	return &x->s;
}

/* ---------------------------------------------------------------- the process */

struct nbuild {
	const struct ns_mnt_nested *x;
	bool pivot; /* its root mount is made (it pivot_root'ed): the rest is made under it */
	int *fd;    /* per record: the mount (made: the detached one, then attached; kept: its place), -1 */
	int *fsfd;  /* per record: a new filesystem's root, made for it and the binds of it */
	int *rmfd;  /* per record: where its removed source was made again (root_deleted), till it is in place
		     */
	char *msg;
	size_t len;
};

static int nfail(struct nbuild *b, const MntEntry *m, const char *what)
{
	snprintf(b->msg, b->len, "mount %s (%s) of its mount namespace: %s: %s", m->mountpoint, m->fstype,
		 what, strerror(errno));
	return -1;
}

static const char *rel(const char *p)
{
	p += strspn(p, "/");
	return *p ? p : ".";
}

static ssize_t nindex(const struct nbuild *b, uint32_t id)
{
	for (size_t i = 0; i < b->x->n; i++)
		if (b->x->r[i]->m->mnt_id == id)
			return (ssize_t)i;
	return -1;
}

/* The parent's mounts it no longer had, the last first. */
static int take_off(struct nbuild *b)
{
	for (size_t i = 0; i < b->x->n; i++) {
		const MntEntry *m = b->x->r[i]->m;
		if (b->x->r[i]->how == HOW_GONE && umount2(m->mountpoint, MNT_DETACH))
			return nfail(b, m, "take its parent's mount off");
	}
	return 0;
}

/* The path of m's root inside the mount f (a mount of its filesystem whose root holds it). */
static const char *sub_root(const MntEntry *f, const MntEntry *m)
{
	return strcmp(f->root, "/") ? m->root + strlen(f->root) : m->root;
}

/* The path of made mount i's removed source (root_deleted) in the filesystem it was made again in. */
static const char *removed_rel(const struct nbuild *b, size_t i)
{
	const MntEntry *m = b->x->r[i]->m;
	ssize_t f = nindex(b, m->fs_of);
	return f < 0 || b->x->r[f]->how == HOW_MADE ? m->root : sub_root(b->x->r[f]->m, m);
}

/* Made mount i, a bind of a removed source: that made again under dfd (kept in rmfd till it is in place)
 * and cloned. */
static int clone_removed(struct nbuild *b, size_t i, int dfd, const char *rel)
{
	if ((b->rmfd[i] = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -1;
	int fd = ns_mnt_clone_removed(dfd, rel, b->x->r[i]->m->is_file);
	if (fd < 0) {
		close(b->rmfd[i]);
		b->rmfd[i] = -1;
	}
	return fd;
}

/* Its removed source made again goes (it is in place, or the restore failed). */
static int unmake_removed(struct nbuild *b, size_t i)
{
	if (b->rmfd[i] < 0)
		return 0;
	int r = ns_mnt_unmake(b->rmfd[i], removed_rel(b, i), b->x->r[i]->m->is_file), err = errno;
	close(b->rmfd[i]);
	b->rmfd[i] = -1;
	errno = err;
	return r;
}

/* In its parent's namespace still: the mounts it made of a mount of that namespace it no longer has,
 * cloned there (a mount of another namespace cannot be cloned, EINVAL) into fsfd. */
static int pre_clone(struct nbuild *b)
{
	for (size_t i = 0; i < b->x->n; i++) {
		const MntEntry *m = b->x->r[i]->m;
		ssize_t f = b->x->r[i]->how == HOW_MADE && m->has_fs_of ? nindex(b, m->fs_of) : -1;
		if (f < 0 || b->x->r[f]->how != HOW_GONE)
			continue;
		__cleanup_close int at = open(b->x->r[f]->m->mountpoint, O_PATH | O_CLOEXEC);
		if (at < 0 ||
		    (b->fsfd[i] = m->root_deleted ? clone_removed(b, i, at, sub_root(b->x->r[f]->m, m))
						  : ns_mnt_clone_at(at, sub_root(b->x->r[f]->m, m))) < 0)
			return nfail(b, m, "clone its source in its parent's namespace");
	}
	return 0;
}

/* The detached mount of made mount i: a clone of a kept mount (the place it has now: taken before any
 * mount is made), of one of its parent's namespace (through its root), or of a filesystem made for it or for
 * an earlier one. */
static int nsource(struct nbuild *b, size_t i)
{
	const MntEntry *m = b->x->r[i]->m;
	ssize_t f = m->has_fs_of ? nindex(b, m->fs_of) : -1;
	if (m->has_fs_of && f < 0) {
		errno = ENOENT;
		return nfail(b, m, "the mount it is a bind of");
	}
	if (f >= 0 && b->x->r[f]->how == HOW_GONE) { /* cloned before the unshare: pre_clone */
		int fd = b->fsfd[i];
		b->fsfd[i] = -1;
		return fd;
	}
	if (f >= 0 && b->x->r[f]->how == HOW_KEPT) {
		int fd = m->root_deleted ? clone_removed(b, i, b->fd[f], sub_root(b->x->r[f]->m, m))
					 : ns_mnt_clone_at(b->fd[f], sub_root(b->x->r[f]->m, m));
		return fd < 0 ? nfail(b, m, "clone its source") : fd;
	}
	if (f < 0) {
		f = (ssize_t)i;
		if ((b->fsfd[i] = ns_mnt_new_filled(&b->x->s, i, b->msg, b->len)) < 0)
			return -1;
	}
	int fd = m->root_deleted && f != (ssize_t)i ? clone_removed(b, i, b->fsfd[f], m->root)
						    : ns_mnt_clone_at(b->fsfd[f], m->root);
	return fd < 0 ? nfail(b, m, "clone its root") : fd;
}

/* Each kept mount a source of a made one: its place now (O_PATH), before a made one may cover it. */
static int kept_places(struct nbuild *b)
{
	for (size_t i = 0; i < b->x->n; i++) {
		if (b->x->r[i]->how != HOW_KEPT)
			continue;
		const MntEntry *m = b->x->r[i]->m;
		b->fd[i] = open(m->mountpoint, O_PATH | O_CLOEXEC);
		if (b->fd[i] < 0)
			return nfail(b, m, "open its place");
	}
	return 0;
}

static int put(struct nbuild *b)
{
	for (size_t i = 0; i < b->x->n; i++) {
		const MntEntry *m = b->x->r[i]->m;
		if (b->x->r[i]->how != HOW_MADE)
			continue;
		int fd = nsource(b, i);
		if (fd < 0)
			return -1;
		b->fd[i] = fd;
		/* pivot: its root on top of "/" for now, the others under it */
		int at = b->pivot && i ? b->fd[0] : AT_FDCWD;
		const char *p = b->pivot && i ? rel(m->mountpoint) : m->mountpoint;
		if ((i || !b->pivot) && ns_mnt_make_point(at, p, m->is_file))
			return nfail(b, m, "make its mount point");
		if (syscall(SYS_move_mount, fd, "", at, p, MOVE_MOUNT_F_EMPTY_PATH))
			return nfail(b, m, "move it into place");
		if (unmake_removed(b, i))
			return nfail(b, m, "remove its source made again");
	}
	return 0;
}

/* The flags of the mounts it made, and of its parent's whose flags it changed. */
static int nflags(struct nbuild *b)
{
	const uint64_t known = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
			       MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW;
	for (size_t i = 0; i < b->x->n; i++) {
		const MntnsMount *r = b->x->r[i];
		if (r->how == HOW_GONE || (r->how == HOW_KEPT && r->base_attr == r->m->attr))
			continue;
		struct nested_attr at = {.attr_set = r->m->attr,
					 .attr_clr = MOUNT_ATTR__ATIME | (known & ~r->m->attr)};
		if (syscall(SYS_mount_setattr, b->fd[i], "", AT_EMPTY_PATH, &at, sizeof(at)))
			return nfail(b, r->m, "set its flags");
	}
	return 0;
}

static int nprop(struct nbuild *b, int fd, const MntEntry *m, uint64_t prop)
{
	return ns_mnt_prop_fd(fd, prop) ? nfail(b, m, "set its propagation") : 0;
}

static int njoin(struct nbuild *b, int from, int to, const MntEntry *m)
{
	return ns_mnt_join_fd(from, to) ? nfail(b, m, "join its peer group") : 0;
}

/* A mount of peer group g in the parent's namespace (its mount at the place where the dump saw one of g
 * there: a kept mount whose parent's copy was in g... the parent's mounts as they stood at dump are the
 * records it kept or lost), opened through proot; -1 if g was not the parent's. */
static int parent_member(struct nbuild *b, int proot, uint32_t g)
{
	for (size_t i = 0; g && i < b->x->n; i++) {
		const MntnsMount *r = b->x->r[i];
		if ((r->how == HOW_GONE && r->m->shared == g) || (r->how == HOW_KEPT && r->base_shared == g))
			return openat(proot, rel(r->m->mountpoint), O_PATH | O_CLOEXEC);
	}
	return -1;
}

/* A mount of group g already set up here, -1. */
static int own_member(const struct nbuild *b, const bool *done, uint32_t g)
{
	for (size_t i = 0; g && i < b->x->n; i++)
		if (done[i] && b->x->r[i]->how != HOW_GONE && b->x->r[i]->m->shared == g)
			return b->fd[i];
	return -1;
}

/* Its peer groups and slaves, once its mounts stand (all private till now). A group its parent's namespace
 * had is joined through the parent's mount at the same place; a group of its own is made through its first
 * member, which first becomes a slave of its master; then the mounts that are only slaves join their master
 * (its own, or the parent's), and the unbindable ones. */
static int npropagation(struct nbuild *b, int proot)
{
	const size_t n = b->x->n;
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int ret = -1;
	if (!done) {
		errno = ENOMEM;
		return nfail(b, b->x->r[0]->m, "propagation");
	}
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const MntEntry *m = b->x->r[i]->m;
			if (b->x->r[i]->how == HOW_GONE || done[i] || (pass == 0 && !m->shared) ||
			    (pass == 1 && (!m->master || m->shared)))
				continue;
			uint32_t g = pass ? m->master : m->shared;
			int own = own_member(b, done, g), pfd = own >= 0 ? -1 : parent_member(b, proot, g);
			int from = own >= 0 ? own : pfd;
			if (pass == 0 && from < 0 && m->master) { /* a new group, a slave of its master */
				int mo = own_member(b, done, m->master),
				    mp = mo >= 0 ? -1 : parent_member(b, proot, m->master);
				int r = (mo >= 0 || mp >= 0) && (njoin(b, mo >= 0 ? mo : mp, b->fd[i], m) ||
								 nprop(b, b->fd[i], m, MS_SLAVE));
				if (mp >= 0)
					close(mp);
				if (r)
					goto out;
			}
			int r = from >= 0 ? njoin(b, from, b->fd[i], m)
					  : nprop(b, b->fd[i], m, pass ? MS_PRIVATE : MS_SHARED);
			if (!r && pass == 1 && from >= 0)
				r = nprop(b, b->fd[i], m, MS_SLAVE);
			if (pfd >= 0)
				close(pfd);
			if (r)
				goto out;
			done[i] = pass == 0;
		}
	for (size_t i = 0; i < n; i++)
		if (b->x->r[i]->how != HOW_GONE && b->x->r[i]->m->unbindable &&
		    nprop(b, b->fd[i], b->x->r[i]->m, MS_UNBINDABLE))
			goto out;
	ret = 0;
out:
	free(done);
	return ret;
}

/* Into its root mount (on top of "/" now): the parent's mounts go with the old root. */
static int npivot(struct nbuild *b)
{
	if (fchdir(b->fd[0]) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir("/"))
		return nfail(b, b->x->r[0]->m, "pivot_root into it");
	return 0;
}

int ns_mnt_nested_up(int *parent_ns, int *parent_root, char *msg, size_t len)
{
	if (*parent_ns < 0 || setns(*parent_ns, CLONE_NEWNS)) {
		snprintf(msg, len, "enter the mount namespace its parent's was made from: %s",
			 *parent_ns < 0 ? "not kept" : strerror(errno));
		return -1;
	}
	close(*parent_ns);
	if (*parent_root >= 0)
		close(*parent_root);
	*parent_ns = *parent_root = -1; /* (that namespace's own parent is not known here) */
	return 0;
}

int ns_rst_mntns_join(pid_t maker, int *parent_ns, int *parent_root, char *msg, size_t len)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)maker);
	int proot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int pns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	int fd = maker > 0 ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	int ret = proot < 0 || pns < 0 || fd < 0 || setns(fd, CLONE_NEWNS) ? -1 : 0;
	if (ret)
		snprintf(msg, len, "enter the mount namespace of task %d (setns): %s", (int)maker,
			 maker > 0 ? strerror(errno) : "not in its PID namespace");
	if (fd >= 0)
		close(fd);
	if (!ret) {
		if (*parent_root >= 0) /* (inherited from the process it was cloned by) */
			close(*parent_root);
		if (*parent_ns >= 0)
			close(*parent_ns);
		*parent_root = proot, *parent_ns = pns;
		return 0;
	}
	if (proot >= 0)
		close(proot);
	if (pns >= 0)
		close(pns);
	return -1;
}

/* A copy of its parent's namespace it changed in nothing the restore can see (every mount kept, with the
 * parent's flags and peer group, none a slave or unbindable): the copy unshare makes is the same, peer groups
 * included. Built mount by mount instead, a mount hidden under another at the same place (CRIU's
 * mntns_remap) could not be reached to join its group again. */
static bool unchanged_copy(const struct ns_mnt_nested *x)
{
	for (size_t i = 0; i < x->n; i++) {
		const MntnsMount *r = x->r[i];
		if (r->how != HOW_KEPT || r->base_attr != r->m->attr || r->base_shared != r->m->shared ||
		    r->m->master || r->m->unbindable)
			return false;
	}
	return true;
}

int ns_mnt_nested_restore(const struct ns_mnt_nested *x, bool fault, int *parent_ns, int *parent_root,
			  char *msg, size_t len)
{
	const size_t n = x->n;
	int *fds = malloc(3 * (n ? n : 1) * sizeof(*fds)), ret = -1;
	if (!fds) {
		snprintf(msg, len, "its mount namespace: out of memory");
		return -1;
	}
	struct nbuild b = {.x = x,
			   .pivot = n && x->r[0]->how == HOW_MADE,
			   .fd = fds,
			   .fsfd = fds + n,
			   .rmfd = fds + 2 * n,
			   .msg = msg,
			   .len = len};
	for (size_t i = 0; i < 3 * n; i++)
		fds[i] = -1;
	/* its parent's namespace, where its peer groups are joined from */
	int proot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int pns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (proot < 0 || pns < 0) {
		snprintf(msg, len, "keep its parent's mount namespace: %s", strerror(errno));
		goto out;
	}
	if (pre_clone(&b))
		goto out;
	bool same = unchanged_copy(x);
	if (unshare(CLONE_NEWNS) || (!same && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))) {
		snprintf(msg, len, "make its mount namespace: %s", strerror(errno));
		goto out;
	}
	if (!same && ((!b.pivot && take_off(&b)) || kept_places(&b) || put(&b)))
		goto out;
	if (fault) { /* (a failed restore kills the tree: the namespace goes with it) */
		snprintf(msg, len, "fault injected at %s", fault_name(FI_RESTORE_MNT_NESTED));
		goto out;
	}
	if (!same && (nflags(&b) || (b.pivot && npivot(&b)) || npropagation(&b, proot)))
		goto out;
	if (*parent_root >= 0) /* (inherited from the process it was cloned by) */
		close(*parent_root);
	if (*parent_ns >= 0)
		close(*parent_ns);
	*parent_root = proot, proot = -1;
	*parent_ns = pns, pns = -1;
	ret = 0;
out:
	if (proot >= 0)
		close(proot);
	if (pns >= 0)
		close(pns);
	for (size_t i = 0; i < n; i++) /* (a failed restore: those not in place yet) */
		unmake_removed(&b, i);
	for (size_t i = 0; i < 3 * n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}
