/* Per-run options (no globals). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "crshim.h"
#define LOG_PREFIX ""
#include "base/log.h"

void eng_opts_init(struct cr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->imgdir_fd = -1;
	o->lazy_src_sk = -1;
	o->verbosity = 2;
	o->ghost_limit = 1ull << 20;
}

void eng_notice(const struct cr_opts *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pr_warn("%s\n", line);
	if (o && o->notice)
		o->notice(o->notice_arg, line);
}

int eng_notify(const struct cr_opts *o, const char *script, pid_t pid, int fd, struct cr_err *err)
{
	if (!o || !o->notify)
		return 0;
	pr_info("notify %s (pid %d)\n", script, (int)pid);
	if (o->notify(o->notify_arg, script, pid, fd))
		return cr_fail_errno(err, ECANCELED, "notification %s: the RPC client failed it", script);
	return 0;
}

uint64_t cr_us_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t us = (int64_t)(t1.tv_sec - t0->tv_sec) * 1000000 + (t1.tv_nsec - t0->tv_nsec) / 1000;
	return us > 0 ? (uint64_t)us : 0;
}
