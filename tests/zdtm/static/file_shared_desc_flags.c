/* A regular file's open file description held by the test and a forked child (O_RDWR | O_APPEND), and one
 * held by the test alone: after restore their status flags (F_GETFL, the "flags:" line of fdinfo) are what
 * they were, no flag of crshim's own open (O_NOFOLLOW, O_NOCTTY, ...) added, whichever process or namespace
 * opened them. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { S = 50, P = 51 };

static unsigned long fdinfo_flags(int fd)
{
	char *s = NULL;
	unsigned long fl = ~0ul;
	if (fdinfo_read(fd, &s) > 0) {
		const char *p = strstr(s, "flags:");
		if (p)
			fl = strtoul(p + 6, NULL, 8);
	}
	free(s);
	return fl;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int a = open("shared.txt", O_RDWR | O_APPEND | O_CREAT, 0600),
	    b = open("own.txt", O_WRONLY | O_CREAT, 0600);
	if (a < 0 || b < 0 || dup2(a, S) != S || dup2(b, P) != P || close(a) || close(b))
		fail("open");
	unsigned long fs = fdinfo_flags(S), fp = fdinfo_flags(P);
	int gs = fcntl(S, F_GETFL), gp = fcntl(P, F_GETFL);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(P);
		test_waitsig();
		_exit(fcntl(S, F_GETFL) != gs || fdinfo_flags(S) != fs);
	}
	test_daemon();
	test_waitsig();

	if (fcntl(S, F_GETFL) != gs || fdinfo_flags(S) != fs)
		fail("shared description: F_GETFL %#o fdinfo %#lo, want %#o %#lo", fcntl(S, F_GETFL),
		     fdinfo_flags(S), gs, fs);
	if (fcntl(P, F_GETFL) != gp || fdinfo_flags(P) != fp)
		fail("own description: F_GETFL %#o fdinfo %#lo, want %#o %#lo", fcntl(P, F_GETFL),
		     fdinfo_flags(P), gp, fp);
	kill(ch, SIGTERM);
	child_exit_ok(ch, "the child's view of the shared description's flags");
	return test_pass();
}
