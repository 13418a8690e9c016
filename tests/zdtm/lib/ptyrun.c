/* zdtm_pty: run a command on a terminal of its own (a new pty), for the tests that need a controlling
 * terminal (CI has none).
 *
 *   zdtm_pty CMD ARGS...
 *
 * A session leader (a process of ours) takes the pty's slave as its controlling terminal and starts CMD in
 * that session, in its own process group made the terminal's foreground (as a shell starts a job), with
 * the slave as stdin, stdout and stderr. What is written to the terminal is copied to our stdout. We exit
 * with CMD's status (128+N if killed by signal N) as soon as it ends; the session leader stays, holding the
 * session and the master, as long as any process keeps the slave open (processes CMD left behind keep
 * their terminal), at most 600 s. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "zdtm_pty: %s: %m\n", what);
	_exit(127);
}

/* Copy the terminal's output to stdout until no process holds the slave (EIO) or the time is up. */
static void relay(int m)
{
	char buf[4096];
	time_t end = time(NULL) + 600;
	while (time(NULL) < end) {
		struct pollfd p = {.fd = m, .events = POLLIN};
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			return;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t n = read(m, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return; /* EIO: every slave fd is closed */
		if (write(1, buf, (size_t)n) < 0)
			return;
	}
}

/* The session leader: start CMD, report its status on fd st, then hold the session. */
static void leader(int m, const char *name, int st, char **argv)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	if (setsid() < 0)
		die("setsid");
	int s = open(name, O_RDWR); /* our controlling terminal */
	if (s < 0 || ioctl(s, TIOCSCTTY, 0) || ioctl(s, TIOCSWINSZ, &ws))
		die(name);
	pid_t c = fork();
	if (c < 0)
		die("fork");
	if (c == 0) {
		setpgid(0, 0);
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(s, getpid());
		signal(SIGTTOU, SIG_DFL);
		close(m);
		close(st);
		if (dup2(s, 0) < 0 || dup2(s, 1) < 0 || dup2(s, 2) < 0)
			die("dup2");
		if (s > 2)
			close(s);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	setpgid(c, c);
	close(s);
	int wst, ret;
	while (waitpid(c, &wst, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	ret = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	if (write(st, &ret, sizeof(ret)) != sizeof(ret))
		die("status");
	close(st);
	relay(m);
	_exit(0);
}

int main(int argc, char **argv)
{
	int p[2], ret = 127;
	if (argc < 2) {
		fprintf(stderr, "usage: zdtm_pty CMD ARGS...\n");
		return 2;
	}
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) || unlockpt(m) || pipe2(p, O_CLOEXEC))
		die("posix_openpt");
	fflush(NULL);
	pid_t l = fork();
	if (l < 0)
		die("fork");
	if (l == 0) {
		close(p[0]);
		leader(m, ptsname(m), p[1], argv + 1);
	}
	close(p[1]);
	close(m);
	while (read(p[0], &ret, sizeof(ret)) < 0 && errno == EINTR)
		;
	return ret;
}
