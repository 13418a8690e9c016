/* Seccomp at dump and restore (see seccomp.h). */
#define LOG_PREFIX "seccomp: "
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "base/caps.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "task/seccomp.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif
#ifndef PTRACE_SECCOMP_GET_METADATA
#define PTRACE_SECCOMP_GET_METADATA 0x420d
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif

#define SECCOMP_MAX_FILTERS 512 /* the kernel's limit on instructions in a chain is 32768 */

static int read_filter(pid_t tid, long idx, SeccompFilterEntry *fe, struct cr_err *e)
{
	long n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)idx, NULL);
	if (n <= 0)
		return cr_fail_sys(e, "thread %d: PTRACE_SECCOMP_GET_FILTER %ld", tid, idx);
	struct sock_filter *insns = calloc((size_t)n, sizeof(*insns));
	if (!insns)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)idx, insns) != n) {
		free(insns);
		return cr_fail_sys(e, "thread %d: PTRACE_SECCOMP_GET_FILTER %ld", tid, idx);
	}
	fe->insns = (ProtobufCBinaryData){(size_t)n * sizeof(*insns), (uint8_t *)insns}, fe->has_insns = 1;
	struct {
		uint64_t filter_off, flags;
	} md = {(uint64_t)idx, 0};
	if (ptrace(PTRACE_SECCOMP_GET_METADATA, tid, (void *)sizeof(md), &md) < 0)
		md.flags = 0; /* an old kernel: no flags to tell */
	fe->flags = md.flags, fe->has_flags = 1;
	return 0;
}

static int read_filters(pid_t tid, SeccompEntry *s, struct cr_err *e)
{
	long n = 0;
	while (n < SECCOMP_MAX_FILTERS && ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)n, NULL) > 0)
		n++;
	if (n == 0 && (errno == EACCES || errno == EPERM) && !cr_has_cap(CAP_SYS_ADMIN))
		return cr_fail_errno(
		    e, errno,
		    "thread %d: reading its seccomp filters (PTRACE_SECCOMP_GET_FILTER) needs "
		    "CAP_SYS_ADMIN, which crshim lacks",
		    tid);
	if (n == 0)
		return cr_fail_sys(e, "thread %d: no seccomp filter can be read (PTRACE_SECCOMP_GET_FILTER)",
				   tid);
	if (n == SECCOMP_MAX_FILTERS)
		return cr_fail(e, "thread %d: more than %d seccomp filters", tid, SECCOMP_MAX_FILTERS);
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	s->filters = calloc((size_t)n, sizeof(*s->filters));
	if (!s->filters)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (long i = 0; i < n; i++) { /* index 0 is the newest: the image keeps them oldest first */
		SeccompFilterEntry *fe = calloc(1, sizeof(*fe));
		if (!fe)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		seccomp_filter_entry__init(fe);
		s->filters[s->n_filters++] = fe;
		if (read_filter(tid, n - 1 - i, fe, e))
			return -1;
	}
	return 0;
}

int dump_seccomp(pid_t tid, int mode, SeccompEntry **out, struct cr_err *e)
{
	*out = NULL;
	if (mode <= 0)
		return 0;
	if (mode != SECCOMP_MODE_STRICT && mode != SECCOMP_MODE_FILTER)
		return cr_fail(e, "thread %d: unknown seccomp mode %d", tid, mode);
	SeccompEntry *s = calloc(1, sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	seccomp_entry__init(s);
	s->mode = (uint32_t)mode, s->has_mode = 1;
	if (mode == SECCOMP_MODE_FILTER && read_filters(tid, s, e)) {
		dump_seccomp_free(s);
		return cr_wrap(e, "seccomp");
	}
	pr_info("thread %d: seccomp mode %d, %zu filters\n", tid, mode, s->n_filters);
	*out = s;
	return 0;
}

static bool same_filter(const SeccompFilterEntry *x, const SeccompFilterEntry *y)
{
	return x->flags == y->flags && x->insns.len == y->insns.len &&
	       !memcmp(x->insns.data, y->insns.data, x->insns.len);
}

int dump_seccomp_same(const SeccompEntry *a, const SeccompEntry *b)
{
	if (!a || !b)
		return a == b ? 0 : -1;
	if (a->mode != b->mode || a->n_filters != b->n_filters)
		return -1;
	for (size_t i = 0; i < a->n_filters; i++)
		if (!same_filter(a->filters[i], b->filters[i]))
			return -1;
	return 0;
}

static size_t nr_filters(const SeccompEntry *s)
{
	return s && s->has_mode && s->mode == SECCOMP_MODE_FILTER ? s->n_filters : 0;
}

size_t rst_seccomp_common(const SeccompEntry *lead, const SeccompEntry *const *th, size_t n)
{
	size_t k = nr_filters(lead);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0, m = nr_filters(th[i]);
		while (j < k && j < m && same_filter(lead->filters[j], th[i]->filters[j]))
			j++;
		k = j;
	}
	return k;
}

const SeccompFilterEntry *rst_seccomp_filter(const SeccompEntry *s, size_t i)
{
	return i < nr_filters(s) ? s->filters[i] : NULL;
}

void dump_seccomp_free(SeccompEntry *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_filters; i++) {
		if (s->filters[i])
			free(s->filters[i]->insns.data);
		free(s->filters[i]);
	}
	free(s->filters);
	free(s);
}

int rst_seccomp_install(const SeccompEntry *s, size_t n, const char **what)
{
	if (!s || !s->has_mode)
		return 0;
	if (s->mode == SECCOMP_MODE_STRICT) {
		*what = "prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT)";
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	}
	*what = "seccomp(SECCOMP_SET_MODE_FILTER)";
	if (s->mode != SECCOMP_MODE_FILTER) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < s->n_filters && i < n; i++) {
		const SeccompFilterEntry *f = s->filters[i];
		struct sock_fprog prog = {.len = (unsigned short)(f->insns.len / sizeof(struct sock_filter)),
					  .filter = (struct sock_filter *)f->insns.data};
		if (!prog.len || f->insns.len % sizeof(struct sock_filter) || f->insns.len > 0xffff * 8) {
			errno = EINVAL;
			return -1;
		}
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    (unsigned long)(f->flags & SECCOMP_FILTER_FLAG_LOG), &prog))
			return -1;
	}
	return 0;
}
