/* A shell job on a terminal: started by the runner on a pty of its own (zdtm_pty), in the session of that
 * terminal as a member of the foreground job (not a leader), holding the terminal twice (its /dev/pts/N
 * and /dev/tty) with changed termios. Dumped with --shell-job and restored with --shell-job by a crshim
 * running on another pty: the task is then in crshim's session and foreground job, its controlling
 * terminal is crshim's terminal, both fds reach it, and the termios are set on it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef SHELL_JOB_OWN_PGRP /* shell_job_pgrp.c: a job that leads its own process group */
#define SHELL_JOB_OWN_PGRP 0
#endif

/* Not a session leader; a group leader only in shell_job_pgrp. */
static int job_ok(void)
{
	return getsid(0) != getpid() && (getpgrp() == getpid()) == SHELL_JOB_OWN_PGRP;
}

/* The controlling terminal's device number (/proc/self/stat tty_nr), 0 if none. */
static dev_t ctty_dev(void)
{
	char *buf, *p;
	long nr = 0;
	if (read_file("/proc/self/stat", &buf) < 0)
		return 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %ld", &nr) != 1)
		nr = 0;
	free(buf);
	return makedev((nr >> 8) & 0xfff, (nr & 0xff) | ((nr >> 12) & 0xfff00));
}

int main(int argc, char **argv)
{
	struct termios want, got;
	struct stat st;
	char name[64];

	test_init(argc, argv);
	dev_t dev = ctty_dev();
	int tty = open("/dev/tty", O_RDWR);
	if (!dev || tty < 0)
		return fail("no controlling terminal: run under zdtm_pty (tty: yes)"), 1;
	snprintf(name, sizeof(name), "/dev/pts/%u", (major(dev) - 136) * 256 + minor(dev));
	int pts = open(name, O_RDWR | O_NOCTTY);
	if (pts < 0 || fstat(pts, &st) || st.st_rdev != dev)
		return fail("open %s", name), 1;
	if (tcgetattr(pts, &want))
		return fail("tcgetattr"), 1;
	want.c_lflag &= ~(ECHO | ECHOE);
	want.c_iflag |= IXANY;
	want.c_cc[VKILL] = 0x0b;
	if (tcsetattr(pts, TCSANOW, &want) || tcgetattr(pts, &want))
		return fail("tcsetattr"), 1;
	if (SHELL_JOB_OWN_PGRP) { /* what a shell does for a job: its own group, in the foreground */
		signal(SIGTTOU, SIG_IGN);
		if (setpgid(0, 0) || tcsetpgrp(pts, getpid()))
			return fail("own foreground process group"), 1;
		signal(SIGTTOU, SIG_DFL);
	}
	if (!job_ok() || tcgetpgrp(pts) != getpgrp())
		return fail("not started as (a member of) the foreground job"), 1;

	test_daemon();
	test_waitsig();

	dev = ctty_dev();
	if (!dev)
		fail("no controlling terminal after restore");
	if (!job_ok())
		fail("sid %d pgrp %d (pid %d): %s", getsid(0), getpgrp(), getpid(),
		     SHELL_JOB_OWN_PGRP ? "want a group leader in another session" : "became a leader");
	if (fstat(pts, &st) || st.st_rdev != dev)
		fail("the pts fd (rdev %#lx) is not the controlling terminal (%#lx)", (long)st.st_rdev,
		     (long)dev);
	if (tcgetsid(pts) != getsid(0) || tcgetsid(tty) != getsid(0))
		fail("terminal of session %d / %d, we are in %d", tcgetsid(pts), tcgetsid(tty), getsid(0));
	if (tcgetpgrp(tty) != getpgrp())
		fail("not in the foreground job (%d, ours %d)", tcgetpgrp(tty), getpgrp());
	if (tcgetattr(tty, &got) || got.c_lflag != want.c_lflag || got.c_iflag != want.c_iflag ||
	    got.c_cc[VKILL] != 0x0b)
		fail("termios not kept: lflag %#x/%#x iflag %#x/%#x", (unsigned)got.c_lflag,
		     (unsigned)want.c_lflag, (unsigned)got.c_iflag, (unsigned)want.c_iflag);
	if (write(pts, "", 0) < 0 || write(tty, "", 0) < 0)
		fail("write to the terminal");
	pass();
	return 0;
}
