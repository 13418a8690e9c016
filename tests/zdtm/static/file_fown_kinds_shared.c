/* O_ASYNC with F_SETSIG and an owner on files of several kinds, each held by two processes (a fork after
 * they were set up): a FIFO (fd 50), a unix datagram socket (51, its peer 61), a UDP socket (52), an
 * inotify instance watching a file (53) and the read end of a pipe (54, its write end 64). Each got its
 * owner (the test), a signal of its own (SIGRTMIN+3) and O_ASYNC through its number. After restore each is
 * as before, and an event on each (a write to the FIFO or the pipe, a datagram to the sockets, a change to
 * the watched file) raises SIGRTMIN+3 in the test with si_fd naming that fd: the kernel reports the number
 * O_ASYNC was set through, so whoever makes the file at restore must leave O_ASYNC to the process holding
 * it (before c2c5e89 the pipe, made once by crshim for its two holders, named crshim's fd). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { FIFO = 50, UX = 51, UDP = 52, INO = 53, PIPE = 54, UX_PEER = 61, PIPE_W = 64 };
static const int fds[] = {FIFO, UX, UDP, INO, PIPE};
static volatile sig_atomic_t got_fd;

static void on_io(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got_fd = si->si_fd;
}

static void at(int fd, int want, const char *what)
{
	if (fd < 0 || (fd != want && (dup2(fd, want) != want || close(fd))))
		fail("%s at fd %d", what, want);
}

static void arm(int fd)
{
	struct f_owner_ex o = {.type = F_OWNER_PID, .pid = getpid()};
	if (fcntl(fd, F_SETOWN_EX, &o) || fcntl(fd, F_SETSIG, SIGRTMIN + 3) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC | O_NONBLOCK))
		fail("fd %d: owner, signal, O_ASYNC", fd);
}

/* an event on fd; the signal must name it */
static void poke(int fd, const struct sockaddr_in *ua)
{
	int r = 0;
	got_fd = -1;
	if (fd == FIFO)
		r = write(FIFO, "x", 1) == 1;
	else if (fd == UX)
		r = write(UX_PEER, "x", 1) == 1;
	else if (fd == UDP)
		r = sendto(UDP, "x", 1, 0, (const struct sockaddr *)ua, sizeof(*ua)) == 1;
	else if (fd == INO)
		r = chmod("watched", 0640) == 0;
	else if (fd == PIPE)
		r = write(PIPE_W, "x", 1) == 1;
	if (!r)
		fail("fd %d: make an event", fd);
	for (int i = 0; i < 2000 && got_fd != fd; i++)
		usleep(1000);
	if (got_fd != fd)
		fail("fd %d: no SIGRTMIN+3 naming it after an event (si_fd %d)", fd, (int)got_fd);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_sigaction = on_io, .sa_flags = SA_SIGINFO};
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t ul = sizeof(ua);
	int sp[2];

	test_init(argc, argv);
	if (sigaction(SIGRTMIN + 3, &sa, NULL) || mkfifo("f.fifo", 0600) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) || close(open("watched", O_CREAT | O_WRONLY, 0600)))
		fail("setup");
	pipe_at(PIPE, PIPE_W, 0);
	at(open("f.fifo", O_RDWR), FIFO, "fifo");
	at(sp[0], UX, "unix socket");
	at(sp[1], UX_PEER, "its peer");
	at(socket(AF_INET, SOCK_DGRAM, 0), UDP, "udp socket");
	if (bind(UDP, (struct sockaddr *)&ua, sizeof(ua)) || getsockname(UDP, (struct sockaddr *)&ua, &ul))
		fail("bind");
	at(inotify_init1(0), INO, "inotify");
	if (inotify_add_watch(INO, "watched", IN_ATTRIB) < 0)
		fail("inotify_add_watch");
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		arm(fds[i]);
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) { /* holds them all, as the test does */
		usr1_wait();
		_exit(0);
	}
	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		struct f_owner_ex o;
		if (fcntl(fds[i], F_GETOWN_EX, &o) || o.type != F_OWNER_PID || o.pid != getpid() ||
		    fcntl(fds[i], F_GETSIG) != SIGRTMIN + 3 || !(fcntl(fds[i], F_GETFL) & O_ASYNC))
			fail("fd %d: owner, signal or O_ASYNC changed", fds[i]);
		poke(fds[i], &ua);
	}
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "");
	return test_pass();
}
