/* demo-counter: the program that `make demo` checkpoints and restores.
 *
 * Usage: demo-counter LOGFILE
 *
 * Counts up by one about every 0.2 s and appends one line per step to LOGFILE:
 *     12:04:05.412 pid 4242 counter 17
 * The counter lives only in this process's memory, so a restore that continues the numbering (rather than
 * starting again at 1) shows that the memory, registers and the open log file came back as they were. It
 * never reads stdin and writes nothing to stdout/stderr: start it detached (setsid) with stdio on /dev/null.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* close_range */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whatever the starting shell leaked (pipes, sockets, ...) is not ours: keep only stdin, stdout and stderr,
 * so the checkpoint sees only the files this program opened itself. */
static void close_inherited_fds(void)
{
	if (close_range(3, ~0U, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
}

static void sleep_200ms(void)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 200 * 1000 * 1000};

	/* A checkpoint may interrupt the sleep: sleep what is left. */
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int log_line(int fd, unsigned long counter)
{
	char line[128];
	struct timespec now;
	struct tm tm;
	int n;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%02d:%02d:%02d.%03ld pid %d counter %lu\n", tm.tm_hour, tm.tm_min,
		     tm.tm_sec, now.tv_nsec / 1000000, (int)getpid(), counter);
	return write(fd, line, (size_t)n) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long counter = 0;
	int fd;

	close_inherited_fds();
	if (argc != 2) {
		fprintf(stderr, "usage: %s LOGFILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "demo-counter: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (;;) {
		counter++;
		if (log_line(fd, counter) < 0)
			return 1;
		sleep_200ms();
	}
}
