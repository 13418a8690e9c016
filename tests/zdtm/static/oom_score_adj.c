/* /proc/self/oom_score_adj (one value in the parent, another in a child) comes back after restore. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static void set_adj(int v)
{
	char buf[16];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%d", v);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		fail("write oom_score_adj %d", v);
	if (fd >= 0)
		close(fd);
}

static int get_adj(pid_t pid)
{
	char path[64], *s = NULL;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	if (read_file(path, &s) < 0)
		return -10000;
	int v = atoi(s);
	free(s);
	return v;
}

int main(int argc, char **argv)
{
	int p[2];
	test_init(argc, argv);
	set_adj(123);
	if (pipe(p))
		fail("pipe");
	pid_t ch = fork();
	if (ch == 0) {
		char c;
		test_forked();
		set_adj(456);
		close(p[1]);
		read(p[0], &c, 1);
		_exit(get_adj(getpid()) == 456 ? 0 : 1);
	}
	close(p[0]);
	while (get_adj(ch) != 456)
		usleep(1000);
	test_daemon();
	test_waitsig();
	if (get_adj(getpid()) != 123)
		fail("oom_score_adj %d after restore, want 123", get_adj(getpid()));
	if (get_adj(ch) != 456)
		fail("child: oom_score_adj %d after restore, want 456", get_adj(ch));
	close(p[1]);
	child_exit_ok(ch, NULL);
	return test_pass();
}
