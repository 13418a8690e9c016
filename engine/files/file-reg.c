/* Files opened by path: regular files, directories, O_PATH opens (FILE_REG) and character devices
 * (FILE_CHR). A deleted file is reopened through another link of its inode (another fd of the task, or a
 * link in its old directory), else its contents are saved as a ghost (dump-ghost.c, restore-ghost.c). */
#define LOG_PREFIX "file-reg: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/caps.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "dump.h"
#include "files/fd-kind.h"
#include "files/evfd.h"
#include "files/fdshare.h"
#include "files/ghost.h"
#include "files/procfd.h"
#include "ns.h"
#include "pid.h"
#include "restore.h"

bool fd_has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool fd_is_deleted(const char *link)
{
	size_t l = strlen(link), s = strlen(" (deleted)");
	return l > s && !strcmp(link + l - s, " (deleted)");
}

/* ---------------------------------------------------------------- dump */

/* A name in the directory of path (as task pid sees it: looked up under its root) that is a link to the
 * inode of st (the file was renamed or has another link there), or NULL. */
static char *link_in_dir(int pid, const char *path, const struct stat *st)
{
	char dir[PATH_MAX], at[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*(slash == dir ? slash + 1 : slash) = '\0';
	snprintf(at, sizeof(at), "/proc/%d/root%s", pid, dir);
	__cleanup_closedir DIR *d = opendir(at);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *p = NULL;
		struct stat ls;
		if (de->d_ino != st->st_ino || fstatat(dirfd(d), de->d_name, &ls, AT_SYMLINK_NOFOLLOW) ||
		    ls.st_ino != st->st_ino || ls.st_dev != st->st_dev ||
		    asprintf(&p, "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name) < 0)
			continue;
		return p;
	}
	return NULL;
}

/* f (a deleted name of a file still linked) is reopened through path (taken over); the deleted name is kept
 * in f->old for deleted_name. */
static int reopen_as(struct fd_src *f, char *path, RegFileEntry *re)
{
	f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
	f->old = f->link;
	f->link = path;
	re->deleted_name = f->old;
	return 0;
}

/* Another fd of the task on the inode of f (deleted, still linked) by a live path, NULL if none (one
 * reopened by a link on another mount, linked_elsewhere, is not). */
static const struct fd_src *live_fd(const struct fd_src *f)
{
	for (size_t i = 0; i < f->nr_all && f->st.st_nlink; i++) {
		const struct fd_src *g = &f->all[i];
		if (g->st.st_ino == f->st.st_ino && g->st.st_dev == f->st.st_dev && g->link[0] == '/' &&
		    !fd_is_deleted(g->link) && !g->reg.has_ghost_mnt_up)
			return g;
	}
	return NULL;
}

/* A deleted file or directory held with O_NOFOLLOW (src: its /proc link) whose restored description may
 * not have that flag: its ghost is opened through a /proc magic link, which refuses it, then opened again
 * (restore-ghost.c rst_ghost_nofollow): a directory by "." in itself, which needs search permission there
 * for the restore (not for one every user may search: x for all in its mode, no ACL), a file by the name the
 * ghost keeps (not on a read-only mount, where it is made through a writable copy and unlinked at once),
 * else by its file handle (not on every filesystem). 0: kept, 1: lost (a file), 2: lost if the restore may
 * not search the directory. */
static int nofollow_lost(const char *src, const struct stat *st)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	struct statvfs vs;
	int mid;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) && (statvfs(src, &vs) || !(vs.f_flag & ST_RDONLY)))
		return 0;
	if (S_ISDIR(st->st_mode) && (st->st_mode & 0111) == 0111 &&
	    getxattr(src, "system.posix_acl_access", NULL, 0) < 0)
		return 0;
	if (!name_to_handle_at(AT_FDCWD, src, &fh.h, &mid, AT_SYMLINK_FOLLOW))
		return 0;
	return S_ISDIR(st->st_mode) ? 2 : 1;
}

/* A deleted file: reopened by a live path of its inode (another fd of the task, or another link in its old
 * directory), else its contents are saved as a ghost (dump-ghost.c). f->link becomes the path to use. */
static int fill_deleted(struct dump_ctx *c, struct fd_src *f, RegFileEntry *re, struct cr_err *e)
{
	if (fd_has_prefix(f->link, "/memfd:"))
		return cr_fail(e, "fd %d is %s (%s), not supported yet", f->fd, "a memfd", f->link);
	const struct fd_src *g = live_fd(f);
	if (g) {
		char *p = strdup(g->link);
		if (!p)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		pr_info("fd %d: deleted %s is reopened as %s (fd %d)\n", f->fd, f->link, p, g->fd);
		return reopen_as(f, p, re);
	}
	char *alias = f->st.st_nlink ? link_in_dir(c->pid, f->link, &f->st) : NULL;
	if (alias) {
		pr_info("fd %d: deleted %s is reopened as its other link %s\n", f->fd, f->link, alias);
		return reopen_as(f, alias, re);
	}
	char src[64], what[32];
	uint32_t id;
	snprintf(src, sizeof(src), "/proc/%d/fd/%d", c->pid, f->fd);
	snprintf(what, sizeof(what), "fd %d", f->fd);
	if (dump_ghost_add(c, src, &f->st, f->link, what, &id, e))
		return -1;
	int lost = (f->fi.flags & O_NOFOLLOW) ? nofollow_lost(src, &f->st) : 0;
	if (lost == 1)
		eng_notice(
		    c->o,
		    "task %d fd %d: the deleted %s, opened O_NOFOLLOW, is restored without O_NOFOLLOW (no "
		    "file handle on its filesystem, and its mount is read-only)",
		    c->pid, f->fd, f->link);
	else if (lost == 2)
		eng_notice(
		    c->o,
		    "task %d fd %d: the removed directory %s, opened O_NOFOLLOW, is restored without "
		    "O_NOFOLLOW if the restore may not search it (mode %#o, owner %u:%u; no file handle "
		    "on its filesystem)",
		    c->pid, f->fd, f->link, (unsigned)(f->st.st_mode & 07777), (unsigned)f->st.st_uid,
		    (unsigned)f->st.st_gid);
	f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
	re->deleted = true, re->has_deleted = 1;
	re->ghost_id = id, re->has_ghost_id = 1;
	return 0;
}

/* Opened by path: not a socket, a block device or an anonymous inode. */
static bool by_path(const struct fd_src *s)
{
	/* (an O_PATH fd of a socket's node too) */
	return s->link[0] == '/' && ((!S_ISSOCK(s->st.st_mode) && !S_ISBLK(s->st.st_mode)) ||
				     (S_ISSOCK(s->st.st_mode) && (s->fi.flags & O_PATH)));
}

static bool is_chr(const struct dump_ctx *c, const struct fd_src *s)
{
	return by_path(s) && S_ISCHR(s->st.st_mode);
}

/* An O_PATH open of a FIFO or a socket's node is reopened by path like a file. */
static bool is_reg(const struct dump_ctx *c, const struct fd_src *s)
{
	const struct stat *st = &s->st;
	return by_path(s) && !S_ISCHR(st->st_mode) &&
	       (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || (s->fi.flags & O_PATH));
}

/* Whether mount id is in pid's mount namespace. An fd opened before the task made a mount namespace of its
 * own (unshare(CLONE_NEWNS)) is on its parent's mount, of which the task's namespace has a copy under another
 * id: not a mount that was mounted over. */
static bool mount_seen(pid_t pid, int id)
{
	char p[64], line[512];
	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
	__cleanup_fclose FILE *mi = fopen(p, "re");
	int mid;
	bool start = true; /* (a long line comes in several pieces: only the first has the id) */
	while (mi && fgets(line, sizeof(line), mi)) {
		if (start && sscanf(line, "%d", &mid) == 1 && mid == id)
			return true;
		start = strchr(line, '\n') != NULL;
	}
	return !mi; /* unreadable: as before, the mount ids alone */
}

/* A file reopened by its path at restore: the path, looked up as the task sees it, must reach the same inode
 * on the same mount. Else (its mount was mounted over, or detached, or the name now links another inode) the
 * restore would open something else: refused. A path that cannot be looked up is left to the restore's check.
 */
/* Is pid a process of the tree (not crshim, whose own fds the files in flight are: dump-sk-scm.c)? */
static bool of_tree(const struct dump_ctx *c, pid_t pid)
{
	for (size_t i = 0; c->tree && i < c->ntree; i++)
		if (c->tree[i].pid == pid)
			return true;
	return false;
}

/* A mount of the namespace of another process of the tree, not seen in that of as: that process, else 0. */
static pid_t mount_of_other(const struct dump_ctx *c, pid_t as, int id)
{
	if (id < 0 || !of_tree(c, as) || mount_seen(as, id))
		return 0;
	for (size_t i = 0; i < c->ntree; i++)
		if (!ns_same(c->tree[i].pid, "mnt", as, "mnt") && mount_seen(c->tree[i].pid, id))
			return c->tree[i].pid;
	return 0;
}

/* A statx of "/proc/PID/root" + an fd's path (AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID), made once per
 * fd: by file_down in c's view, taken again by check_reachable when it looks in the same (done). */
struct path_look {
	bool done, ok;
	struct statx sx;
};

static void path_look(pid_t as, const char *link, struct path_look *l)
{
	char at[PATH_MAX + 64];
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)as, link);
	l->ok = !statx(AT_FDCWD, at, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &l->sx);
	l->done = true;
}

/* (pre: c's own look at f->link, file_down's; NULL or not done: looked at here) */
static int check_reachable(const struct dump_ctx *c, pid_t as, const struct fd_src *f,
			   const struct path_look *pre, struct cr_err *e)
{
	struct path_look l = {0};
	if (pre && pre->done && as == c->pid)
		l = *pre;
	else
		path_look(as, f->link, &l);
	const struct statx sx = l.sx;
	bool found = l.ok && (sx.stx_mask & STATX_MNT_ID) && f->fi.mnt_id >= 0;
	pid_t other = !found || (int)sx.stx_mnt_id != f->fi.mnt_id ? mount_of_other(c, as, f->fi.mnt_id) : 0;
	if (other) /* (opened through /proc/OTHER/root, or a file of a child that made its namespace) */
		return cr_fail(
		    e,
		    "not supported yet: fd %d: %s is on mount %d of the mount namespace of task %d, "
		    "not of its process's",
		    f->fd, f->link, f->fi.mnt_id, (int)other);
	if (!found)
		return 0;
	if ((int)sx.stx_mnt_id != f->fi.mnt_id && mount_seen(c->pid, f->fi.mnt_id))
		return cr_fail(e,
			       "fd %d: %s is on mount %d, which is mounted over (the path reaches mount "
			       "%llu): it cannot be reopened",
			       f->fd, f->link, f->fi.mnt_id, (unsigned long long)sx.stx_mnt_id);
	if (sx.stx_ino != f->st.st_ino || makedev(sx.stx_dev_major, sx.stx_dev_minor) != f->st.st_dev)
		return cr_fail(e, "fd %d: the path %s now names another file: it cannot be reopened", f->fd,
			       f->link);
	return 0;
}

/* An fd of /dev/net/tun attached to a device (its fdinfo names it, "iff:"): its device, flags, vnet
 * header size and send buffer (TUNGET* on a copy of the fd), attached again at restore (open_path). */
static int tun_attached(const struct fd_src *f, RegFileEntry *re, struct cr_err *e)
{
	char p[64], buf[512];
	if (!S_ISCHR(f->st.st_mode) || f->st.st_rdev != makedev(10, 200))
		return 0;
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", f->pid, f->fd);
	const char *iff = proc_read_small(p, buf, sizeof(buf)) > 0 ? strstr(buf, "iff:\t") : NULL;
	if (!iff || iff[5] == '\n' || !iff[5])
		return 0; /* attached to no device: opened again by path */
	__cleanup_close int fd = dump_evfd_take(f->pid, f->fd, e);
	struct ifreq ifr = {0};
	int hdr = 0, sndbuf = 0;
	if (fd < 0)
		return -1;
	/* a queue of a multi-queue device may be detached: attaching it (a moment) works only then */
	struct ifreq q = {.ifr_flags = IFF_ATTACH_QUEUE};
	bool detached = !ioctl(fd, TUNSETQUEUE, &q);
	int r =
	    ioctl(fd, TUNGETIFF, &ifr) || ioctl(fd, TUNGETVNETHDRSZ, &hdr) || ioctl(fd, TUNGETSNDBUF, &sndbuf)
		? -errno
		: 0;
	q.ifr_flags = IFF_DETACH_QUEUE;
	if (detached && ioctl(fd, TUNSETQUEUE, &q))
		return cr_fail_sys(e, "fd %d: queue of multi-queue tun/tap %.*s: detach it again", f->fd,
				   IFNAMSIZ, ifr.ifr_name);
	if (r)
		return cr_fail_errno(e, -r, "fd %d: tun/tap fd: TUNGETIFF/TUNGETVNETHDRSZ/TUNGETSNDBUF",
				     f->fd);
	ifr.ifr_name[IFNAMSIZ - 1] = '\0';
	struct stat dev_ns, task_ns;
	__cleanup_close int nsfd = ioctl(fd, SIOCGSKNS);
	snprintf(p, sizeof(p), "/proc/%d/ns/net", f->pid);
	if (nsfd < 0 || fstat(nsfd, &dev_ns) || stat(p, &task_ns) || dev_ns.st_ino != task_ns.st_ino)
		return cr_fail(e,
			       "fd %d is a tun/tap fd attached to %s of another network namespace than its "
			       "process's: not supported yet",
			       f->fd, ifr.ifr_name);
	if (!(re->tun_iff = strdup(ifr.ifr_name)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	re->tun_flags = (uint16_t)ifr.ifr_flags | (detached ? IFF_DETACH_QUEUE : 0), re->has_tun_flags = 1;
	re->tun_vnet_hdr_sz = hdr, re->has_tun_vnet_hdr_sz = 1;
	re->tun_sndbuf = sndbuf, re->has_tun_sndbuf = 1;
	pr_info("fd %d: tun/tap fd attached to %s (flags 0x%x)\n", f->fd, ifr.ifr_name, re->tun_flags);
	return 0;
}

/* The deepest directory of path that task pid sees (path's own, else one above it): its path in dir, its
 * statx (mount id, device) in sx. -1 if none. */
static int existing_dir(pid_t pid, const char *path, char *dir, size_t len, struct statx *sx)
{
	char at[PATH_MAX + 64];
	snprintf(dir, len, "%s", path);
	for (char *slash; (slash = strrchr(dir, '/'));) {
		*(slash == dir ? slash + 1 : slash) = '\0';
		snprintf(at, sizeof(at), "/proc/%d/root%s", (int)pid, dir);
		if (!statx(AT_FDCWD, at, 0, STATX_INO | STATX_MNT_ID, sx) && S_ISDIR(sx->stx_mode) &&
		    (sx->stx_mask & STATX_MNT_ID))
			return 0;
		if (slash == dir)
			break;
	}
	return -1;
}

/* x's parent (of the tree c is in) when it is in x's mount namespace (x made, entered or left none), NULL
 * else */
static const struct dump_ctx *same_ns_parent(const struct dump_ctx *c, const struct dump_ctx *x)
{
	const struct dump_ctx *p = NULL;
	if (x->mntns_up || x->mntns_join)
		return NULL;
	for (size_t i = 0; x->ppid && i < c->ntree && !p; i++)
		p = c->tree[i].pid == x->ppid ? &c->tree[i] : NULL;
	return p && dump_same_mnt(p, x) ? p : NULL;
}

/* c is in the nested mount namespace a process of the tree made, which crshim may link its ghosts in at
 * that process's stand (restore-ghost.c link_maker): c made it, or entered it (setns) or inherited it from a
 * process that made or entered it. */
static bool links_in_mntns(const struct dump_ctx *c)
{
	const struct dump_ctx *x = c;
	for (size_t depth = 0; x && depth < c->ntree && !x->mntns && !x->mntns_join; depth++)
		x = same_ns_parent(c, x);
	for (size_t i = 0; x && x->mntns_join && i < c->ntree; i++)
		if (c->tree[i].pid == x->mntns_join)
			return c->tree[i].mntns != 0;
	return x && x->mntns != 0;
}

/* c entered (setns) the nested mount namespace its maker made, and as (on a mount of whose namespace a file
 * of c's is: ghost_mnt_up) is in the one that maker's was made from (its parent's): crshim links it there at
 * the maker's stand too, through the maker's spawner's root (restore-ghost.c link_of) */
static bool joined_up(const struct dump_ctx *c, pid_t as)
{
	const struct dump_ctx *m = NULL, *p = NULL, *a = NULL;
	for (size_t i = 0; c->mntns_join && i < c->ntree; i++) {
		m = c->tree[i].pid == c->mntns_join ? &c->tree[i] : m;
		a = c->tree[i].pid == as ? &c->tree[i] : a;
	}
	for (size_t i = 0; m && m->ppid && i < c->ntree; i++)
		p = c->tree[i].pid == m->ppid ? &c->tree[i] : p;
	return m && m->mntns && p && a && dump_same_mnt(p, a);
}

static bool in_root_mntns(const struct dump_ctx *c)
{
	/* (crshim's own copy of a file in flight in a unix socket: crshim makes it where it sees its path) */
	return c->pid == getpid() || dump_same_mnt(c, &c->tree[0]);
}

/* The directory the task opens a deleted file of a process in a mount namespace other than the root's again
 * on (re->ghost_mnt: the deepest directory of its deleted name as as sees it, c or the process of the
 * namespace c's was made from, ghost_mnt_up), by its file handle, when it was opened on another mount (a
 * ghost, made in the root's mount tree: restore-ghost.c; another link of it, in either namespace). Refused:
 * a file that directory is not on the same mount as, and another mount in a tree born in its user namespace
 * (no CAP_DAC_READ_SEARCH there: open_by_handle_at opens directories only; crshim links regular files
 * there); opened_on: the mount it is opened on at first. copy: a ghost made on another filesystem
 * (ghost_mount), which the process makes again on that mount (re->ghost_copy): no handle. */
static int on_mount(struct dump_ctx *c, pid_t as, struct fd_src *f, RegFileEntry *re, uint64_t opened_on,
		    bool copy, struct cr_err *e)
{
	char dir[PATH_MAX];
	struct statx sx;
	const char *name = f->old ? f->old : f->link;
	if (existing_dir(as, name, dir, sizeof(dir), &sx) || (int)sx.stx_mnt_id != f->fi.mnt_id)
		return cr_fail(e,
			       "not supported yet: fd %d: deleted %s is on mount %d, which no directory of "
			       "its path reaches (as task %d sees it)",
			       f->fd, name, f->fi.mnt_id, (int)as);
	size_t dl = strlen(dir);
	const char *last = strrchr(name, '/');
	bool named =
	    last && (size_t)(last - name) == (dl == 1 ? 0 : dl) && !strncmp(name, dir, dl) && last[1];
	/* born: a ghost (a regular file) or the other link of a file still linked, of the process that made
	 * its namespace (or of one that inherited it from that process: cloned after it,
	 * rst_ghost_link_nested links them all), on a mount of it or of the one it was made from (as), is
	 * linked there by crshim (which may open it by its handle) for the process's open by that name: its
	 * deleted name, or when its directory is not there (removed too) another (link_name). A removed
	 * directory is opened by its handle by the process itself, as in a tree not born there: root of the
	 * user namespace that owns its mount namespace may open a directory so (O_DIRECTORY; the kernel's
	 * may_decode_fh), the same inode as crshim's ghost, which its other fds, its cwd and the other
	 * processes' open too (a copy made again would be another inode). */
	bool removed_dir = re->has_ghost_id && re->deleted && S_ISDIR(f->st.st_mode);
	/* (a deleted file of the root's mount namespace: its process opens it by its own name there, kept
	 * till every process has its fds, root_ghost_mount) */
	bool root_ns = as == c->pid && in_root_mntns(c);
	bool link = (c->born || !dump_ghost_file_handles()) && !copy && !removed_dir && !root_ns &&
		    opened_on != sx.stx_mnt_id;
	bool reg = S_ISREG(f->st.st_mode) && (re->has_ghost_id ? re->deleted : f->old != NULL);
	if (link && !(reg && links_in_mntns(c) && (as == c->pid || !c->mntns_join || joined_up(c, as))))
		return cr_fail(
		    e,
		    "not supported yet: fd %d: deleted %s is on mount %d of another mount "
		    "namespace than the root's, in a tree restored born in its user namespace (not "
		    "a regular file, or one of a process that neither made its namespace nor "
		    "entered or inherited it)",
		    f->fd, name, f->fi.mnt_id);
	if (!(re->ghost_mnt = strdup(dir)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	re->ghost_mnt_up = as != c->pid, re->has_ghost_mnt_up = 1; /* (live_fd: even false) */
	re->ghost_copy = copy, re->has_ghost_copy = copy;
	re->ghost_link = link, re->has_ghost_link = link;
	if (named && !(re->ghost_name = strdup(last + 1)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	const char *part = last && last[1] ? last + 1 : "ghost";
	if (!named && !(re->ghost_name = dump_ghost_pick_name(c, as, dir, part, &f->st, re->ghost_id)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("fd %d: deleted %s: %s on the mount of %s (mount %d)%s\n", f->fd, name,
		copy   ? "made again by its process"
		: link ? "linked there by crshim for its process's open"
		       : "opened again",
		dir, f->fi.mnt_id, re->ghost_mnt_up ? ", in the namespace its own was made from" : "");
	return 0;
}

/* Whose view c's paths are looked up in: c's, or for crshim's own copy of a file in flight in a unix socket
 * (opened again by crshim in the root's mount tree), the root task's. */
static pid_t seen_by(const struct dump_ctx *c)
{
	return c->pid == getpid() && c->tree ? c->tree[0].pid : c->pid;
}

/* Where ghost id of c is made (dump_ghost_made_at) when that is on another mount than mnt of the same
 * filesystem dev, as task as sees it (dir, *rx: the deepest directory of its path there); NULL else (no
 * ghost, no directory of its path, the same mount, another filesystem). */
static const char *made_elsewhere(const struct dump_ctx *c, pid_t as, uint32_t id, uint64_t mnt, dev_t dev,
				  char *dir, size_t len, struct statx *rx)
{
	const char *made = dump_ghost_made_at(c, id);
	if (!made || existing_dir(as, made, dir, len, rx) || rx->stx_mnt_id == mnt ||
	    makedev(rx->stx_dev_major, rx->stx_dev_minor) != dev)
		return NULL;
	return made;
}

/* The deepest directory of path task pid sees (own, *ox) is on mount mnt. */
static bool dir_on_mount(pid_t pid, const char *path, uint64_t mnt, char *own, size_t len, struct statx *ox)
{
	return !existing_dir(pid, path, own, len, ox) && ox->stx_mnt_id == mnt;
}

/* The rest of path below top ("" for top itself, else "/..."), NULL if path is neither top nor below it. */
static const char *below(const char *path, const char *top)
{
	size_t l = strcmp(top, "/") ? strlen(top) : 0;
	return !strncmp(path, top, l) && (path[l] == '/' || !path[l]) ? path + l : NULL;
}

/* The root (in its filesystem) and mount point of mount id in mi (a mountinfo's text): 0, or -1 if not
 * there. (Octal escapes, \040, are not decoded: such a path is not found by the statx that checks it.) */
static int mount_root_mp(const char *mi, uint64_t id, char *root, char *mp)
{
	for (const char *p = mi; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long mid;
		if (sscanf(p, "%llu %*d %*u:%*u %4095s %4095s", &mid, root, mp) == 3 && mid == id)
			return 0;
	}
	return -1;
}

/* The directory own (as task pid sees it, on mount from; *ox: its statx) as seen on mount to of the same
 * filesystem (malloc'ed), when that mount shows it and a lookup of that path reaches it there; NULL else. */
static char *dir_seen_on(pid_t pid, const char *own, const struct statx *ox, uint64_t from, uint64_t to)
{
	char root_f[PATH_MAX], mp_f[PATH_MAX], root_t[PATH_MAX], mp_t[PATH_MAX], fs[2 * PATH_MAX],
	    at[PATH_MAX + 64];
	struct cr_err e;
	struct statx vx;
	__cleanup_free char *mi = NULL;
	char *via = NULL;
	if (proc_read(pid, "mountinfo", &mi, NULL, &e) || mount_root_mp(mi, from, root_f, mp_f) ||
	    mount_root_mp(mi, to, root_t, mp_t))
		return NULL;
	const char *rel = below(own, mp_f), *in_to;
	if (!rel)
		return NULL;
	snprintf(fs, sizeof(fs), "%s%s", strcmp(root_f, "/") ? root_f : "", rel);
	if (!(in_to = below(*fs ? fs : "/", root_t)) ||
	    asprintf(&via, "%s%s", strcmp(mp_t, "/") ? mp_t : (*in_to ? "" : "/"), in_to) < 0)
		return NULL;
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)pid, via);
	if (statx(AT_FDCWD, at, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &vx) ||
	    !(vx.stx_mask & STATX_MNT_ID) || vx.stx_mnt_id != to || !S_ISDIR(vx.stx_mode) ||
	    vx.stx_ino != ox->stx_ino || vx.stx_dev_major != ox->stx_dev_major ||
	    vx.stx_dev_minor != ox->stx_dev_minor) {
		free(via);
		return NULL;
	}
	return via;
}

/* The ghost's directory (made: its path, removed too; dir, *rx: the deepest directory of it left, on the
 * ghost's mount) as the fd f's mount shows it (malloc'ed), when the fd's path is the ghost's seen there (a
 * bind of a directory above the removed one): the restore keeps that directory made again and the ghost's
 * name in it till every process has its fds (restore-ghost.c), so that the process opens the ghost by its
 * own name through its own mount (re->ghost_via, open_kept); NULL else. */
static char *removed_dir_seen_on(pid_t pid, const char *made, const char *dir, const struct statx *rx,
				 const struct fd_src *f)
{
	const char *tail = below(made, dir), *last = strrchr(made, '/');
	char *seen, *via = NULL;
	if (!tail || !*tail || !last || tail == last ||
	    !(seen = dir_seen_on(pid, dir, rx, rx->stx_mnt_id, (uint64_t)f->fi.mnt_id)))
		return NULL;
	const char *s = strcmp(seen, "/") ? seen : "";
	size_t sl = strlen(s), tl = strlen(tail);
	if (!strncmp(f->link, s, sl) && !strcmp(f->link + sl, tail) &&
	    asprintf(&via, "%s%.*s", s, (int)(tl - strlen(last)), tail) < 0)
		via = NULL;
	free(seen);
	return via;
}

/* The fd f's directory is the root of its mount, a bind of a removed directory (mountinfo root
 * "PATH//deleted"), and that directory is the ghost's (made: its path, on mount gm of the same filesystem):
 * the restore makes it again for the bind and keeps it till every process has its fds (ns/mnt-restore.c
 * removed_shown), the ghost is made in it with its name kept, so that the process opens it by its own name
 * through the bind (zdtm nsmnt_ghostfile_bindrmdir3). */
static bool removed_root_is_ghost_dir(pid_t pid, const char *made, uint64_t gm, const struct fd_src *f)
{
	char root_f[PATH_MAX], mp_f[PATH_MAX], root_g[PATH_MAX], mp_g[PATH_MAX], gdir[2 * PATH_MAX];
	struct cr_err e;
	__cleanup_free char *mi = NULL;
	const char *fb = strrchr(f->link, '/'), *mb = strrchr(made, '/'), *tag = "//deleted";
	if (!fb || !mb || strcmp(fb, mb) || proc_read(pid, "mountinfo", &mi, NULL, &e) ||
	    mount_root_mp(mi, (uint64_t)f->fi.mnt_id, root_f, mp_f) || mount_root_mp(mi, gm, root_g, mp_g))
		return false;
	size_t rl = strlen(root_f), tl = strlen(tag), ml = strcmp(mp_f, "/") ? strlen(mp_f) : 0;
	if (rl <= tl || strcmp(root_f + rl - tl, tag) || (size_t)(fb - f->link) != ml ||
	    strncmp(f->link, mp_f, ml))
		return false;
	root_f[rl - tl] = '\0';
	const char *rel = below(made, mp_g);
	if (!rel)
		return false;
	snprintf(gdir, sizeof(gdir), "%s%.*s", strcmp(root_g, "/") ? root_g : "",
		 (int)(strlen(rel) - strlen(mb)), rel);
	return !strcmp(gdir, root_f);
}

/* A removed directory or a deleted file (f) of a process in the root's mount namespace, held on another
 * mount than the one its ghost is made on (that of the first fd or cwd of its inode: a bind of its parent,
 * say): opened again on its own mount (on_mount), as it was (else every fd of it came back on the ghost's
 * mount): by its handle, or a file by its own name there when its directory is the ghost's (the ghost's
 * name is kept till every process has its fds: restore-ghost.c rehomed; a tree born in its user namespace
 * or an unprivileged crshim, user mode, may not open a file by handle; a tree born there opens it through
 * its own directory as the ghost's mount shows it, or the ghost's as its own shows it: re->ghost_via). Left
 * on the ghost's mount, as before, with a warning, when no directory of its path reaches its mount any more,
 * or it may be opened none of these ways. */
static int root_ghost_mount(struct dump_ctx *c, struct fd_src *f, RegFileEntry *re, struct cr_err *e)
{
	char dir[PATH_MAX], own[PATH_MAX];
	struct statx rx, sx;
	const char *made = made_elsewhere(c, c->pid, re->ghost_id, (uint64_t)f->fi.mnt_id, f->st.st_dev, dir,
					  sizeof(dir), &rx);
	if (!made)
		return 0;
	bool is_dir = S_ISDIR(f->st.st_mode);
	bool handle = cr_has_cap(CAP_DAC_READ_SEARCH) && (is_dir || (!c->born && dump_ghost_file_handles()));
	const char *mb = strrchr(made, '/'), *fb = strrchr(f->link, '/');
	bool reaches = dir_on_mount(c->pid, f->link, (uint64_t)f->fi.mnt_id, own, sizeof(own), &sx);
	/* (a tree with a mount namespace of its own: its ghosts are made in its mount tree, their names kept
	 * till every process has its fds when their directory is there; else a ghost is unlinked at once) */
	bool kept = c->tree && !ns_same(c->tree[0].pid, "mnt", getpid(), "mnt");
	/* (a file whose directory and its ghost's are still there, the names' directories) */
	bool named = kept && !is_dir && reaches && mb && fb && strlen(made) - strlen(mb) == strlen(dir) &&
		     strlen(f->link) - strlen(fb) == strlen(own);
	bool by_name = (named && sx.stx_ino == rx.stx_ino && !strcmp(mb, fb)) ||
		       (!handle && kept && !is_dir && reaches &&
			removed_root_is_ghost_dir(c->pid, made, rx.stx_mnt_id, f));
	/* (else, with no open by handle: the fd's directory seen on the ghost's mount, where the ghost is
	 * linked for the open, or the ghost's directory seen on the fd's, where it is opened by its name) */
	__cleanup_free char *via = NULL;
	bool removed = false;
	if (!handle && !by_name && named) {
		via = dir_seen_on(c->pid, own, &sx, (uint64_t)f->fi.mnt_id, rx.stx_mnt_id);
		if (!via)
			via = dir_seen_on(c->pid, dir, &rx, rx.stx_mnt_id, (uint64_t)f->fi.mnt_id);
	} else if (!handle && !named && kept && !is_dir && reaches && mb) {
		via = removed_dir_seen_on(c->pid, made, dir, &rx, f);
		removed = via != NULL;
	}
	if (!reaches || !(handle || by_name || via)) {
		pr_warn(
		    "fd %d: deleted %s on mount %d comes back on mount %d of its ghost (%s): %s\n", f->fd,
		    f->link, f->fi.mnt_id, (int)rx.stx_mnt_id, made,
		    !reaches ? "no directory of its path reaches its own"
		    : !kept  ? "no open by handle at restore, and its ghost is unlinked at once there (the "
			       "tree has no mount namespace of its own)"
		    : !named ? "no open by handle at restore, and its directory or its ghost's was removed"
			     : "no open by handle at restore, and neither mount shows the other's directory");
		return 0;
	}
	if (on_mount(c, c->pid, f, re, rx.stx_mnt_id, false, e))
		return -1;
	if (!handle && !by_name) {
		pr_info("fd %d: deleted %s: opened through its ghost's directory or its own as seen on the "
			"other mount, %s\n",
			f->fd, f->link, via);
		/* (its directory removed too: opened by its own name in the ghost's directory made again,
		 * seen on its mount, where it is kept with the ghost's name till every process has its fds)
		 */
		if (removed) {
			free(re->ghost_mnt), free(re->ghost_name);
			re->ghost_mnt = strdup(via), re->ghost_name = strdup(mb + 1);
			if (!re->ghost_mnt || !re->ghost_name)
				return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		re->ghost_via = via, via = NULL;
	}
	return 0;
}

/* A ghost of a process in another mount namespace than the root's: made in the root's mount tree at its
 * path there, and opened again on the fd's mount (on_mount) when that shows its filesystem there; else (a
 * tmpfs only its namespace mounted: CRIU's mountpoints) the process makes it again from that ghost on its
 * own mount (re->ghost_copy), so that its filesystem (st_dev) is its own; its mappings of it map that copy
 * (rst_ghost_copy_fd). */
static int ghost_mount(struct dump_ctx *c, pid_t as, struct fd_src *f, RegFileEntry *re, struct cr_err *e)
{
	char rdir[PATH_MAX];
	struct statx rx;
	/* (a file in flight, held by crshim (dump-sk-scm.c): its mount is the tree's, not crshim's, and it is
	 * opened again by crshim as before) */
	/* (an O_PATH fd of a FIFO's or a socket's node: its process makes it again, mknod, when the root's
	 * tree has another filesystem there; else it is opened where crshim makes it) */
	bool node = (S_ISFIFO(f->st.st_mode) || S_ISSOCK(f->st.st_mode)) && (f->fi.flags & O_PATH);
	bool root_ns = as == c->pid && in_root_mntns(c);
	if (!c->tree || c->pid == getpid() || f->fi.mnt_id < 0 ||
	    (f->fi.flags & (O_TMPFILE & ~O_DIRECTORY)) ||
	    !(S_ISREG(f->st.st_mode) || S_ISDIR(f->st.st_mode) || node) || (root_ns && !re->deleted))
		return 0;
	if (root_ns)
		return root_ghost_mount(c, f, re, e);
	const char *made = dump_ghost_made_at(c, re->ghost_id);
	if (!made || existing_dir(c->tree[0].pid, made, rdir, sizeof(rdir), &rx))
		return cr_fail(e,
			       "not supported yet: fd %d: deleted %s: no directory of %s (where its ghost is "
			       "made) in the root's mount namespace",
			       f->fd, f->link, made ? made : "?");
	/* (its filesystem shown only in another namespace than the root's, e.g. a tmpfs the process mounted
	 * in its own: no handle of it to open there) */
	bool copy = makedev(rx.stx_dev_major, rx.stx_dev_minor) != f->st.st_dev;
	return node && !copy ? 0 : on_mount(c, as, f, re, rx.stx_mnt_id, copy, e);
}

int dump_ghost_cwd_mnt(struct dump_ctx *c, const char *path, uint32_t id, const char *src, char **dir,
		       struct cr_err *e)
{
	char rdir[PATH_MAX], own[PATH_MAX];
	struct statx cx, rx, ox;
	const char *made = NULL;
	if (c->tree && c->pid != getpid() && !statx(AT_FDCWD, src, 0, STATX_INO | STATX_MNT_ID, &cx) &&
	    (cx.stx_mask & STATX_MNT_ID))
		made = made_elsewhere(c, in_root_mntns(c) ? c->pid : c->tree[0].pid, id, cx.stx_mnt_id,
				      makedev(cx.stx_dev_major, cx.stx_dev_minor), rdir, sizeof(rdir), &rx);
	if (!made)
		return 0;
	bool handle = cr_has_cap(CAP_DAC_READ_SEARCH);
	if (!handle || !dir_on_mount(c->pid, path, cx.stx_mnt_id, own, sizeof(own), &ox)) {
		pr_warn("removed cwd %s on mount %llu comes back on mount %llu of its ghost (%s): %s\n", path,
			(unsigned long long)cx.stx_mnt_id, (unsigned long long)rx.stx_mnt_id, made,
			handle ? "no directory of its path reaches its own" : "no CAP_DAC_READ_SEARCH");
		return 0;
	}
	if (!(*dir = strdup(own)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("removed cwd %s: opened again on the mount of %s (mount %llu)\n", path, own,
		(unsigned long long)cx.stx_mnt_id);
	return 0;
}

int dump_ghost_own_dir(struct dump_ctx *c, const char *what, const char *path, uint32_t id, dev_t dev,
		       char **dir, char **name, struct cr_err *e)
{
	char rdir[PATH_MAX], own[PATH_MAX];
	struct statx rx, ox;
	if (!c->tree || c->pid == getpid() || in_root_mntns(c))
		return 0;
	const char *made = dump_ghost_made_at(c, id);
	if (!made || existing_dir(c->tree[0].pid, made, rdir, sizeof(rdir), &rx))
		return cr_fail(
		    e,
		    "not supported yet: %s %s: no directory of %s (where its ghost is made) in the "
		    "root's mount namespace",
		    what, path, made ? made : "?");
	if (makedev(rx.stx_dev_major, rx.stx_dev_minor) == dev)
		return 0;
	if (existing_dir(c->pid, path, own, sizeof(own), &ox) ||
	    makedev(ox.stx_dev_major, ox.stx_dev_minor) != dev)
		return cr_fail(e,
			       "not supported yet: %s %s is on a filesystem that neither the root's mount "
			       "namespace nor a directory of its path shows",
			       what, path);
	size_t dl = strlen(own);
	const char *last = strrchr(path, '/');
	bool named =
	    last && (size_t)(last - path) == (dl == 1 ? 0 : dl) && !strncmp(path, own, dl) && last[1];
	if (!(*dir = strdup(own)) || (named && !(*name = strdup(last + 1))))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("%s %s: made again by its process on the mount of %s\n", what, path, own);
	return 0;
}

#define LINK_SEARCH_MAX 8192 /* entries looked at in all, for another link of a deleted file */

/* Another link of the inode of st below the directory dfd, depth first, on its filesystem only: its path
 * from there appended to out at off. *budget: entries left to look at. */
static bool link_under(int dfd, const struct stat *st, char *out, size_t len, size_t off, int *budget)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool found = false;
	if (!d && fd >= 0)
		close(fd);
	while (d && !found && (de = readdir(d)) && (*budget)-- > 0) {
		struct stat s;
		size_t n = strlen(de->d_name) + 1;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || off + n >= len ||
		    fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) || s.st_dev != st->st_dev)
			continue;
		snprintf(out + off, len - off, "/%s", de->d_name);
		if (s.st_ino == st->st_ino && !S_ISDIR(s.st_mode)) {
			found = true;
		} else if (S_ISDIR(s.st_mode)) {
			int sub =
			    openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			found = sub >= 0 && link_under(sub, st, out, len, off + n, budget);
			if (sub >= 0)
				close(sub);
		}
	}
	if (d)
		closedir(d);
	if (!found)
		out[off] = '\0';
	return found;
}

/* A link of the inode of f in the mount namespace of task as, found through its mounts of that filesystem:
 * its path there (malloc'ed) and the mount it leads to (*mnt), NULL if none. */
static char *live_link(pid_t as, const struct fd_src *f, uint64_t *mnt)
{
	struct cr_err e;
	__cleanup_free char *mi = NULL;
	if (proc_read(as, "mountinfo", &mi, NULL, &e))
		return NULL;
	unsigned sdev = major(f->st.st_dev) << 20 | minor(f->st.st_dev);
	int budget = LINK_SEARCH_MAX;
	char *mp;
	for (int nth = 0; budget > 0 && (mp = mount_point_nth(mi, sdev, -1, nth)); nth++) {
		char at[PATH_MAX + 64], rel[PATH_MAX] = "", *p = NULL;
		struct statx sx;
		snprintf(at, sizeof(at), "/proc/%d/root%s", (int)as, mp);
		int d = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		bool found = d >= 0 && link_under(d, &f->st, rel, sizeof(rel), 0, &budget);
		if (d >= 0)
			close(d);
		/* the path as a lookup takes it must lead there (nothing mounted over a part of it) */
		if (found && asprintf(&p, "%s%s", strcmp(mp, "/") ? mp : "", rel) > 0) {
			snprintf(at, sizeof(at), "/proc/%d/root%s", (int)as, p);
			if (!statx(AT_FDCWD, at, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &sx) &&
			    sx.stx_ino == f->st.st_ino &&
			    makedev(sx.stx_dev_major, sx.stx_dev_minor) == f->st.st_dev) {
				*mnt = sx.stx_mnt_id;
				free(mp);
				return p;
			}
			free(p);
		}
		free(mp);
	}
	return NULL;
}

/* A deleted file still linked elsewhere, of a process in another mount namespace than the root's (or on a
 * mount of the one its own was made from, up): reopened by a link found in the namespace of its mount
 * first, else in the other (one in that one: re->mnt_up), then on its mount again (on_mount). 1 if so, 0 if
 * no link was found (or one that fill_deleted takes: another fd, its old directory, on its own mount). */
static int linked_elsewhere(struct dump_ctx *c, struct fd_src *f, pid_t up, RegFileEntry *re,
			    struct cr_err *e)
{
	pid_t base = up ? up : dump_mnt_base(c);
	uint64_t mnt = 0;
	__cleanup_free char *alias = up ? NULL : link_in_dir(c->pid, f->link, &f->st);
	if (!up && (alias || live_fd(f)))
		return 0;
	/* first where the fd's mount is (up: the other namespace), so that it is opened on it at once */
	pid_t where = up ? up : c->pid, second = up ? c->pid : base;
	char *p = live_link(where, f, &mnt);
	if (!p && second)
		p = live_link(where = second, f, &mnt);
	if (!p)
		return 0;
	bool in_base = where != c->pid;
	pr_info("fd %d: deleted %s is reopened as its other link %s%s\n", f->fd, f->link, p,
		in_base ? " (in the namespace its own was made from)" : "");
	f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
	free(f->old);
	f->old = f->link;
	f->link = p;
	re->mnt_up = in_base, re->has_mnt_up = re->mnt_up;
	return on_mount(c, up ? up : c->pid, f, re, mnt, false, e) ? -1 : 1;
}

/* A file on a mount of the namespace of another process of the tree (opened through /proc/OTHER/root, or by
 * a child before it made its namespace) in the same PID namespace: its path becomes "/proc/OTHER/root/PATH"
 * (OTHER as c sees it), a file of /proc/PID opened once the tree is there (restore-procfd.c), when other
 * has made its namespace. 1 if so, 0 if not such a file, -1 (e) if it is one that cannot be (refused). */
static int file_down(struct dump_ctx *c, struct fd_src *f, bool deleted, struct path_look *l,
		     struct cr_err *e)
{
	char at[PATH_MAX + 64], *p = NULL;
	struct statx sx;
	path_look(c->pid, f->link, l);
	if (l->ok && (l->sx.stx_mask & STATX_MNT_ID) && (int)l->sx.stx_mnt_id == f->fi.mnt_id)
		return 0; /* (the common case: its path reaches its mount) */
	pid_t other = seen_by(c) == c->pid ? mount_of_other(c, c->pid, f->fi.mnt_id) : 0, ids[32];
	if (!other)
		return 0;
	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)other, f->link);
	int lv = !deleted && ns_same(c->pid, "pid", other, "pid") ? ns_pid_chain(other, ids, 32, e) : -1;
	if (lv <= 0 || statx(AT_FDCWD, at, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &sx) ||
	    (int)sx.stx_mnt_id != f->fi.mnt_id || sx.stx_ino != f->st.st_ino ||
	    makedev(sx.stx_dev_major, sx.stx_dev_minor) != f->st.st_dev)
		return cr_fail(
		    e,
		    "not supported yet: fd %d: %s is on mount %d of the mount namespace of task %d, "
		    "not of its process's (deleted, or not reached there by its path in its PID "
		    "namespace)",
		    f->fd, f->link, f->fi.mnt_id, (int)other);
	if (asprintf(&p, "/proc/%d/root%s", (int)ids[lv - 1], f->link) < 0)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pr_info("fd %d: %s is on mount %d of task %d's mount namespace: opened as %s\n", f->fd, f->link,
		f->fi.mnt_id, (int)other, p);
	free(f->link);
	f->link = p;
	return 1;
}

static int dump_path(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	const struct stat *st = &f->st;
	RegFileEntry *re = &f->reg;
	if (tun_attached(f, re, e))
		return -1;
	/* (a live directory may be named "... (deleted)": a removed one has no links) */
	re->dead_pid = dump_procfd_dead(c->pid, f->link), re->has_dead_pid = re->dead_pid;
	bool deleted = fd_is_deleted(f->link) && !(S_ISDIR(st->st_mode) && st->st_nlink);
	/* on a mount of the namespace c's own was made from (reached as the process there sees it) */
	pid_t up = re->dead_pid ? 0 : dump_mnt_up(c, f->fi.mnt_id);
	int linked = !re->dead_pid && deleted && f->st.st_nlink && of_tree(c, c->pid) &&
			     (up || !in_root_mntns(c)) && S_ISREG(st->st_mode) && f->fi.mnt_id >= 0
			 ? linked_elsewhere(c, f, up, re, e)
			 : 0;
	if (linked < 0)
		return -1;
	if (linked) {
		deleted = false, up = 0;
	} else if (up && deleted && f->st.st_nlink) /* (a ghost is made there: crshim makes it in ours) */
		return cr_fail(e,
			       "not supported yet: fd %d: %s, linked elsewhere still, is on a mount of the "
			       "mount namespace task %d's own was made from",
			       f->fd, f->link, c->pid);
	pid_t ghost_up = up;
	up = deleted ? 0 : up;
	if (!linked)
		re->mnt_up = up != 0, re->has_mnt_up = re->mnt_up;
	struct path_look look = {0}; /* (file_down's, taken by check_reachable: one statx of the path) */
	int down = !re->dead_pid && !linked && !ghost_up ? file_down(c, f, deleted, &look, e) : 0;
	if (down < 0)
		return -1;
	if (!re->dead_pid && !linked && !down &&
	    (deleted ? fill_deleted(c, f, re, e) : check_reachable(c, up ? up : seen_by(c), f, &look, e)))
		return -1;
	if (re->has_ghost_id && ghost_mount(c, ghost_up ? ghost_up : c->pid, f, re, e))
		return -1;
	re->path = f->link;
	if ((f->fi.flags & (O_TMPFILE & ~O_DIRECTORY)) && re->deleted && S_ISREG(st->st_mode)) {
		/* "DIR/#INO": the directory it was made in (kept in f->old, unused by a ghost, freed with f)
		 */
		char *slash = strrchr(f->link, '/');
		if (!slash || f->old ||
		    !(f->old = strndup(f->link, slash == f->link ? 1 : (size_t)(slash - f->link))))
			return cr_fail_errno(e, ENOMEM, "fd %d: O_TMPFILE %s", f->fd, f->link);
		re->tmpfile_dir = f->old;
	}
	re->flags = f->fi.flags & ~(uint32_t)O_CLOEXEC, re->has_flags = 1;
	re->mode = st->st_mode, re->has_mode = 1;
	re->pos = f->fi.pos, re->has_pos = 1;
	if (S_ISCHR(st->st_mode)) {
		fe->kind = FILE_KIND__FILE_CHR, fe->has_kind = 1;
		re->rdev = st->st_rdev, re->has_rdev = 1;
	} else {
		fe->kind = FILE_KIND__FILE_REG, fe->has_kind = 1;
		re->size = (uint64_t)st->st_size, re->has_size = 1;
		re->has_deleted = 1;
	}
	fe->reg = re;
	return 0;
}

/* ---------------------------------------------------------------- restore */

/* The process of the tree a process in a mount namespace of its own (or below it) had it made from: the
 * parent of its first process (pstree mntns; or of the one that entered it, mntns_join: the namespace it
 * was in before); NULL if none. */
static const struct rst_task *nested_base(const struct rst_task *t)
{
	const struct rst_task *x = t;
	for (size_t hops = 0; x && t->tree && hops <= t->ntree; hops++) {
		const struct rst_task *p =
		    x->pst && x->pst->ppid ? rst_tree_task(t->tree, t->ntree, x->pst->ppid) : NULL;
		if (x->pst && (x->pst->mntns || x->pst->mntns_join))
			return p;
		x = p;
	}
	return NULL;
}

static int path_stat(const struct rst_task *t, const char *path, struct stat *st, bool follow);

/* ... its files on a mount of that namespace (mnt_up), the files it maps or runs: looked up there when they
 * are not in its own */
int rst_path_stat(const struct rst_task *t, const char *path, struct stat *st, bool follow)
{
	int r = path_stat(t, path, st, follow);
	const struct rst_task *b = r < 0 && errno == ENOENT ? nested_base(t) : NULL;
	return b ? rst_path_stat(b, path, st, follow) : r;
}

static int path_stat(const struct rst_task *t, const char *path, struct stat *st, bool follow)
{
	if (rst_ghost_is(t, path)) /* made by the restore with its size (a dry run only names it) */
		return 1;
	if (!t->live_paths)
		return t->paths_later ? 1 : follow ? stat(path, st) : lstat(path, st);
	/* in the live tree's mount namespace, from its root: an absolute symlink stays inside it too. EAGAIN:
	 * a ".." met while something was renamed or mounted anywhere (the kernel asks for a retry; after 16,
	 * and on a kernel without openat2, the path is left to the restore: never a false refusal) */
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_IN_ROOT};
	__cleanup_close int fd = -1;
	for (int i = 0; i < 16 && fd < 0; i++)
		if ((fd = (int)syscall(SYS_openat2, t->live_root, path, &how, sizeof(how))) < 0 &&
		    errno != EAGAIN)
			break;
	if (fd < 0 && (errno == EAGAIN || errno == ENOSYS))
		return 1;
	return fd < 0 ? -1 : fstat(fd, st);
}

/* A missing path whose nearest existing parent is on a cgroup filesystem: a cgroup the restore makes (after
 * this check, before the files are opened), e.g. one removed between dump and restore; its open says if it
 * is still missing. */
static bool cgroup_later(const char *path)
{
	char p[PATH_MAX];
	struct statfs sf;
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strrchr(p, '/'); s && s != p; s = strrchr(p, '/')) {
		*s = '\0';
		if (!statfs(p, &sf))
			return sf.f_type == CGROUP_SUPER_MAGIC || sf.f_type == CGROUP2_SUPER_MAGIC;
		if (errno != ENOENT)
			return false;
	}
	return false;
}

static int check_path(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e)
{
	struct stat st;
	if (!f->reg || !f->reg->path)
		return cr_fail_errno(e, EBADMSG, "files.img: file id %u has no path", f->id);
	if (rst_procfd_is(f))
		return 0; /* its process is made by the restore (restore-procfd.c) */
	if (f->reg->deleted && !f->reg->has_ghost_id)
		return cr_fail_errno(e, ENOTSUP, "fd %d: deleted file %s is not supported", fi->fd,
				     f->reg->path);
	int r = rst_path_stat(t, f->reg->path, &st, false), err = errno; /* 1: open_path says if missing */
	if (r < 0 && err == ENOENT && !t->live_paths && cgroup_later(f->reg->path))
		return 0;
	return r < 0 ? cr_fail_errno(e, err, "fd %d: file %s", fi->fd, f->reg->path) : 0;
}

/* fd (the task's new open of /dev/net/tun, or crshim's for several processes) attached again to r's device,
 * which the restore of the task's network namespace made (persistent): its flags, vnet header size, send
 * buffer; the device's persist flag cleared when only fds held it; a queue of a multi-queue device that was
 * detached detached again. */
int rst_tun_attach(int fd, const RegFileEntry *r, char *msg, size_t len)
{
	struct ifreq ifr = {.ifr_flags = (short)(r->tun_flags & (IFF_TUN | IFF_TAP | IFF_NO_PI |
								 IFF_VNET_HDR | IFF_MULTI_QUEUE))},
		     q = {.ifr_flags = IFF_DETACH_QUEUE};
	if (strlen(r->tun_iff) >= IFNAMSIZ || !if_nametoindex(r->tun_iff))
		return rst_errmsg(msg, len, "fd %d: no tun/tap %s in the task's network namespace", fd,
				  r->tun_iff);
	memcpy(ifr.ifr_name, r->tun_iff, strlen(r->tun_iff));
	if (ioctl(fd, TUNSETIFF, &ifr) ||
	    (r->has_tun_vnet_hdr_sz && ioctl(fd, TUNSETVNETHDRSZ, &r->tun_vnet_hdr_sz)) ||
	    (r->has_tun_sndbuf && ioctl(fd, TUNSETSNDBUF, &r->tun_sndbuf)) ||
	    (!(r->tun_flags & IFF_PERSIST) && ioctl(fd, TUNSETPERSIST, 0UL)) ||
	    ((r->tun_flags & IFF_DETACH_QUEUE) && ioctl(fd, TUNSETQUEUE, &q)))
		return rst_errmsg(msg, len, "fd %d: attach to tun/tap %s (flags 0x%x)", fd, r->tun_iff,
				  r->tun_flags);
	return 0;
}

/* Open one file description at fd. */

/* The directory r->ghost_mnt, as the process sees it or (ghost_mnt_up) through its parent's root. */
static int ghost_dir(const RegFileEntry *r)
{
	const char *dir = r->ghost_mnt;
	return r->ghost_mnt_up && rst_mnt_up_root >= 0
		   ? openat(rst_mnt_up_root, *(dir + strspn(dir, "/")) ? dir + strspn(dir, "/") : ".",
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC)
		   : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* (not O_PATH: EBADF) */
}

/* The data of src (a regular file) into dst, region by region (holes stay holes). */
static int copy_data(int src, int dst, off_t size)
{
	char buf[65536];
	if (ftruncate(dst, size))
		return -1;
	for (off_t at = 0; at < size;) {
		off_t data = lseek(src, at, SEEK_DATA), hole;
		if (data < 0 && errno == ENXIO)
			return 0;
		if (data < 0 || (hole = lseek(src, data, SEEK_HOLE)) < 0)
			return -1;
		for (at = data; at < hole;) {
			size_t want = (size_t)(hole - at) < sizeof(buf) ? (size_t)(hole - at) : sizeof(buf);
			ssize_t n = pread(src, buf, want, at);
			if (n <= 0 || pwrite(dst, buf, (size_t)n, at) != n)
				return n == 0 ? 0 : -1;
			at += n;
		}
	}
	return 0;
}

/* The copies of ghosts a task made (ghost_copy): a second fd of one opens the first again. */
static struct ghost_made {
	const struct rst_task *t;
	uint32_t ghost_id;
	int fd;
} ghosts_made[64];
static size_t n_ghosts_made;

/* name in the directory m opened with flags (+ O_CLOEXEC), not followed if a symlink (ELOOP), without
 * O_NOFOLLOW, which would stay in the fd's flags (fdinfo: not its flags of before): openat2
 * RESOLVE_NO_SYMLINKS; on a kernel without openat2, or when it refuses (EINVAL) a flag of the saved ones that
 * openat ignores, an O_PATH | O_NOFOLLOW open opened again through /proc with flags */
static int open_no_symlink(int m, const char *name, int flags)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC), .resolve = RESOLVE_NO_SYMLINKS};
	int fd = (int)syscall(SYS_openat2, m, name, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EINVAL))
		return fd;
	struct stat st;
	char rel[32];
	__cleanup_close int p = openat(m, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0 || fstat(p, &st))
		return -1;
	if (S_ISLNK(st.st_mode))
		return (errno = ELOOP), -1;
	snprintf(rel, sizeof(rel), "fd/%d", p); /* (its magic link refuses O_NOFOLLOW: see open_path) */
	return rst_self_proc_open(rel, (flags & ~O_NOFOLLOW) | O_CLOEXEC);
}

int rst_ghost_make_copy(int src, int m, const char *name_in, uint32_t id, int flags)
{
	__cleanup_close int w = -1;
	char name[NAME_MAX + 1];
	struct stat st;
	const char *base = name_in && *name_in && !strchr(name_in, '/') ? name_in : "crshim-ghost";
	if (fstat(src, &st))
		return -1;
	bool dir = S_ISDIR(st.st_mode), node = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
	snprintf(name, sizeof(name), "%s", base);
	for (int i = 0; i < 2; i++) {
		if (dir	   ? !mkdirat(m, name, 0700)
		    : node ? !mknodat(m, name, (st.st_mode & S_IFMT) | 0600, 0)
			   : (w = openat(m, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					 0600)) >= 0)
			break;
		if (errno != EEXIST || i)
			return -1;
		snprintf(name, sizeof(name), "%.200s.crshim-ghost.%d.%u", base, (int)getpid(), id);
	}
	struct timespec ts[2] = {st.st_atim, st.st_mtim};
	int ret = (!dir && !node && copy_data(src, w, st.st_size)) ||
			  fchownat(m, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) ||
			  fchmodat(m, name, st.st_mode & 07777, 0) ||
			  utimensat(m, name, ts, AT_SYMLINK_NOFOLLOW)
		      ? -1
		      : open_no_symlink(m, name, flags),
	    err = errno;
	unlinkat(m, name, dir ? AT_REMOVEDIR : 0);
	errno = err;
	return ret;
}

/* tmp (a ghost crshim made on the filesystem the root's tree has at its path: r->ghost_copy) made again on
 * the mount of r->ghost_mnt, its own filesystem (rst_ghost_make_copy); fd: the number it goes to. */
static int ghost_copy(const struct rst_task *t, int tmp, const RegFileEntry *r, int flags, int fd)
{
	/* (opened again through /proc: without O_NOFOLLOW, see open_path) */
	int shared = rst_ghost_shared_copy(t, r, flags & ~O_NOFOLLOW); /* made once for several processes */
	if (shared != -2) {
		int err = errno;
		close(tmp);
		errno = err;
		return shared;
	}
	for (size_t i = 0; i < n_ghosts_made; i++)
		if (ghosts_made[i].t == t && ghosts_made[i].ghost_id == r->ghost_id) {
			char rel[32];
			close(tmp);
			snprintf(rel, sizeof(rel), "fd/%d", ghosts_made[i].fd);
			return rst_self_proc_open(rel, (flags & ~O_NOFOLLOW) | O_CLOEXEC);
		}
	__cleanup_close int src = tmp, m = ghost_dir(r);
	int ret = m < 0 ? -1 : rst_ghost_make_copy(src, m, r->ghost_name, r->ghost_id, flags);
	if (ret >= 0 && n_ghosts_made < sizeof(ghosts_made) / sizeof(ghosts_made[0]))
		ghosts_made[n_ghosts_made++] = (struct ghost_made){t, r->ghost_id, fd};
	return ret;
}

int rst_ghost_copy_fd(const struct rst_task *t, const char *path)
{
	for (size_t i = 0; path && i < t->nr_fdinfo; i++) {
		const FileEntry *f = rst_file_by_id(t, t->fdinfo[i]->id);
		const RegFileEntry *r = f && f->kind == FILE_KIND__FILE_REG ? f->reg : NULL;
		if (r && r->ghost_copy && r->ghost_mnt && r->path && !strcmp(r->path, path))
			return t->fdinfo[i]->fd;
	}
	return -1;
}

/* tmp (a ghost, opened on the mount crshim made it on, or another link of a deleted file) opened again on
 * the mount of r->ghost_mnt, by its file handle (the same inode: its name there is gone), when that is
 * another. */
/* fd and tmp are one inode (st: fd's) */
static bool same_inode(int fd, int tmp, struct stat *st)
{
	struct stat o;
	return !fstat(fd, st) && !fstat(tmp, &o) && st->st_dev == o.st_dev && st->st_ino == o.st_ino;
}

/* r->ghost_link: crshim linked it at its deleted name there (or, taken, at rst_ghost_alt_name's: id is its
 * file id), rst_ghost_link_nested, and unlinks it once every process has its fds */
static int open_linked(int m, const RegFileEntry *r, uint32_t id, int tmp, int flags)
{
	char alt[NAME_MAX + 1];
	struct stat st;
	int fd = open_no_symlink(m, r->ghost_name, flags);
	if (fd >= 0 && same_inode(fd, tmp, &st))
		return fd;
	if (fd >= 0)
		close(fd);
	rst_ghost_alt_name(r->ghost_name, id, alt, sizeof(alt));
	return open_no_symlink(m, alt, flags);
}

/* fd (on the directory m's mount, still linked) linked again at r->ghost_name there (or, taken, at
 * rst_ghost_alt_name's) for an open by that name, unlinked again: that open, or -1 */
static int open_named(int fd, int m, const RegFileEntry *r, uint32_t id, int flags)
{
	char alt[NAME_MAX + 1];
	struct stat st;
	const char *n = r->ghost_name;
	int l = linkat(fd, "", m, n, AT_EMPTY_PATH);
	if (l && errno == EEXIST) {
		int o = open_no_symlink(m, n, flags);
		if (o >= 0 && same_inode(o, fd, &st)) /* (linked there for another process's fd) */
			return o;
		if (o >= 0)
			close(o);
		rst_ghost_alt_name(r->ghost_name, id, alt, sizeof(alt));
		n = alt;
		l = linkat(fd, "", m, n, AT_EMPTY_PATH);
	}
	if (l)
		return -1;
	int named = open_no_symlink(m, n, flags);
	unlinkat(m, n, 0);
	return named;
}

/* The ghost tmp (st: its stat) by its own name in the directory v (on the fd's own mount: the ghost's
 * directory seen there, where its name is kept till every process has its fds), opened with flags: that
 * open, or -1 */
static int open_kept(int v, int tmp, const struct stat *st, int flags)
{
	struct stat s;
	struct dirent *de;
	int d = openat(v, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	__cleanup_closedir DIR *dir = d >= 0 ? fdopendir(d) : NULL;
	if (!dir && d >= 0)
		close(d);
	while (dir && (de = readdir(dir)))
		if ((de->d_type == DT_REG || de->d_type == DT_UNKNOWN) &&
		    !fstatat(dirfd(dir), de->d_name, &s, AT_SYMLINK_NOFOLLOW) && s.st_ino == st->st_ino &&
		    s.st_dev == st->st_dev) {
			int fd = open_no_symlink(dirfd(dir), de->d_name, flags);
			if (fd < 0 || same_inode(fd, tmp, &s))
				return fd;
			close(fd);
		}
	return (errno = ENOENT), -1;
}

/* r->ghost_via: on the mount of tmp (the ghost, still named there), the directory m (on the fd's own mount)
 * where tmp is linked at r->ghost_name (or, taken, at rst_ghost_alt_name's: id is its file id) for an open by
 * that name through m, unlinked again; else (on m's mount) the ghost's directory, where it is opened by its
 * own name. That open, or -1. */
static int open_via(int tmp, int m, const RegFileEntry *r, uint32_t id, int flags)
{
	char self[64], alt[NAME_MAX + 1];
	const char *n = r->ghost_name;
	struct statx vx, tx;
	struct stat st;
	__cleanup_close int v = open(r->ghost_via, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (v < 0 || fstat(tmp, &st) || statx(v, "", AT_EMPTY_PATH, STATX_MNT_ID, &vx) ||
	    statx(tmp, "", AT_EMPTY_PATH, STATX_MNT_ID, &tx))
		return -1;
	if (vx.stx_mnt_id != tx.stx_mnt_id)
		return open_kept(v, tmp, &st, flags);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", tmp);
	rst_ghost_alt_name(r->ghost_name, id, alt, sizeof(alt));
	/* (The name lives from the link to the unlink below, a few system calls. A failed restore that kills
	 * this process in between leaves it, where crshim cannot see it: in the tree's mount namespace, gone
	 * with the tree, unless that directory is a host directory bound in. Not cleaned up: known.) */
	for (int i = 0; i < 2; i++, n = alt) /* (taken there: rst_ghost_alt_name's) */
		if (!linkat(tmp, "", v, n, AT_EMPTY_PATH) ||
		    !linkat(AT_FDCWD, self, v, n, AT_SYMLINK_FOLLOW)) {
			int fd = open_no_symlink(m, n, flags), err = errno;
			unlinkat(v, n, 0);
			errno = err;
			return fd;
		} else if (errno != EEXIST) {
			break;
		}
	return -1;
}

static int ghost_on_mount(int tmp, const RegFileEntry *r, uint32_t id, int flags)
{
	struct {
		struct file_handle h;
		unsigned char buf[MAX_HANDLE_SZ];
	} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
	struct statx a, b;
	struct stat sa, sb;
	int mid, err;
	__cleanup_close int m = ghost_dir(r);
	if (m < 0 || statx(m, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) ||
	    statx(tmp, "", AT_EMPTY_PATH, STATX_MNT_ID, &b))
		goto fail;
	if (a.stx_mnt_id == b.stx_mnt_id)
		return tmp;
	int fd = -1;
	/* (a file still named there by its own name: the ghost's, kept till every process has its fds, seen
	 * through a bind of its directory) */
	if (r->ghost_link || (S_ISREG(r->mode) && r->ghost_name && !strchr(r->ghost_name, '/')))
		fd = open_linked(m, r, id, tmp, flags);
	if (fd < 0 && r->ghost_via && r->ghost_name && !strchr(r->ghost_name, '/'))
		fd = open_via(tmp, m, r, id, flags);
	if (fd >= 0 && !same_inode(fd, tmp, &sa)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && !r->ghost_link && !name_to_handle_at(tmp, "", &fh.h, &mid, AT_EMPTY_PATH))
		fd = S_ISDIR(r->mode) ? rst_ghost_dir_by_handle(m, &fh.h, flags)
				      : open_by_handle_at(m, &fh.h, flags | O_CLOEXEC);
	if (fd >= 0 &&
	    (fstat(fd, &sa) || fstat(tmp, &sb) || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)) {
		close(fd);
		fd = -1, errno = ESTALE;
	}
	/* still linked: linked again at its deleted name (the fd is on this mount now) for an open there and
	 * unlinked, so that its fd names it "PATH (deleted)" (else its name is the other link's, seen from a
	 * mount that may not show it) */
	if (fd >= 0 && sa.st_nlink && r->ghost_name && !strchr(r->ghost_name, '/')) {
		int named = open_named(fd, m, r, id, flags);
		if (named >= 0) {
			close(fd);
			fd = named;
		}
	}
	err = errno;
	close(tmp);
	errno = err;
	return fd;
fail:
	err = errno;
	close(tmp);
	errno = err;
	return -1;
}

/* How a ghost of mode (st_mode) is opened to be copied (rst_ghost_make_copy): a FIFO's or a socket's node
 * O_PATH (an open of a FIFO for reading would wait for a writer), else for reading */
static int copy_src_flags(uint32_t mode)
{
	return (S_ISFIFO(mode) || S_ISSOCK(mode) ? O_PATH : O_RDONLY) | O_CLOEXEC;
}

static int open_path(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		     size_t len)
{
	const RegFileEntry *r = f->reg;
	int flags = (int)(r->flags & ~(uint32_t)RST_OPEN_DROP_FLAGS) | O_NOCTTY, nflags = flags;
	/* a ghost (restore-ghost.c): its /proc magic link must be followed, so it is opened there without
	 * O_NOFOLLOW (rst_ghost_nofollow below opens it again with it); an open by a name keeps it (nflags: a
	 * copy made on its own filesystem, a regular file's on another mount) */
	if (r->deleted)
		flags &= ~O_NOFOLLOW;
	int tmp = r->mnt_up && rst_mnt_up_root >= 0 && !r->deleted
		      ? openat(rst_mnt_up_root, r->path + strspn(r->path, "/"), flags)
		  : r->ghost_copy && r->ghost_mnt ? rst_ghost_open_path(r->path, copy_src_flags(r->mode))
						  : rst_ghost_open(r, flags);
	if (tmp >= 0 && r->ghost_mnt && r->ghost_copy && (tmp = ghost_copy(t, tmp, r, nflags, fi->fd)) < 0)
		return rst_errmsg(msg, len, "fd %d: make the deleted %s again on the mount of %s", fi->fd,
				  r->path, r->ghost_mnt);
	/* (a removed directory's copy made once for its cwd or another fd too, on its mount: on its own now)
	 */
	if (tmp >= 0 && r->ghost_mnt && (!r->ghost_copy || S_ISDIR(r->mode)) &&
	    (tmp = ghost_on_mount(tmp, r, f->id, S_ISREG(r->mode) ? nflags : flags)) < 0)
		return rst_errmsg(msg, len, "fd %d: open the deleted %s again on the mount of %s", fi->fd,
				  r->path, r->ghost_mnt);
	if (tmp < 0)
		return rst_errmsg(msg, len, "fd %d: open %s", fi->fd, r->path);
	if (r->deleted && (r->flags & O_NOFOLLOW)) /* (its ghost's /proc link refused it above) */
		tmp = rst_ghost_nofollow(tmp, flags);
	if (rst_fd_at(tmp, fi->fd, msg, len) || (r->tun_iff && rst_tun_attach(fi->fd, r, msg, len)))
		return -1;
	if (r->pos && lseek(fi->fd, (off_t)r->pos, SEEK_SET) < 0 &&
	    !(f->kind == FILE_KIND__FILE_CHR && (errno == ESPIPE || errno == EINVAL)))
		return rst_errmsg(msg, len, "fd %d: seek %s to %llu", fi->fd, r->path,
				  (unsigned long long)r->pos);
	return 0;
}

static int flight_path(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e)
{
	return rst_fdshare_one(ts, n, f, e);
}

static void release_path(FileEntry *fe, struct fd_src *s)
{
	free(s->reg.tun_iff);
	s->reg.tun_iff = NULL;
	free(s->reg.ghost_mnt);
	s->reg.ghost_mnt = NULL;
	free(s->reg.ghost_name);
	s->reg.ghost_name = NULL;
	free(s->reg.ghost_via);
	s->reg.ghost_via = NULL;
}

FD_KIND(fdk_chr) = {
    .name = "character device",
    .kind = FILE_KIND__FILE_CHR,
    .prio = 90,
    .is = is_chr,
    .dump = dump_path,
    .release = release_path,
    .tree_desc = true,
    .check = check_path,
    .open = open_path,
    .later = rst_procfd_is, /* one of a mount of another process's namespace (/proc/PID/root/PATH) */
    .flight = flight_path,
};

FD_KIND(fdk_reg) = {
    .name = "file",
    .kind = FILE_KIND__FILE_REG,
    .prio = 91,
    .is = is_reg,
    .dump = dump_path,
    .release = release_path,
    .tree_desc = true,
    .check = check_path,
    .open = open_path,
    .later = rst_procfd_is, /* a file of /proc/PID: opened once the tree is there (restore-procfd.c) */
    .flight = flight_path,
};
