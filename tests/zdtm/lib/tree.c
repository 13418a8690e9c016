/* Process trees: the ids of a set of processes before the dump, compared after the restore. */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <sys/prctl.h>
#include "zdtmtst.h"

int tree_ids_of(pid_t pid, struct tree_ids *out)
{
	char path[64], *buf;
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->ppid = out->pgid = out->sid = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &buf) < 0)
		return -1;
	char *p = strrchr(buf, ')');
	int r = p ? sscanf(p + 2, "%c %d %d %d", &out->state, &out->ppid, &out->pgid, &out->sid) : 0;
	free(buf);
	return r == 4 ? 0 : -1;
}

void tree_record(struct tree_ids *tab, const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (tree_ids_of(pids[i], &tab[i]))
			fail("setup: no process %d", pids[i]);
		else if (pids[i] == getpid())
			tab[i].ppid = 0; /* ours is the starter's, then the reaper's */
}

int tree_check(const struct tree_ids *tab, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		struct tree_ids now;
		if (tree_ids_of(tab[i].pid, &now)) {
			fail("process %d is gone", tab[i].pid);
			bad++;
			continue;
		}
		if ((tab[i].ppid && now.ppid != tab[i].ppid) || now.pgid != tab[i].pgid ||
		    now.sid != tab[i].sid || (now.state == 'Z') != (tab[i].state == 'Z')) {
			fail("process %d: ppid/pgid/sid/state %d/%d/%d/%c, want %d/%d/%d/%c", tab[i].pid,
			     now.ppid, now.pgid, now.sid, now.state, tab[i].ppid, tab[i].pgid, tab[i].sid,
			     tab[i].state);
			bad++;
		}
	}
	return bad;
}

void tree_end(const pid_t *pids, int n)
{
	int st;
	for (int i = 0; i < n; i++)
		if (pids[i] != getpid())
			kill(pids[i], SIGKILL);
	while (waitpid(-1, &st, 0) > 0 || errno == EINTR)
		;
}

static int my_slot = -1; /* the slot tree_child gave this process (its forks inherit it: checked by pid) */
#define READY_AT 512 /* slots[READY_AT + slot]: 1 once that process sleeps in tree_sleep, its setup done */

void tree_sleep(void)
{
	test_forked();
	if (my_slot >= 0 && tree_slots()[my_slot] == getpid())
		tree_slots()[READY_AT + my_slot] = 1;
	for (;;)
		pause();
}

/* Setup of a tree: a shared page of slots where each process writes its pid, so that any process can wait
 * for another one to exist (and learn its pid) before it joins its group or session. */
static volatile pid_t *slots;

volatile pid_t *tree_slots(void)
{
	if (!slots) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			fail("setup: mmap of the slots");
			exit(1);
		}
		slots = m;
	}
	return slots;
}

pid_t tree_child(int slot)
{
	pid_t p = fork();
	if (p < 0)
		fail("fork");
	if (p == 0) {
		my_slot = slot;
		tree_slots()[slot] = getpid();
	}
	return p;
}

/* In a child: lead a session (session) or a group of its own, with a sleeping member in it. */
static void lead_with(int member, int session)
{
	if (session)
		setsid();
	else
		setpgid(0, 0);
	if (tree_child(member) == 0)
		tree_sleep();
}

void tree_dead_leader(int slot, int member, int session, int code)
{
	if (tree_child(slot) != 0)
		return;
	lead_with(member, session);
	tree_wait_slot(member);
	_exit(code);
}

void tree_leader(int slot, int member, int session)
{
	if (tree_child(slot) != 0)
		return;
	lead_with(member, session);
	tree_sleep();
}

void tree_orphan(int mid, int orphan, int session)
{
	pid_t x = tree_child(mid);
	if (x == 0) {
		if (session)
			setsid();
		if (tree_child(orphan) == 0)
			tree_sleep();
		tree_wait_slot(orphan);
		_exit(0);
	}
	waitpid(x, NULL, 0);
}

pid_t tree_in_group(int slot, pid_t pgid)
{
	pid_t p = tree_child(slot);
	if (p == 0) {
		setpgid(0, pgid);
		tree_sleep();
	}
	if (pgid == 0)
		setpgid(p, p); /* ours too: it leads its group by the time we go on */
	return p;
}

void tree_orphan_session(int leader, int mid, int orphan)
{
	if (tree_child(leader) != 0)
		return;
	setsid();
	tree_orphan(mid, orphan, 0);
	tree_sleep();
}

void tree_subreaper(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fail("PR_SET_CHILD_SUBREAPER");
}

static int tree_pidns; /* tree_init with TREE_PIDNS: the test is PID 1 of its namespace */

volatile pid_t *tree_init(int argc, char **argv, int flags)
{
	tree_pidns = flags & TREE_PIDNS;
	if (flags & TREE_PIDNS)
		test_init_pidns(argc, argv);
	else
		test_init(argc, argv);
	if (flags & TREE_SUBREAPER)
		tree_subreaper();
	return tree_slots();
}

void tree_settle_killing(struct tree_ids *tab, pid_t *pids, int n, pid_t victim)
{
	int st;
	tree_wait_all(n);
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
	tree_record_slots(tab, pids, n);
}

void tree_settle(struct tree_ids *tab, pid_t *pids, int n)
{
	tree_wait_all(n);
	tree_record_slots(tab, pids, n);
}

void tree_cr_check(const struct tree_ids *tab, int n)
{
	test_daemon();
	test_waitsig();
	if (tree_pidns && getpid() != 1)
		fail("getpid %d after restore", getpid());
	tree_check(tab, n);
}

pid_t tree_start(int argc, char **argv, int flags, int slot, void (*fn)(void))
{
	tree_init(argc, argv, flags);
	pid_t p = tree_child(slot);
	if (p == 0) {
		fn();
		_exit(0);
	}
	return p;
}

int tree_zombie_leaders(int argc, char **argv, int flags, int code)
{
	enum { G, GM, S, SM, N };
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];

	tree_init(argc, argv, flags);
	tree_dead_leader(G, GM, 0, code);
	tree_dead_leader(S, SM, 1, code + 1);
	tree_settle(tab, pids, N);
	if (tab[G].state != 'Z' || tab[S].state != 'Z' || tab[GM].pgid != pids[G] || tab[SM].sid != pids[S] ||
	    tab[SM].pgid != pids[S])
		fail("setup: zombie leaders not as planned");
	if (tree_pidns && (getpid() != 1 || tab[GM].ppid != 1 || tab[SM].ppid != 1))
		fail("setup: zombie leaders not as planned (getpid %d, the members' parents %d %d, want 1)",
		     getpid(), tab[GM].ppid, tab[SM].ppid);
	tree_cr_check(tab, N + 1);
	if (kill(-pids[G], 0) || kill(-pids[S], 0))
		fail("the dead leaders' groups are gone");
	tree_expect_exit(pids[G], code, "group leader");
	tree_expect_exit(pids[S], code + 1, "session leader");
	return tree_pass(pids, N + 1);
}

int tree_pass(const pid_t *pids, int n)
{
	tree_end(pids, n);
	return test_pass();
}

void tree_expect_exit(pid_t pid, int code, const char *what)
{
	int st = 0;
	if (waitpid(pid, &st, WNOHANG) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != code)
		fail("%s: status %#x, want exit %d", what, st, code);
}

/* Wait (60 s at most: a loaded machine) until ok(slot's pid, arg) holds; what names the wait in a failure. */
static void wait_until(int slot, bool (*ok)(pid_t, int), int arg, const char *what)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t p = tree_slots()[slot];
		if (p && ok(p, arg))
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 60) {
			fail("setup: process %d (slot %d) not %s after 60 s", p, slot, what);
			exit(1);
		}
		usleep(1000);
	}
}

static bool any(pid_t p, int arg)
{
	(void)p, (void)arg;
	return true;
}

/* it sleeps in tree_sleep, or it ended (a zombie or reaped): its setup calls are all done */
static bool settled(pid_t p, int slot)
{
	struct tree_ids t;
	return tree_slots()[READY_AT + slot] || tree_ids_of(p, &t) || t.state == 'Z' || t.state == 'X';
}

static bool leads_group(pid_t p, int arg)
{
	struct tree_ids t;
	(void)arg;
	return !tree_ids_of(p, &t) && t.pgid == p;
}

void tree_wait_slot(int slot)
{
	wait_until(slot, any, 0, "there");
}

void tree_wait_ready(int slot)
{
	wait_until(slot, settled, slot, "settled (in tree_sleep or ended)");
}

void tree_wait_leader(int slot)
{
	wait_until(slot, leads_group, 0, "leading a group of its own");
}

void tree_wait_all(int n)
{
	for (int i = 0; i < n; i++)
		tree_wait_ready(i);
}

void tree_record_slots(struct tree_ids *tab, pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		pids[i] = tree_slots()[i];
	pids[n] = getpid();
	tree_record(tab, pids, n + 1);
}

pid_t tree_sleeper(void)
{
	pid_t p = test_fork();
	if (p == 0)
		tree_sleep();
	return p;
}

int tree_pidfd_reaped(void)
{
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	if (gone < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_open, gone, 0);
	waitpid(gone, NULL, 0);
	return fd;
}

static volatile sig_atomic_t usr1_came;
static void on_usr1(int s)
{
	(void)s;
	usr1_came = 1;
}

void usr1_block(void)
{
	sigset_t m;
	signal(SIGUSR1, on_usr1);
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
}

void usr1_mask(sigset_t *m)
{
	sigemptyset(m);
	sigaddset(m, SIGUSR1);
	sigprocmask(SIG_BLOCK, m, NULL);
}

pid_t test_fork(void)
{
	pid_t ch = fork();
	if (ch < 0)
		fail("fork");
	if (ch == 0)
		test_forked();
	return ch;
}

void usr1_wait(void)
{
	sigset_t none;
	sigemptyset(&none);
	while (!usr1_came)
		sigsuspend(&none);
}

pid_t files_sharer_start(int (*setup)(void), int (*check)(void))
{
	int rp[2];
	char c;
	if (pipe(rp)) {
		fail("pipe");
		return -1;
	}
	usr1_block();
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0) { /* no test_forked(): it would close the parent's ready pipe, the table is one */
		if ((setup && setup()) || write(rp[1], "r", 1) != 1)
			_exit(9);
		usr1_wait();
		_exit(check());
	}
	int ok = ch > 0 && read(rp[0], &c, 1) == 1;
	close(rp[0]);
	close(rp[1]);
	if (!ok) {
		fail("clone(CLONE_FILES) or the child's setup");
		return -1;
	}
	return ch;
}

void files_sharer_end(pid_t ch, const char *why)
{
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILES, 0, 0) != 0)
		fail("the child does not share the parent's fd table any more");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, why);
}

int wait_byte(const volatile char *p, char v)
{
	for (int i = 0; i < 20000; i++) {
		if (*p == v)
			return 0;
		usleep(1000);
	}
	return -1;
}

pid_t fork_talker(void (*fn)(int go, int done, void *arg), void *arg, int *go_w, int *done_r)
{
	int go[2], done[2];
	*go_w = *done_r = -1;
	if (pipe(go) || pipe(done)) {
		fail("pipe");
		return -1;
	}
	pid_t pid = test_fork();
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		fn(go[0], done[1], arg);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	*go_w = go[1];
	*done_r = done[0];
	return pid;
}

pid_t fork_talker_ready(void (*fn)(int go, int done, void *arg), void *arg, int *go_w, int *done_r)
{
	char c;
	pid_t pid = fork_talker(fn, arg, go_w, done_r);
	if (pid < 0 || read(*done_r, &c, 1) != 1) {
		fail("child not ready");
		return -1;
	}
	return pid;
}

int talker_end(pid_t pid, int go_w)
{
	int st = -1;
	if (write(go_w, "g", 1) != 1 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : st;
}

pid_t tree_fork_waiting(int (*fn)(void *), void *arg)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		int sig;
		test_forked();
		sigwait(&m, &sig);
		_exit(fn(arg));
	}
	return pid;
}

int tree_waiting_go(pid_t pid)
{
	int st;
	kill(pid, SIGUSR1);
	return waitpid(pid, &st, 0) == pid ? st : -1; /* 0: exited with 0 */
}

int fd_devino(int fd, char *buf, size_t len)
{
	struct stat a;
	if (fstat(fd, &a))
		return -1;
	snprintf(buf, len, "%llu:%llu", (unsigned long long)a.st_dev, (unsigned long long)a.st_ino);
	return 0;
}

void child_report(pid_t ch, int rfd, char *buf, size_t len)
{
	int st = -1;
	kill(ch, SIGUSR1);
	ssize_t n = read(rfd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child exit %#x", st);
}

void child_devino_exit(int fd, int wfd)
{
	char ino[64];
	if (fd_devino(fd, ino, sizeof(ino)))
		_exit(1);
	_exit(write(wfd, ino, strlen(ino)) > 0 ? 0 : 2);
}

void child_same_devino(pid_t ch, int rfd, int fd, const char *what)
{
	char ino[64] = "", want[64] = "";
	child_report(ch, rfd, ino, sizeof(ino));
	fd_devino(fd, want, sizeof(want));
	if (strcmp(ino, want))
		fail("the child's %s is %s, the parent's %s: two of them", what, ino, want);
}

int tree_same_file(pid_t pid, int fd)
{
	return syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, fd, fd) == 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

int proc_pids(const char *dir, pid_t *out, int max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		pid_t p = atoi(de->d_name);
		if (p <= 0 || (out && n >= max))
			continue;
		if (out)
			out[n] = p;
		n++;
	}
	closedir(d);
	if (out)
		qsort(out, (size_t)n, sizeof(*out), pid_cmp);
	return n;
}

int pidns_count_proc(void)
{
	return proc_pids("/proc", NULL, 0);
}

int pidns_proc_self(void)
{
	char buf[32];
	ssize_t r = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	return atoi(buf);
}
