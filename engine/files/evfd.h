/* Event fds (engine-internal): eventfd, signalfd, timerfd, pidfd (dump-evfd.c, restore-evfd.c), epoll
 * (dump-epoll.c, restore-epoll.c), inotify and fanotify (dump-inotify.c, restore-inotify.c); memfd (in
 * ../mem/: mem/memfd.h) is shared through the same code.
 *
 * Dump: the state is read from /proc/PID/fdinfo/FD and, where fdinfo does not tell it, from a copy of the
 * fd taken with pidfd_getfd (never consuming anything: counters, queues and contents stay as they were).
 * Each kind has its sub-message in file_entry (eventfd, epoll, signalfd, ...).
 *
 * Restore (child side, called from restore-files.c open_targets in fd order): each kind is made again
 * with its state and put at its fd. Epoll instances come last (rst_epoll_open, a second pass), once
 * every target fd of the task is open; a target held only by another process of the tree is added by
 * crshim itself (rst_epoll_tree, after every process has its fds), through pidfd_getfd copies. */
#ifndef CRSHIM_EVFD_H
#define CRSHIM_EVFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "crshim.h"
#include "image/image.h"

struct dump_ctx;
struct rst_task;

/* One fd of the task being dumped. */
struct evfd_src {
	pid_t pid;
	int fd;
	const char *link; /* readlink of /proc/PID/fd/FD */
	const struct stat *st;
	uint32_t flags; /* open flags from fdinfo */
	uint64_t pos;	/* file position from fdinfo */
};

/* An EPOLLONESHOT entry that has fired: the kernel cut its events to its private flags (no event bit, not
 * even EPOLLERR/EPOLLHUP, which EPOLL_CTL_ADD and MOD always add): disarmed until EPOLL_CTL_MOD. */
#define EPOLL_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLL_FIRED(ev) (((ev)&EPOLLONESHOT) && !((ev) & ~(uint32_t)EPOLL_PRIVATE_BITS))

/* ---- dump side ---- */
/* Each kind (its entry in its dump-*.c file, files/fd-kind.h) fills fe with its sub-message (malloc'ed:
 * dump_evfd_release frees it once fe is written); then dump_evfd_done (r: what the fill returned) marks a
 * description an earlier process of the tree holds too (restore makes it once) and warns of events queued
 * on an inotify / fanotify instance. */
struct fd_src;
void evfd_src_of(const struct fd_src *f, struct evfd_src *s);
int dump_evfd_done(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, int r);
void dump_evfd_release(FileEntry *fe);
void dump_evfd_kind_release(FileEntry *fe, struct fd_src *f);
/* /proc/PID/fdinfo/FD as a malloc'ed string. */
int dump_evfd_fdinfo(pid_t pid, int fd, char **out, struct cr_err *e);
/* A copy of the task's fd (same open file description) through pidfd_getfd (also used by restore-epoll.c). */
int dump_evfd_take(pid_t pid, int fd, struct cr_err *e);
/* The kinds in their own files. */
int dump_epoll_fill(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, struct cr_err *e);
/* Once every process is dumped (c: any of the tree): an epoll entry whose target was found nowhere while
 * its set was dumped, but is in flight in a socket of a process dumped after it, fails the dump with one
 * line (the entry is not in the images). */
int dump_epoll_loose_check(const struct dump_ctx *c, struct cr_err *e);
int dump_inotify_fill(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, struct cr_err *e);
int dump_fanotify_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e);
/* Events queued on an inotify / fanotify instance are not saved: one warning (log and user) with their
 * byte count, if there are any. */
void dump_notify_queued(const struct dump_ctx *c, const struct evfd_src *s, const char *kind);

/* ---- restore side ---- */
/* Parent, while loading: the entry is complete (and, for a pidfd to a process outside the tree, that
 * process still exists). */
int rst_evfd_check(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e);
/* Child: make the event fd of f at fi->fd through its kind's make (not epoll, pidfd, memfd; helpers >= lo).
 * Errors as text. */
int rst_evfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		  size_t len);
/* A pidfd at fi->fd: of a process of the tree (waited for), or copied from its first holder. */
int rst_pidfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len);
/* A new eventfd / signalfd / timerfd / epoll set (empty) / pidfd (of a process outside the tree) for f. */
int rst_eventfd_make(const FileEntry *f, char *msg, size_t len);
int rst_signalfd_make(const FileEntry *f, char *msg, size_t len);
int rst_timerfd_make(const FileEntry *f, char *msg, size_t len);
int rst_epoll_make(const FileEntry *f, char *msg, size_t len);
int rst_pidfd_make(const FileEntry *f, char *msg, size_t len);
/* A pidfd of a reaped process whose pidfs inode the image has: made in crshim (rst_evfd_share), every pidfd
 * of that process an open of one pidfd (kept until rst_evfd_share_done). */
bool rst_pidfd_dead_once(const FileEntry *f);
/* A new inotify / fanotify instance for f (close-on-exec, status flags set), -1 on error. */
int rst_inotify_make(const FileEntry *f, char *msg, size_t len);
/* An inotify instance with a watch through "/proc/PID/root" (an inode of another process's mount
 * namespace, dump-inotify.c): made with the files of /proc/PID (restore-procfd.c), once the tree is there. */
bool rst_inotify_down(const FileEntry *f);
int rst_fanotify_make(const FileEntry *f, char *msg, size_t len);
/* crshim, for a tree with its own mount tree: the instances made for several processes (rst_evfd_share)
 * get their watches and marks later, once that tree stands, from inside its mount namespace
 * (rst_notify_late; engine/restore.c). */
void rst_notify_later(bool on);
int rst_notify_late(char *msg, size_t len);
/* Child, after every other fd: the epoll instances (create all, then their targets of this task). */
int rst_epoll_create(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len);
int rst_epoll_fill(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len);
/* f is an epoll set: made by the task, or (held by several processes) made once by crshim and inherited. */
bool rst_epoll_is(const FileEntry *f);
/* Parent, once every process is loaded (and after rst_shmem_prepare): an event fd held by several
 * processes of the tree (eventfd, signalfd, timerfd, memfd, inotify, fanotify, epoll, a pidfd of a process
 * outside the tree) is made once here and becomes FILE_INHERIT in each, as shared pipes are (an epoll set
 * empty: each holder adds its targets, crshim the others; a pidfd of a process of the tree its first holder
 * opens and the others copy with pidfd_getfd); a memfd that is also mapped is opened from the object
 * restore-shmem.c made (rst_shmem_fd), so the fd and the mappings are one memfd again.
 * rst_evfd_share_done closes crshim's copies once the tree is created. */
int rst_evfd_share(struct rst_task *ts, size_t n, struct cr_err *e);
void rst_evfd_share_done(void);
/* f (of task t) made once in crshim as above (a file in flight, restore-sk-scm.c), or its holder. */
int rst_evfd_share_one(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e);
/* Parent, once every process of the tree has its fds (stopped in the blob): targets in other processes, and
 * every target of an epoll set in flight (made by crshim, restore-sk-scm.c). */
int rst_epoll_tree(struct rst_task *ts, size_t n, struct cr_err *e);
/* The entry of target te (flight_id: only in flight) of a list of task t: the file in flight of t or of
 * te->flight_pid (NULL if the images lack it); rst_epoll_flight_ok: that one is in flight and crshim can make
 * it (restore-sk-scm.c), so it can add it (the dump's dry run too). */
const FileEntry *rst_epoll_flight_file(const struct rst_task *t, const EpollTfdEntry *te);
bool rst_epoll_flight_ok(const struct rst_task *t, const EpollTfdEntry *te);
/* An epoll set in flight f (of task t): each target is a file of a live process of the tree or one in flight
 * that t's sockets carry too. */
int rst_epoll_flight_check(struct rst_task *ts, size_t n, const struct rst_task *t, const FileEntry *f,
			   struct cr_err *e);

#endif
