/* The steps of a test whose nested PID namespace's init N (sk_nested_pidns) checks its own sockets, shared
 * with the test through sh (sk_unix_peercred_nestout, _outside): N checks once before the dump (sh->ready is
 * then 1 + its failures) and once after restore, when the test sets sh->go (then sh->done); the first
 * failure is told in sh->msg. Include it after sk_unix.h. */
#ifndef SK_UNIX_PEERCRED_NEST_H
#define SK_UNIX_PEERCRED_NEST_H
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

static volatile struct shared {
	int ready, go, done, fails, n;
	char msg[256];
} * sh;

/* In the test, first: sh, shared with N. */
static inline void nest_shared_map(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
}

/* In N: a failure; the first one is told in sh->msg. */
static inline __attribute__((format(printf, 1, 2))) void nest_fail(const char *fmt, ...)
{
	va_list ap;
	if (sh->fails++)
		return;
	va_start(ap, fmt);
	vsnprintf((char *)sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
}

/* In N: check() before the dump and after restore (after sh->go), then sh->done; never returns. */
static inline __attribute__((noreturn)) void nest_rounds(void (*check)(void))
{
	for (int round = 0; round < 2; round++) {
		check();
		if (round == 0) {
			sh->ready = 1 + sh->fails;
			while (!sh->go)
				usleep(10000);
		}
	}
	sh->done = 1;
	for (;;)
		pause();
}

/* In the test: wait (10 s at most) for N's check before the dump; returns sh->ready (1: passed). */
static inline int nest_ready(void)
{
	for (int k = 0; !sh->ready && k < 10000; k++)
		usleep(1000);
	return sh->ready;
}

/* In the test, after restore: N's check again (10 s at most); fail() unless it is done and passed. */
static inline void nest_check_again(void)
{
	sh->go = 1;
	for (int k = 0; !sh->done && k < 10000; k++)
		usleep(1000);
	if (!sh->done || sh->fails)
		fail("after restore: %s", sh->done ? (const char *)sh->msg : "N did not answer");
}

/* In the test, last: C (the child that made N's namespace) and N killed, every child reaped. */
static inline void nest_end(pid_t c)
{
	kill(c, SIGKILL);
	if (sh->n > 0)
		kill(sh->n, SIGKILL);
	while (wait(NULL) > 0)
		;
}
#endif
