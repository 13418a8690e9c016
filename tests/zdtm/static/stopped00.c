/* A stopped child (SIGSTOP) stays stopped after restore, and continues with its state on SIGCONT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MEM (64 * 1024)

int main(int argc, char **argv)
{
	pid_t ch;
	int st;
	test_init(argc, argv);
	ch = test_fork();
	if (ch == 0) {
		uint8_t *mem = malloc(MEM);
		datagen(mem, MEM, 77);
		raise(SIGSTOP);
		_exit(datachk(mem, MEM, 77, NULL) ? 1 : 0);
	}
	if (waitpid(ch, &st, WUNTRACED) != ch || !WIFSTOPPED(st))
		fail("child did not stop");
	test_daemon();
	test_waitsig();
	usleep(100000);
	if (proc_state(ch) != 'T')
		fail("child %d: state %c after restore, want T (stopped)", ch, proc_state(ch));
	kill(ch, SIGCONT);
	if (waitpid(ch, &st, 0) != ch)
		fail("waitpid");
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x after SIGCONT, want exit 0", st);
	return test_pass();
}
