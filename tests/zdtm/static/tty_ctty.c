/* A session leader with a pty slave as its controlling terminal (it holds the master too), a child in its
 * own process group that is the terminal's foreground group, and a child in the leader's group (in the
 * background). After restore: same controlling terminal for all three (tcgetsid), the same foreground
 * group (tcgetpgrp), the window size is kept, and the slave fd is still one description in all three. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

/* A child: after SIGTERM, exit 0 if the terminal (fd s) is its controlling one and the foreground is fg. */
static int child(int s, pid_t fg, int ready)
{
	if (fg == 0 && setpgid(0, 0))
		return 1;
	if (write(ready, "r", 1) != 1)
		return 2;
	close(ready);
	test_waitsig();
	if (tcgetsid(s) != getsid(0))
		return 3;
	if (tcgetpgrp(s) != (fg ? fg : getpid()))
		return 4;
	int tty = open("/dev/tty", O_RDWR);
	if (tty < 0)
		return 5;
	/* the slave fd inherited by fork is still the parent's open file description */
	return syscall(SYS_kcmp, getppid(), getpid(), KCMP_FILE, s, s) ? 6 : 0;
}

int main(int argc, char **argv)
{
	struct winsize ws = {.ws_row = 11, .ws_col = 222}, got;
	int p[2], st;
	char c;

	test_init(argc, argv);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || pipe(p))
		return fail("posix_openpt"), 1;
	int s = open(ptsname(m), O_RDWR); /* we lead our session (test_init): our controlling terminal */
	if (s < 0 || tcgetsid(s) != getpid() || ioctl(s, TIOCSWINSZ, &ws))
		return fail("controlling terminal"), 1;
	pid_t fg = test_fork();
	if (fg == 0) {
		close(p[0]);
		_exit(child(s, 0, p[1]));
	}
	setpgid(fg, fg);
	pid_t bg = test_fork();
	if (bg == 0) {
		close(p[0]);
		_exit(child(s, fg, p[1]));
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || read(p[0], &c, 1) != 1)
		return fail("children did not start"), 1;
	if (tcsetpgrp(s, fg))
		return fail("tcsetpgrp"), 1;

	test_daemon();
	test_waitsig();

	if (tcgetsid(s) != getpid())
		fail("not our controlling terminal any more (sid %d)", tcgetsid(s));
	if (tcgetpgrp(s) != fg)
		fail("foreground group %d, want %d", tcgetpgrp(s), fg);
	if (ioctl(m, TIOCGWINSZ, &got) || got.ws_row != ws.ws_row || got.ws_col != ws.ws_col)
		fail("window size %dx%d", got.ws_row, got.ws_col);
	kill(fg, SIGTERM);
	kill(bg, SIGTERM);
	if (waitpid(fg, &st, 0) != fg || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("foreground child: status %#x", st);
	if (waitpid(bg, &st, 0) != bg || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("background child: status %#x", st);
	pass();
	return 0;
}
