/* A shell job whose child has pipes to its parent as stdin and stdout (the parent holds the other ends at
 * fds 40 and 41). With --shell-job only the caller's stdio is taken from the restoring crshim: after restore
 * the child's fds 0 and 1 are still the pipes to its parent (a line written at fd 41 comes back at fd 40). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { RD = 40, WR = 41 };

int main(int argc, char **argv)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1};
	char buf[32] = "";

	test_init(argc, argv);
	if (pipe(in) || pipe(out))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		setpgid(
		    0,
		    0); /* a group of its own: the runner compares the group of every process but the root */
		if (dup2(in[0], 0) != 0 || dup2(out[1], 1) != 1)
			_exit(1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		char l[16] = "";
		ssize_t n = read(0, l, sizeof(l) - 1); /* after restore */
		if (n <= 0)
			_exit(2);
		l[n] = '\0';
		printf("pong:%s", l);
		fflush(stdout);
		_exit(0);
	}
	if (dup2(out[0], RD) != RD || dup2(in[1], WR) != WR)
		fail("dup2");
	close(in[0]), close(in[1]), close(out[0]), close(out[1]);
	test_daemon();
	test_waitsig();

	if (write(WR, "ping", 4) != 4)
		fail("write to the child's stdin");
	ssize_t n = read(RD, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, "pong:ping"))
		fail("the child's stdout gave \"%s\", want \"pong:ping\"", buf);
	child_exit_ok(ch, NULL);
	pass();
	return 0;
}
