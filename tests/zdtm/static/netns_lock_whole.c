/* The lock of the tree's whole network namespace (CRIU's netns_lock_* zdtm tests): the test, in a network
 * namespace of its own, starts a watcher outside its tree (double fork: reparented to the runner's reaper)
 * that stays in that namespace with a listener of its own. The watcher looks for the gap between the dump
 * and the restore (the test's pid gone) and then tries to connect to its own listener: the namespace is
 * locked, so the SYN must be dropped (a timeout), not accepted. It writes what it saw into RESFILE, which the
 * test reads at the end; without a gap (not restored, or the watcher died with a PID namespace) there is
 * nothing to check. Before: crshim locked only the tree's own TCP connections and the watcher connected. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ns_world.h"

#define RESFILE "netns_lock_whole.res"

/* A non-blocking connect to s waited for ms: 1 connected, 0 timed out, -1 another error (refused). */
static int try_connect(const struct sockaddr_in *s, int ms)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	int r = connect(fd, (const struct sockaddr *)s, sizeof(*s));
	if (r && errno == EINPROGRESS) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int err = 0;
		socklen_t l = sizeof(err);
		r = poll(&p, 1, ms);
		if (r == 0) {
			close(fd);
			return 0;
		}
		r = r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err ? -1 : 0;
	}
	close(fd);
	return r ? -1 : 1;
}

/* Is the test gone, or a zombie (killed by the dump, not yet restored)? */
static bool gone(pid_t pid)
{
	char p[64], b[256];
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	b[n > 0 ? n : 0] = '\0';
	const char *e = strrchr(b, ')');
	return !e || e[1] != ' ' || e[2] == 'Z' || e[2] == 'X';
}

static void watcher(pid_t test, int lfd, const struct sockaddr_in *s)
{
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 1024; fd++) /* nothing of the runner's held: it waits for the ends of pipes */
		if (fd != lfd)
			fd < 3 ? dup2(null, fd) : close(fd);
	for (int i = 0; i < 60000; i++) {
		if (gone(test)) { /* dumped and killed, not yet restored */
			close(open(RESFILE ".gap", O_WRONLY | O_CREAT,
				   0600)); /* the test waits for the result */
			int r = try_connect(s, 300);
			int fd = open(RESFILE ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
			dprintf(fd, "%s\n", r == 0 ? "LOCKED" : r > 0 ? "CONNECTED" : "REFUSED");
			close(fd);
			rename(RESFILE ".tmp", RESFILE);
			break;
		}
		usleep(1000);
	}
	close(lfd);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(s);
	int pp[2];
	test_init(argc, argv);
	unlink(RESFILE);
	unlink(RESFILE ".gap");
	nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 8) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l) || pipe(pp))
		fail("listener");
	if (try_connect(&s, 1000) != 1)
		fail("no connection to the listener before the dump");
	pid_t me = getpid(), c = fork();
	if (c < 0)
		fail("fork");
	if (c == 0) {
		setsid();
		pid_t w = fork();
		if (w == 0)
			watcher(me, lfd, &s);
		if (write(pp[1], &w, sizeof(w)) != sizeof(w))
			_exit(1);
		_exit(0);
	}
	close(lfd);
	pid_t w = -1;
	if (waitpid(c, NULL, 0) != c || read(pp[0], &w, sizeof(w)) != sizeof(w) || w <= 0)
		fail("watcher");
	close(pp[0]), close(pp[1]);

	test_daemon();
	test_waitsig();

	char res[32] = "";
	for (int i = 0; i < 300 && !access(RESFILE ".gap", F_OK) && access(RESFILE, F_OK); i++)
		usleep(10000);
	FILE *f = fopen(RESFILE, "r");
	if (f && !fgets(res, sizeof(res), f))
		res[0] = '\0';
	if (f)
		fclose(f);
	kill(w, SIGKILL);
	unlink(RESFILE);
	unlink(RESFILE ".gap");
	if (res[0] && strcmp(res, "LOCKED\n"))
		fail("a client in the tree's network namespace, outside the tree, got %.*s while it was "
		     "dumped "
		     "(want: its SYN dropped, a timeout)",
		     (int)strcspn(res, "\n"), res);
	test_msg("watcher: %s\n", res[0] ? res : "no gap seen (not restored)\n");
	pass();
	return 0;
}
