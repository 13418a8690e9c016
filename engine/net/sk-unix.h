/* Unix sockets (engine-internal): dump-sk-unix.c (dump side) and restore-sk-unix.c (restore side).
 *
 * Dump: every fd that is a unix socket (found by inode in the sock_diag table of ns/sock-diag.c) becomes a
 * file_entry FILE_UNIXSK with a unix_sk_entry: type, state, name, peer, pending connections of a listener,
 * shutdown state, options, file status flags and the receive queue, peeked without consuming it (a
 * pidfd_getfd copy, SO_PEEK_OFF + MSG_PEEK; dgram and seqpacket messages one by one). A peer outside the
 * dumped tree needs --ext-unix-sk (the socket is reconnected to the peer's name on restore); file
 * descriptors in flight (SCM_RIGHTS) are dumped as files of their own (dump-sk-scm.c, below).
 *
 * Restore: every unix socket of the tree is made once, in crshim, before the tree is created (like shared
 * pipes): pairs by socketpair(), accepted connections by connect() + accept() on the restored listener,
 * pending connections by connect() to it, names bound, queued data written from the peer's side, then
 * shutdown and flags. Each entry becomes FILE_INHERIT of crshim's socket; the processes inherit them
 * through clone3. SO_PEERCRED (pid, euid, egid, saved at dump) comes back by having the socketpair(),
 * listen() or connect() of an accepted connection made by a helper with that pid (restore-sk-peercred.c). */
#ifndef CRSHIM_SK_UNIX_H
#define CRSHIM_SK_UNIX_H

#include <stdint.h>
#include <sys/stat.h>

#include "crshim.h"
#include "image/image.h"

struct dump_ctx;
struct dump_unix;
/* Fill fe for fd (a socket): 0 done, 1 not a unix socket (fe untouched), < 0 error. *du is made on first
 * use (the socket table of the namespace, the tree's sockets) and owns what fe points to. */
int dump_sk_unix_fill(struct dump_ctx *c, struct dump_unix **du, int fd, const struct stat *st,
		      uint32_t flags, FileEntry *fe, struct cr_err *e);
void dump_sk_unix_free(struct dump_unix *du);

/* Files in flight (SCM_RIGHTS) in the peeked receive queues (dump-sk-scm.c, restore-sk-scm.c).
 * Dump: the peek gives crshim its own copy of each carried file. One the process also holds as an fd (kcmp
 * KCMP_FILE) becomes an entry with same_fd; any other is dumped by the normal per-kind code as an fd of
 * crshim (dump_files_carried) into the process's files image, with in_flight and an id from
 * DUMP_SCM_ID_BASE up; unix_sk_msg.fds lists the ids per message, in order. crshim's copies stay open until
 * the whole dump ends (dump_fdshare_keep: the tree-wide kcmp of later processes compares with them), so
 * that a description held by another process is one description again; one that a socket of a process
 * dumped before carries too becomes an entry naming that one (same_flight_pid, same_flight_id): one file.
 * Kinds crshim cannot make outside a process's fd table (pidfd, tty, FIFO, other sockets) fail the dump
 * with one line. An epoll entry whose target is only in flight names it by its id (dump_fdshare_find_flight,
 * files/fdshare.h: in this process's sockets or in those of one dumped before); one in a socket of a process
 * dumped later fails the dump with one line (files/dump-epoll.c). SCM_CREDENTIALS (SO_PASSCRED): pid, uid and
 * gid are saved; on restore uid and gid are sent again, the pid is crshim's (the sender process does not
 * exist yet when the queue is filled). Restore: before the sharing passes, every carried file (the first
 * process's entry of it) is made once in crshim by its kind's own sharing code (pipes, open file
 * descriptions, event fds, epoll sets: their targets added by crshim once every process has its fds,
 * files/restore-epoll.c; unix sockets are made here anyway), and each entry of the tree of that same file
 * becomes FILE_INHERIT of it; the queue is then filled with sendmsg(SCM_RIGHTS) from the sender's side. */
#define DUMP_SCM_ID_BASE 0x40000000u
struct dump_scm_file {
	int fd;	     /* crshim's copy (-1: same_fd, or written: kept) */
	int kept;    /* crshim's copy once written (open until the dump ends), -1 */
	int same_fd; /* the process's fd of the same description, -1 */
	uint32_t id;
	int sk_fd; /* the first socket carrying it (for messages) */
	uint32_t ino;
	pid_t ref_pid;	 /* carried by a socket of this process dumped before (its copy kept), 0 */
	uint32_t ref_id; /* ... its id there */
};
struct dump_scm {
	struct dump_scm_file *f;
	size_t n;
};
/* A file received by the peek of fd (socket:[ino]) of c's task: its id (rfd is taken: kept or closed). */
int dump_sk_scm_add(struct dump_ctx *c, struct dump_scm *s, int rfd, int sk_fd, uint32_t ino, uint32_t *id,
		    struct cr_err *e);
/* Write the entries of the carried files (after every fd of the process: the unix kind's finish). */
int dump_scm_write(struct dump_ctx *c, struct dump_scm *s, struct img_writer *wf, struct cr_err *e);
void dump_scm_free(struct dump_scm *s);

struct rst_task;
/* How restore makes a carried file once in crshim is its kind's flight hook (files/fd-kind.h); a kind with
 * none cannot be in flight (the dump refuses it). */
/* Parent, after loading the tree, before the sharing passes: make every carried file once in crshim. */
int rst_sk_scm_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* ... only whether each can be made (restore-check.c): found, of a kind with a flight hook. */
int rst_sk_scm_check(struct rst_task *ts, size_t n, struct cr_err *e);
/* The entry of carried file id of a task: rst_sk_scm_entry, rst_sk_scm_find (files/fdshare.h). */

/* Parent, once every process of the tree is loaded: make every unix socket; entries become FILE_INHERIT. */
int rst_sk_unix_prepare(const struct cr_opts *o, struct rst_task *ts, size_t n, struct cr_err *e);
/* restore-sk-peercred.c: call fn(arg) (a socketpair(), listen() or connect() on crshim's fds) in a helper
 * with the pid, euid and egid of u's SO_PEERCRED (the pid as task t sees it), so that the sockets name them
 * again; in crshim when u has none or that pid cannot be had (said once in the log). fn's result, errno. */
int rst_sk_as_peer(const struct rst_task *t, const UnixSkEntry *u, int (*fn)(void *), void *arg);
void rst_sk_peercred_reset(void);
/* crshim's children are made in the PID namespace at nesting level levels of the tree (0: crshim's own):
 * tasks there get their SO_PEERCRED pids in it (the late step of a tree with its own mount tree). */
void rst_sk_peercred_pidns(uint32_t levels);
/* Socket ino, whose SO_PEERCRED names a process of the nested PID namespace of init, is not made in it (why):
 * said in the log, and by the notice. */
void rst_sk_peercred_nested_not(uint32_t ino, pid_t init, const char *why);
/* The user is told (eng_notice) of the SO_PEERCRED that could not be given back (they name crshim). */
void rst_sk_peercred_notice(const struct cr_opts *o);

/* A tree with its own mount tree (paths_later): rst_sk_unix_prepare keeps an fd number for each socket
 * (the entries become FILE_INHERIT of it); rst_sk_unix_late, once the root task's mount tree stands, makes
 * them in crshim from inside that mount namespace (names bound and connected where the tree sees them; the
 * SO_PEERCRED helpers made in the root's PID namespace, pidns_levels deep, when it has one) at
 * those numbers; the root task then takes them from crshim (rst_sk_unix_root, pidfd_getfd) before it clones
 * the others. */
int rst_sk_unix_late(const struct rst_task *ts, uint32_t pidns_levels, struct cr_err *e);
int rst_sk_unix_root(char *msg, size_t len);
/* The root task t, its mount tree standing, before it says so: the socketpairs whose SO_PEERCRED names it
 * (the init of the tree's PID namespace, or a pid crshim's helper cannot take as it is t's), made by t and
 * sent to crshim, which uses them (rst_sk_unix_nested_take does the same for its process). 0, -1 (msg). */
int rst_sk_unix_premake_root(const struct rst_task *t, char *msg, size_t len);
/* The root task, its mark written: until crshim's go (go readable), makes the listen() and connect() calls
 * crshim asks of it, those whose SO_PEERCRED names it, as the saved ids (paths looked up as its own; a
 * relative name in the directory crshim sends with the call). 0, -1 (msg). */
int rst_sk_unix_serve_root(int go, char *msg, size_t len);
/* Sockets bound in a nested mount namespace of the tree (unix_sk_entry.mntns), with those connected to them
 * (the other end of a pair, the connections of a listener, dgram sockets connected to one): made by crshim
 * in that namespace once it stands, not before the tree; held only by processes in it (else refused).
 * The same for the sockets of a nested PID namespace whose SO_PEERCRED names a pid of it (made in it, in
 * its init's mount namespace, once its init stands: by crshim's helpers in it, or by the init for its own
 * pid; one group with the init's own mount namespace's; the root as the init of the tree's own PID namespace
 * when the tree has no mount tree of its own, crshim's side called once the root is seized), when every
 * holder is the init or below it (or outside it and not sharing its fd table: rst_sk_unix_outer_take, also
 * when the init made a mount namespace, but not for the sockets bound in it; the SO_PEERCRED that of the
 * deepest holder's entry, or of the process of the namespace an entry outside names), none is bound to a path
 * of the root's mount namespace the init does not see, and those connected to a socket of another group
 * (connect() by its name: an accepted connection, a dgram peer) are connected to one made before (the root's,
 * or of a namespace above), not unlinked, with no connection in its listen queue (else, as before, they name
 * crshim: the restore's notice, rst_sk_peercred_nested_not). rst_sk_unix_check: that check alone (the dump's
 * run of the restore's checks). _nested_has: task t (the maker of a mount namespace, pstree_entry.mntns, or a
 * nested PID namespace's init) has some to make. rst_sk_unix_nested (crshim, once t said it stands): made
 * inside it and sent to t; rst_sk_unix_nested_take (t): says it stands (RST_STAND_MARK on its error pipe),
 * makes the listen() and connect() calls crshim asks of it (those whose SO_PEERCRED names it:
 * rst_sk_unix_serve_root's) until they come, takes them at the fd numbers its entries inherit. */
int rst_sk_unix_check(struct rst_task *ts, size_t n, struct cr_err *e);
bool rst_sk_unix_nested_has(const struct rst_task *t);
int rst_sk_unix_nested(const struct rst_task *ts, const struct rst_task *t, struct cr_err *e);
int rst_sk_unix_nested_take(const struct rst_task *t, char *msg, size_t len);
/* A process outside a nested PID namespace (on its init's parent line or not) that holds sockets of the
 * init's group: once it cloned its children, it takes them from crshim, which sends them once it made them
 * (rst_sk_unix_nested). 0, -1 (msg). */
int rst_sk_unix_outer_take(const struct rst_task *t, char *msg, size_t len);
/* Close crshim's sockets (after the tree is created, or after a failure: then the socket files this restore
 * bound are removed too); the SO_PEERCRED not given back is said (rst_sk_peercred_notice) if it succeeded. */
void rst_sk_unix_done(const struct cr_opts *o, bool failed);

#endif
