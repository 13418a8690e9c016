/* Ghost files: files a task holds open or maps after they were unlinked (device nodes and symlinks too: no
 * data; a symlink is made again by each task that holds it, restore-ghost.c), and removed directories it
 * holds open or has as its cwd (made again empty with their mode, owner and times, and removed). The dump
 * saves their contents (holes stay holes) into ghost-PID.img up to --ghost-limit bytes of data; the restore
 * makes each one again next to where it was, unlinks it at once and hands out "/proc/CRSHIM/fd/N" as its
 * path, so that the fds and mappings of the restored task open the same (unlinked) inode. One whose path a
 * mount covers since (an overmount of its directory or above it) is made beneath that mount, on its own
 * (ghost_file_entry.over; in crshim's view, mode cr, or in the tree's mount tree once it stands). */
#ifndef CRSHIM_GHOST_H
#define CRSHIM_GHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/err.h"
#include "image/image.h"

struct dump_ctx;
struct file_handle;
struct rst_task;

/* The ghost of the open file src (a /proc/PID/fd/N or map_files path) whose link was name
 * ("PATH (deleted)"); what: "fd 5" or "mapping 0x..-0x.." for messages. *id is its id in ghost-PID.img
 * (one per inode). Fails with one line if its data is above the limit. */
int dump_ghost_add(struct dump_ctx *c, const char *src, const struct stat *st, const char *name,
		   const char *what, uint32_t *id, struct cr_err *e);
/* Where the restore makes ghost id of c (NULL if none): its path (that of the first fd or mapping of its
 * inode), or that of the ghost of the same inode of an earlier process of the tree, whose ghost c's is
 * then (restore-ghost.c share_ghost). */
const char *dump_ghost_made_at(const struct dump_ctx *c, uint32_t id);
/* cwd (the link of /proc/PID/cwd): if it is a removed directory, *id is its ghost and cwd loses its
 * " (deleted)"; else *id is 0. */
int dump_ghost_cwd(struct dump_ctx *c, char *cwd, uint32_t *id, struct cr_err *e);
/* A removed cwd or a mapping of a deleted file (what, path: as c sees it; its ghost id, on filesystem dev)
 * of a process in another mount namespace than the root's, on a filesystem the root's tree does not show
 * where its ghost is made (a tmpfs only c's namespace mounted): *dir (the deepest directory of path it sees,
 * on that filesystem) and *name (path's last part when dir is its directory; malloc'ed), where the process
 * makes it again from crshim's ghost (rst_ghost_make_copy), so that its filesystem is its own; unset else.
 * Refused with one line if no directory of path shows that filesystem (file-reg.c). */
/* A removed cwd (path, as c sees it; its ghost id; src: /proc/PID/cwd) on another mount than the one its
 * ghost is made on (that of the first fd of its inode: a bind of its parent, say): *dir (malloc'ed), the
 * deepest directory of path c sees, on the cwd's own mount, where its process opens it again by its handle
 * (fs_entry.cwd_mnt: rst_ghost_dir_on_mount); unset else, and with a warning when no directory of path
 * reaches that mount or crshim may not open by handle (file-reg.c). */
int dump_ghost_cwd_mnt(struct dump_ctx *c, const char *path, uint32_t id, const char *src, char **dir,
		       struct cr_err *e);
int dump_ghost_own_dir(struct dump_ctx *c, const char *what, const char *path, uint32_t id, dev_t dev,
		       char **dir, char **name, struct cr_err *e);
/* The name (malloc'ed; NULL: out of memory) a deleted file (st: its inode) gets in dir (as pid sees it;
 * reg_file_entry.ghost_name) when its deleted name is not there (its directory removed too), for its
 * process's open there (crshim links it there, or the process links it again or makes its copy there): last
 * (its name's last part), else last.crshim-ghost.ID (id: its ghost's), if free there at dump and neither the
 * deleted name of another file an fd of the tree holds nor picked for another file of the tree already; the
 * name picked for the same inode in dir if any (file-reg.c on_mount). */
char *dump_ghost_pick_name(struct dump_ctx *c, pid_t pid, const char *dir, const char *last,
			   const struct stat *st, uint32_t id);
/* May the restore (crshim, or a process of the tree) open a regular file by its handle (open_by_handle_at)?
 * Only with CAP_DAC_READ_SEARCH in the initial user namespace: the kernel's may_decode_fh lets one of
 * another user namespace (a rootless crshim, root of its user's namespace; a tree born there) open
 * directories only. The dump then has the restore open such a file by a name kept for it (file-reg.c). */
bool dump_ghost_file_handles(void);
/* ghost-PID.img, if there are ghosts. */
int dump_ghost_write(struct dump_ctx *c, struct cr_err *e);
void dump_ghost_free(struct dump_ctx *c);

/* Restore (parent side, before the child): make the ghosts of t and point the deleted files and the
 * mappings of deleted files at them. */
int rst_ghost_prepare(struct rst_task *t, struct cr_err *e);
void rst_ghost_free(struct rst_task *t);
/* Every process has its fds: the names kept for the ghosts opened again on another mount go (restore.c). */
void rst_ghost_unlink_kept(struct rst_task *t);
/* A tree born in its user namespace: t (which made its nested mount namespace, now standing) or a process
 * that inherits that namespace from it (cloned below it) has ghosts to open on a mount of it
 * (reg_file_entry.ghost_link): crshim links each there at its deleted name (by its handle: crshim may), the
 * process opens it by that name; the names go with rst_ghost_unlink_kept. */
bool rst_ghost_links(const struct rst_task *t);
int rst_ghost_link_nested(struct rst_task *t, struct cr_err *e);
/* The name a deleted file of file id gets in its directory there when its ghost_name (picked free at dump)
 * is another file's at restore (two files whose names end alike in directories removed too): name.crshim-
 * ghost.ID, which crshim links it at (rst_ghost_link_nested) and its process opens, or (other trees) its
 * process links it at for its open (file-reg.c). */
void rst_ghost_alt_name(const char *name, uint32_t id, char *out, size_t len);
/* A ghost several processes of one nested mount namespace make again on their own mount (ghost_copy), each
 * with an open of its own, is made once (the same inode for all): rst_ghost_share_copies (crshim, once the
 * tree is planned: spawn_idx) keeps an fd number for each such ghost; the process that made the namespace
 * makes the copy there once its namespace stands (rst_ghost_copy_nested; -1 and msg), the others inherit it
 * (cloned below it afterwards), and it sends it to those that entered that namespace (setns:
 * pstree_entry.mntns_join), which take it at that number once in it, before they clone their children
 * (rst_ghost_copy_joined; -1 and msg). Each holder keeps its inherited copy among its helper fds
 * (restore-files.c: rst_ghost_shared_fd, -1 if t holds not copy j; rst_ghost_shared_moved) and opens it again
 * for its fds (rst_ghost_shared_copy: the fd, -1 with errno, -2 if r is not such a ghost of t), its removed
 * cwd (fs_entry.cwd_ghost_mnt: rst_ghost_shared_cwd, the same) or its mappings of one no fd of it holds
 * (mapped file i: rst_mfile.copy, rst_ghost_shared_map). A removed directory one process holds twice (its
 * cwd and an fd, fds on two mounts) is made once so too; its cwd then opens that copy again on the mount of
 * its own directory (fs_entry.cwd_ghost_mnt) by its handle when the copy is on another. */
int rst_ghost_share_copies(struct rst_task *ts, size_t n, struct cr_err *e);
int rst_ghost_copy_nested(const struct rst_task *t, char *msg, size_t len);
int rst_ghost_copy_joined(const struct rst_task *t, char *msg, size_t len);
size_t rst_ghost_shared_count(void);
int rst_ghost_shared_fd(const struct rst_task *t, size_t j);
void rst_ghost_shared_moved(size_t j, int fd);
int rst_ghost_shared_copy(const struct rst_task *t, const RegFileEntry *r, int flags);
int rst_ghost_shared_cwd(const struct rst_task *t, int flags);
int rst_ghost_shared_map(const struct rst_task *t, size_t i, int flags);
/* The fd of t that makes its ghost at path (a deleted file's, a mapping's: "/proc/CRSHIM/fd/N") again on
 * its own mount (reg_file_entry.ghost_copy, file-reg.c), -1 if none: t's mappings of that ghost map the
 * task's copy (restore-load.c), the same inode as its fd. */
int rst_ghost_copy_fd(const struct rst_task *t, const char *path);
/* Child: src (crshim's ghost: a regular file or a directory) made again in the directory m, at name (or
 * next to it if taken; NULL: a name of crshim's) with its data, owner, mode and times, opened with flags and
 * removed (its process's own copy, on the filesystem of m: reg_file_entry.ghost_copy,
 * fs_entry.cwd_ghost_mnt). id names the copy if name is taken. */
int rst_ghost_make_copy(int src, int m, const char *name, uint32_t id, int flags);
/* A removed directory by its handle h on the mount of the directory m: O_PATH | O_DIRECTORY (root of a user
 * namespace that owns the mount's namespace, a tree born there, may open only directories so: the kernel's
 * may_decode_fh), then opened again through /proc with flags (O_DIRECTORY not added to the fd's own). */
int rst_ghost_dir_by_handle(int m, struct file_handle *h, int flags);
/* fd (a removed directory: a ghost or its copy) opened again with flags by its handle on the mount of the
 * directory mnt (as the task sees it) when it is on another: that fd (fd closed), fd itself if on that
 * mount, -1 with errno (fd closed). A removed cwd on its own mount: fs_entry.cwd_mnt, cwd_ghost_mnt. */
int rst_ghost_dir_on_mount(const char *mnt, int fd, int flags);
/* ts: atime_ns and mtime_ns (nanoseconds since the epoch, as the images have them), each UTIME_OMIT if not
 * has_ (for futimens) */
void rst_times_ns(struct timespec ts[2], bool has_atime, uint64_t atime_ns, bool has_mtime,
		  uint64_t mtime_ns);
/* path is one of t's ghosts (made by the restore with the image's size, or only named by a dry run) */
bool rst_ghost_is(const struct rst_task *t, const char *path);
/* A tree with its own mount tree (t->paths_later): its paths exist only once the root task has built it, so
 * rst_ghost_prepare only keeps an fd number (and so the path) for each ghost; rst_ghost_late makes them
 * through /proc/ROOT/root at those fds once that tree stands (restore.c: the root's mount mark). */
int rst_ghost_late(struct rst_task *ts, size_t n, struct cr_err *e);
/* The late ghost whose path is path (a deleted file in flight, which crshim sends before the tree exists):
 * made now, where crshim sees its path. */
int rst_ghost_early(struct rst_task *ts, size_t n, const char *path, struct cr_err *e);
/* child: open r->path; a deleted name of a file still linked elsewhere (r->deleted_name) is linked again for
 * the open and unlinked, so that the fd names it "PATH (deleted)" as before (if the name is taken, or the
 * link fails, the file is opened by r->path). */
int rst_ghost_open(const RegFileEntry *r, int flags);
/* fd, a deleted file's description opened through its ghost's /proc magic link (which refuses O_NOFOLLOW),
 * opened again with flags and O_NOFOLLOW (the image's): a removed directory by "." in itself (whichever
 * process made its ghost: zdtm ghost_nofollow_dir2), else by the name its ghost keeps till every process has
 * its fds (a regular file's; a removed directory's whose handle crshim may not open, an unprivileged
 * restore: zdtm ghost_nofollow_dir in mode user), else by its handle; fd is closed then. Else fd as it is,
 * without O_NOFOLLOW (the dump said when that would be). */
int rst_ghost_nofollow(int fd, int flags);
/* A ghost's path is crshim's fd in /proc. A task restored into a mount tree of its own sees, after
 * pivot_root, the /proc of its PID namespace, where crshim is not: rst_host_proc (crshim's /proc, opened by
 * rst_ghost_prepare then, -1 else) is kept among every task's helper fds (restore-files.c), and
 * rst_ghost_open_path opens such paths through it; other paths as they are. */
extern int rst_host_proc;
/* Child: open /proc/self/REL, through rst_host_proc (where it is itself too) when its mount tree has no
 * /proc (CRIU's clean_mntns unmounts it). */
int rst_self_proc_open(const char *rel, int flags);
int rst_ghost_open_path(const char *path, int flags);
/* The same for a child sharing the fd table (restore-fdtable.c, in its parent): self is its pid as it sees
 * it, so the copies kept for it are taken first. */
int rst_ghost_open_path_as(pid_t self, const char *path, int flags);
/* A root born in its user namespace (late_fds_pushed) takes crshim's fds of the ghosts (rst_ghost_late
 * offers them) and its tree inherits them: each task keeps its copies among its helper fds
 * (restore-files.c) and rst_ghost_open_path opens them as /proc/self/fd/OWN. The count (0 otherwise),
 * crshim's fd of ghost j, and the task's copy of crshim's fd (0, -1): pid 0, or a child that shares its fd
 * table (CLONE_FILES) but not its fs info, with its pid as it sees it: the parent keeps that child's copies
 * too (its own fd restore would close them: a removed cwd of the child; and its blob closes its own helper
 * fds, rst_host_proc among them, while the child may still open them) and places them in the child's range
 * of helper fds (restore-fdtable.c), which rst_ghost_sharer_copies walks (fn may move *own). */
size_t rst_ghost_count(const struct rst_task *t);
int rst_ghost_fd(const struct rst_task *t, size_t j);
int rst_ghost_own_copy(pid_t pid, int crshim_fd, int own);
int rst_ghost_sharer_copies(pid_t pid, int (*fn)(int *own, void *arg), void *arg);
/* The parent's fd restore: the copies (keep returns the copy of fd, -1) of the ghosts of child c, which
 * shares its fd table, and of crshim's /proc through which it opens them. */
int rst_ghost_keep_sharer(const struct rst_task *c, int (*keep)(int fd, void *arg), void *arg);

#endif
