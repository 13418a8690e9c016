/* Seccomp mode and filters of a thread: read at dump (PTRACE_SECCOMP_GET_FILTER), installed again by the
 * restored task before it enters the blob (it is traced with PTRACE_O_SUSPEND_SECCOMP until it runs). */
#ifndef CRSHIM_SECCOMP_H
#define CRSHIM_SECCOMP_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "seccomp.pb-c.h"

/* The seccomp state of thread tid (stopped, seized) in mode (the Seccomp field of its status, read once it
 * was stopped; 0: none); *out is NULL if it has none. */
int dump_seccomp(pid_t tid, int mode, SeccompEntry **out, struct cr_err *e);
/* 0 if a thread's state equals its leader's (both may be NULL). */
int dump_seccomp_same(const SeccompEntry *a, const SeccompEntry *b);
void dump_seccomp_free(SeccompEntry *s);
/* Restore side, in the task itself: install s (strict mode, or its first n filters oldest first). -1 and
 * errno. */
int rst_seccomp_install(const SeccompEntry *s, size_t n, const char **what);
/* How many of the leader's filters (lead) each of the n threads (their seccomp states: th[i]) has too, the
 * same and in the same order: the restoring child installs those, the blob the rest of each thread's. */
size_t rst_seccomp_common(const SeccompEntry *lead, const SeccompEntry *const *th, size_t n);
/* A filter installed in the blob: its length, flags and instructions. */
const SeccompFilterEntry *rst_seccomp_filter(const SeccompEntry *s, size_t i);

#endif
