/* Inside ns/: the mount namespace (mnt-dump.c, mnt-restore.c, tmpfs.c). */
#ifndef CRSHIM_NS_MNT_INT_H
#define CRSHIM_NS_MNT_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "ns-int.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#define MOUNT_ATTR__ATIME 0x00000070
#define MOUNT_ATTR_RELATIME 0x00000000
#define MOUNT_ATTR_NOATIME 0x00000010
#define MOUNT_ATTR_STRICTATIME 0x00000020
#define MOUNT_ATTR_NODIRATIME 0x00000080
#endif
#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#endif

/* The whole mount tree of the images (mnt.img) and the tmpfs contents, read by ns_mnt_load in crshim before
 * anything is made; ns_mnt_restore (the root task) uses it. */
struct ns_mnt_fs {
	uint32_t mnt_id;
	TmpfsEntry **e;
	size_t n;
};
struct ns_mnt_state {
	MntEntry **m; /* parents first */
	size_t n;
	const char **src; /* per mount: the host path of an external one (--external mnt[KEY]:PATH) */
	struct ns_mnt_fs *fs;
	size_t nfs;
	int *pre;     /* per mount: its filesystem made by crshim before the tree (ns_rst_devpts), -1 */
	bool *pre_at; /* ... or already this mount, its root taken there (ns_mnt_premake) */
	int *ext_pre; /* per mount, a tree born in a user namespace: crshim's private clone of an external
		       * mount's source, for the root task whose own clone is refused (EINVAL: mounts of the
		       * host's locked under it in its copy of the namespace) (ns_mnt_premake), -1 */
	int *host;    /* per mount: crshim's clone of its source, in the peer group outside the tree it goes
		       * back to (mnt-ext.c), -1 */
	char **hsrc;  /* per mount: that source's path (for the root task's own clone: ns_mnt_ext_own) */
	uint8_t *out; /* per mount: how (enum ns_mnt_out) */
	bool removed_dropped; /* crshim: its removed sources kept for the ghosts are gone (mnt-restore.c) */
};

/* How a mount of the tree is linked to a peer group outside it (mnt-ext.c). */
enum ns_mnt_out { NS_MNT_OUT_NONE, NS_MNT_OUT_SLAVE, NS_MNT_OUT_PEER };

/* mnt-dump.c: the root's mount tree -> mnt.img (+ tmpfs-ID.img), one line for a mount that cannot be
 * restored. */
int ns_mnt_dump(const struct ns_dump_args *a, pid_t root, struct cr_err *e);
/* The tmpfs (and ramfs) the nested namespaces of a tree make anew at restore, each in one namespace only. */
struct ns_mnt_made {
	struct ns_mnt_made_fs {
		unsigned dev;
		pid_t pid;
		char mp[256];
	} * v;
	size_t n;
};
/* ... a process's mount namespace other than its parent's (base), with other mounts: how it differs from
 * base's -> mntns-ID.img (+ tmpfs-ID.img of the tmpfs mounted in it); one line for what cannot be made,
 * such as a tmpfs another one makes too (in *made, which gets those it makes). */
int ns_mnt_nested_dump(const struct ns_dump_args *a, pid_t pid, pid_t base, uint32_t id,
		       struct ns_mnt_made *made, struct cr_err *e);
/* mnt-nested.c: mntns-1.img, -2, ... and the files of their tmpfs (crshim, nothing made) */
struct ns_mnt_nested;
int ns_mnt_nested_load(int dirfd, struct ns_mnt_nested ***out, size_t *n, struct cr_err *e);
void ns_mnt_nested_free(struct ns_mnt_nested **v, size_t n);
const struct ns_mnt_state *ns_mnt_nested_state(const struct ns_mnt_nested *x); /* its mounts */
/* ... in the process, cloned in its parent's namespace: its own made (unshare) from that (-1 and msg); fault:
 * fail once its mounts are placed (fault point restore-mnt-nested) */
int ns_mnt_nested_restore(const struct ns_mnt_nested *x, bool fault, int *parent_ns, int *parent_root,
			  char *msg, size_t len);
/* ... a process back in the namespace its parent's was made from: setns into *parent_ns (its parent's) */
int ns_mnt_nested_up(int *parent_ns, int *parent_root, char *msg, size_t len);
/* mnt-restore.c */
int ns_mnt_load(const struct cr_opts *o, int dirfd, struct ns_mnt_state **out, struct cr_err *e);
void ns_mnt_free(struct ns_mnt_state *s);
/* A tree born in its user namespace: the mounts of a filesystem that a user namespace cannot make (devtmpfs,
 * a disk's: a masked path bound from /dev/null, a volume) made by crshim before the tree, at their root
 * (pre, pre_at); dry (restore --check-only, the dump's check): only named in the log. 0, -1. */
int ns_mnt_premake(struct ns_mnt_state *s, bool dry, struct cr_err *e);

/* For ns/mnt-nested.c: a detached clone of path under dfd (AT_FDCWD; "" or "/": dfd's mount itself), -1
 * errno; mkdir -p of path under dfd (an empty file at its end: file), -1 errno; a new filesystem for mount i
 * of s, its files put in (a detached mount of its root), -1 and msg. */
int ns_mnt_clone_at(int dfd, const char *path);
/* The propagation of the mount of fd set (MS_SHARED, ...); the mount of fd to made a peer of that of from
 * (MOVE_MOUNT_SET_GROUP: also a slave of its master). 0, -1 errno. */
int ns_mnt_prop_fd(int fd, uint64_t prop);
int ns_mnt_join_fd(int from, int to);
int ns_mnt_make_point(int dfd, const char *path, bool file);
/* A bind of a removed directory or empty file (mnt_entry.root_deleted): one made again at path (in dfd), and
 * cloned (detached); ns_mnt_unmake removes it once the clone is in place (a detached mount whose root is
 * removed cannot be moved). -1 (errno) if it cannot be made (a name there now is not taken for it). */
int ns_mnt_clone_removed(int dfd, const char *path, bool file);
int ns_mnt_unmake(int dfd, const char *path, bool file);
int ns_mnt_new_filled(const struct ns_mnt_state *s, size_t i, char *msg, size_t len);

/* mnt-dump.c: crshim's own mount table (/proc/self/mountinfo): *m[i] the mounts (mnt_id, dev, root,
 * mountpoint, shared, master); *keep what holds them, for ns_mnt_own_free. 0, -1. */
int ns_mnt_own_table(MntEntry ***m, size_t *n, void **keep, struct cr_err *e);
void ns_mnt_own_free(MntEntry **m, size_t n, void *keep);
/* A filesystem crshim makes anew at restore (a kernel view or a memory filesystem: contents saved). */
bool ns_mnt_fresh_type(const char *t);

/* mnt-ext.c: external mounts. Dump, --external mnt[]: the mounts from outside the tree (of a filesystem
 * the tree does not hold, or a part of one it does not see) that crshim's namespace shows made external,
 * m[i]->ext_key (their mount point) and ext_auto (where, kept in *arena); one line for one it may not
 * make so (shared or a slave of a group outside, without --enable-external-sharing/-masters). 0, -1. */
int ns_mnt_ext_auto(const struct cr_opts *o, MntEntry **m, size_t n, char **arena, struct cr_err *e);
/* VAL of --external mnt[KEY]:VAL (dump: KEY a mount point, VAL a key; restore: KEY a key, VAL a path). */
const char *ns_mnt_ext_opt(const struct cr_opts *o, const char *key);
/* Dump: a mount of the filesystem of an external mount, inside what that one shows (and not of the root's
 * filesystem), is a bind of it (fs_of), not a filesystem of its own: it is the caller's too. */
void ns_mnt_ext_binds(MntEntry **m, size_t n);
/* Restore: a detached clone of the part of external mount f (its source) that mount m (fs_of f) shows. */
int ns_mnt_ext_clone(const struct ns_mnt_state *s, size_t f, const MntEntry *m);
/* Restore: the source of external mount m (--external mnt[KEY]:PATH, --ext-mount-map KEY:PATH, or where the
 * dump found it with --ext-mount-map auto); NULL with nothing in e for the dump's check (o->live_root),
 * -1 (e) when none is given. */
int ns_mnt_ext_source(const struct cr_opts *o, const MntEntry *m, const char **src, struct cr_err *e);
/* crshim, before the tree: for each mount that was a slave of (or in) a peer group outside the tree and
 * whose source crshim's namespace shows in one, a clone of that source (s->host, s->out). 0, -1. */
int ns_mnt_ext_host(struct ns_mnt_state *s, const struct cr_opts *o, struct cr_err *e);
void ns_mnt_ext_free(struct ns_mnt_state *s);
/* The root task, in its new mount namespace before anything is made: own[i], its own clone of each source
 * crshim cloned (s->host), -1 where none. A namespace owned by a user namespace other than crshim's is a
 * copy whose mounts of a peer group outside are only slaves of it (the kernel's rule for a less privileged
 * copy), and crshim's clone may not be joined from there (MOVE_MOUNT_SET_GROUP wants CAP_SYS_ADMIN over
 * both namespaces): joining its own clone makes a mount a slave of that group all the same. */
void ns_mnt_ext_own(const struct ns_mnt_state *s, int *own);
/* The root task, tree standing: mount i (fd, private) into that peer group outside: a slave of it, or a
 * peer; through own (ns_mnt_ext_own, -1: none) where crshim's clone is refused (a user namespace's): a
 * slave of it, made shared in a group of its own if it was a peer. 1 if done, 0 if nothing to do (or the
 * kernel refused), -1 (msg). */
int ns_mnt_ext_link(const struct ns_mnt_state *s, size_t i, int fd, int own, char *msg, size_t len);

/* tmpfs.c: the files of the filesystem under dirfd (a detached clone of the mount) into tmpfs-ID.img (made
 * in imgdir, or out: that file, made already);
 * filling a new one (no logging: the root task). */
int ns_tmpfs_dump(int dirfd, int imgdir, int out, int id, uint64_t limit, struct cr_err *e);
int ns_tmpfs_fill(int rootfd, const struct ns_mnt_fs *fs, char *msg, size_t len);

/* Is path dir or below it ("/" holds every path)? */
bool ns_mnt_under(const char *path, const char *dir);

/* "\040" and the like of /proc/PID/mountinfo, in place. */
void ns_mnt_unescape(char *s);

#endif
