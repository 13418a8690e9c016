/* Nested PID namespaces: the test is PID 1 of its own namespace; its child C (PID 2) made N with clone3
 * CLONE_NEWPID, so N is PID 1 of a namespace nested in the test's, with its own mounts and /proc, a thread
 * and a child G (PID 2 there). After restore each process sees the same ids in its namespace (getpid,
 * getppid, N's thread's TID, /proc/self and the processes in N's /proc), and C still sees N under the same
 * PID. */
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { C, N, G, NP };
struct ids {
	int pid, ppid, nproc, self, child;
};
static volatile struct shared {
	struct ids before[NP], after[NP];
	int go, done[NP], thr_tid, thr_go, thr_tid_after;
} * sh;

static void record(volatile struct ids *x, int child)
{
	x->pid = getpid();
	x->ppid = getppid();
	x->nproc = pidns_count_proc();
	x->self = pidns_proc_self();
	x->child = child;
}

/* Each process: its ids before, then again once the test says go (after restore). */
static void live(int slot, int child)
{
	record(&sh->before[slot], child);
	sh->done[slot] = 1;
	while (!sh->go)
		usleep(10000);
	record(&sh->after[slot], child);
	sh->done[slot] = 2;
	for (;;)
		pause();
}

static void *thread_fn(void *arg)
{
	(void)arg;
	sh->thr_tid = (int)syscall(SYS_gettid);
	while (!sh->thr_go)
		usleep(10000);
	sh->thr_tid_after = (int)syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

static void nested_init(void)
{
	pthread_t t;
	pid_t g;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		_exit(3);
	g = fork();
	if (g == 0)
		live(G, 0);
	if (g < 0 || pthread_create(&t, NULL, thread_fn, NULL))
		_exit(4);
	while (!sh->thr_tid || !sh->done[G])
		usleep(1000);
	live(N, g);
}

static void child_c(void)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWPID;
	ca.exit_signal = SIGCHLD;
	long n = syscall(SYS_clone3, &ca, sizeof(ca));
	if (n == 0)
		nested_init();
	if (n < 0)
		_exit(5);
	while (!sh->done[N])
		usleep(1000);
	live(C, (int)n);
}

static void compare(int slot, const char *name)
{
	const volatile struct ids *b = &sh->before[slot], *a = &sh->after[slot];
	if (a->pid != b->pid || a->ppid != b->ppid || a->nproc != b->nproc || a->self != b->self ||
	    a->child != b->child)
		fail("%s: pid %d ppid %d procs %d /proc/self %d child %d, was %d %d %d %d %d", name, a->pid,
		     a->ppid, a->nproc, a->self, a->child, b->pid, b->ppid, b->nproc, b->self, b->child);
}

int main(int argc, char **argv)
{
	pid_t c;
	test_init_pidns(argc, argv);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	c = test_fork();
	if (c == 0) {
		child_c();
	}
	for (int n = 0; !sh->done[C] || !sh->done[N] || !sh->done[G]; n++) {
		if (n > 10000 || c < 0)
			fail("setup: the nested namespace did not start (%d %d %d)", sh->done[C], sh->done[N],
			     sh->done[G]);
		usleep(1000);
	}
	if (sh->before[N].pid != 1 || sh->before[G].pid != 2 || sh->before[N].nproc != 2 ||
	    sh->before[C].pid != c || sh->thr_tid != 3)
		fail("setup: N %d G %d, %d in N's /proc, C %d, thread %d", sh->before[N].pid,
		     sh->before[G].pid, sh->before[N].nproc, sh->before[C].pid, sh->thr_tid);
	test_daemon();
	test_waitsig();
	if (getpid() != 1 || pidns_proc_self() != 1 || pidns_count_proc() != 4)
		fail("init: pid %d, /proc/self %d, %d processes (want 1, 1, 4)", getpid(), pidns_proc_self(),
		     pidns_count_proc());
	sh->go = 1;
	sh->thr_go = 1;
	for (int n = 0; sh->done[C] != 2 || sh->done[N] != 2 || sh->done[G] != 2 || !sh->thr_tid_after; n++) {
		if (n > 10000) {
			fail("after restore: the processes did not answer");
			break;
		}
		usleep(1000);
	}
	compare(C, "C");
	compare(N, "N (nested init)");
	compare(G, "G (in N's namespace)");
	if (sh->thr_tid_after != sh->thr_tid)
		fail("N's thread: tid %d, was %d", sh->thr_tid_after, sh->thr_tid);
	kill(c, SIGKILL); /* C; N and G go with N's namespace once N is killed */
	kill(sh->before[C].child, SIGKILL);
	while (wait(NULL) > 0)
		;
	return test_pass();
}
