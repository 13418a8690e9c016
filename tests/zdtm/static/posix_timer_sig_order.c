/* POSIX timers' own signals pending (blocked) among ordinary ones of the same real-time number, in three
 * queues: the process's (SIGEV_SIGNAL timers, sigqueue), the first thread's and another thread's own
 * (SIGEV_THREAD_ID timers, rt_tgsigqueueinfo). Each queue holds, in this order: ordinary, one-shot timer's,
 * ordinary, periodic timer's (1 h interval), ordinary. After restore each queue gives them back in that
 * order (sigwaitinfo, one by one, in the thread that owns the queue), each with its si_code, si_value,
 * si_timerid and si_overrun (0), then nothing more; the one-shot timers are disarmed, the periodic ones
 * keep their interval. Before, each timer's signal came back first in its queue. */
#include <pthread.h>
#include "posix_timer.h"

#define NQ 3 /* queues: 0 the process's, 1 the first thread's, 2 the other thread's */
#define NS 5 /* signals per queue */

struct want {
	int code, val;
	timer_t t; /* SI_TIMER: its timer */
};

static struct want want[NQ][NS];
static int qsig[NQ];
static pid_t qtid[NQ];
static timer_t oneshot[NQ], periodic[NQ];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, go, done;

/* Timer of signal sig to queue q (0: the process), value val, armed to expire at once (interval iv s);
 * returns once it fired: a one-shot one is disarmed, a periodic one is on to its next expiry. */
static int timer_fire(int q, int sig, int val, time_t iv, timer_t *t)
{
	struct sigevent sev;
	struct itimerspec its = {{iv, 0}, {0, 1}}, cur;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = q ? SIGEV_THREAD_ID : SIGEV_SIGNAL;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = val;
	sev._sigev_un._tid = qtid[q];
	if (timer_create(q == 2 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &sev, t) ||
	    timer_settime(*t, 0, &its, NULL))
		return -1;
	for (int n = 0; n < 10000; n++) {
		if (timer_gettime(*t, &cur))
			return -1;
		if (iv ? cur.it_value.tv_sec > 0 : !cur.it_value.tv_sec && !cur.it_value.tv_nsec)
			return 0;
		usleep(1000);
	}
	return -1;
}

static int queue_fill(int q)
{
	int sig = qsig[q], k = 0;
	for (int i = 0; i < NS; i++) {
		struct want *w = &want[q][i];
		w->val = 100 * (q + 1) + i;
		if (i % 2 == 0) {
			w->code = SI_QUEUE;
			if (pt_queue(sig, q ? qtid[q] : 0, w->val))
				return -1;
			continue;
		}
		w->code = SI_TIMER;
		if (timer_fire(q, sig, w->val, k++ ? 3600 : 0, i == 1 ? &oneshot[q] : &periodic[q]))
			return -1;
		w->t = i == 1 ? oneshot[q] : periodic[q];
	}
	return 0;
}

/* Queue q's signals taken here, in order. */
static void queue_check(int q)
{
	struct timespec zero = {0, 0};
	sigset_t s;
	siginfo_t si;
	sigemptyset(&s);
	sigaddset(&s, qsig[q]);
	for (int i = 0; i < NS; i++) {
		const struct want *w = &want[q][i];
		memset(&si, 0, sizeof(si));
		int r = sigtimedwait(&s, &si, &zero);
		if (r != qsig[q] || si.si_code != w->code || si.si_value.sival_int != w->val ||
		    (w->code == SI_TIMER && (si.si_timerid != (int)(intptr_t)w->t || si.si_overrun)))
			fail("queue %d, signal %d of %d: got %d code %d value %d timer %d overrun %d; want "
			     "code "
			     "%d value %d timer %d overrun 0",
			     q, i + 1, NS, r, r > 0 ? si.si_code : 0, r > 0 ? si.si_value.sival_int : 0,
			     r > 0 && si.si_code == SI_TIMER ? si.si_timerid : -1,
			     r > 0 && si.si_code == SI_TIMER ? si.si_overrun : 0, w->code, w->val,
			     w->code == SI_TIMER ? (int)(intptr_t)w->t : -1);
	}
	if (sigtimedwait(&s, &si, &zero) >= 0)
		fail("queue %d: one more signal %d pending (code %d, value %d)", q, qsig[q], si.si_code,
		     si.si_value.sival_int);
	struct itimerspec cur;
	if (timer_gettime(oneshot[q], &cur) || cur.it_value.tv_sec || cur.it_value.tv_nsec)
		fail("queue %d: the one-shot timer is armed again (%ld s)", q, (long)cur.it_value.tv_sec);
	if (timer_gettime(periodic[q], &cur) || cur.it_interval.tv_sec != 3600 || cur.it_interval.tv_nsec ||
	    cur.it_value.tv_sec > 3600 || (!cur.it_value.tv_sec && !cur.it_value.tv_nsec))
		fail("queue %d: the periodic timer reads interval %ld s, value %ld s", q,
		     (long)cur.it_interval.tv_sec, (long)cur.it_value.tv_sec);
}

static void wait_for(const int *v)
{
	pthread_mutex_lock(&mu);
	while (!*v)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void set(int *v)
{
	pthread_mutex_lock(&mu);
	*v = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void *thread(void *arg)
{
	(void)arg;
	qtid[2] = (pid_t)syscall(SYS_gettid);
	set(&ready);
	wait_for(&go);
	queue_check(2);
	set(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t s;

	test_init(argc, argv);
	qsig[0] = SIGRTMIN + 2, qsig[1] = SIGRTMIN + 4, qsig[2] = SIGRTMIN + 6;
	sigemptyset(&s);
	for (int q = 0; q < NQ; q++)
		sigaddset(&s, qsig[q]);
	sigprocmask(SIG_BLOCK, &s, NULL); /* (the thread inherits it) */
	qtid[1] = (pid_t)syscall(SYS_gettid);
	if (pthread_create(&th, NULL, thread, NULL)) {
		fail("pthread_create");
		return 1;
	}
	wait_for(&ready);
	for (int q = 0; q < NQ; q++)
		if (queue_fill(q)) {
			fail("queue %d: could not fill it", q);
			return 1;
		}
	test_daemon();
	test_waitsig();

	queue_check(0);
	queue_check(1);
	set(&go);
	wait_for(&done);
	pthread_join(th, NULL);
	pass();
	return 0;
}
