/* The nice value of a session's autogroup (/proc/self/autogroup): 7 for the test's session, 3 for a child's
 * session of its own: the same after restore, where each restored session gets a new autogroup (before: nice
 * 0 in both, without a word). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static long ag_nice(void)
{
	char *b = NULL;
	long v = -100;
	if (read_file("/proc/self/autogroup", &b) > 0 && strstr(b, " nice "))
		v = strtol(strstr(b, " nice ") + 6, NULL, 10);
	free(b);
	return v;
}

/* (without CAP_SYS_ADMIN, one change in the whole system each 100 ms: EAGAIN) */
static int ag_set(const char *v)
{
	for (int i = 0; i < 50; i++, usleep(50000)) {
		int fd = open("/proc/self/autogroup", O_WRONLY);
		ssize_t n = fd < 0 ? -1 : write(fd, v, strlen(v));
		if (fd >= 0)
			close(fd);
		if (n == (ssize_t)strlen(v))
			return 0;
		if (errno != EAGAIN)
			return -1;
	}
	return -1;
}

static void child(int go, int done, void *arg)
{
	char c;
	(void)arg;
	if (setsid() < 0 || ag_set("3") || ag_nice() != 3) {
		test_msg("child: setsid or autogroup: %m (nice %ld)\n", ag_nice());
		_exit(2);
	}
	if (write(done, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	_exit(ag_nice() == 3 ? 0 : 4);
}

int main(int argc, char **argv)
{
	int go, done, st;

	test_init(argc, argv);
	if (ag_set("7") || ag_nice() != 7) {
		fail("set the autogroup's nice value");
		return 1;
	}
	pid_t pid = fork_talker_ready(child, NULL, &go, &done);
	if (pid < 0)
		return 1;
	test_daemon();
	test_waitsig();

	if (ag_nice() != 7)
		fail("autogroup nice %ld, want 7", ag_nice());
	if ((st = talker_end(pid, go)))
		fail("child: its autogroup's nice value lost (status %#x)", st);
	pass();
	return 0;
}
