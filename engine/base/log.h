/* Logging: levels 0-4 (-v), one log file per operation, timestamps, file:line on errors.
 * A file sets `#define LOG_PREFIX "mm: "` before including this header. */
#ifndef CRSHIM_LOG_H
#define CRSHIM_LOG_H

#include <stdio.h>
#include <sys/types.h>

enum { LOG_MSG = 0, LOG_ERROR = 1, LOG_WARN = 2, LOG_INFO = 3, LOG_DEBUG = 4 };

#ifndef LOG_PREFIX
#define LOG_PREFIX ""
#endif

/* Open the log (path NULL or "-" = stderr). Level is -v N (default 2). */
int log_open(const char *path, int level);
void log_close(void);
/* A restored process whose fd table becomes the program's (engine/files/restore-files.c): nothing more goes
 * to the log from it (its fd number may be one of the program's fds by then); its errors go to crshim. */
void log_drop(void);
int log_level(void);
const char *log_path(void);
/* After fork in a child that must not share buffered state. */
void log_set_pid_tag(int pid);
void log_printf(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

struct cr_opts;
/* A warning for the log and, through o->notice, for the user (opts.c). */
void eng_notice(const struct cr_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct cr_err;
/* Notify the RPC client (o->notify) of step script; -1 with err set if it refused. No-op without a client. */
int eng_notify(const struct cr_opts *o, const char *script, pid_t pid, int fd, struct cr_err *err);

#define pr_err(fmt, ...) log_printf(LOG_ERROR, __FILE__, __LINE__, LOG_PREFIX fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) log_printf(LOG_WARN, __FILE__, __LINE__, LOG_PREFIX fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) log_printf(LOG_INFO, __FILE__, __LINE__, LOG_PREFIX fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) log_printf(LOG_DEBUG, __FILE__, __LINE__, LOG_PREFIX fmt, ##__VA_ARGS__)

#endif
