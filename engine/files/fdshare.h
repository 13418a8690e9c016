/* Open file descriptions shared by several processes of a tree (engine-internal): dump-fdshare.c and
 * restore-fdshare.c.
 *
 * Dump: every regular file, device or FIFO description of a process gets a tree-wide number
 * (file_entry.tree_desc): the one of an earlier process's fd that kcmp(KCMP_FILE) says is the same
 * description (inherited through fork, or passed), else a new one. Restore: a description held by several
 * processes is opened once in crshim (path, flags, offset) and becomes FILE_INHERIT in each, inherited
 * through clone3, so that the processes share its offset and status flags again (pipes do the same in
 * restore-pipes.c; a FIFO is opened through a helper open of it there, rst_fifo_open_desc, which writes its
 * data in flight too). A tree with its own mount tree (--root) sees its paths only once its root task has
 * built that tree: crshim keeps an fd number for each description and the root task opens it there
 * (rst_fdshare_root) before it clones the other processes. */
#ifndef CRSHIM_FDSHARE_H
#define CRSHIM_FDSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "crshim.h"
#include "image/image.h"

struct dump_ctx;
struct dump_fdshare;
/* A tree-wide memo of what a kind read of an object that several fds of the tree share (the options of a
 * unix socket, by inode: the same for each of its fds, the tasks being stopped), so that it is read once per
 * dump, not once per fd (a tree of 300 processes holding the same 200 sockets read 60,000 times 70 options).
 * dump_fdshare_memo: the value saved for key (NULL: none, or s NULL); dump_fdshare_memo_put takes val (freed
 * by fr with the memo; at once when s is NULL, key has one already, or on failure). */
void *dump_fdshare_memo(const struct dump_fdshare *s, uint64_t key);
int dump_fdshare_memo_put(struct dump_fdshare *s, uint64_t key, void *val, void (*fr)(void *),
			  struct cr_err *e);
int dump_fdshare_new(struct dump_fdshare **out, struct cr_err *e);
void dump_fdshare_free(struct dump_fdshare *s);
/* Keep crshim's fd (a file in flight, dump-sk-scm.c: file id of process pid's files image) open until
 * dump_fdshare_free: descriptions numbered through it stay comparable (kcmp) for the processes dumped later,
 * and the same file carried by a later process's socket is found as that one. fd is taken. */
int dump_fdshare_keep(struct dump_fdshare *s, int fd, pid_t pid, uint32_t id, struct cr_err *e);
/* The first kept file that is_it(fd, arg) says is the one: true with its process and id. */
bool dump_fdshare_flight(const struct dump_fdshare *s, bool (*is_it)(int fd, void *arg), void *arg,
			 pid_t *pid, uint32_t *id);
/* The files in flight of process pid that engine/net writes now (dump_scm_write): fds[i], crshim's copy,
 * is file id ids[i]; the arrays stay the caller's until it calls this again with n 0 (and pid 0). */
void dump_fdshare_writing(struct dump_fdshare *s, pid_t pid, const int *fds, const uint32_t *ids, size_t n);
/* The process whose files in flight are being written, 0 if none. */
pid_t dump_fdshare_writer(const struct dump_fdshare *s);
/* The id of the file in flight whose copy in crshim is_it(fd, arg) says it is (an epoll target,
 * files/dump-epoll.c): one of the process being written (*pid 0), or of one written so far (*pid that
 * process, 0 if it is c's); 0 if none. */
uint32_t dump_fdshare_find_flight(const struct dump_ctx *c, bool (*is_it)(int fd, void *arg), void *arg,
				  pid_t *pid);
/* An epoll entry whose target no process of the tree holds and no file in flight dumped so far is
 * (files/dump-epoll.c): looked for again once every process is dumped (dump_epoll_loose_check). */
struct dump_loose {
	pid_t pid;  /* the process whose files image has the set */
	pid_t epid; /* who holds efd: that process, or crshim (a set in flight) */
	int efd;    /* its fd there */
	int tfd;    /* the entry: added as fd tfd, the toff-th entry of that number */
	uint32_t toff;
};
int dump_fdshare_loose(struct dump_fdshare *s, const struct dump_loose *l, struct cr_err *e);
const struct dump_loose *dump_fdshare_loose_list(const struct dump_fdshare *s, size_t *n);
/* The tree-wide number of the description of fd of task c (st: its stat). */
int dump_fdshare_id(struct dump_ctx *c, int fd, const struct stat *st, uint32_t *id, struct cr_err *e);

struct rst_task;
/* How many processes hold description id (entries already made FILE_INHERIT count too). */
size_t rst_fdshare_holders(const struct rst_task *ts, size_t n, uint32_t id);
/* Parent, once every process of the tree is loaded: open each shared description once. A dry run
 * (ts[0].dry, restore-check.c) opens and makes nothing: the holders' entries only become FILE_INHERIT (of
 * fd -1), as the restore's later steps see them. */
int rst_fdshare_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* The description of f opened once in crshim (a file in flight, restore-sk-scm.c): every entry of it
 * becomes FILE_INHERIT. */
int rst_fdshare_one(struct rst_task *ts, size_t n, FileEntry *f, struct cr_err *e);
/* The root task of a tree with its own mount tree, once that stands (before it clones the others): open
 * the descriptions kept for it at their fds; -1 with the reason in msg. */
int rst_fdshare_root(char *msg, size_t len);
/* A process of the tree in a mount namespace of its own (pstree mntns), once that stands (before it clones
 * its children): open the descriptions all of whose holders are in it, at their fds. -1 and msg. */
int rst_fdshare_nested(pid_t pid, char *msg, size_t len);
/* ... and sends each to the processes that entered its namespace (pstree mntns_join), which take them, once
 * in it (before they clone their children), at their fds: rst_fdshare_joined (maker: the one they entered
 * the namespace of). -1 and msg. */
int rst_fdshare_joined(pid_t maker, char *msg, size_t len);
/* crshim, once every process of such a tree but those sharing an address space is restored: take each
 * description the root task opened from a process that holds it, at its kept fd, so that a placeholder of a
 * sharer (mem/restore-sharedvm.c, crshim's child) hands the very description to its sharer. */
int rst_fdshare_take_late(const struct rst_task *ts, size_t n, struct cr_err *e);
/* ... that placeholder, in that mount tree: open those no such process holds at their fds, each again (its
 * copy does not share the offset with the others'). -1 with the reason in msg. */
int rst_fdshare_reopen(char *msg, size_t len);
/* crshim, in the mount namespace of such a tree once it stands: open the files in flight (sent with the
 * unix sockets' queues right after) at the fds kept for them; the root task takes them from crshim
 * (rst_fdshare_root, pidfd_getfd). -1 with the reason in msg. */
int rst_fdshare_flight_late(char *msg, size_t len);
/* Close crshim's copies (after the tree is created). */
void rst_fdshare_done(void);

/* Files in flight at restore (engine/net/restore-sk-scm.c makes them): the entry of carried file id of
 * task t (same_fd followed), NULL if none; rst_sk_scm_find also gives the task whose entry it is (*owner): a
 * file carried by sockets of several processes is the entry of the first one dumped (same_flight_pid,
 * same_flight_id followed). */
struct rst_task;
FileEntry *rst_sk_scm_entry(const struct rst_task *t, uint32_t id);
FileEntry *rst_sk_scm_find(const struct rst_task *t, uint32_t id, const struct rst_task **owner);

/* The network namespace (of the dump) of socket f (inet, packet, netlink; 0: not one, or not known: older
 * images), and whether it is not that of its holder pid (a socket made before its process's setns or
 * unshare, or passed to it): crshim makes such a socket in its namespace (rst_fdshare_prepare), the holder
 * takes it as FILE_INHERIT. */
struct ns_rst;
uint64_t rst_sk_netns(const FileEntry *f);
bool rst_sk_away(const struct ns_rst *ns, pid_t pid, const FileEntry *f);

#endif
