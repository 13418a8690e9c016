/* State the kernel keeps per thread, different in each thread of a child process: the CPUs it may run on,
 * its I/O priority, scheduling policy, real-time priority (where allowed) and nice value, timer slack,
 * no_new_privs, parent death signal, PR_SET_TSC, PR_MCE_KILL and NUMA memory policy (the child's leader:
 * its own CPUs, I/O priority, PR_MCE_KILL and memory policy). Each thread reads its own state before the dump
 * and after the restore: the same (before: the other threads took the leader's scheduling, timer slack and
 * no_new_privs, and lost their parent death signal, TSC and MCE modes and memory policy, the leader its CPUs,
 * I/O priority, MCE mode and memory policy, without a word). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NT 4 /* the leader and three threads */

static char state[2][NT][512];
static sem_t go[NT], done[NT];
static int ncpu;

/* What the thread w reads of itself into state[k][w]. */
static void read_state(int k, int w)
{
	struct sched_param sp = {0};
	cpu_set_t cs;
	int sig = -1, tsc = -1;
	CPU_ZERO(&cs);
	sched_getaffinity(0, sizeof(cs), &cs);
	sched_getparam(0, &sp);
	prctl(PR_GET_PDEATHSIG, &sig);
	prctl(PR_GET_TSC, &tsc);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	int mpol = -1;
	unsigned long nodes[1024 / 64] = {0};
	syscall(SYS_get_mempolicy, &mpol, nodes, 1024, 0, 0);
	size_t l = (size_t)snprintf(state[k][w], sizeof(state[k][w]), "mempolicy %d/%lx ", mpol, nodes[0]);
	snprintf(
	    state[k][w] + l, sizeof(state[k][w]) - l,
	    "cpus %d/%lx ioprio %#lx policy %#x prio %d nice %d slack %d nnp %d pdeathsig %d tsc %d mce %d",
	    CPU_COUNT(&cs), *(unsigned long *)&cs, syscall(SYS_ioprio_get, 1, 0), sched_getscheduler(0),
	    sp.sched_priority, nice, prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0),
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), sig, tsc, prctl(PR_MCE_KILL_GET, 0, 0, 0, 0));
}

static void bind_cpu(int cpu)
{
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(cpu % ncpu, &cs);
	sched_setaffinity(0, sizeof(cs), &cs);
}

/* NUMA memory policy of thread w on node 0 (there is one): preferred, bind, interleave, the default */
static void set_mpol(int w)
{
	static const int mode[NT] = {1, 2, 3, 0};
	unsigned long node0 = 1;
	syscall(SYS_set_mempolicy, mode[w], mode[w] ? &node0 : NULL, mode[w] ? 64 : 0);
}

static void setup(int w)
{
	struct sched_param sp = {0};
	set_mpol(w);
	switch (w) {
	case 0:
		bind_cpu(0);
		syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 5); /* best effort, level 5 */
		prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0);
		break;
	case 1:
		bind_cpu(ncpu - 1);
		syscall(SYS_ioprio_set, 1, 0, 3 << 13); /* idle */
		sched_setscheduler(0, SCHED_BATCH, &sp);
		setpriority(PRIO_PROCESS, 0, 6);
		prctl(PR_SET_TIMERSLACK, 77777, 0, 0, 0);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGUSR2);
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV); /* (this thread calls nothing that reads the TSC) */
		prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_LATE, 0, 0);
		break;
	case 2:
		syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7);
		sched_setscheduler(0, SCHED_IDLE, &sp);
		prctl(PR_SET_TIMERSLACK, 1234567, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGWINCH);
		break;
	case 3: /* real-time where it may (not in a user namespace of its own) */
		sp.sched_priority = 2;
		sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &sp);
		setpriority(PRIO_PROCESS, 0, 3);
		break;
	}
}

static void *thr(void *arg)
{
	int w = (int)(long)arg;
	setup(w);
	for (int k = 0; k < 2; k++) {
		sem_wait(&go[w]);
		read_state(k, w);
		sem_post(&done[w]);
	}
	return NULL;
}

static void collect(int k)
{
	read_state(k, 0);
	for (int w = 1; w < NT; w++) {
		sem_post(&go[w]);
		sem_wait(&done[w]);
	}
}

static void child(int gofd, int donefd, void *arg)
{
	pthread_t t[NT];
	char c, msg[1200] = "OK";
	(void)arg;
	setup(0);
	for (int w = 1; w < NT; w++) {
		sem_init(&go[w], 0, 0);
		sem_init(&done[w], 0, 0);
		if (pthread_create(&t[w], NULL, thr, (void *)(long)w))
			_exit(2);
	}
	collect(0);
	for (int w = 0; w < NT; w++)
		test_msg("thread %d: %s\n", w, state[0][w]);
	if (write(donefd, "r", 1) != 1 || read(gofd, &c, 1) != 1)
		_exit(3);
	collect(1);
	for (int w = 0; w < NT; w++)
		if (strcmp(state[0][w], state[1][w])) {
			snprintf(msg, sizeof(msg), "thread %d: %.500s, was %.500s", w, state[1][w],
				 state[0][w]);
			break;
		}
	if (write(donefd, msg, strlen(msg)) < 0)
		_exit(4);
	for (int w = 1; w < NT; w++)
		pthread_join(t[w], NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	int gofd, donefd, st;
	char msg[1200];

	test_init(argc, argv);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pid_t pid = fork_talker_ready(child, NULL, &gofd, &donefd);
	if (pid < 0)
		return 1;
	test_daemon();
	test_waitsig();

	ssize_t n = write(gofd, "g", 1) == 1 ? read(donefd, msg, sizeof(msg) - 1) : -1;
	msg[n > 0 ? n : 0] = '\0';
	if (strcmp(msg, "OK"))
		fail("%s", msg[0] ? msg : "no answer from the child");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x", st);
	pass();
	return 0;
}
