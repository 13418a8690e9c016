/* The table of fd kinds (engine-internal).
 *
 * Every kind of fd crshim can dump and restore (regular file, character device, pipe, FIFO, unix / inet /
 * netlink / packet socket, pty, eventfd, signalfd, timerfd, pidfd, epoll, inotify, fanotify, memfd) is one
 * `struct fd_kind`, defined in the file of its code with FD_KIND(); the linker gathers them all into one
 * section, which fd-kinds.c walks. dump-files.c asks each kind (in `prio` order) whether an fd is its own and
 * lets the first that says so fill the file_entry; restore-files.c finds the kind of a file_entry by its
 * FileKind and calls its hooks. A new kind: its own file with its entry, a FileKind and sub-message in
 * proto/files.proto, a test; nothing else.
 *
 * FILE_INHERIT is no kind: it is how an fd is taken from the restoring crshim (shell-job stdio, --external,
 * --inherit-fd, and what the parent makes once for several processes), handled by the walkers themselves. */
#ifndef CRSHIM_FD_KIND_H
#define CRSHIM_FD_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/proc.h"
#include "crshim.h"
#include "image/image.h"

struct dump_ctx;
struct rst_task;

/* One fd of the task being dumped, as dump-files.c found it. */
struct fd_src {
	pid_t pid;
	int fd;
	uint32_t id;	/* file_entry id */
	bool dup;	/* same description as an earlier fd */
	bool stdio_inh; /* --shell-job: fd 0-2 taken from the restoring crshim (dump-files.c) */
	char *link;	/* readlink of /proc/PID/fd/FD */
	char *old;	/* a deleted file reopened by another link: its deleted name */
	struct stat st;
	struct proc_fdinfo fi;
	int domain;		  /* a socket's SO_DOMAIN, -1 if it could not be read (not a socket: 0) */
	int cfd;		  /* crshim's copy of the fd, taken once (dump-files.c); -1: not taken */
	const struct fd_src *all; /* every fd of the task */
	size_t nr_all;
	RegFileEntry reg; /* path, flags, mode of a kind opened by path (fe->reg points here) */
	void *priv;	  /* what the kind allocated for this fd's entry (its release frees it) */
};

struct fd_kind {
	const char *name; /* "eventfd": for logs */
	int kind;	  /* the FileKind of its entries */
	int prio;	  /* dump: of the kinds that recognise an fd, the lowest prio is asked first */

	/* ---- dump (dump-files.c) ---- */
	/* Is s of this kind? (cheap: link, stat, fdinfo, s->domain) */
	bool (*is)(const struct dump_ctx *c, const struct fd_src *s);
	/* Fill fe (kind, sub-message). 0 done, < 0 error (e set), > 0 not of this kind after all: the next
	 * kind is asked. *state: the kind's state for this process (NULL at first), freed by free_state. */
	int (*dump)(struct dump_ctx *c, struct fd_src *s, void **state, FileEntry *fe, struct cr_err *e);
	/* fe was written (or the dump failed): free what dump allocated for it. */
	void (*release)(FileEntry *fe, struct fd_src *s);
	/* Once the process's fds are written: what the kind collected (into files.img, wf). */
	int (*finish)(struct dump_ctx *c, void *state, struct img_writer *wf, struct cr_err *e);
	void (*free_state)(void *state);
	bool tree_desc; /* one open file description may be held across the tree (fdshare: tree_desc) */
	bool last;	/* its fds are written after the process's files in flight (finish), which its
			 * entries may name (epoll targets) */

	/* ---- restore ---- */
	/* Parent, once the images are loaded: is the entry complete and can it be made? */
	int (*check)(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e);
	/* Child: make the open file description of f at fi->fd (helper fds >= lo). Errors as text. */
	int (*open)(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		    size_t len);
	/* f is opened later, by a stage of its own (not by open). */
	bool (*later)(const FileEntry *f);
	int pass; /* 0: opened in fd order; 1: once every fd of pass 0 is open (epoll) */
	/* Child, once every fd is open, for each first fd of a description (also an inherited one). */
	int (*fill)(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		    size_t len);
	/* Child, once the whole fd table is in place. */
	void (*child_done)(void);
	/* A new file of f made in crshim (close-on-exec), for several processes (fdshare.h, evfd.h): its fd,
	 * or -1 with the reason in msg. NULL: not made this way. */
	int (*make)(const FileEntry *f, char *msg, size_t len);
	/* Made once in crshim even when one process holds it (a memfd that is also mapped: one object). */
	bool (*made_once)(const FileEntry *f);
	/* Parent: a file of this kind in flight (SCM_RIGHTS in a unix socket's queue) is made once in crshim
	 * and handed over (f becomes FILE_INHERIT); NULL: this kind cannot be in flight. */
	int (*flight)(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		      struct cr_err *e);
	/* Parent, before flight and in the dump's dry run: can f in flight be made? NULL: yes. */
	int (*flight_check)(struct rst_task *ts, size_t n, const struct rst_task *t, const FileEntry *f,
			    struct cr_err *e);
};

/* Define the entry of a kind: FD_KIND(my_kind) = { .name = ..., ... }; */
#define FD_KIND(var)                                                                                         \
	static const struct fd_kind var;                                                                     \
	static const struct fd_kind *const var##_entry __attribute__((used, section("crshim_fd_kinds"))) =   \
	    &var;                                                                                            \
	static const struct fd_kind var

/* fd-kinds.c */
/* The kinds, in dump order (prio); *n their number. */
const struct fd_kind *const *fd_kinds(size_t *n);
/* The kind of file_entry kind k, NULL if crshim has none. */
const struct fd_kind *fd_kind_of(int k);
/* Index of k in fd_kinds() (for per-kind state arrays). */
size_t fd_kind_index(const struct fd_kind *k);

/* The entry of fe's kind (e.g. fe->inet_sk: the caller stores it), allocated and initialised from its
 * descriptor; fe's kind set. NULL (e filled) when out of memory. */
void *fe_sub_new(FileEntry *fe, FileKind kind, const ProtobufCMessageDescriptor *d, struct cr_err *e);

/* restore-files.c: parent, after loading: every fd's file is there and complete (or, for an inherited one,
 * open in crshim). */
int rst_files_check(struct rst_task *t, struct cr_err *e);
/* file-reg.c: where the restore will find path of task t: stat (lstat unless follow) of it, 0 or -1 with
 * errno; 1 when it cannot be looked at before the restore (one of t's ghosts, which the restore makes; or
 * t->paths_later: the tree's own mount tree, which the restore builds). In the dump's check of such a tree
 * (t->live_paths) it is looked up in the live tree, under t->live_root. */
int rst_path_stat(const struct rst_task *t, const char *path, struct stat *st, bool follow);

/* file-reg.c: the dump of an fd opened by path (regular file, directory, O_PATH open, character device),
 * for the "socket of the caller" and unsupported messages of dump-files.c. */
bool fd_has_prefix(const char *s, const char *p);
bool fd_is_deleted(const char *link);
/* The mount point of the nth mount (from 0) of the device sdev (kernel encoding: major << 20 | minor), or
 * with mount id mnt_id (>= 0), in mountinfo text. malloc'ed, NULL if none. (dump-inotify.c) */
char *mount_point_nth(const char *mi, unsigned sdev, int mnt_id, int nth);

#endif
