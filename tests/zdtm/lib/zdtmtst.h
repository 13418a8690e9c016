/* crshim ZDTM-style test library.
 *
 * A test: test_init(argc, argv); build a state; test_daemon(); test_waitsig();
 * check the state; pass() or fail("..."). Busy-loop tests poll test_go() instead
 * of calling test_waitsig().
 */
#ifndef ZDTMTST_H
#define ZDTMTST_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* Parses --pidfile=F --outfile=F (and keeps other --name=value options for
 * test_opt()), installs the SIGTERM handler and daemonizes: the caller returns
 * in a new session child; the original process waits for test_daemon() then
 * writes the child's pid to the pidfile and exits 0 (1 if the child died). */
void test_init(int argc, char **argv);
/* test_init, but the test runs as PID 1 of its own PID namespace, in its own mount namespace with a fresh
 * /proc (as under `unshare --pid --fork --mount-proc`); the pidfile has its PID outside. */
void test_init_pidns(int argc, char **argv);
/* run mode ns (lib/ns.c): the CLONE_NEW* flags of the test's namespaces (0: not in mode ns), and the test's
 * own root and mounts, entered by test_init as PID 1 of them */
int zdtm_ns_flags(void);
void zdtm_ns_enter(void);
/* mode uns: the user namespace (ZDTM_NSUSER: its map), before the others */
void zdtm_ns_user(void);
/* A time namespace for the test, with the offsets "monotonic S NS\nboottime S NS\n" (set before test_init):
 * test_init makes it once the test's user namespace is made (mode cuns: owned by it), before the test's
 * process is forked into it; 0, or the errno of the failure (the test skips). */
void zdtm_timens(const char *offsets);
int zdtm_timens_errno(void);
/* Tell the waiting parent that the state is built. */
void test_daemon(void);
/* In a child forked before test_daemon(): let go of the ready pipe (else the starter waits for it). */
void test_forked(void);
/* A process outside the test's tree (a peer, a keeper): 0 in it (a grandchild in a session of its own,
 * reparented to the runner's reaper, test_forked done), 1 in the caller once the middle child is reaped,
 * -1 on error. */
int test_outside(void);
/* Wait (sigsuspend) until SIGTERM arrives. Survives checkpoint/restore. */
void test_waitsig(void);
/* 1 until SIGTERM arrives. For busy loops. */
int test_go(void);
/* Set to 1 by the SIGTERM handler (for asm busy loops). */
extern volatile sig_atomic_t zdtm_sigterm;
/* Value of --name=value given on the command line ("" for a bare --name), or NULL.
 * Lib options: --pidfile=F --outfile=F --no-setsid. */
const char *test_opt(const char *name);

/* Result reporting: written to the outfile (stdout). */
void pass(void);
/* The end of main: pass() unless a check failed; returns 0 (for main's return). */
int test_pass(void);
#define fail(fmt, ...) test_fail(__FILE__, __LINE__, errno, fmt, ##__VA_ARGS__)
void test_fail(const char *file, int line, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define test_msg(fmt, ...) test_msg_(fmt, ##__VA_ARGS__)
void test_msg_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* SKIP: the test writes "SKIP: reason" and exits 0 before test_daemon(). */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Number of fail() calls so far. */
extern int test_failures;

/* Pseudo random data: xorshift64* stream from seed. */
void datagen(void *buf, size_t len, uint64_t seed);
/* 0 if buf holds datagen(seed) data; else -1 and *bad_off (if non-NULL) = first bad offset. */
int datachk(const void *buf, size_t len, uint64_t seed, size_t *bad_off);
/* 64-bit FNV-1a style checksum. */
uint64_t datasum(const void *buf, size_t len);

/* Read a whole small file (e.g. under /proc) into a malloc'd buffer; returns length or -1. */
ssize_t read_file(const char *path, char **out);
/* read_file of /proc/self/fdinfo/FD. */
ssize_t fdinfo_read(int fd, char **out);
/* "wd:ino:mask " (with_ino) or "wd:mask " of each watch of the inotify fd, in fdinfo order, into out. */
void inotify_watch_list(int fd, int with_ino, char *out, size_t len);
/* The number after key at the start of a line of the file path (e.g. "Seccomp:" of /proc/PID/status), in
 * base; dflt when the file or the key is missing. fdinfo_field: of /proc/self/fdinfo/FD. */
long file_field(const char *path, const char *key, int base, long dflt);
long fdinfo_field(int fd, const char *key, int base, long dflt);
/* Read events of the non-blocking inotify fd until one for wd with a bit of mask comes (2 s at most):
 * 0, or -1. */
int inotify_event_for(int fd, int wd, uint32_t mask);
/* Exactly n bytes from fd into buf, each wait for more at most ms: 0, or -1 (timeout, EOF, error). */
int read_exact(int fd, void *buf, size_t n, int ms);
/* The parent's end of a start pipe p: close p[1], wait for the child's one byte, close p[0]; 0 or -1. */
int child_started(int p[2]);
/* The child's end of it: close p[0], write the one byte, close p[1]; 0 or -1. */
int child_ready(int p[2]);
/* Reap child ch: fail() with its wait status (and why, what its exit code bits mean; may be NULL) unless it
 * exited with 0. */
void child_exit_ok(pid_t ch, const char *why);
/* A child runs execveat(fd, "", AT_EMPTY_PATH) of a copy of /bin/true (argv "true"): its exit code, 100 +
 * errno if the exec failed, 200 if it died, -1 if it could not be forked or waited for. */
int exec_fd_true(int fd);
/* pipe_at: a pipe (pipe2 flags) with its read end at fd r, its write end at fd w; sockpair_at: a unix
 * socketpair of type (SOCK_NONBLOCK etc. or'ed in) at fds a and b. Both fail() on error. */
void pipe_at(int r, int w, int flags);
/* open_at: path opened (flags, mode 0600 when it creates) at fd at; fail(what) on error. */
void open_at(int at, const char *path, int flags, const char *what);
void sockpair_at(int type, int a, int b);
/* The checkpoint of a test whose state of fd get() writes as text: get, test_daemon, test_waitsig, get
 * again, fail() naming what unless both texts are the same (4 KiB at most). */
void cr_same_state(int fd, void (*get)(int fd, char *out, size_t len), const char *what);
/* fail() unless this process has no child left (zombie or not). */
void no_child_left(void);
/* prctl_cr (prctl, prctl_misc): each value set (prctl(set, v)), the checkpoint, then each read back with get
 * (its result, or with ptr through an int pointer) must be v again. */
struct prctl_val {
	int set, get, ptr;
	unsigned long v;
	const char *name;
};
void prctl_cr(const struct prctl_val *t, int n);
/* A pty: its master (posix_openpt(mflags), granted and unlocked) and its slave opened with sflags in *s; the
 * master, or -1 (nothing left open). */
int pty_pair(int mflags, int sflags, int *s);
/* Value of "Key:" line in /proc/self/status (trimmed, static buffer), or NULL. */
const char *proc_status(const char *key);
/* Threads of a thread test (lib/threads.c). Each runs fn(&t[i]) and records what it found wrong in bad/why.
 */
#include <pthread.h>
struct zthr {
	pthread_t th;
	int idx;   /* 0..n-1 */
	pid_t tid; /* for messages, if the thread sets it */
	void *self;
	int bad;
	char why[160];
};
/* Start n threads (t[i] zeroed, idx = i), with bar set up for n + 1; returns once each thread has reached
 * its first pthread_barrier_wait(bar). */
void zthr_start(struct zthr *t, int n, void *(*fn)(void *), pthread_barrier_t *bar);
/* Join them all; each thread with bad set fails the test with its why. */
void zthr_join(struct zthr *t, int n);
#define zthr_bad(t, ...) (snprintf((t)->why, sizeof((t)->why), __VA_ARGS__), (t)->bad = 1)

/* State letter of process pid from /proc/PID/stat ('S', 'T', 'Z', ...), '-' if it cannot be read. */
char proc_state(pid_t pid);

/* 0 if addr can be read (and written if write), -1 on SIGSEGV/SIGBUS. */
int mem_probe(void *addr, int write);
/* For the VMA holding addr: "start-end perms offset" into line, its smaps VmFlags into flags. */
int vma_info(const void *addr, char *line, size_t llen, char *flags, size_t flen);
/* 1 if the VMA holding addr has VmFlags flag (e.g. "dc", "dd", "gd"), 0 if not, -1 if no VMA. */
int vma_has_flag(const void *addr, const char *flag);
/* fail(what) unless vma_has_flag(addr, flag) is want. */
void vma_flag_is(const void *addr, const char *flag, int want, const char *what);
/* The kB of smaps field key (e.g. "Rss", "Shared_Dirty") of the VMA holding addr in process pid (0: this
 * one), or -1. */
long vma_smaps_kb(pid_t pid, const void *addr, const char *key);
/* fail() unless at least min_kb of the VMA holding addr in process pid (0: this one) are Shared_Dirty
 * (copy-on-write pages shared with another process); who names the process in the messages. */
void vma_shared_ok(pid_t pid, const void *addr, long min_kb, const char *who);

/* TCP peer outside the test's tree (lib/sockpeer.c): a server reparented to the runner's subreaper that
 * checks each byte it gets is sockpeer_pat(offset) and echoes it; with gofile it stops reading at byte
 * pause_at until gofile exists. Returns the loopback port or -1. */
int sockpeer_start(int family, uint64_t pause_at, const char *gofile);
/* The same server as a child of the test, in its tree (dumped and restored with it). */
int sockpeer_start_child(int family);
int sockpeer_connect(int family, int port);
/* The loopback address of family (AF_INET, AF_INET6) with port into *ss, its length. lo_listen: a stream
 * socket listening on a port the kernel chose (*port), -1 on error. */
struct sockaddr_storage;
unsigned lo_addr(int family, int port, struct sockaddr_storage *ss);
/* ip_addr: lo_addr, or the wildcard address of family with any. */
unsigned ip_addr(int family, int port, int any, struct sockaddr_storage *ss);
/* An int socket option (getsockopt), -2 when it cannot be read. */
int sk_getint(int fd, int level, int name);
/* tcp_state: the TCP_INFO state of fd (TCP_ESTABLISHED, ...), -1 on error. tcp_wait_state: wait (ms at
 * most) until fd is in state st; 1 if it is. */
int tcp_state(int fd);
int tcp_wait_state(int fd, int st, int ms);
/* The datagram what (its text, NUL not sent) arrives at fd within a second, else fail(). */
void dgram_expect(int fd, const char *what);
int lo_listen(int family, int *port);
/* A server process for lfd (test_outside, alarm 300 s, every other fd closed): 0 in it, 1 in the caller. */
int sockpeer_outside(int lfd);
uint8_t sockpeer_pat(uint64_t i);
/* The index of the first of buf[0..n) that is not sockpeer_pat(off + index), -1 if none. */
ssize_t sockpeer_bad(const uint8_t *buf, size_t n, uint64_t off);
/* A peer's read of at most len bytes at *off (EINTR retried): their number (0 at EOF, *off moved on), or -1
 * (msg "ERR errno at off") on a read error, -2 (msg "BAD offset") on a byte that is not the pattern. */
ssize_t sockpeer_read(int fd, uint8_t *buf, size_t len, uint64_t *off, char *msg, size_t mlen);
/* Send len pattern bytes from *off (flags e.g. MSG_DONTWAIT: stops at EAGAIN); returns bytes sent. */
ssize_t sockpeer_send(int fd, uint64_t *off, size_t len, int flags);
/* Receive exactly len bytes and check them against the pattern from *off; -1 (errno) on a mismatch. */
int sockpeer_recv(int fd, uint64_t *off, size_t len);
/* Shut down writing (unless it is already), read the rest of the echo, then the peer's verdict: 0 if it
 * got all sent bytes. */
int sockpeer_finish(int fd, uint64_t sent, uint64_t *echoed);
/* A peer for half-closed connections (lib/sockhalf.c): sends nsend pattern bytes, then its FIN once finfile
 * exists (NULL: at once), reads nothing until gofile exists, then reads to EOF checking the pattern and
 * writes "OK <bytes>" into the file result. Returns the loopback port or -1. */
int sockhalf_start(int family, uint64_t nsend, const char *finfile, const char *gofile, const char *result);
/* Wait (60 s at most) for that verdict: 0 if the peer got exactly sent bytes, in order. */
int sockhalf_verdict(const char *result, uint64_t sent);
/* Process trees (lib/tree.c). */
struct tree_ids {
	int pid, ppid, pgid, sid;
	char state;
};
/* ppid, pgid, sid and state ('Z' zombie) of pid from /proc; 0 or -1. */
int tree_ids_of(pid_t pid, struct tree_ids *out);
/* tab[i] = ids of pids[i] (fail() when one is missing); our own parent is not compared. */
void tree_record(struct tree_ids *tab, const pid_t *pids, int n);
/* Compare every process with its record (zombie or not included); fail() for each difference; the count. */
int tree_check(const struct tree_ids *tab, int n);
/* SIGKILL every pid but ours and reap our children. */
void tree_end(const pid_t *pids, int n);
/* A child that only waits to be killed (test_forked() first). */
void tree_sleep(void) __attribute__((noreturn));
/* A shared page of pid slots (MAP_SHARED, made once, inherited by every fork). tree_child(slot): fork, the
 * child writes its pid to the slot; tree_wait_slot(slot): wait until the slot is set; tree_wait_ready(slot):
 * until its process sleeps in tree_sleep (which marks it) or ended; tree_wait_leader(slot): until its process
 * leads a group of its own. Each waits 60 s at most (no sleeps that a loaded machine outruns). */
volatile pid_t *tree_slots(void);
pid_t tree_child(int slot);
void tree_wait_slot(int slot);
void tree_wait_ready(int slot);
void tree_wait_leader(int slot);
/* tree_wait_all(n): tree_wait_ready of slots 0..n-1 (every setup call of the tree has landed).
 * tree_record_slots: pids[0..n-1] from the slots, pids[n] ourselves, and tree_record of all n + 1 (tab and
 * pids hold n + 1). */
void tree_wait_all(int n);
void tree_record_slots(struct tree_ids *tab, pid_t *pids, int n);
/* tree_settle: tree_wait_all(n), then tree_record_slots. tree_cr_check: test_daemon, test_waitsig (the
 * checkpoint), getpid() 1 again under TREE_PIDNS, then tree_check of tab[0..n-1]. tree_pass: tree_end of
 * pids[0..n-1], pass() if nothing failed; returns 0 (for main). tree_subreaper: PR_SET_CHILD_SUBREAPER
 * (fail() when refused). */
void tree_settle(struct tree_ids *tab, pid_t *pids, int n);
/* tree_settle, but victim (a group leader of the tree) is killed and reaped before the record. */
void tree_settle_killing(struct tree_ids *tab, pid_t *pids, int n, pid_t victim);
/* test_init (test_init_pidns with TREE_PIDNS), tree_subreaper with TREE_SUBREAPER, then tree_slots(). */
enum { TREE_SUBREAPER = 1, TREE_PIDNS = 2 };
volatile pid_t *tree_init(int argc, char **argv, int flags);
void tree_cr_check(const struct tree_ids *tab, int n);
/* tree_init (flags), then the child of slot runs fn (and exits 0 if fn returns); the child's pid. */
pid_t tree_start(int argc, char **argv, int flags, int slot, void (*fn)(void));
/* The zombie_leader tests (tree_init with flags): a child that made its own group, forked a member into it
 * and exited with code, and one that made its own session with a member and exited with code + 1; zombies
 * with the same ids after restore (with TREE_PIDNS: we are PID 1 and the members' parent), the members still
 * in the dead leaders' group and session, and waitpid gets the exit codes. For main's return. */
int tree_zombie_leaders(int argc, char **argv, int flags, int code);
int tree_pass(const pid_t *pids, int n);
void tree_subreaper(void);
/* tree_leader: the child of slot leads a session (session) or a group of its own with member (sleeping) in
 * it and sleeps; returns in the caller. tree_orphan_session: the child of leader leads a session; its child
 * mid forks orphan into it and exits (orphan is adopted); leader sleeps; returns in the caller. */
void tree_leader(int slot, int member, int session);
void tree_orphan_session(int leader, int mid, int orphan);
/* tree_orphan: the child of mid (in a session of its own with session) forks orphan (sleeping) and exits
 * once orphan runs; mid is reaped here, orphan adopted. tree_in_group: the child of slot sleeps in process
 * group pgid (0: its own, which we set too); its pid. */
void tree_orphan(int mid, int orphan, int session);
pid_t tree_in_group(int slot, pid_t pgid);
/* A child that sleeps until killed (tree_sleep); fails the test when fork fails. */
pid_t tree_sleeper(void);
/* A zombie leader: the child of slot makes a session (session) or a group of its own, forks member into it
 * (sleeping), waits for it and exits with code; returns in the caller. tree_expect_exit: waitpid(pid,
 * WNOHANG) reaps pid with exit code code, else fail() naming what. */
void tree_dead_leader(int slot, int member, int session, int code);
void tree_expect_exit(pid_t pid, int code, const char *what);
/* A pidfd of a child that exited and was reaped (pidfd_open before the reap), -1 on error. */
int tree_pidfd_reaped(void);
/* A child that waits for SIGUSR1 (blocked in the test from here on), then exits with fn(arg).
 * tree_waiting_go: SIGUSR1 to it, then its exit: 0 when it exited with 0, else its wait status (-1: not
 * reaped). tree_same_file: fd of the test and fd of pid are one open file description (kcmp). */
pid_t tree_fork_waiting(int (*fn)(void *), void *arg);
/* A child that talks with the test over two pipes: fn(go, done, arg) in it (it reads go, writes done; it
 * exits 0 if fn returns); in the test *go_w and *done_r are their other ends. The child's pid (fail() on
 * errors). */
pid_t fork_talker(void (*fn)(int go, int done, void *arg), void *arg, int *go_w, int *done_r);
/* fork_talker whose fn writes one byte to done once its state is set up: that byte read (-1 and fail() if
 * it does not come). talker_end: a byte to go_w, then the child's exit: 0 when it exited with 0, else its
 * wait status (-1: not reaped). */
pid_t fork_talker_ready(void (*fn)(int go, int done, void *arg), void *arg, int *go_w, int *done_r);
int talker_end(pid_t pid, int go_w);
/* usr1_block: SIGUSR1 caught and blocked, so that a child forked after it that waits with usr1_wait loses
 * none sent early; usr1_wait: sleep (SIGUSR1 let in) until one came. wait_byte: until *p == v (20 s at most,
 * then -1). */
void usr1_block(void);
/* usr1_mask: SIGUSR1 blocked (no handler), m set to it for a later sigwait(m). test_fork: fork (fails the
 * test when it cannot), test_forked() done in the child; the child's 0 or the pid, as fork. */
void usr1_mask(sigset_t *m);
pid_t test_fork(void);
void usr1_wait(void);
int wait_byte(const volatile char *p, char v);
/* files_sharer_start: a child made with clone(CLONE_FILES) (the test's fd table, not test_forked(): it would
 * close the test's ready pipe), which runs setup (NULL: none; non-zero: it exits 9), then waits for SIGUSR1
 * (usr1_block done) and exits with check(); its pid once setup is done (-1 and fail() if not).
 * files_sharer_end: the table is still one (kcmp KCMP_FILES), SIGUSR1 to it, child_exit_ok(ch, why). */
pid_t files_sharer_start(int (*setup)(void), int (*check)(void));
void files_sharer_end(pid_t ch, const char *why);
int tree_waiting_go(pid_t pid);
int tree_same_file(pid_t pid, int fd);
/* fd_devino: "dev:ino" of fd into buf (0, or -1 when fstat fails). child_report: after the checkpoint,
 * SIGUSR1 to ch (waiting in sigwait), its report (what it writes to rfd, at most len - 1 bytes,
 * NUL-terminated) into buf, then ch reaped: fail() unless it exited with 0. */
int fd_devino(int fd, char *buf, size_t len);
void child_report(pid_t ch, int rfd, char *buf, size_t len);
/* child_devino_exit (in the child, after its sigwait): fd_devino of fd written to wfd, then exit (0, or 1
 * and 2 on errors). child_same_devino: child_report of that, fail() unless fd of the test is the same file
 * (what names it). */
void child_devino_exit(int fd, int wfd) __attribute__((noreturn));
void child_same_devino(pid_t ch, int rfd, int fd, const char *what);
/* PID namespaces: the number of processes in /proc (the namespace of the mounted /proc), and the pid the
 * /proc/self link names (-1 on error). */
int pidns_count_proc(void);
/* The numbered entries of dir (/proc, /proc/PID/task): sorted into out[0..max-1] and their number (at most
 * max), or only their number with out NULL; -1 if dir cannot be read. */
int proc_pids(const char *dir, pid_t *out, int max);
int pidns_proc_self(void);

/* lib/recstream.c: 16-byte sequence records streamed through the non-blocking channel w -> r (a pipe, a
 * stream socketpair) until SIGTERM, every record checked; fail()s if one is lost, doubled or out of order.
 * what names the channel in the summary line. */
void rec_stream(int r, int w, const char *what);
/* lib/epollinfo.c: the "tfd: N events: X data: D" triples of epoll fd's fdinfo as "N:X:D " words, sorted
 * (the kernel lists them by file address); their number, -1 if fdinfo cannot be read. */
int epoll_tfds(int fd, char *out, size_t len);
/* The data words of the entries of epoll fd ep ready now (epoll_wait without waiting), or'ed together. */
uint64_t epoll_ready(int ep);
/* A child holding an epoll set's targets (epoll_tree, sk_unix_scm_epoll_child): once a byte comes on ctl_r,
 * it reads one byte of pipe data_r and eventfd efd (whose counter must be 1), answers on ack_w and exits 0
 * (2-4: a step failed). */
void epoll_child_reads(int efd, int data_r, int ctl_r, int ack_w) __attribute__((noreturn));
/* lib/inhfd.c, for tests with `inhfd: yes` in their .desc: a keeper outside the test's tree (its own session,
 * adopted by the runner's reaper) holds tfd (the test's end) and ofd (the other end). It writes inhfd.key
 * (the
 * --inherit-fd KEY of tfd) and inhfd.ext (an --external value for the dump, "" for none) in the cwd and gives
 * tfd to each restore (zdtm_inhfd), calling on_get(ofd, tfd) first (may be NULL) and counting the restores in
 * inhfd.gets (inhfd_gets). inhfd_stop: the keeper exits (call it at the end of the test). */
int inhfd_keeper(int tfd, int ofd, const char *key, const char *ext, void (*on_get)(int ofd, int tfd));
int inhfd_gets(void);
void inhfd_stop(void);
/* The test's end at fd INHFD_FD and INHFD_FD + 1 (FD_CLOEXEC) and in a child (fd is closed; *st0 its stat);
 * returns the child. inhfd_check (after SIGTERM): the child ends and all three are still that file, with the
 * same fd flags; 0, or -1 after fail(). */
#define INHFD_FD 10
struct stat;
pid_t inhfd_hold(int fd, struct stat *st0);
int inhfd_check(pid_t child, const struct stat *st0);
/* The whole life of an inhfd test up to its own checks: inhfd_keeper (ofd closed after, unless it is tfd),
 * inhfd_hold, test_daemon, test_waitsig, inhfd_check; what names the file in failures. 0, or -1 after fail().
 * inhfd_expect: exactly len bytes, data, wait to be read at INHFD_FD (FIONREAD), and are read. */
int inhfd_run(int tfd, int ofd, const char *key, const char *ext, void (*on_get)(int ofd, int tfd),
	      const char *what);
int inhfd_expect(const char *data, int len, const char *what);

/* lib/procfds.c (proc_fds, proc_fds_pidns): child ch's /proc/CH directory, /proc/self/status read 16 bytes
 * into (*off: its offset) and /proc/self/fd as a directory, at fds PROCFD_*; -1 if they cannot be opened.
 * procfds_check (after restore): the status says pid at the same offset, the directory is ch's (its stat),
 * the fd directory lists fd 21. */
enum { PROCFD_STATUS = 20, PROCFD_CHILD_DIR = 21, PROCFD_FD_DIR = 22 };
int procfds_open(pid_t ch, off_t *off);
void procfds_check(off_t off, pid_t pid, pid_t ch);
/* dead_dir (cwd_deleted*): link_path (/proc/PID/cwd, /proc/PID/fd/N) names want_link, a directory with no
 * links in which mkdir fails with ENOENT; 0, or -1 after fail() (what names it). */
int dead_dir(const char *what, const char *link_path, const char *want_link);
/* The checkpoint of cwd and fd 20 in removed directories: dead_dir of both (their links cwd_link and fd_link)
 * before test_daemon and after test_waitsig. */
void dead_dirs_cr(const char *cwd_link, const char *fd_link);
/* unlinked_check (unlink_fstat00, fifo_unlinked): fds rw and ro are one open file of type (S_IFREG,
 * S_IFIFO), its name removed (nlink 0, name gone), /proc/self/fd/RW names want; its stat into *a; what names
 * it in failures ("file", "FIFO"). */
void unlinked_check(int rw, int ro, unsigned type, const char *name, const char *want, struct stat *a,
		    const char *what);

/* pkring (lib/pktring.c): a packet socket (SOCK_DGRAM) with a TPACKET_V2 or V3 receive ring mapped, bound to
 * lo for a protocol of its own, and a socket that sends it frames numbered seq (pkring_send). pkring_next
 * reads the ring at the program's position (V3: a block's packets one by one, the block given back after its
 * last): 0 and the frame's number, -1 after ms without one. pkring_expect: the frames *want..upto come in
 * order. pkring_cr: the checkpoint, the ring's mapping (maps line) unchanged, then frames next_held..sent-1
 * (held in the ring over it, or queued in the transmit ring: sent first) and 40 new ones, each sent and read
 * in order. The open test_skips without packet sockets. With txreq, the socket has a TPACKET_V2 transmit ring
 * too, mapped after the receive ring, and sends through it: pkring_queue writes a frame there, pkring_flush
 * sends the queued ones (to lo, so the receive ring gets them) and waits until the kernel gave them back. */
#include <linux/if_packet.h>
struct pkring {
	int sk, tx, version;
	uint8_t *map;
	size_t len;
	struct tpacket_req3 req;
	uint32_t idx; /* the frame (V2) or block (V3) the program reads next */
	uint32_t pkt_i, pkt_off;
	uint8_t *tmap; /* the transmit ring, NULL: none */
	struct tpacket_req treq;
	uint32_t tidx; /* the transmit frame the program writes next */
};
void pkring_open(struct pkring *r, int version, const struct tpacket_req3 *req,
		 const struct tpacket_req *txreq);
void pkring_queue(struct pkring *r, uint32_t seq);
void pkring_flush(struct pkring *r);
void pkring_send(struct pkring *r, uint32_t seq);
int pkring_next(struct pkring *r, uint32_t *seq, int ms);
void pkring_expect(struct pkring *r, uint32_t *want, uint32_t upto);
void pkring_cr(struct pkring *r, uint32_t next_held, uint32_t sent);

/* lib/nftwatch.c. nft_has_table: does the current network namespace have an nftables table named name
 * (prefix: one starting with it)? 1, 0, -1: could not ask (nfnetlink). lockwatch_run: the watcher of the lock
 * of the network namespace a restore makes, run in the host's namespaces with the test's dir as its cwd (the
 * host agent starts the test's own binary with --lockwatch: ns_world.h nsw_lockwatch_start): for two minutes
 * it finds each `crshim restore` of images under that dir and looks into the network namespace crshim is in;
 * when that is not the host's (the new one), it lists its tables. Its verdict in lockwatch.res: LOCKED (it
 * saw table crshim_netns there), UNLOCKED (it saw the new namespace without it all along: it found crshim
 * before it entered it), LATE (found only in the new namespace, no table: maybe after the lock went), NOTSEEN
 * (no restore). Its pid in lockwatch.pid. */
int nft_has_table(const char *name, int prefix);
int lockwatch_run(void);

#define PAGE 4096UL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
