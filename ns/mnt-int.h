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
};

/* mnt-dump.c: the root's mount tree -> mnt.img (+ tmpfs-ID.img), one line for a mount that cannot be
 * restored. */
int ns_mnt_dump(const struct ns_dump_args *a, pid_t root, struct cr_err *e);
/* ... a process's mount namespace other than its parent's (base), with other mounts: how it differs from
 * base's -> mntns-ID.img (+ tmpfs-ID.img of the tmpfs mounted in it); one line for what cannot be made. */
int ns_mnt_nested_dump(const struct ns_dump_args *a, pid_t pid, pid_t base, uint32_t id, struct cr_err *e);
/* mnt-nested.c: mntns-1.img, -2, ... and the files of their tmpfs (crshim, nothing made) */
struct ns_mnt_nested;
int ns_mnt_nested_load(int dirfd, struct ns_mnt_nested ***out, size_t *n, struct cr_err *e);
void ns_mnt_nested_free(struct ns_mnt_nested **v, size_t n);
const struct ns_mnt_state *ns_mnt_nested_state(const struct ns_mnt_nested *x); /* its mounts */
/* ... in the process, cloned in its parent's namespace: its own made (unshare) from that (-1 and msg) */
int ns_mnt_nested_restore(const struct ns_mnt_nested *x, int *parent_ns, int *parent_root, char *msg,
			  size_t len);
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
int ns_mnt_new_filled(const struct ns_mnt_state *s, size_t i, char *msg, size_t len);

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
