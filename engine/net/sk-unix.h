/* Unix sockets (engine-internal): dump-sk-unix.c (dump side) and restore-sk-unix*.c (restore side: the four
 * files are listed at the end).
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
/* Fill fe for fd (a socket; sk: crshim's copy of it, -1: taken here if it is needed): 0 done, 1 not a unix
 * socket (fe untouched), < 0 error. *du is made on first use (the socket table of the namespace, the tree's
 * sockets) and owns what fe points to. */
int dump_sk_unix_fill(struct dump_ctx *c, struct dump_unix **du, int fd, int sk, const struct stat *st,
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

/* ---------------------------------------------------------------------------------------------------------
 * The restore of unix sockets, in four files (these declarations are theirs alone):
 *   restore-sk-unix.c         the sockets of the tree collected, made in phases (listeners, pairs, accepted
 * and pending connections, connects by name, queues, shutdowns and flags), their entries made FILE_INHERIT;
 * rst_sk_unix_prepare, _check, _done restore-sk-unix-name.c    names: bind (socket files, stale and deleted
 * ones, their directories, the files of a failed restore removed), connect by name, relative names in the
 * binder's cwd restore-sk-unix-queue.c   receive queues put back from the sender's side (SCM_RIGHTS of the
 * files in flight, SCM_CREDENTIALS, out-of-band bytes) restore-sk-unix-nested.c  sockets made later: in the
 * tree's own mount tree (rst_sk_unix_late, _root), in nested mount and PID namespaces (which ones:
 * usk_groups; rst_sk_unix_nested, _nested_take, _outer_take), the pairs, listen() and connect() made by the
 * process their SO_PEERCRED names when it exists (premake, serve)
 */
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

struct ns_rst;
#define ST_ESTABLISHED 1 /* unix_sk_entry.state */
#define ST_LISTEN 10
/* A unix socket of the tree, made once by crshim (one for all the entries of its inode). */
struct rsk {
	uint32_t ino;
	UnixSkEntry *u;
	const struct rst_task *t; /* whose files the ids of files in flight in u's queue are */
	size_t ti;		  /* its index in the tree (the tree's array moves: rst_sk_unix_late) */
	int fd;			  /* crshim's socket, -1: not made yet */
	int ghost; /* the other end of a pair whose peer was closed: closed once the data is in */
	struct sockaddr_un addr; /* where it is bound (alen 0: not bound by us) */
	socklen_t alen;
	bool unlink_after; /* a deleted socket file: unlinked once every connect is done */
	char *made;	   /* the socket file this restore bound (absolute path), NULL: none */
	int made_dir;	   /* its directory (O_PATH): removed through it, also from another mount namespace */
	dev_t made_dev;	   /* and its inode, so that a failed restore removes only that file */
	ino_t made_ino;
	char *dirs[8]; /* directories of a deleted socket file that were removed too: made for the bind,
			  removed again (absolute, deepest last) */
	int ndirs;
	int keep;     /* late: the fd number crshim keeps for it until it is made (-1: none) */
	uint32_t grp; /* made in this saved mount namespace of the tree (mntns-ID.img), 0: the root's */
	int pre[2];   /* its pair made by the process its SO_PEERCRED names (premake), -1: none */
	bool above;   /* of a nested PID namespace's group, its entry a process's above the init (its pid as
			 seen there): its pair's other end gives the SO_PEERCRED (usk_pair_cred) */
	/* The entry whose SO_PEERCRED the restore gives back (cu) and its holder (ct, index cti): u's, or,
	 * for a socket of a nested PID namespace's group, the entry of its deepest holder that saw a pid
	 * (deep, deepi), or that pid as the namespace's init sees it (xcred: the process of the tree it names
	 * as an entry above the init saw it, in the init's namespace; its holder that process) */
	const UnixSkEntry *cu;
	const struct rst_task *ct;
	size_t cti;
	UnixSkEntry *deep;
	size_t deepi;
	UnixSkEntry xcred;
	bool mnt_bound; /* an entry says it is bound in a nested mount namespace (unix_sk_entry.mntns) */
};
/* The sockets of a nested mount namespace (bound in it, or connected to one bound in it): made by crshim
 * in that namespace once the process that makes it has built it (rst_sk_unix_nested), sent to that process
 * on a socket pair of its own (made before the tree: every process has it) at the numbers kept for them. */
struct sk_grp {
	uint32_t mntns;
	int ch[2];  /* crshim sends on [0], the process receives on [1] */
	int srv[2]; /* the calls crshim asks of the process (by_named) on [0], the process serves on [1] */
};
/* The processes outside a nested PID namespace (on its init's parent line or not) that hold sockets of
 * its group take them from crshim once it made them (rst_sk_unix_outer_take): a channel for each process
 * and group. */
struct sk_out {
	size_t ti;    /* the process's index in the tree */
	uint32_t grp; /* the group */
	int ch[2];    /* crshim sends on [0], the process receives on [1] */
};
/* The call usk_as_peer makes (by the process its SO_PEERCRED names, when that one exists:
 * restore-sk-unix-nested.c) */
enum { SRV_LISTEN = 1, SRV_CONNECT = 2 };

/* restore-sk-unix.c: the sockets of the tree and the state of the restore */
extern struct rsk *usk_sks;
extern size_t usk_nsks;
extern uint32_t usk_cur_grp; /* the group the phases make now (0: the root's mount namespace) */
/* A tree with its own mount tree: its names are bound and connected in that tree once it stands
 * (rst_sk_unix_late), and the root task takes the sockets from crshim (rst_sk_unix_root, through a pidfd
 * of crshim) before it clones the others. */
extern bool usk_late;
/* The tree's namespaces: a socket is made in its own network namespace (ns_rst_net_enter; a no-op when the
 * tree has only one) */
extern const struct ns_rst *usk_rns;
struct rsk *usk_find(uint32_t ino);
/* Not of the group made now. */
bool usk_other(const struct rsk *r);
/* The SO_PEERCRED a pair gets (a's, else b's; NULL: none) */
const UnixSkEntry *usk_pair_cred(const struct rsk *a, const struct rsk *b);
/* The listener of the tree bound to the name of a (a connection it accepted), NULL if none. */
struct rsk *usk_listener_named(const struct rsk *a);
/* The socket r is connected to, if that one is connected to r */
struct rsk *usk_mutual_peer(const struct rsk *r);
/* Is r made with socketpair() (phase 1; *p its other end, or NULL: its peer was closed)? */
bool usk_pair_made(struct rsk *r, struct rsk **p);
/* The sockets of the group made now: each at the fd number kept for it (offer: one the root task takes). */
int usk_to_kept(bool offer, struct cr_err *e);
/* Every phase, for the group made now (usk_cur_grp). */
int usk_make_all(struct cr_err *e);

/* restore-sk-unix-name.c */
socklen_t usk_mk_addr(const ProtobufCBinaryData *name, struct sockaddr_un *a);
static inline bool usk_same_name(const UnixSkEntry *a, const ProtobufCBinaryData *n)
{
	return a->has_name && a->name.len == n->len && !memcmp(a->name.data, n->data, n->len);
}
/* u's name to print (in buf) */
const char *usk_sk_name(const UnixSkEntry *u, char *buf, size_t len);
/* The directories made for r's deleted socket file removed again */
void usk_rm_dirs(struct rsk *r);
/* A failed restore: every socket file it bound, then the directories it made for them (several sockets may
 * share one), those made last first. */
void usk_unlink_all_made(void);
/* r bound to its name (a path relative to the cwd of the task that bound it) */
int usk_do_bind(struct rsk *r, struct cr_err *e);
/* A relative path name is relative to the cwd of the task that bound it (dir): go there for the call
 * (the fd to go back with, usk_leave; -1: not moved). */
int usk_enter(const char *dir, const struct sockaddr_un *a);
void usk_leave(int here);
/* Connect c to a (relative to dir); by the process that as's SO_PEERCRED names (as: the other end of the
 * connection; NULL: crshim). */
int usk_connect_to(struct rsk *c, const struct sockaddr_un *a, socklen_t alen, const char *dir,
		   const struct rsk *as, struct cr_err *e);

/* restore-sk-unix-queue.c: the receive queues of the sockets made (usk_sks), each message from its sender's
 * side. */
int usk_put_queues(struct cr_err *e);

/* restore-sk-unix-nested.c */
extern struct sk_grp *usk_grps;
extern size_t usk_ngrps;
extern struct sk_out *usk_outs;
extern size_t usk_nouts;
/* late: the root task sends crshim the pairs it makes itself (premake) on [1], crshim takes them on [0] */
extern int usk_late_ch[2];
/* crshim's helper, or the process named (by_named), makes fn's call (op: the same call, for the latter). */
int usk_as_peer(const struct rst_task *t, const UnixSkEntry *cred, int (*fn)(void *), void *arg, int op,
		int fd, int backlog, const struct sockaddr_un *a, socklen_t alen);
/* t's PID namespace levels below crshim's, from its pstree entry (rst_sk_unix_prepare comes before
 * rst_pidns_plan). */
uint32_t usk_pst_lv(const struct rst_task *t);
/* fork() of a child of crshim's own PID namespace, not of the tree's where its children are made now (a
 * helper that is no process of the tree: it takes no pid there): *pid as fork() returns it (-1 with errno: no
 * child). -1 (e set, no child) where crshim could not go back to the tree's for its children. */
int usk_fork_own(pid_t *pid, struct cr_err *e);
/* Every holder of a socket of a nested mount namespace is in it (it gets it from the process that made
 * the namespace, which gets it from crshim); the groups listed. */
int usk_groups(struct rst_task *ts, size_t n, struct cr_err *e) __attribute__((nonnull(1)));
/* A channel for each process not at or below a PID namespace's init that holds sockets of its group (before
 * to_inherit: the entries are still the sockets'). */
int usk_outs_make(struct rst_task *ts, size_t n, struct cr_err *e) __attribute__((nonnull(1)));

#endif
