/* No log line of the restore lands in a restored fd: every free fd number from 3 to 99 of the test is a
 * write-only fd of one empty file (sink.data), in the test, in a forked child (a copy of the table) and in a
 * child made with clone(CLONE_FILES) (the test's table), so that whatever number crshim's log had, a restored
 * process that writes to its log after its fd table was rebuilt writes into that file. The forked child has a
 * UDP socket of its own (fd 110) with a datagram queued, which it puts back once its fds are open, with a
 * debug line ("queued datagrams put back", engine/net/sk-inet-queue.c). After C/R (the runner logs with -v4)
 * the file is still empty, every fd is still there and the child reads the datagram. Before: that line went
 * into sink.data. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define TOP 99
#define UDP 110

static int empty(void)
{
	struct stat st;
	return fstat(TOP, &st) || st.st_size != 0;
}

/* The forked child's UDP socket with a datagram queued, at fd UDP. */
static int udp_queued(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &al) || dup2(rx, UDP) != UDP ||
	    sendto(tx, "queued", 6, 0, (struct sockaddr *)&a, sizeof(a)) != 6)
		return -1;
	close(rx);
	close(tx);
	return 0;
}

/* Every free number from 3 to TOP a copy of fd TOP (sink.data). */
static int fill(void)
{
	int n = 0;
	for (int i = 3; i < TOP; i++)
		if (fcntl(i, F_GETFD) < 0) {
			if (dup2(TOP, i) != i)
				return -1;
			n++;
		}
	return n;
}

static int child(int ready)
{
	char buf[16] = "";
	/* (the numbers of the test's ready pipe, closed here: test_forked) */
	if (udp_queued() || fill() < 0 || write(ready, "r", 1) != 1)
		return 2;
	usr1_wait();
	if (recv(UDP, buf, sizeof(buf) - 1, MSG_DONTWAIT) != 6 || strcmp(buf, "queued"))
		return 3;
	return empty();
}

int main(int argc, char **argv)
{
	int p[2];
	char c;
	test_init(argc, argv);
	int fd = open("sink.data", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		fail("open sink.data");
		return 1;
	}
	if (fd != TOP && (dup2(fd, TOP) != TOP || close(fd))) {
		fail("dup2 to %d", TOP);
		return 1;
	}
	int n = fill();
	if (n < 0) {
		fail("fill the fd table");
		return 1;
	}
	usr1_block();
	if (pipe(p) || p[0] < TOP) {
		fail("pipe");
		return 1;
	}
	pid_t ch = test_fork();
	if (ch == 0) {
		close(p[0]);
		_exit(child(p[1]));
	}
	close(p[1]);
	if (ch < 0 || read(p[0], &c, 1) != 1) {
		fail("the forked child's setup");
		return 1;
	}
	close(p[0]);
	pid_t sh = files_sharer_start(NULL, empty);
	if (sh < 0)
		return 1;
	bool there[TOP + 1];
	test_daemon(); /* (it closes its ready pipe) */
	for (int i = 0; i <= TOP; i++)
		there[i] = fcntl(i, F_GETFD) >= 0;
	test_waitsig();
	struct stat st;
	if (fstat(TOP, &st) || st.st_size != 0)
		fail("sink.data has %lld bytes: a log line went into a restored fd", (long long)st.st_size);
	for (int i = 3; i <= TOP; i++)
		if (there[i] && fcntl(i, F_GETFD) < 0)
			fail("fd %d is gone", i);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: sink.data not empty, 2: setup, 3: the queued datagram");
	files_sharer_end(sh, "1: sink.data not empty");
	test_msg("%d fds of sink.data\n", n);
	return test_pass();
}
