/* Ids seen inside a PID namespace (the test is its init, PID 1): a POSIX timer notifying a thread
 * (SIGEV_THREAD_ID with the thread's inner TID), file owners (F_SETOWN_EX to the child K = PID 2, to the
 * thread, to K's process group), a signal K queued to us (si_pid 2, blocked, still pending), and a pty
 * whose controlling session is ours with K's group in the foreground. After restore every id is the inner
 * one again: F_GETOWN_EX, tcgetpgrp/tcgetsid, si_pid, and the timer's signals reach that thread. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static volatile pid_t thr_tid;
static volatile int thr_hits, wrong_hits;
static volatile int thr_stop;

static void on_timer(int sig)
{
	(void)sig;
	if ((pid_t)syscall(SYS_gettid) == thr_tid)
		thr_hits++;
	else
		wrong_hits++;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	thr_tid = (pid_t)syscall(SYS_gettid);
	while (!thr_stop)
		usleep(10000);
	return NULL;
}

struct owner {
	int fd, type;
	pid_t pid;
};

static void set_owner(struct owner *o, int type, pid_t pid)
{
	int p[2];
	struct f_owner_ex own = {.type = type, .pid = pid};
	if (pipe(p) || fcntl(p[0], F_SETOWN_EX, &own))
		fail("setup: pipe / F_SETOWN_EX %d %d", type, pid);
	o->fd = p[0], o->type = type, o->pid = pid;
}

static void check_owner(const struct owner *o)
{
	struct f_owner_ex own;
	if (fcntl(o->fd, F_GETOWN_EX, &own) || (int)own.type != o->type || own.pid != o->pid)
		fail("fd %d: owner type %d pid %d, want %d %d", o->fd, own.type, own.pid, o->type, o->pid);
}

static int make_tty(pid_t fg)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	if (m < 0 || grantpt(m) || unlockpt(m))
		fail("setup: ptmx");
	s = open(ptsname(m), O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0))
		fail("setup: controlling terminal");
	signal(SIGTTOU, SIG_IGN);
	if (tcsetpgrp(s, fg))
		fail("setup: tcsetpgrp %d", fg);
	return s;
}

int main(int argc, char **argv)
{
	struct owner own[3];
	struct sigevent sev = {0};
	struct itimerspec its = {{0, 50000000}, {0, 50000000}};
	timer_t tm;
	pthread_t th;
	sigset_t usr2;
	siginfo_t si;
	pid_t k;
	int s, st, before;

	test_init_pidns(argc, argv);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	k = test_fork();
	if (k == 0) {
		setpgid(0, 0);
		if (sigqueue(1, SIGUSR2, (union sigval){.sival_int = 77}))
			_exit(1);
		for (;;)
			pause();
	}
	setpgid(k, k);
	if (pthread_create(&th, NULL, thread_fn, NULL))
		fail("pthread_create");
	while (!thr_tid)
		usleep(1000);
	signal(SIGRTMIN, on_timer);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev.sigev_notify_thread_id = thr_tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL))
		fail("setup: timer to thread %d", thr_tid);
	set_owner(&own[0], F_OWNER_PID, k);
	set_owner(&own[1], F_OWNER_TID, thr_tid);
	set_owner(&own[2], F_OWNER_PGRP, k);
	s = make_tty(k);
	for (int n = 0;; n++) { /* K's signal is queued */
		sigset_t pend;
		sigpending(&pend);
		if (sigismember(&pend, SIGUSR2))
			break;
		if (n > 5000)
			fail("setup: no SIGUSR2 from %d", k);
		usleep(1000);
	}
	if (getpid() != 1 || k != 2 || thr_tid != 3)
		fail("setup: pid %d, child %d, thread %d", getpid(), k, thr_tid);
	test_daemon();
	test_waitsig();
	for (int i = 0; i < 3; i++)
		check_owner(&own[i]);
	if (tcgetpgrp(s) != k || tcgetsid(s) != 1 || getsid(0) != 1)
		fail("terminal: foreground %d, session %d (we are in %d), want %d and 1", tcgetpgrp(s),
		     tcgetsid(s), getsid(0), k);
	if (sigwaitinfo(&usr2, &si) != SIGUSR2 || si.si_pid != k || si.si_value.sival_int != 77)
		fail("queued SIGUSR2: si_pid %d value %d, want %d 77", si.si_pid, si.si_value.sival_int, k);
	before = thr_hits;
	for (int i = 0; i < 10000 && thr_hits <= before; i++) /* the timer's next tick (10 s at most) */
		usleep(1000);
	if (thr_hits <= before || wrong_hits)
		fail("timer: %d signals to thread %d after restore, %d to other threads", thr_hits - before,
		     thr_tid, wrong_hits);
	timer_delete(tm);
	thr_stop = 1;
	pthread_join(th, NULL);
	kill(k, SIGKILL);
	waitpid(k, &st, 0);
	return test_pass();
}
