/* Error objects (see err.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/err.h"
#include "base/log.h"

int cr_fail_at(struct cr_err *e, int errnum, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	if (!e)
		return -1;
	e->errnum = errnum;
	e->file = file;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (errnum)
		log_printf(LOG_ERROR, file, line, "%s: %s\n", e->msg, strerror(errnum));
	else
		log_printf(LOG_ERROR, file, line, "%s\n", e->msg);
	errno = saved;
	return -1;
}

int(cr_wrap)(struct cr_err *e, const char *fmt, ...)
{
	char ctx[512], old[sizeof(e->msg)];
	va_list ap;
	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	size_t n = strnlen(ctx, sizeof(ctx) - 1);
	if (n + 2 >= sizeof(e->msg))
		n = sizeof(e->msg) - 3;
	memcpy(e->msg, ctx, n);
	memcpy(e->msg + n, ": ", 2);
	size_t rest = sizeof(e->msg) - n - 3;
	size_t ol = strnlen(old, rest);
	memcpy(e->msg + n + 2, old, ol);
	e->msg[n + 2 + ol] = '\0';
	return -1;
}

void cr_err_clear(struct cr_err *e)
{
	memset(e, 0, sizeof(*e));
}

const char *cr_err_str(const struct cr_err *e, char *buf, size_t len)
{
	if (e->errnum)
		snprintf(buf, len, "%s: %s", e->msg[0] ? e->msg : "error", strerror(e->errnum));
	else
		snprintf(buf, len, "%s", e->msg[0] ? e->msg : "unknown error");
	return buf;
}

int rst_errmsg(char *msg, size_t len, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	if (saved && n >= 0 && (size_t)n < len)
		snprintf(msg + n, len - (size_t)n, ": %s", strerror(saved));
	return -1;
}
