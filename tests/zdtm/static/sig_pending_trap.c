/* Blocked, pending SIGTRAPs: one of the process (sigqueue with a value) and, in a second process, one of
 * the thread group (kill), each with a handler. After restore both are still pending with their siginfo
 * (code, sender, value), still blocked, the handlers kept; unblocked, each is delivered once to its
 * handler (the restore's own final trap took none of them). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t got;
static volatile int got_code, got_val, got_pid;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	got_code = si->si_code, got_val = si->si_value.sival_int, got_pid = si->si_pid;
}

/* block SIGTRAP, a handler for it */
static void setup(void)
{
	sigset_t s;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	if (sigprocmask(SIG_BLOCK, &s, NULL) || sigaction(SIGTRAP, &sa, NULL))
		fail("block SIGTRAP, its handler");
}

/* still pending and blocked, the handler ours; then delivered once with code and value */
static int check(int code, int val, pid_t from, const char *who)
{
	sigset_t p, b, s;
	struct sigaction sa;
	if (sigpending(&p) || !sigismember(&p, SIGTRAP))
		return fail("%s: SIGTRAP no longer pending", who), 1;
	if (sigprocmask(SIG_BLOCK, NULL, &b) || !sigismember(&b, SIGTRAP))
		return fail("%s: SIGTRAP no longer blocked", who), 1;
	if (sigaction(SIGTRAP, NULL, &sa) || sa.sa_sigaction != on_trap)
		return fail("%s: the SIGTRAP handler is not ours any more", who), 1;
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	if (got != 1 || got_code != code || got_val != val || got_pid != from)
		return fail("%s: delivered %d times, code %d value %d from %d; want once, code %d value %d "
			    "from %d",
			    who, (int)got, got_code, got_val, got_pid, code, val, from),
		       1;
	return 0;
}

int main(int argc, char **argv)
{
	int pp[2], st;
	test_init(argc, argv);
	setup();
	if (sigqueue(getpid(), SIGTRAP, (union sigval){.sival_int = 42}))
		fail("sigqueue SIGTRAP");
	if (pipe(pp))
		fail("pipe");
	pid_t me = getpid(), c = test_fork();
	if (c == 0) { /* SIGTRAP of its thread group, from its parent; checked at SIGTERM */
		char x;
		setup();
		close(pp[1]);
		if (read(pp[0], &x, 1) != 0) /* until the parent has sent it */
			_exit(2);
		test_waitsig();
		_exit(check(SI_USER, 0, me, "child"));
	}
	close(pp[0]);
	if (kill(c, SIGTRAP))
		fail("kill SIGTRAP");
	close(pp[1]);
	for (int i = 0; i < 5000; i++) { /* the child's signal is queued (its State or ShdPnd) */
		char *buf = NULL;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/status", c);
		int ok = read_file(path, &buf) > 0 && strstr(buf, "ShdPnd:\t0000000000000010");
		free(buf);
		if (ok)
			break;
		usleep(1000);
	}
	test_daemon();
	test_waitsig();
	check(SI_QUEUE, 42, me, "parent");
	kill(c, SIGTERM);
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child's check failed (status %#x)", st);
	return test_pass();
}
