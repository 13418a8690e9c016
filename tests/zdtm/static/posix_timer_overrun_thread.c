/* Periodic POSIX timers whose last signal taken counted missed expiries, two of them signalling threads other
 * than the first (SIGEV_THREAD_ID, each its own thread, which took that signal), one the process; ordinary
 * signals of the same numbers pending (blocked) beside them: queued with rt_tgsigqueueinfo to the first
 * of those threads, with sigqueue to the process for the others' numbers, values in order. After restore
 * timer_getoverrun() reads the same for each, the timers keep their interval and next expiry, and every
 * ordinary signal is pending where it was, in order, and nothing else. Before, the overrun count of a timer
 * signalling another thread than the first read 0 (the dump said so). Under the fault point
 * timer-signals-early the ordinary signals are queued before the timers take their own. */
#include <pthread.h>
#include "posix_timer.h"

#define NT 3
#define NQ 2 /* ordinary signals of each number */

struct tm_case {
	int thread; /* 1, 2: that thread's; 0: the process's (SIGEV_SIGNAL) */
	int shared; /* the ordinary signals of its number: 1 to the process, 0 to its thread */
	struct pt_overrun o;
};

static struct tm_case cases[NT] = {
    {1, 0, {CLOCK_REALTIME, SIGEV_THREAD_ID, 3600 * PT_NS, 3, 0, 0, 0, 0}},
    {2, 1, {CLOCK_REALTIME, SIGEV_THREAD_ID, 7200 * PT_NS, 7, 0, 0, 0, 0}},
    {0, 1, {CLOCK_REALTIME, SIGEV_SIGNAL, 1800 * PT_NS, 2, 0, 0, 0, 0}},
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, made, checked, bad; /* made, checked: bit k for thread k */

/* Timer c, its signal taken in this thread once after N+1 missed expiries: exactly N. */
static int make(struct tm_case *c, int sig)
{
	return pt_overrun_make(&c->o, sig) || c->o.got != c->o.n ? -1 : 0;
}

/* The ordinary signals of c's number pending here (and in the process's queue when shared), in order. */
static void take(const struct tm_case *c, const char *who)
{
	struct timespec zero = {0, 0};
	int sig = c->o.sig;
	sigset_t s;
	siginfo_t si;
	sigemptyset(&s);
	sigaddset(&s, sig);
	for (int q = 0; q < NQ; q++) {
		int r = sigtimedwait(&s, &si, &zero);
		if (r != sig || si.si_code != SI_QUEUE || si.si_value.sival_int != sig * 10 + q)
			fail("%s, signal %d: got %d (code %d, value %d), want the ordinary one of value %d",
			     who, sig, r, r > 0 ? si.si_code : 0, r > 0 ? si.si_value.sival_int : 0,
			     sig * 10 + q);
	}
	if (sigtimedwait(&s, &si, &zero) >= 0)
		fail("%s, signal %d: one more pending (code %d, value %d)", who, sig, si.si_code,
		     si.si_value.sival_int);
}

static void *thread(void *arg)
{
	int k = (int)(long)arg;
	struct tm_case *c = &cases[k - 1];
	int sig = SIGRTMIN + 3 + k - 1;
	int err = make(c, sig);
	for (int q = 0; !err && !c->shared && q < NQ; q++)
		err = pt_queue(sig, (pid_t)syscall(SYS_gettid), sig * 10 + q);
	pthread_mutex_lock(&mu);
	bad |= err != 0;
	made |= 1 << k;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (!c->shared)
		take(c, k == 1 ? "thread 1" : "thread 2");
	pthread_mutex_lock(&mu);
	checked |= 1 << k;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	char what[32];
	sigset_t s;
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < NT; k++)
		sigaddset(&s, SIGRTMIN + 3 + k);
	sigprocmask(SIG_BLOCK, &s, NULL); /* (the threads inherit it) */
	for (int k = 1; k <= 2; k++)
		if (pthread_create(&th[k - 1], NULL, thread, (void *)(long)k)) {
			fail("pthread_create");
			return 1;
		}
	pthread_mutex_lock(&mu);
	while (made != 6)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (bad || make(&cases[2], SIGRTMIN + 5)) {
		fail("no overrun to keep");
		return 1;
	}
	for (int k = 0; k < NT; k++)
		for (int q = 0; cases[k].shared && q < NQ; q++)
			if (pt_queue(cases[k].o.sig, 0, cases[k].o.sig * 10 + q)) {
				fail("sigqueue");
				return 1;
			}
	test_daemon();
	test_waitsig();

	for (int k = 0; k < NT; k++) {
		snprintf(what, sizeof(what), "timer of thread %d", cases[k].thread);
		pt_overrun_check(&cases[k].o, what);
	}
	for (int k = 0; k < NT; k++)
		if (cases[k].shared)
			take(&cases[k], "the process");
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	while (checked != 6)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	return test_pass();
}
