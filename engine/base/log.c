/* Logging: one file per operation, timestamps, levels 0-4, file:line on errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"

static FILE *log_f;
static int log_lvl = LOG_WARN;
static char log_name[4096];
static struct timespec log_t0;
static int log_pid_tag;

int log_open(const char *path, int level)
{
	log_lvl = level;
	clock_gettime(CLOCK_MONOTONIC, &log_t0);
	if (log_f && log_f != stderr)
		fclose(log_f);
	log_f = NULL;
	if (!path || !strcmp(path, "-")) {
		log_f = stderr;
		snprintf(log_name, sizeof(log_name), "stderr");
		return 0;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	log_f = fdopen(fd, "w");
	if (!log_f) {
		close(fd);
		return -1;
	}
	setvbuf(log_f, NULL, _IOLBF, 0);
	if (!realpath(path, log_name))
		snprintf(log_name, sizeof(log_name), "%s", path);
	return 0;
}

void log_close(void)
{
	if (log_f && log_f != stderr)
		fclose(log_f);
	log_f = NULL;
}

void log_drop(void)
{
	log_f = NULL; /* (not closed: the fd goes with the others, and stderr is the program's) */
}

int log_level(void)
{
	return log_lvl;
}

const char *log_path(void)
{
	return log_name[0] ? log_name : "stderr";
}

void log_set_pid_tag(int pid)
{
	log_pid_tag = pid;
}

void log_printf(int level, const char *file, int line, const char *fmt, ...)
{
	/* Errors always reach the log file, whatever the level: the user is pointed there. */
	if (level > log_lvl && level != LOG_ERROR)
		return;
	FILE *f = log_f ? log_f : stderr;
	if (!log_f && level > LOG_ERROR)
		return;
	if (!log_f)
		return; /* no log opened yet: the caller reports through its error object */
	int saved = errno;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double t = (double)(now.tv_sec - log_t0.tv_sec) + (double)(now.tv_nsec - log_t0.tv_nsec) / 1e9;
	static const char *tags[] = {"", "Error ", "Warn ", "", ""};
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "(%9.6f) %5d: %s", t, log_pid_tag ? log_pid_tag : (int)getpid(),
			 tags[level < 0 || level > 4 ? 0 : level]);
	if (level == LOG_ERROR && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "(%s:%d) ", file, line);
	va_list ap;
	va_start(ap, fmt);
	if (n < (int)sizeof(buf))
		vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	fputs(buf, f);
	size_t l = strlen(buf);
	if (l && buf[l - 1] != '\n')
		fputc('\n', f);
	fflush(f);
	errno = saved;
}
