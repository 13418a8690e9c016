/* A tiny TAP producer for unit tests: ok(cond, fmt, ...), diag(fmt, ...), done_testing(). */
#ifndef CRSHIM_TAP_H
#define CRSHIM_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;
/* While set, results are TODO (known bugs): printed with "# TODO reason", failures not counted. */
static const char *tap_todo;

static inline __attribute__((format(printf, 4, 5))) int tap_ok(int cond, const char *file, int line,
							       const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (tap_todo)
		printf(" # TODO %s", tap_todo);
	printf("\n");
	if (!cond) {
		tap_failed += !tap_todo;
		printf("#   Failed test at %s line %d.\n", file, line);
	}
	fflush(stdout);
	return cond;
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Remove the test's work dir (rm -rf), a diag line when that fails. */
static inline void tap_rm_dir(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
}

/* Print the plan; the exit status of the test program. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(a, b, name)                                                                                   \
	({                                                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);                                          \
		int _r = ok(_a == _b, "%s", name);                                                           \
		if (!_r)                                                                                     \
			diag("  got %lld, expected %lld", _a, _b);                                           \
		_r;                                                                                          \
	})
#define is_str(a, b, name)                                                                                   \
	({                                                                                                   \
		const char *_a = (a), *_b = (b);                                                             \
		int _r = ok(_a && _b && !strcmp(_a, _b), "%s", name);                                        \
		if (!_r)                                                                                     \
			diag("  got '%s', expected '%s'", _a ? _a : "(null)", _b ? _b : "(null)");           \
		_r;                                                                                          \
	})
#define like(s, sub, name)                                                                                   \
	({                                                                                                   \
		const char *_s = (s), *_u = (sub);                                                           \
		int _r = ok(_s && strstr(_s, _u), "%s", name);                                               \
		if (!_r)                                                                                     \
			diag("  '%s' does not contain '%s'", _s ? _s : "(null)", _u);                        \
		_r;                                                                                          \
	})

#endif
