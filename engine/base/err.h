/* Error objects: a failing function returns < 0 (or NULL) and fills a caller's struct cr_err.
 * Callers add context as the error travels up ("restore task 42: map vma 0x7f..: ENOMEM"). */
#ifndef CRSHIM_ERR_H
#define CRSHIM_ERR_H

#include <stddef.h>

struct cr_err {
	int errnum;	  /* errno value of the root cause, 0 if none */
	const char *file; /* where the root cause was detected */
	int line;
	char msg[1024]; /* "context: context: cause" */
};

/* Set the error (overwrites). Returns -1 so that `return cr_fail(...)` works. */
int cr_fail_at(struct cr_err *e, int errnum, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Prepend context to an existing error. Returns -1. */
int cr_wrap(struct cr_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clear. */
void cr_err_clear(struct cr_err *e);
/* One line for the user: "msg: strerror(errnum)" (errnum appended only if not already in msg). */
const char *cr_err_str(const struct cr_err *e, char *buf, size_t len);

/* -1, visibly to the compiler and the static analyzers in the caller's file (they cannot see into err.c and
 * would otherwise assume `return cr_fail(...)` may return 0, and report uninitialized out-parameters). */
static inline int cr_failed_(int ret)
{
	(void)ret;
	return -1;
}

/* Fail with errno set by the failed call. */
#define cr_fail(e, ...) cr_failed_(cr_fail_at((e), 0, __FILE__, __LINE__, __VA_ARGS__))
#define cr_fail_errno(e, err, ...) cr_failed_(cr_fail_at((e), (err), __FILE__, __LINE__, __VA_ARGS__))
#define cr_fail_sys(e, ...) cr_failed_(cr_fail_at((e), errno, __FILE__, __LINE__, __VA_ARGS__))
#define cr_wrap(e, ...) cr_failed_(cr_wrap((e), __VA_ARGS__))

/* The restore child (no struct cr_err there) reports errors as text for the error pipe: msg = the formatted
 * text + ": strerror(errno)" if errno is set. Returns -1. Every child-side step (restore-files.c and each fd
 * kind) reports this way. */
int rst_errmsg(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
